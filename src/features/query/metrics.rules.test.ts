import { describe, expect, it } from 'vitest';
import { bucketStart, MAX_BUCKETS, metricsRangeFaults } from './metrics.rules.js';

/** Dependency-free, shared by the routes and the dashboard (the runs metrics suite exercises it over HTTP). */
describe('metrics range rules', () => {
  it('from before to, and at most 10,000 UTC-aligned buckets', () => {
    const hour = 3_600_000;
    const t = Date.parse('2026-11-23T10:30:00.000Z');
    expect(metricsRangeFaults(t, t + hour, hour)).toEqual([]);
    expect(metricsRangeFaults(t, t, null)).toEqual([{ parameter: 'from', detail: 'from must be before to.' }]);
    expect(metricsRangeFaults(t, t + MAX_BUCKETS * hour, hour)).toEqual([
      { parameter: 'bucket', detail: 'The range holds more than 10000 buckets; choose a larger bucket or a shorter range.' },
    ]);
    expect(metricsRangeFaults(bucketStart(t, hour), bucketStart(t, hour) + MAX_BUCKETS * hour, hour)).toEqual([]);
    expect(bucketStart(-1, hour)).toBe(-hour);
  });
});
