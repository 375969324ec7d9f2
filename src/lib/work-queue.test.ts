import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { QueueRefused, WorkQueue } from './work-queue.js';

function busyFor(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // a synchronous handler's work, as SQLite's
  }
}

describe('WorkQueue', () => {
  it('lets `concurrency` in at once, then the waiters in arrival order, and tolerates double leaves', async () => {
    const queue = new WorkQueue(2, 10_000);
    const order: string[] = [];
    const leave1 = await queue.enter();
    const leave2 = await queue.enter();
    const waiters = ['third', 'fourth', 'fifth'].map((name) =>
      queue.enter().then((leave) => {
        order.push(name);
        return leave;
      }),
    );
    await sleep(10);
    expect(order).toEqual([]);
    expect(queue.usage).toEqual({ active: 2, waiting: 3 });
    leave1();
    leave1(); // a second leave must not free another place
    const leave3 = await waiters[0]!;
    await sleep(10);
    expect(order).toEqual(['third']);
    leave2();
    leave3();
    const [, leave4, leave5] = await Promise.all(waiters);
    expect(order).toEqual(['third', 'fourth', 'fifth']);
    leave4!();
    leave5!();
    expect(queue.usage).toEqual({ active: 0, waiting: 0 });
  });

  it('refuses a waiter once it has waited maxWaitMs, and one whose signal aborts (at once when already aborted); neither takes a place later', async () => {
    const queue = new WorkQueue(1, 100);
    const leave = await queue.enter();
    const started = performance.now();
    await expect(queue.enter()).rejects.toEqual(new QueueRefused('timeout'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    const controller = new AbortController();
    const aborted = queue.enter(controller.signal);
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ reason: 'aborted' });
    await expect(queue.enter(AbortSignal.abort())).rejects.toMatchObject({ reason: 'aborted' });
    expect(queue.usage).toEqual({ active: 1, waiting: 0 });
    leave();
    await nextTurn();
    expect(queue.usage).toEqual({ active: 0, waiting: 0 });
  });

  it('lets one waiter in per turn of the loop when a place frees, never the whole queue inside one turn', async () => {
    const queue = new WorkQueue(1, 10_000);
    const first = await queue.enter();
    const ran: number[] = [];
    let turn = 0;
    const ticking = setInterval(() => turn++, 0);
    // Five synchronous 20 ms handlers, each giving its place back as it ends (as a SQLite request does).
    const waiters = Array.from({ length: 5 }, (_, i) =>
      queue.enter().then((leave) => {
        ran.push(turn);
        busyFor(20);
        leave();
        return i;
      }),
    );
    first();
    await Promise.all(waiters);
    clearInterval(ticking);
    // Each waiter ran in a turn of its own: timers ran between them.
    expect(new Set(ran).size).toBe(5);
  });

  it('lets a request in at once while the turn is young and nobody waits; once the turn has run sliceMs, the next waits for the next turn', async () => {
    const queue = new WorkQueue(8, 10_000, 10);
    const leaveA = await queue.enter();
    busyFor(15); // the turn has run past its slice
    let entered = false;
    const later = queue.enter().then((leave) => {
      entered = true;
      return leave;
    });
    await Promise.resolve();
    expect(entered).toBe(false);
    const leaveB = await later;
    expect(entered).toBe(true);
    leaveA();
    leaveB();
  });

  it('refuses a waiter whose time ran out during a long turn when its turn comes, instead of serving it late', async () => {
    const queue = new WorkQueue(1, 50);
    const leave = await queue.enter();
    const late = queue.enter();
    const next = queue.enter();
    // Its timer cannot fire during this turn; the place frees at its end.
    busyFor(80);
    leave();
    await expect(late).rejects.toMatchObject({ reason: 'timeout' });
    await expect(next).rejects.toMatchObject({ reason: 'timeout' });
    expect(queue.usage).toEqual({ active: 0, waiting: 0 });
  });
});
