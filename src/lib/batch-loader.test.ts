import { describe, expect, it } from 'vitest';
import { BatchLoader } from './batch-loader.js';

/** A loader over a plain map whose batches are recorded, each settled when the test says. */
function recorded(values: Record<string, number>, maxBatch?: number, minIntervalMs?: number) {
  const batches: string[][] = [];
  const settle: (() => void)[] = [];
  const loader = new BatchLoader<string, number>(
    (keys) => {
      batches.push(keys);
      // Read when the batch starts (so a change after it started is not seen), answered when settled.
      const found = new Map(keys.filter((k) => k in values).map((k) => [k, values[k]!]));
      return new Promise((resolve, reject) => settle.push(() => (keys.includes('fail') ? reject(new Error('the batch failed')) : resolve(found))));
    },
    maxBatch,
    minIntervalMs,
  );
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  return { loader, batches, settle, turn };
}

describe('BatchLoader', () => {
  it('loads the keys asked for in one turn as one batch, each caller getting its own value, a missing key undefined', async () => {
    const { loader, batches, settle, turn } = recorded({ a: 1, b: 2 });
    const asked = [loader.load('a'), loader.load('b'), loader.load('a'), loader.load('nothing')];
    await turn();
    expect(batches).toEqual([['a', 'b', 'nothing']]);
    settle.shift()!();
    expect(await Promise.all(asked)).toEqual([1, 2, 1, undefined]);
    expect(loader.loaded).toBe(1);
  });

  it('loads a key asked for while a batch is loading in the next batch, which starts after that one ends', async () => {
    const values: Record<string, number> = { a: 1 };
    const { loader, batches, settle, turn } = recorded(values);
    const first = loader.load('a');
    await turn();
    expect(batches).toHaveLength(1);
    values.a = 2; // written after the first batch read it
    const second = loader.load('a');
    await turn();
    expect(batches).toHaveLength(1); // one batch at a time
    settle.shift()!();
    expect(await first).toBe(1);
    await turn();
    await turn();
    expect(batches).toEqual([['a'], ['a']]);
    settle.shift()!();
    expect(await second).toBe(2); // as fresh as a read of its own
  });

  it('fails each caller of a failed batch with its error, and loads the next batch as usual', async () => {
    const { loader, settle, turn } = recorded({ a: 1 });
    const failing = [loader.load('a'), loader.load('fail')].map((p) => p.then(String, (e: Error) => e.message));
    await turn();
    settle.shift()!();
    expect(await Promise.all(failing)).toEqual(['the batch failed', 'the batch failed']);
    const next = loader.load('a');
    await turn();
    settle.shift()!();
    expect(await next).toBe(1);
  });

  it('takes at most maxBatch keys a batch; the rest wait for the next', async () => {
    const { loader, batches, settle, turn } = recorded({ a: 1, b: 2, c: 3 }, 2);
    const asked = Promise.all(['a', 'b', 'c'].map((k) => loader.load(k)));
    await turn();
    settle.shift()!();
    await turn();
    await turn();
    settle.shift()!();
    expect(await asked).toEqual([1, 2, 3]);
    expect(batches).toEqual([['a', 'b'], ['c']]);
  });

  it('with minIntervalMs, starts a batch no sooner than that after the one before, and at once when the one before is older', async () => {
    const { loader, batches, settle, turn } = recorded({ a: 1, b: 2 }, 500, 40);
    const first = loader.load('a');
    await turn();
    expect(batches).toHaveLength(1); // nothing before it: at once
    const started = performance.now();
    const second = loader.load('b');
    settle.shift()!();
    expect(await first).toBe(1);
    while (batches.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(performance.now() - started).toBeGreaterThanOrEqual(30);
    settle.shift()!();
    expect(await second).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const third = loader.load('a');
    await turn();
    expect(batches).toHaveLength(3); // the one before is older than 40 ms: at once
    settle.shift()!();
    expect(await third).toBe(1);
  });
});
