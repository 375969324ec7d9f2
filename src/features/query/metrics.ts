import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/dialect.js';
import type { Database } from '../../db/schema.js';
import { DAY_MS, requireTimestamp, toIso } from '../../lib/clock.js';
import { problems } from '../../lib/problems.js';
import { metricsRangeFaults } from './metrics.rules.js';
import { BUCKETS, type Bucket } from './metrics.schemas.js';
import { aggregateRuns, bucketStart, emptyAggregate, type Aggregate, type AggregateInput } from './aggregate.js';

export type RunMetricsInput = AggregateInput;

/** What `GET …/runs/metrics` and `GET …/traces/metrics` report for a bucket (docs/api.md: metrics). */
export function metricValues(a: Aggregate) {
  return { count: a.count, errorCount: a.errorCount, latencyP50: a.latencyP50, latencyP95: a.latencyP95, totalTokens: a.totalTokens, cost: a.cost };
}

/** Bucket starts covering [from, to): UTC-aligned; one start (`from`) when unbucketed. */
export function bucketStarts(from: number, to: number, bucketMs: number | null): number[] {
  if (bucketMs === null) return [from];
  const starts: number[] = [];
  for (let t = bucketStart(from, bucketMs); t < to; t += bucketMs) starts.push(t);
  return starts;
}

/** The window a metrics query names: `to` (default now), `from` (default a day before), the bucket; a 400 when it cannot be served. */
export function metricsWindow(query: { from?: string; to?: string; bucket?: Bucket }, now: number): { from: number; to: number; bucketMs: number | null } {
  const to = query.to === undefined ? now : requireTimestamp(query.to, { parameter: 'to' });
  const from = query.from === undefined ? to - DAY_MS : requireTimestamp(query.from, { parameter: 'from' });
  const bucketMs = query.bucket === undefined ? null : BUCKETS[query.bucket];
  const faults = metricsRangeFaults(from, to, bucketMs);
  if (faults.length > 0) throw problems.validation(faults);
  return { from, to, bucketMs };
}

/**
 * A metrics answer's groups: each group's series over every bucket start (empty ones included), the
 * biggest group first (then by key); one group `null` when nothing is grouped and nothing was found.
 */
export function metricsGroups<C extends { group: string | null; bucket: number; count: number }, V>(
  cells: readonly C[],
  starts: readonly number[],
  grouped: boolean,
  values: (cell: C | undefined) => V,
): { key: string | null; series: ({ start: string } & V)[] }[] {
  const byGroup = new Map<string | null, Map<number, C>>();
  for (const cell of cells) {
    const series = byGroup.get(cell.group) ?? new Map<number, C>();
    series.set(cell.bucket, cell);
    byGroup.set(cell.group, series);
  }
  if (!grouped && byGroup.size === 0) byGroup.set(null, new Map());
  const totalCount = (series: Map<number, C>) => [...series.values()].reduce((n, v) => n + v.count, 0);
  return [...byGroup.entries()]
    .sort(([ka, a], [kb, b]) => totalCount(b) - totalCount(a) || String(ka ?? '').localeCompare(String(kb ?? '')))
    .map(([key, series]) => ({ key, series: starts.map((start) => ({ start: toIso(start), ...values(series.get(start)) })) }));
}

export async function runMetrics(db: Kysely<Database>, dialect: Dialect, input: RunMetricsInput) {
  const { cells, total } = await aggregateRuns(db, dialect, input);
  const starts = bucketStarts(input.from, input.to, input.bucketMs);
  const groups = metricsGroups(cells, starts, input.groupBy !== null, (cell) => metricValues(cell ?? emptyAggregate()));
  return { from: toIso(input.from), to: toIso(input.to), groups, total: metricValues(total) };
}
