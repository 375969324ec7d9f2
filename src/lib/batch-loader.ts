interface Waiter<V> {
  resolve: (value: V | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * Values loaded by key in batches, one batch at a time: the keys asked for in one turn of the event loop,
 * and those asked for while a batch is being loaded, are loaded together by the next batch. A batch starts
 * after every key in it was asked for, so each caller gets its value as a load started after it asked (as
 * fresh as a query of its own), while a burst of callers shares one query instead of one each. At most
 * `maxBatch` keys a batch (the rest wait for the next); the keys waiting are those of callers in flight,
 * so they are as bounded as the requests are. A failed batch fails each of its callers with its error.
 * With `minIntervalMs`, a batch starts at least that long after the one before (at once when the one
 * before is older): under load, callers wait up to that long to share a batch with more callers.
 */
export class BatchLoader<K, V> {
  private readonly pending = new Map<K, Waiter<V>[]>();
  /** A batch is scheduled or being loaded. */
  private busy = false;
  private batches = 0;
  private lastStart = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly loadMany: (keys: K[]) => Promise<ReadonlyMap<K, V>>,
    private readonly maxBatch = 500,
    private readonly minIntervalMs = 0,
  ) {}

  /** The value of `key` (undefined when the batch found none), loaded by a batch that starts after this call. */
  load(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const waiters = this.pending.get(key);
      if (waiters === undefined) this.pending.set(key, [{ resolve, reject }]);
      else waiters.push({ resolve, reject });
      if (!this.busy) {
        this.busy = true;
        this.schedule();
      }
    });
  }

  /** How many batches have been loaded: for the suites. */
  get loaded(): number {
    return this.batches;
  }

  /** The next batch: after this turn, and not sooner than `minIntervalMs` after the last one started. */
  private schedule(): void {
    const wait = this.lastStart + this.minIntervalMs - performance.now();
    if (wait > 0) setTimeout(this.flush, wait);
    else setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    this.lastStart = performance.now();
    const batch = new Map<K, Waiter<V>[]>();
    for (const [key, waiters] of this.pending) {
      if (batch.size >= this.maxBatch) break;
      batch.set(key, waiters);
    }
    for (const key of batch.keys()) this.pending.delete(key);
    this.batches++;
    Promise.resolve()
      .then(() => this.loadMany([...batch.keys()]))
      .then(
        (values) => {
          for (const [key, waiters] of batch) for (const waiter of waiters) waiter.resolve(values.get(key));
        },
        (error: unknown) => {
          for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
        },
      )
      .finally(() => {
        if (this.pending.size > 0) this.schedule();
        else this.busy = false;
      });
  };
}
