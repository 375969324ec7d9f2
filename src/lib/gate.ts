/** Gives a slot back. Calling it twice is harmless. */
export type Release = () => void;

/** Why an acquisition ended without a slot. */
export class GateClosed extends Error {
  constructor(readonly reason: 'timeout' | 'aborted') {
    super(reason === 'timeout' ? 'no slot became free in time' : 'the waiter went away');
  }
}

interface Waiter {
  grant: (release: Release) => void;
}

/**
 * A counting semaphore whose waits are bounded: a waiter that times out or whose signal aborts leaves
 * the queue at once and never takes a slot afterwards, so a client that gives up cannot leak one.
 */
export class Gate {
  private active = 0;
  private readonly waiting = new Set<Waiter>();

  constructor(readonly size: number) {}

  /** Slots in use and waiters queued (for logs and tests). */
  get usage(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.size };
  }

  /**
   * Resolves with a release function once a slot is free; rejects with `GateClosed` when `timeoutMs`
   * passes first or `signal` aborts (already aborted: at once, even if a slot is free).
   */
  acquire(options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<Release> {
    const { signal, timeoutMs } = options;
    if (signal?.aborted) return Promise.reject(new GateClosed('aborted'));
    if (this.active < this.size) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
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
