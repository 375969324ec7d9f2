import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/dialect.js';
import type { Database } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { aggregateRuns, bucketStart, emptyAggregate, type Aggregate, type AggregateInput } from './runs.aggregate.js';

export type RunMetricsInput = AggregateInput;

/** What `GET …/runs/metrics` reports for a bucket (README, Using the API: metrics). */
function values(a: Aggregate) {
  return { count: a.count, errorCount: a.errorCount, latencyP50: a.latencyP50, latencyP95: a.latencyP95, totalTokens: a.totalTokens, cost: a.cost };
}

/** Bucket starts covering [from, to): UTC-aligned; one start (`from`) when unbucketed. */
export function bucketStarts(from: number, to: number, bucketMs: number | null): number[] {
  if (bucketMs === null) return [from];
  const starts: number[] = [];
  for (let t = bucketStart(from, bucketMs); t < to; t += bucketMs) starts.push(t);
  return starts;
}

export async function runMetrics(db: Kysely<Database>, dialect: Dialect, input: RunMetricsInput) {
  const { cells, total } = await aggregateRuns(db, dialect, input);
  const starts = bucketStarts(input.from, input.to, input.bucketMs);
  const byGroup = new Map<string | null, Map<number, Aggregate>>();
  for (const cell of cells) {
    const series = byGroup.get(cell.group) ?? new Map<number, Aggregate>();
    series.set(cell.bucket, cell);
    byGroup.set(cell.group, series);
  }
  if (input.groupBy === null && byGroup.size === 0) byGroup.set(null, new Map());

  const totalCount = (series: Map<number, Aggregate>) => [...series.values()].reduce((n, v) => n + v.count, 0);
  const groups = [...byGroup.entries()]
    .sort(([ka, a], [kb, b]) => totalCount(b) - totalCount(a) || String(ka ?? '').localeCompare(String(kb ?? '')))
    .map(([key, series]) => ({
      key,
      series: starts.map((start) => ({ start: toIso(start), ...values(series.get(start) ?? emptyAggregate()) })),
    }));
  return { from: toIso(input.from), to: toIso(input.to), groups, total: values(total) };
}
