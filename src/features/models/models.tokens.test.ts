import { afterAll, describe, expect, it } from 'vitest';
import { TokenCounter } from './models.tokens.js';

describe('TokenCounter: o200k_base counts in a worker thread, bounded whatever is sent', () => {
  const counter = new TokenCounter();
  afterAll(() => counter.stop());

  it('counts each run’s texts as the encoding does', async () => {
    expect(await counter.count([['Hello, world!'], ['Hello, world!', ' How are you?'], [], ['']])).toEqual([4, 8, 0, 0]);
    expect(await counter.count([])).toEqual([]);
  });

  it('loads and counts off the event loop: timers keep firing while 200,000 letters without a space are counted, in linear time', async () => {
    counter.stop(); // a fresh worker: loading the tables is part of what must not hold up the loop
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const started = performance.now();
    const counts = await counter.count([['a'.repeat(200_000)], [' '.repeat(200_000)]]);
    clearInterval(timer);
    // Generous for a busy machine: unbounded, the letters alone took 90 s (byte-pair encoding is quadratic in one piece).
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(counts![0]).toBeGreaterThan(200_000 / 64);
    expect(counts![1]).toBeGreaterThan(0);
    // Counting on the serving thread would have run no timer until it was done.
    expect(ticks).toBeGreaterThan(5);
  });

  it('answers null, never waiting without end, when too many calls wait or the worker is stopped', async () => {
    const calls = Array.from({ length: 20 }, () => counter.count([['x '.repeat(50_000)]]));
    const answers = await Promise.all(calls);
    expect(answers.filter((a) => a === null).length).toBeGreaterThanOrEqual(4);
    expect(answers.find((a) => a !== null)![0]).toBeGreaterThan(40_000);
    const waiting = counter.count([['y '.repeat(100_000)]]);
    counter.stop();
    expect(await waiting).toBeNull();
    // A later call starts another worker.
    expect(await counter.count([['Hello, world!']])).toEqual([4]);
  });
});
