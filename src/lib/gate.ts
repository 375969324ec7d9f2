import type { ServerResponse } from 'node:http';
import { problems } from './problems.js';

/** Gives a slot back. Calling it twice is harmless. */
export type Release = () => void;

const CLOSED_MESSAGES = {
  timeout: 'no slot became free in time',
  full: 'as many waiters as the gate queues are waiting already',
  aborted: 'the waiter went away',
} as const;

/** Why an acquisition ended without a slot. */
export class GateClosed extends Error {
  constructor(readonly reason: keyof typeof CLOSED_MESSAGES) {
    super(CLOSED_MESSAGES[reason]);
  }
}

interface Waiter {
  grant: (release: Release) => void;
}

/**
 * A counting semaphore whose waits are bounded: a waiter that times out or whose signal aborts leaves
 * the queue at once and never takes a slot afterwards, so a client that gives up cannot leak one; past
 * `maxWaiting` waiters, a new one is refused at once.
 */
export class Gate {
  private active = 0;
  private readonly waiting = new Set<Waiter>();

  constructor(
    readonly size: number,
    readonly maxWaiting = Number.POSITIVE_INFINITY,
  ) {}

  /** Slots in use and waiters queued (for logs and tests). */
  get usage(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.size };
  }

  /**
   * Resolves with a release function once a slot is free; rejects with `GateClosed` when `timeoutMs`
   * passes first or `signal` aborts (already aborted: at once, even if a slot is free), or at once when
   * no slot is free and `maxWaiting` are queued.
   */
  acquire(options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<Release> {
    const { signal, timeoutMs } = options;
    if (signal?.aborted) return Promise.reject(new GateClosed('aborted'));
    if (this.active < this.size) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.size >= this.maxWaiting) return Promise.reject(new GateClosed('full'));
    return new Promise<Release>((resolve, reject) => {
      const leave = (reason: 'timeout' | 'aborted') => {
        if (!this.waiting.delete(waiter)) return;
        cleanup();
        reject(new GateClosed(reason));
      };
      const onAbort = () => leave('aborted');
      const timer = timeoutMs === undefined ? null : setTimeout(() => leave('timeout'), timeoutMs);
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        grant: (release) => {
          cleanup();
          resolve(release);
        },
      };
      this.waiting.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // Hand the slot straight to the longest waiter (a Set iterates in insertion order).
      const next = this.waiting.values().next();
      if (next.done) {
        this.active--;
        return;
      }
      this.waiting.delete(next.value);
      next.value.grant(this.releaser());
    };
  }
}

/**
 * `gate.acquire` for a request: a full queue or a wait past `timeoutMs` is the 503 problem `busy` (with
 * `Retry-After`: the wait's length, in seconds); a `signal` that aborts (the client went away) is
 * `problems.clientGone()`, for no one to read.
 */
export async function acquireOrRefuse(gate: Gate, options: { signal?: AbortSignal; timeoutMs: number; busy: string }): Promise<Release> {
  try {
    return await gate.acquire(options);
  } catch (error) {
    if (!(error instanceof GateClosed)) throw error;
    if (error.reason === 'aborted') throw problems.clientGone();
    throw problems.unavailable(options.busy, Math.max(1, Math.ceil(options.timeoutMs / 1000)));
  }
}

/**
 * A slot of `gate` held for as long as `response` is open, given back when it closes whichever way it
 * closes (sent, failed, destroyed, abandoned by its client; a client that leaves while waiting leaves
 * the queue). Refused as `acquireOrRefuse` refuses.
 */
export async function holdForResponse(gate: Gate, response: ServerResponse, options: { timeoutMs: number; busy: string }): Promise<Release> {
  const release = await whileOpen(response, (signal) => acquireOrRefuse(gate, { ...options, signal }));
  response.once('close', release);
  return release;
}

/**
 * Waits for `acquire` with a signal that aborts when `response` closes (its client went away). What it
 * got is given back at once, and `problems.clientGone()` thrown, when the response closed meanwhile.
 */
export async function whileOpen<T extends Release>(response: ServerResponse, acquire: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const closed = new AbortController();
  const onClose = () => closed.abort();
  if (response.destroyed) closed.abort();
  else response.once('close', onClose);
  let release: T;
  try {
    release = await acquire(closed.signal);
  } finally {
    response.off('close', onClose);
  }
  if (closed.signal.aborted || response.destroyed) {
    release();
    throw problems.clientGone();
  }
  return release;
}
