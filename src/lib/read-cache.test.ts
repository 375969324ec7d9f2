import { describe, expect, it } from 'vitest';
import { ReadCache } from './read-cache.js';

const body = (bytes: number, fill = 'x') => Buffer.from(fill.repeat(bytes));

describe('ReadCache', () => {
  it('answers a key only in the state it was kept in, and drops it once another state asks', () => {
    const cache = new ReadCache(1000);
    cache.set('org /v1/a', '1.0', body(10), 'application/json');
    expect(cache.get('org /v1/a', '1.0')?.body.toString()).toBe('x'.repeat(10));
    expect(cache.get('org /v1/a', '2.0')).toBeUndefined();
    // The stale answer is gone: asking again in its old state finds nothing either.
    expect(cache.get('org /v1/a', '1.0')).toBeUndefined();
    expect(cache.stats()).toEqual({ hits: 1, misses: 2, stored: 1, coalesced: 0, bytes: 0, entries: 0 });
  });

  it('keeps at most its bound in bytes, dropping the least recently used, and never an answer over a quarter of it', () => {
    const cache = new ReadCache(1000);
    cache.set('a', 's', body(250), 'application/json');
    cache.set('big', 's', body(251), 'application/json');
    expect(cache.stats().entries).toBe(1);
    cache.set('b', 's', body(250), 'application/json');
    cache.set('c', 's', body(250), 'application/json');
    cache.set('d', 's', body(250), 'application/json');
    expect(cache.get('a', 's')).toBeDefined(); // used again: now the most recent
    cache.set('e', 's', body(250), 'application/json'); // drops b
    expect(cache.get('b', 's')).toBeUndefined();
    for (const key of ['a', 'c', 'd', 'e']) expect(cache.get(key, 's'), key).toBeDefined();
    expect(cache.stats().bytes).toBe(1000);
    // A key kept again replaces its answer (and its bytes).
    cache.set('a', 't', body(100), 'application/json');
    expect(cache.stats()).toMatchObject({ bytes: 850, entries: 4 });
  });

  it('keeps nothing with a bound of zero', () => {
    const cache = new ReadCache(0);
    cache.set('a', 's', body(1), 'application/json');
    expect(cache.get('a', 's')).toBeUndefined();
  });
});
