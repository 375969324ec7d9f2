import { type RawBuilder, sql, type Kysely } from 'kysely';
import type { Dialect } from '../../db/dialect.js';
import { sqliteHandle } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import type { MetricInputs } from './metrics.rules.js';
import { experimentTraces } from './experiment.js';
import { type ListPlan, runFilterWhere, type RunFilters } from './filters.js';
import type { GroupBy } from './metrics.schemas.js';

/**
 * The one aggregation over runs, used by the runs metrics endpoint, monitor evaluation and the monitor
 * metrics endpoint. It selects runs with the runs list's own filter code (`runFilterWhere`), so a
 * count always equals the number of items a full walk of the list returns for the same filter.
 *
 * Latency percentiles are nearest-rank (the value at rank ceil(p/100 · n) among the runs that have
 * ended, ordered by latency), exactly, on both engines: PostgreSQL's `percentile_disc` is that
 * definition; on SQLite the matching rows are streamed once from the covering index and ranked here.
 */

export interface Aggregate extends MetricInputs {
  latencyP99: number | null;
}

export interface AggregateCell extends Aggregate {
  /** Start of the bucket (ms), or the range's `from` when unbucketed. */
  bucket: number;
  group: string | null;
}

export interface AggregateInput {
  projectId: string;
  filters: RunFilters;
  /** Inclusive start, exclusive end (ms). */
  from: number;
  to: number;
  bucketMs: number | null;
  groupBy: GroupBy | null;
}

export interface AggregateResult {
  cells: AggregateCell[];
  total: Aggregate;
}

export const emptyAggregate = (): Aggregate => ({ count: 0, errorCount: 0, totalTokens: 0, cost: 0, latencyP50: null, latencyP95: null, latencyP99: null });

/** Floor to the bucket (also for times before 1970, where `%` would truncate toward zero). */
export { bucketStart } from './metrics.rules.js';

/** The nearest-rank percentile of ascending values: the value at rank ceil(p/100 · n). */
export function nearestRank(sorted: ArrayLike<number>, p: number): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  return sorted[Math.floor((p * n + 99) / 100) - 1]!;
}

const GROUP_COLUMN: Record<GroupBy, 'status' | 'kind' | 'model' | 'name'> = { status: 'status', kind: 'kind', model: 'model', name: 'name' };

function matching(db: Kysely<Database>, dialect: Dialect, input: AggregateInput, plan: ListPlan) {
  return db
    .selectFrom('runs')
    .where('runs.project_id', '=', input.projectId)
    .where('runs.start_time', '>=', input.from)
    .where('runs.start_time', '<', input.to)
    .where(runFilterWhere(dialect, input.filters, plan));
}

/** One cell's values as rows arrive (runs, or whole traces): counts, sums and the latencies to rank. */
export class Accumulator {
  count = 0;
  errorCount = 0;
  totalTokens = 0;
  cost = 0;
  latencies: number[] = [];

  add(failed: boolean, latency: number | null, tokens: number | null, cost: number | null): void {
    this.count++;
    if (failed) this.errorCount++;
    if (tokens !== null) this.totalTokens += tokens;
    if (cost !== null) this.cost += cost;
    if (latency !== null) this.latencies.push(latency);
  }

  result(): Aggregate {
    const sorted = Float64Array.from(this.latencies).sort();
    return {
      count: this.count,
      errorCount: this.errorCount,
      totalTokens: this.totalTokens,
      cost: this.cost,
      latencyP50: nearestRank(sorted, 50),
      latencyP95: nearestRank(sorted, 95),
      latencyP99: nearestRank(sorted, 99),
    };
  }
}

/**
 * SQLite: one synchronous pass over the matching rows as raw arrays (from the covering stream index
 * unless grouping by name). The SQL is Kysely's, built with the list's filter code; only the execution
 * avoids an async step per row, which cost more than the aggregation itself.
 */
async function aggregateSqlite(db: Kysely<Database>, input: AggregateInput, plan: ListPlan): Promise<AggregateResult> {
  const groupColumn = input.groupBy === null ? null : GROUP_COLUMN[input.groupBy];
  const compiled = matching(db, 'sqlite', input, plan)
    .select([
      'runs.start_time as t',
      'runs.status as s',
      'runs.latency_ms as l',
      'runs.total_tokens as k',
      'runs.cost as c',
      groupColumn === null ? sql<string | null>`null`.as('g') : sql<string | null>`${sql.ref(`runs.${groupColumn}`)}`.as('g'),
    ])
    .compile();
  const handle = sqliteHandle(db);
  if (!handle) throw new Error('aggregateSqlite needs a SQLite database');
  const rows = handle
    .prepare(compiled.sql)
    .raw(true)
    .iterate(...(compiled.parameters as unknown[])) as IterableIterator<[number, string, number | null, number | null, number | null, string | null]>;
  const { bucketMs, from } = input;
  const buckets = new Map<number, Map<string | null, Accumulator>>();
  const total = new Accumulator();
  for (const [t, s, l, k, c, g] of rows) {
    const bucket = bucketMs === null ? from : t - (((t % bucketMs) + bucketMs) % bucketMs);
    let groups = buckets.get(bucket);
    if (!groups) {
      groups = new Map();
      buckets.set(bucket, groups);
    }
    let acc = groups.get(g);
    if (!acc) {
      acc = new Accumulator();
      groups.set(g, acc);
    }
    acc.add(s === 'failed', l, k, c);
    total.add(s === 'failed', l, k, c);
  }
  const cells: AggregateCell[] = [];
  for (const [bucket, groups] of buckets) for (const [group, acc] of groups) cells.push({ bucket, group, ...acc.result() });
  return { cells, total: total.result() };
}

