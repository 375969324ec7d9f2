import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { acquireOrRefuse, Gate, GateClosed, holdForResponse } from './gate.js';
import { Problem, problems } from './problems.js';

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

describe('Gate queues are bounded', () => {
  it('refuses a waiter at once past maxWaiting, and queues again once one leaves', async () => {
    const gate = new Gate(1, 1);
    const held = await gate.acquire();
    const waiting = gate.acquire();
    await expect(gate.acquire()).rejects.toMatchObject({ reason: 'full' });
    expect(gate.usage).toEqual({ active: 1, waiting: 1 });
    held();
    const next = await waiting;
    const queued = gate.acquire();
    expect(gate.usage).toEqual({ active: 1, waiting: 1 });
    next();
    (await queued)();
    expect(gate.usage).toEqual({ active: 0, waiting: 0 });
  });

  it('acquireOrRefuse answers a full queue and a wait past its time with the 503 problem, a departed client with clientGone', async () => {
    const gate = new Gate(1, 1);
    const held = await gate.acquire();
    const gone = new AbortController();
    const waiting = acquireOrRefuse(gate, { signal: gone.signal, timeoutMs: 2500, busy: 'Busy.' });
    const full = await acquireOrRefuse(gate, { timeoutMs: 2500, busy: 'Busy.' }).catch((error: unknown) => error);
    expect(full).toBeInstanceOf(Problem);
    expect(full).toMatchObject({ slug: 'service-unavailable', status: 503, detail: 'Busy.', headers: { 'retry-after': '3' } });
    gone.abort();
    await expect(waiting).rejects.toMatchObject({ slug: 'validation', detail: problems.clientGone().detail });
    await expect(acquireOrRefuse(gate, { timeoutMs: 20, busy: 'Busy.' })).rejects.toMatchObject({
      slug: 'service-unavailable',
      headers: { 'retry-after': '1' },
    });
    held();
    expect(gate.usage).toEqual({ active: 0, waiting: 0 });
  });
});

describe('holdForResponse', () => {
  /** What the gate sees of a response: its close event and whether it is destroyed. */
  const response = () => Object.assign(new EventEmitter(), { destroyed: false }) as unknown as ServerResponse & EventEmitter;
  const close = (res: ServerResponse) => {
    (res as { destroyed: boolean }).destroyed = true;
    res.emit('close');
  };

  it('holds the slot until the response closes', async () => {
    const gate = new Gate(1, 1);
    const res = response();
    await holdForResponse(gate, res, { timeoutMs: 1000, busy: 'Busy.' });
    expect(gate.usage).toEqual({ active: 1, waiting: 0 });
    res.emit('close');
    expect(gate.usage).toEqual({ active: 0, waiting: 0 });
  });

  it('a response that closes while waiting leaves the queue and never takes the slot; a closed one takes none', async () => {
    const gate = new Gate(1, 1);
    const first = response();
    await holdForResponse(gate, first, { timeoutMs: 1000, busy: 'Busy.' });
    const second = response();
    const waiting = holdForResponse(gate, second, { timeoutMs: 1000, busy: 'Busy.' });
    expect(gate.usage).toEqual({ active: 1, waiting: 1 });
    close(second);
    await expect(waiting).rejects.toMatchObject({ detail: problems.clientGone().detail });
    expect(gate.usage).toEqual({ active: 1, waiting: 0 });
    close(first);
    const third = response();
    close(third);
    await expect(holdForResponse(gate, third, { timeoutMs: 1000, busy: 'Busy.' })).rejects.toMatchObject({ detail: problems.clientGone().detail });
    expect(gate.usage).toEqual({ active: 0, waiting: 0 });
  });
});
