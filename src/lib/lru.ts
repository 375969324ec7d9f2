/**
 * Values kept by key, at most `most` of them, the least recently used dropped first (a Map keeps its
 * keys in insertion order; a key used again is moved to the end).
 */
export class Lru<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly most: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The value kept for `key`, else the one `make` makes, kept from now on. */
  get(key: string, make: () => V): V {
    let value = this.entries.get(key);
    if (value === undefined) {
      if (this.entries.size >= this.most) this.entries.delete(this.entries.keys().next().value!);
      value = make();
    } else this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }
}
