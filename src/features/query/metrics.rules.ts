/**
 * The rules of a metrics range, shared by `GET …/runs/metrics` and a monitor's `GET …/metrics` (and
 * dependency-free, so the dashboard can check a range before asking).
 */

/** What a metric is computed from, over some runs; `latencyP99` is absent from the runs metrics endpoint's buckets. */
export interface MetricInputs {
  count: number;
  errorCount: number;
  totalTokens: number;
  cost: number;
  latencyP50: number | null;
  latencyP95: number | null;
  latencyP99?: number | null;
}

/** The most buckets one metrics request may span. */
export const MAX_BUCKETS = 10_000;

/** The start of the UTC-aligned bucket holding `time` (times before 1970 included). */
export const bucketStart = (time: number, bucketMs: number): number => time - (((time % bucketMs) + bucketMs) % bucketMs);

/** What is wrong with the range [from, to) in buckets of `bucketMs` (null: unbucketed), as query parameter faults. */
export function metricsRangeFaults(from: number, to: number, bucketMs: number | null): { parameter: 'from' | 'bucket'; detail: string }[] {
  if (from >= to) return [{ parameter: 'from', detail: 'from must be before to.' }];
  if (bucketMs !== null && (to - bucketStart(from, bucketMs)) / bucketMs > MAX_BUCKETS) {
    return [{ parameter: 'bucket', detail: `The range holds more than ${MAX_BUCKETS} buckets; choose a larger bucket or a shorter range.` }];
  }
  return [];
}
