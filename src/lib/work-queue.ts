import { setImmediate } from 'node:timers';

/** Gives a place back. Calling it twice is harmless. */
export type Leave = () => void;

/** Why a wait for a place ended without one. */
export class QueueRefused extends Error {
  constructor(readonly reason: 'timeout' | 'aborted') {
    super(reason === 'timeout' ? 'no place became free in time' : 'the waiter went away');
  }
}

/** How long a turn of the event loop may run requests before the next ones wait for another turn. */
export const SLICE_MS = 10;

interface Waiter {
  grant: (leave: Leave) => void;
  refuse: (reason: 'timeout') => void;
  enqueuedAt: number;
}

/**
 * The requests an instance works on at once: `concurrency` places, and requests that find none (or
 * arrive once the current turn of the loop has run `sliceMs`) wait in a first-in first-out queue,
 * at most `maxWaitMs`. It keeps goodput under overload: a request past the bound
 * is refused (a 503 its client retries later) instead of everyone's answer coming later and later, and
 * waiting clients are parked rather than refused at once and back a moment later.
 *
 * Waiters are let in one per turn of the event loop (`setImmediate`), never straight from the request
 * that gives a place back: on SQLite a handler's work is synchronous, and handing places on inside
 * one turn would run the whole queue in that turn, with the loop blocked meanwhile (health checks, new
 * connections, timers). A request that finds a place free, nobody waiting and a young turn goes on at
 * once.
 */
export class WorkQueue {
  private active = 0;
  private readonly waiting = new Set<Waiter>();
  private scheduled = false;
  /** When the current turn of the loop started (about: when the last `check` phase ran). */
  private turnStarted = performance.now();
  private marking = false;
  private entered = false;

  constructor(
    readonly concurrency: number,
    readonly maxWaitMs: number,
    readonly sliceMs = SLICE_MS,
  ) {}

  /** Places in use and waiters queued (for logs and tests). */
  get usage(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.size };
  }

  /**
   * Resolves with the function that gives the place back once one is this caller's; rejects with
   * `QueueRefused` when `maxWaitMs` passes first or `signal` aborts (already aborted: at once).
   */
  enter(signal?: AbortSignal): Promise<Leave> {
    if (signal?.aborted) return Promise.reject(new QueueRefused('aborted'));
    const now = this.enterAtOnce();
    if (now) return Promise.resolve(now);
    return new Promise<Leave>((resolve, reject) => {
      const refuse = (reason: 'timeout' | 'aborted') => {
        if (!this.waiting.delete(waiter)) return;
        cleanup();
        reject(new QueueRefused(reason));
      };
      const onAbort = () => refuse('aborted');
      const timer = setTimeout(() => refuse('timeout'), this.maxWaitMs);
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        enqueuedAt: performance.now(),
        refuse,
        grant: (leave) => {
          cleanup();
          resolve(leave);
        },
      };
      this.waiting.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.schedule();
    });
  }

  /**
   * A place at once when one is free, nobody waits and the turn is young (what `enter` grants without
   * waiting), else null (the caller waits with `enter`). Synchronous: most requests find a place so,
   * and need no promise, timer or abort listener for it.
   */
  enterAtOnce(): Leave | null {
    this.markTurns();
    if (this.active < this.concurrency && this.waiting.size === 0 && performance.now() - this.turnStarted < this.sliceMs) {
      this.active++;
      return this.leaver();
    }
    return null;
  }

  private leaver(): Leave {
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.active--;
      this.schedule();
    };
  }

  /**
   * Notes when each turn of the loop starts, for as long as requests keep coming: a `setImmediate`
   * runs in the loop's check phase, right before it goes back to reading the sockets. Requests read in
   * one go (on SQLite, each handler's work is synchronous) go on at once only until the turn has run
   * `sliceMs`; the others wait their turn, so that a turn stays short however many arrive at once.
   */
  private markTurns(): void {
    this.entered = true;
    if (this.marking) return;
    this.marking = true;
    this.turnStarted = performance.now();
    setImmediate(this.mark);
  }

  private readonly mark = (): void => {
    this.turnStarted = performance.now();
    if (this.entered) {
      this.entered = false;
      setImmediate(this.mark);
    } else this.marking = false;
  };

  private schedule(): void {
    if (this.scheduled || this.waiting.size === 0 || this.active >= this.concurrency) return;
    this.scheduled = true;
    setImmediate(this.letOneIn);
  }

  private readonly letOneIn = (): void => {
    this.scheduled = false;
    if (this.active >= this.concurrency) return;
    const now = performance.now();
    for (const waiter of this.waiting) {
      // A waiter whose time is up but whose timer has not fired yet (after a long turn) is refused, not
      // served: its client is told so now, and serving it would only make the next ones later.
      if (now - waiter.enqueuedAt >= this.maxWaitMs) {
        waiter.refuse('timeout');
        continue;
      }
      this.waiting.delete(waiter);
      this.active++;
      waiter.grant(this.leaver());
      break;
    }
    this.schedule();
  };
}
