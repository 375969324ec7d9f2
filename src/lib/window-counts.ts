/**
 * In-process counts of requests per key in one-minute windows (the rate limiter's counters when no Redis
 * is shared, or while it is out): for each key, its count in the current window and in the one before,
 * in one entry (a request updates one map entry, builds no key per window and allocates nothing). The
 * rate limiter's sliding window weighs the two. Bounded: keys not seen for two windows are swept once a
 * window, and past `maxKeys` (clients spread over very many addresses) the least recently counted keys
 * are forgotten first, which only ever lets their next request through.
 */
export class WindowCounts {
  private readonly entries = new Map<string, { window: number; count: number; previous: number }>();
  private sweptWindow = Number.NEGATIVE_INFINITY;

  constructor(private readonly maxKeys = 1_000_000) {}

  /** Counts one hit of `key` in `window`: its count in that window (this hit included) and in the one before. */
  hit(key: string, window: number): { count: number; previous: number } {
    if (window > this.sweptWindow) this.sweep(window);
    let entry = this.entries.get(key);
    if (entry === undefined) {
      if (this.entries.size >= this.maxKeys) this.entries.delete(this.entries.keys().next().value!);
      entry = { window, count: 0, previous: 0 };
    } else {
      // Kept again as the most recently counted (a Map iterates in insertion order).
      this.entries.delete(key);
      if (entry.window < window) {
        entry.previous = entry.window === window - 1 ? entry.count : 0;
        entry.count = 0;
        entry.window = window;
      }
    }
    entry.count++;
    this.entries.set(key, entry);
    return entry;
  }

  /** Takes back one hit of `key` in `window` (a refused request is not counted). */
  unhit(key: string, window: number): void {
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.window === window && entry.count > 0) entry.count--;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Forgets the keys with no hit in `window` or the one before: their counts weigh nothing any more. */
  private sweep(window: number): void {
    this.sweptWindow = window;
    for (const [key, entry] of this.entries) if (entry.window < window - 1) this.entries.delete(key);
  }
}
