import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { runFilterWhere, type RunFilters } from './runs.filters.js';
import type { GroupBy } from './runs.schemas.js';

export interface MetricValues {
  count: number;
  errorCount: number;
  latencyP50: number | null;
  latencyP95: number | null;
  totalTokens: number;
  cost: number;
}

export interface RunMetricsInput {
  projectId: string;
  filters: RunFilters;
  from: number;
  to: number;
  bucketMs: number | null;
  groupBy: GroupBy | null;
}

const GROUP_COLUMN: Record<GroupBy, 'status' | 'kind' | 'model' | 'name'> = { status: 'status', kind: 'kind', model: 'model', name: 'name' };

const empty = (): MetricValues => ({ count: 0, errorCount: 0, latencyP50: null, latencyP95: null, totalTokens: 0, cost: 0 });

interface Cell {
  b: number;
  g: string | null;
}

/**
 * Counts and aggregates runs with exactly the filter code of the runs list, so a count always equals
 * the number of items a full walk of the list returns. Percentiles are nearest-rank, computed in SQL
 * with window functions (identical on both engines).
 */
async function aggregate(db: Kysely<Database>, dialect: Dialect, input: RunMetricsInput, bucketMs: number | null, groupBy: GroupBy | null) {
  // Floor, not truncation: both engines' `/` and `%` truncate toward zero, which would put a run before
  // 1970 into the bucket after its own.
  const bucketExpr =
    bucketMs === null ? sql<number>`0` : sql<number>`(runs.start_time - ((runs.start_time % ${sql.lit(bucketMs)}) + ${sql.lit(bucketMs)}) % ${sql.lit(bucketMs)})`;
  const groupExpr = groupBy === null ? sql<string | null>`null` : sql<string | null>`${sql.ref(`runs.${GROUP_COLUMN[groupBy]}`)}`;
  const base = () =>
    db
      .selectFrom('runs')
      .where('runs.project_id', '=', input.projectId)
      .where('runs.start_time', '>=', input.from)
      .where('runs.start_time', '<', input.to)
      .where(runFilterWhere(dialect, input.filters));

  const sums = await base()
    .select([
      bucketExpr.as('b'),
      groupExpr.as('g'),
      sql<number>`count(*)`.as('count'),
      sql<number>`sum(case when runs.status = 'failed' then 1 else 0 end)`.as('error_count'),
      sql<number>`sum(coalesce(runs.total_tokens, 0))`.as('total_tokens'),
      sql<number>`sum(coalesce(runs.cost, 0))`.as('cost'),
    ])
    .groupBy([sql`1`, sql`2`])
    .execute();

  const parts = [...(bucketMs === null ? [] : [bucketExpr]), ...(groupBy === null ? [] : [groupExpr])];
  const partition = parts.length === 0 ? sql`` : sql`partition by ${sql.join(parts)}`;
  const ranked = base()
    .where('runs.latency_ms', 'is not', null)
    .select([
      bucketExpr.as('b'),
      groupExpr.as('g'),
      'runs.latency_ms as latency',
      sql<number>`row_number() over (${partition} order by runs.latency_ms)`.as('rn'),
      sql<number>`count(*) over (${partition})`.as('n'),
    ]);
  const percentiles = await db
    .selectFrom(ranked.as('r'))
    .select(['r.b', 'r.g', 'r.latency', 'r.rn', 'r.n'])
    .where((eb) => eb.or([eb('r.rn', '=', sql<number>`(50 * r.n + 99) / 100`), eb('r.rn', '=', sql<number>`(95 * r.n + 99) / 100`)]))
    .execute();

  const cells = new Map<string, Cell & MetricValues>();
  const keyOf = (b: number, g: string | null) => `${b}\u0000${g ?? '\u0001'}`;
  for (const row of sums) {
    cells.set(keyOf(Number(row.b), row.g), {
      b: Number(row.b),
      g: row.g,
      count: Number(row.count),
      errorCount: Number(row.error_count),
      latencyP50: null,
      latencyP95: null,
      totalTokens: Number(row.total_tokens),
      cost: Number(row.cost),
    });
  }
  for (const row of percentiles) {
    const cell = cells.get(keyOf(Number(row.b), row.g));
    if (!cell) continue;
    const n = Number(row.n);
    const rn = Number(row.rn);
    if (rn === Math.floor((50 * n + 99) / 100)) cell.latencyP50 = Number(row.latency);
    if (rn === Math.floor((95 * n + 99) / 100)) cell.latencyP95 = Number(row.latency);
  }
  return [...cells.values()];
}

export async function runMetrics(db: Kysely<Database>, dialect: Dialect, input: RunMetricsInput) {
  const [cells, totals] = await Promise.all([
    aggregate(db, dialect, input, input.bucketMs, input.groupBy),
    aggregate(db, dialect, input, null, null),
  ]);
  const firstBucket = input.bucketMs === null ? input.from : Math.floor(input.from / input.bucketMs) * input.bucketMs;
  const starts: number[] = [];
  if (input.bucketMs === null) starts.push(input.from);
  else for (let t = firstBucket; t < input.to; t += input.bucketMs) starts.push(t);

  const byGroup = new Map<string | null, Map<number, MetricValues>>();
  for (const cell of cells) {
    const series = byGroup.get(cell.g) ?? new Map<number, MetricValues>();
    const { b, g, ...values } = cell;
    void g;
    series.set(input.bucketMs === null ? input.from : b, values);
    byGroup.set(cell.g, series);
  }
  if (input.groupBy === null && byGroup.size === 0) byGroup.set(null, new Map());

  const totalCount = (series: Map<number, MetricValues>) => [...series.values()].reduce((n, v) => n + v.count, 0);
  const groups = [...byGroup.entries()]
    .sort(([ka, a], [kb, b]) => totalCount(b) - totalCount(a) || String(ka ?? '').localeCompare(String(kb ?? '')))
    .map(([key, series]) => ({
      key,
      series: starts.map((start) => ({ start: toIso(start), ...(series.get(start) ?? empty()) })),
    }));
  const { b: _b, g: _g, ...total } = totals[0] ?? { b: 0, g: null, ...empty() };
  return { from: toIso(input.from), to: toIso(input.to), groups, total };
}
