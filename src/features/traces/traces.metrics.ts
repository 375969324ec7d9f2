import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../db/dialect.js';
import { sqliteHandle } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import {
  Accumulator,
  type Aggregate,
  aggregateOf,
  postgresAggregates,
  bucketStart,
  bucketStarts,
  emptyAggregate,
  metricsGroups,
  metricValues,
  type RunFilters,
} from '../query/index.js';
import { tracesMatching } from './traces.repo.js';

export interface TraceMetricsInput {
  projectId: string;
  /** The traces list's filters; the window bounds the trace's start (with `startedAfter`/`startedBefore`, if given, too). */
  filters: RunFilters;
  from: number;
  to: number;
  bucketMs: number | null;
}

/**
 * Traces counted by their start over `[from, to)`: the traces list's own selection (`tracesMatching`),
 * so a count equals the number of traces a walk of the list with the same filters and window returns;
 * the tokens and cost of all of each trace's runs (its rollup, not its root run's own); latency
 * percentiles (nearest-rank) over the traces whose runs have all ended, from the first start to the
 * last end. A trace is an error when one of its runs failed.
 */
export async function traceMetrics(db: Kysely<Database>, dialect: Dialect, input: TraceMetricsInput) {
  const { query } = await tracesMatching(db, dialect, input.projectId, input.filters);
  const windowed = query.where('traces.start_time', '>=', input.from).where('traces.start_time', '<', input.to);
  const { cells, total } = dialect === 'postgres' ? await onPostgres(windowed, input) : onSqlite(db, windowed, input);
  const starts = bucketStarts(input.from, input.to, input.bucketMs);
  const groups = metricsGroups(cells, starts, false, (cell) => metricValues(cell ?? emptyAggregate()));
  return { from: toIso(input.from), to: toIso(input.to), groups, total: metricValues(total) };
}

type Matching = Awaited<ReturnType<typeof tracesMatching>>['query'];
type Cell = Aggregate & { bucket: number; group: null };

/** SQLite: one synchronous pass over the window's traces as raw arrays, bucketed and ranked here (as the runs metrics do). */
function onSqlite(db: Kysely<Database>, query: Matching, input: TraceMetricsInput): { cells: Cell[]; total: Aggregate } {
  const compiled = query
    .select([
      'traces.start_time as t',
      sql<number>`traces.error_count > 0`.as('e'),
      sql<number | null>`case when traces.running_count = 0 then traces.end_time - traces.start_time end`.as('l'),
      'traces.total_tokens as k',
      'traces.cost as c',
    ])
    .compile();
  const handle = sqliteHandle(db);
  if (!handle) throw new Error('traceMetrics needs a SQLite database on SQLite');
  const rows = handle
    .prepare(compiled.sql)
    .raw(true)
    .iterate(...(compiled.parameters as unknown[])) as IterableIterator<[number, number, number | null, number | null, number | null]>;
  const buckets = new Map<number, Accumulator>();
  const total = new Accumulator();
  for (const [t, e, l, k, c] of rows) {
    const bucket = input.bucketMs === null ? input.from : bucketStart(t, input.bucketMs);
    let acc = buckets.get(bucket);
    if (!acc) buckets.set(bucket, (acc = new Accumulator()));
    acc.add(e === 1, l, k, c);
    total.add(e === 1, l, k, c);
  }
  return { cells: [...buckets].map(([bucket, acc]) => ({ bucket, group: null, ...acc.result() })), total: total.result() };
}

/** PostgreSQL: the aggregates (`percentile_disc` is nearest-rank) computed by the server, per bucket and in total. */
async function onPostgres(query: Matching, input: TraceMetricsInput): Promise<{ cells: Cell[]; total: Aggregate }> {
  const aggregates = postgresAggregates({
    failed: sql`traces.error_count > 0`,
    tokens: sql`traces.total_tokens`,
    cost: sql`traces.cost`,
    latency: sql`case when traces.running_count = 0 then traces.end_time - traces.start_time end`,
  });
  const bucketMs = input.bucketMs;
  const [rows, totals] = await Promise.all([
    bucketMs === null
      ? Promise.resolve(null)
      : query
          .select([
            sql<string>`(traces.start_time - ((traces.start_time % ${sql.lit(bucketMs)}) + ${sql.lit(bucketMs)}) % ${sql.lit(bucketMs)})`.as('b'),
            ...aggregates,
          ])
          .groupBy(sql`1`)
          .execute(),
    query.select(aggregates).executeTakeFirstOrThrow(),
  ]);
  const total = aggregateOf(totals);
  const cells: Cell[] =
    rows === null
      ? total.count === 0
        ? []
        : [{ bucket: input.from, group: null, ...total }]
      : rows.map((row) => ({ bucket: Number(row.b), group: null, ...aggregateOf(row) }));
  return { cells, total };
}
