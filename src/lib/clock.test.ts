import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toIso } from './clock.js';

describe('toIso', () => {
  it('writes what Date.prototype.toISOString writes, for any time a Date holds', () => {
    const anyTime = fc.integer({ min: -8_640_000_000_000_000, max: 8_640_000_000_000_000 });
    // Times near today, in runs of one day and across days, which is where its cache works.
    const nearToday = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) });
    fc.assert(
      fc.property(fc.array(fc.oneof(anyTime, nearToday), { minLength: 1, maxLength: 20 }), (times) => {
        for (const ms of times) expect(toIso(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 2000 },
    );
  });

  it('gets the edges of days and years right, and leaves null alone', () => {
    const edges = [
      0,
      -1,
      1,
      86_399_999,
      86_400_000,
      -62_167_219_200_000,
      -62_167_219_200_001,
      253_402_300_799_999,
      253_402_300_800_000,
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
    ];
    for (const ms of edges) expect(toIso(ms)).toBe(new Date(ms).toISOString());
    expect(toIso(null)).toBeNull();
  });
});
