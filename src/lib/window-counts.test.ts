import { describe, expect, it } from 'vitest';
import { WindowCounts } from './window-counts.js';

describe('WindowCounts', () => {
  it('counts a key in its window and carries the count into the next as the previous one', () => {
    const counts = new WindowCounts();
    expect(counts.hit('a', 10)).toEqual({ window: 10, count: 1, previous: 0 });
    expect(counts.hit('a', 10)).toMatchObject({ count: 2, previous: 0 });
    expect(counts.hit('b', 10)).toMatchObject({ count: 1, previous: 0 });
    expect(counts.hit('a', 11)).toMatchObject({ count: 1, previous: 2 });
    // A window skipped: nothing of two windows ago weighs.
    expect(counts.hit('b', 12)).toMatchObject({ count: 1, previous: 0 });
  });

  it('takes back a hit in the same window only', () => {
    const counts = new WindowCounts();
    counts.hit('a', 5);
    counts.hit('a', 5);
    counts.unhit('a', 5);
    counts.unhit('a', 4);
    counts.unhit('missing', 5);
    expect(counts.hit('a', 5)).toMatchObject({ count: 2 });
  });

  it('forgets keys not counted for two windows', () => {
    const counts = new WindowCounts();
    counts.hit('old', 1);
    counts.hit('recent', 2);
    counts.hit('now', 3);
    expect(counts.size).toBe(2);
    expect(counts.hit('recent', 3)).toMatchObject({ count: 1, previous: 1 });
  });

  it('keeps at most maxKeys keys, forgetting the least recently counted first', () => {
    const counts = new WindowCounts(3);
    counts.hit('a', 1);
    counts.hit('b', 1);
    counts.hit('c', 1);
    counts.hit('a', 1);
    counts.hit('d', 1);
    expect(counts.size).toBe(3);
    expect(counts.hit('a', 1)).toMatchObject({ count: 3 });
    expect(counts.hit('b', 1)).toMatchObject({ count: 1 });
  });
});
