import { describe, expect, it } from 'vitest';
import { Gate, GateClosed } from './gate.js';

describe('Gate', () => {
  it('lets at most `size` holders in at once, in arrival order, and tolerates double releases', async () => {
    const gate = new Gate(2);
    const order: string[] = [];
    const r1 = await gate.acquire();
    const r2 = await gate.acquire();
    const third = gate.acquire().then((release) => {
      order.push('third');
      return release;
    });
    const fourth = gate.acquire().then((release) => {
      order.push('fourth');
      return release;
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual([]);
    r1();
    r1(); // a second release must not free another slot
    const r3 = await third;
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual(['third']);
    r2();
    const r4 = await fourth;
    expect(order).toEqual(['third', 'fourth']);
    r3();
    r4();
    const again = await Promise.race([gate.acquire(), new Promise((r) => setTimeout(() => r('blocked'), 50))]);
    expect(again).not.toBe('blocked');
  });
});

describe('Gate waits are bounded', () => {
  it('a waiter whose signal aborts leaves the queue and never takes the slot', async () => {
    const gate = new Gate(1);
    const held = await gate.acquire();
    const controller = new AbortController();
    const waiting = gate.acquire({ signal: controller.signal });
    expect(gate.usage).toEqual({ active: 1, waiting: 1 });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ reason: 'aborted' });
    expect(gate.usage).toEqual({ active: 1, waiting: 0 });
    held();
    expect(gate.usage).toEqual({ active: 0, waiting: 0 });
    const next = await gate.acquire({ timeoutMs: 50 });
    next();
  });

  it('a waiter that times out rejects with GateClosed("timeout") and frees nothing it did not hold', async () => {
    const gate = new Gate(1);
    const held = await gate.acquire();
    const started = Date.now();
    await expect(gate.acquire({ timeoutMs: 40 })).rejects.toBeInstanceOf(GateClosed);
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
    expect(gate.usage).toEqual({ active: 1, waiting: 0 });
    held();
    expect(gate.usage).toEqual({ active: 0, waiting: 0 });
  });

  it('an already aborted signal is refused at once, even with a free slot', async () => {
    const gate = new Gate(2);
    await expect(gate.acquire({ signal: AbortSignal.abort() })).rejects.toMatchObject({ reason: 'aborted' });
    expect(gate.usage).toEqual({ active: 0, waiting: 0 });
  });

  it('hands a released slot to the oldest waiter still waiting', async () => {
    const gate = new Gate(1);
    const held = await gate.acquire();
    const gone = new AbortController();
    const first = gate.acquire({ signal: gone.signal });
    const second = gate.acquire();
    gone.abort();
    await expect(first).rejects.toMatchObject({ reason: 'aborted' });
    held();
    const release = await second;
    expect(gate.usage).toEqual({ active: 1, waiting: 0 });
    release();
    expect(gate.usage).toEqual({ active: 0, waiting: 0 });
  });
});
