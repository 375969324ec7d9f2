import { describe, expect, it } from 'vitest';
import { Lru } from './lru.js';

describe('Lru', () => {
  it('keeps at most `most` values, dropping the least recently used, and makes each value once while kept', () => {
    const lru = new Lru<string>(2);
    let made = 0;
    const make = (v: string) => () => {
      made++;
      return v;
    };
    expect(lru.get('a', make('A'))).toBe('A');
    expect(lru.get('b', make('B'))).toBe('B');
    expect(lru.get('a', make('A2'))).toBe('A'); // used again: now the most recent
    expect(lru.get('c', make('C'))).toBe('C'); // drops b
    expect(lru.size).toBe(2);
    expect(made).toBe(3);
    expect(lru.get('a', make('A3'))).toBe('A');
    expect(lru.get('b', make('B2'))).toBe('B2'); // b was dropped: made again, drops c
    expect(lru.get('c', make('C2'))).toBe('C2');
    expect(made).toBe(5);
  });
});