/** A row of PostgreSQL's aggregates (numbers as it sends them: bigints as text) as the values an aggregate reports. */
export interface AggregateRow {
  count: number | string;
  error_count: number | string;
  total_tokens: number | string;
  cost: number | string;
  p50: number | string | null;
  p95: number | string | null;
  p99: number | string | null;
}
export const aggregateOf = (row: AggregateRow): Aggregate => ({
  count: Number(row.count),
  errorCount: Number(row.error_count),
  totalTokens: Number(row.total_tokens),
  cost: Number(row.cost),
  latencyP50: row.p50 === null ? null : Number(row.p50),
  latencyP95: row.p95 === null ? null : Number(row.p95),
  latencyP99: row.p99 === null ? null : Number(row.p99),
});

/** PostgreSQL's aggregates of an `AggregateRow` over rows (runs, traces): what counts as failed, their tokens, cost and latency (null: not ended). */
export function postgresAggregates(of: { failed: RawBuilder<unknown>; tokens: RawBuilder<unknown>; cost: RawBuilder<unknown>; latency: RawBuilder<unknown> }) {
  return [
    sql<string>`count(*)`.as('count'),
    sql<string>`count(*) filter (where ${of.failed})`.as('error_count'),
    sql<string>`coalesce(sum(${of.tokens}), 0)`.as('total_tokens'),
    sql<number>`coalesce(sum(${of.cost}), 0)`.as('cost'),
    sql<string | null>`percentile_disc(0.5) within group (order by ${of.latency})`.as('p50'),
    sql<string | null>`percentile_disc(0.95) within group (order by ${of.latency})`.as('p95'),
    sql<string | null>`percentile_disc(0.99) within group (order by ${of.latency})`.as('p99'),
  ];
}

/** PostgreSQL: the aggregates (percentile_disc is nearest-rank) computed by the server, per cell and in total. */
async function aggregatePostgres(db: Kysely<Database>, input: AggregateInput, plan: ListPlan): Promise<AggregateResult> {
  const aggregates = postgresAggregates({
    failed: sql`runs.status = 'failed'`,
    tokens: sql`runs.total_tokens`,
    cost: sql`runs.cost`,
    latency: sql`runs.latency_ms`,
  });
  const bucketMs = input.bucketMs;
  const bucketExpr =
    bucketMs === null
      ? sql<number>`0`
      : sql<number>`(runs.start_time - ((runs.start_time % ${sql.lit(bucketMs)}) + ${sql.lit(bucketMs)}) % ${sql.lit(bucketMs)})`;
  const groupExpr = input.groupBy === null ? sql<string | null>`null` : sql<string | null>`${sql.ref(`runs.${GROUP_COLUMN[input.groupBy]}`)}`;
  const split = bucketMs !== null || input.groupBy !== null;
  const [rows, totals] = await Promise.all([
    split
      ? matching(db, 'postgres', input, plan)
          .select([bucketExpr.as('b'), groupExpr.as('g'), ...aggregates])
          .groupBy([sql`1`, sql`2`])
          .execute()
      : Promise.resolve(null),
    matching(db, 'postgres', input, plan).select(aggregates).executeTakeFirstOrThrow(),
  ]);
  const total = aggregateOf(totals);
  const cells: AggregateCell[] =
    rows === null
      ? total.count === 0
        ? []
        : [{ bucket: input.from, group: null, ...total }]
      : rows.map((row) => ({ bucket: bucketMs === null ? input.from : Number(row.b), group: row.g, ...aggregateOf(row) }));
  return { cells, total };
}

export async function aggregateRuns(db: Kysely<Database>, dialect: Dialect, input: AggregateInput): Promise<AggregateResult> {
  // Score filters probe each run (no plan: an aggregate reads every run of its range); experiment traffic by its traces' ids when few.
  const experiment = input.filters.experiment === undefined ? undefined : await experimentTraces(db, input.projectId);
  const plan: ListPlan = { search: undefined, scores: undefined, few: false, experiment };
  return dialect === 'postgres' ? aggregatePostgres(db, input, plan) : aggregateSqlite(db, input, plan);
}
