import { MAX_BATCH, type RunBatchSender } from './batch.js';
import { SightlineProblem } from './errors.js';
import { newRunId } from './ids.js';
import { inContextOf, loadContextStorage, loadedContextStorage, openRun, type ActiveRun, type RunHandle, type TraceOptions } from './span.js';
import type { RunCreate } from './types.js';

export type DropReason = 'queue_full' | 'shut_down' | 'rejected' | 'failed';

export interface TracerOptions {
  /** Runs per batch request, 1..1000 (default 100). A full batch is sent at once. */
  batchSize?: number;
  /** How often queued runs are sent in the background (default 1,000 ms; 0 turns the timer off). */
  flushIntervalMs?: number;
  /** The most runs held in memory: queued or being sent (default 10,000). Beyond it new runs are dropped, never queued. */
  maxQueue?: number;
  /** Told of every run that is dropped (instead of the default `console.warn`, at most every 10 s). */
  onDrop?: (run: RunCreate, reason: DropReason) => void;
  /** Told when a background send failed (the runs stay queued and go with the next flush). Default: `console.warn`. */
  onError?: (error: unknown) => void;
}

/**
 * Records runs of one project in the background: runs are queued in memory and sent through the
 * batch endpoint every `flushIntervalMs` or whenever `batchSize` are waiting. Every run carries a
 * client-generated id, so a batch retried after a dropped connection creates nothing twice. The queue
 * is bounded (`maxQueue`): past it, runs are dropped with a warning rather than memory growing.
 * Call `shutdown()` before the process exits.
 */
export class Tracer {
  readonly projectId: string;
  private readonly client: RunBatchSender;
  private readonly batchSize: number;
  private readonly maxQueue: number;
  private readonly onDrop: ((run: RunCreate, reason: DropReason) => void) | undefined;
  private readonly onError: (error: unknown) => void;
  private readonly queue: RunCreate[] = [];
  /** Runs in the batch being sent. */
  private sending = 0;
  private pumping: Promise<void> | null = null;
  private timer: ReturnType<typeof setInterval> | undefined;
  private closed = false;
  private lastWarning = 0;
  private unwarnedDrops = 0;
  /**
   * Counters: runs the server took (created, or already there), runs it refused (`rejected`), runs
   * never delivered (`dropped`: queue full, shut down, or a batch refused as a whole), failed sends.
   */
  readonly stats = { sent: 0, rejected: 0, dropped: 0, failedSends: 0 };

  constructor(client: RunBatchSender, projectId: string, options: TracerOptions = {}) {
    this.client = client;
    this.projectId = projectId;
    this.batchSize = Math.min(MAX_BATCH, Math.max(1, Math.floor(options.batchSize ?? 100)));
    this.maxQueue = Math.max(1, Math.floor(options.maxQueue ?? 10_000));
    this.onDrop = options.onDrop;
    this.onError =
      options.onError ?? ((error) => console.warn(`sightline: sending runs failed; they stay queued: ${String((error as Error)?.message ?? error)}`));
    const interval = options.flushIntervalMs ?? 1000;
    if (interval > 0) {
      this.timer = setInterval(() => this.background(), interval);
      (this.timer as { unref?: () => void }).unref?.(); // never keeps a Node process alive by itself
    }
    void loadContextStorage();
  }

  /** Runs held in memory now (queued or being sent). */
  get size(): number {
    return this.queue.length + this.sending;
  }

  /**
   * Queues a run to be sent (a client id is given when it has none) and returns its id, or null when
   * it was dropped (queue full, or the tracer was shut down).
   */
  enqueue(run: RunCreate): string | null {
    const withId = run.id === undefined ? { ...run, id: newRunId() } : run;
    if (!this.admit([withId])) return null;
    this.queue.push(withId);
    this.kick();
    return withId.id!;
  }

  /** Whether `runs` (not yet counted) fit; drops and reports them when they do not. */
  private admit(runs: RunCreate[]): boolean {
    const reason: DropReason | null = this.closed ? 'shut_down' : this.size + runs.length > this.maxQueue ? 'queue_full' : null;
    if (reason === null) return true;
    this.drop(runs, reason);
    return false;
  }

  /**
   * Lets go of runs: counted (`rejected` for runs the server refused, else `dropped`) and told to
   * `onDrop`, or else warned about (at most every 10 s; failed and rejected sends reach `onError`).
   */
  private drop(runs: RunCreate[], reason: DropReason): void {
    if (reason === 'rejected') this.stats.rejected += runs.length;
    else this.stats.dropped += runs.length;
    if (this.onDrop) {
      for (const run of runs) this.onDrop(run, reason);
      return;
    }
    if (reason === 'rejected' || reason === 'failed') return;
    this.unwarnedDrops += runs.length;
    const now = Date.now();
    if (now - this.lastWarning >= 10_000) {
      this.lastWarning = now;
      const why = reason === 'queue_full' ? `the queue is full (maxQueue ${this.maxQueue})` : 'the tracer was shut down';
      console.warn(`sightline: dropped ${this.unwarnedDrops} run(s): ${why} (${this.stats.dropped} dropped in all)`);
      this.unwarnedDrops = 0;
    }
  }

  private kick(): void {
    if (this.queue.length >= this.batchSize && !this.pumping) void this.pump().catch((error: unknown) => this.onError(error));
  }

  private background(): void {
    if (this.queue.length > 0 && !this.pumping) void this.pump().catch((error: unknown) => this.onError(error));
  }

  /** Sends batches, one at a time and in order (a parent's batch always goes before its children's), until the queue is empty. */
  private pump(): Promise<void> {
    this.pumping ??= (async () => {
      try {
        while (this.queue.length > 0) await this.sendBatch();
      } finally {
        this.pumping = null;
      }
    })();
    return this.pumping;
  }

  private async sendBatch(): Promise<void> {
    const batch = this.queue.splice(0, this.batchSize);
    this.sending = batch.length;
    try {
      const { results } = await this.client.runs.batch(this.projectId, batch);
      const rejected = results.filter((r) => r.status === 'rejected');
      this.stats.sent += batch.length - rejected.length;
      if (rejected.length > 0) {
        const runs = rejected.map((r) => batch[r.index]!).filter(Boolean);
        this.drop(runs, 'rejected');
        this.onError(
          new Error(
            `${rejected.length} run(s) rejected: ${rejected
              .map((r) => `${r.id ?? `#${r.index}`}: ${r.problem?.detail ?? 'rejected'}`)
              .slice(0, 5)
              .join('; ')}`,
          ),
        );
      }
    } catch (error) {
      this.stats.failedSends += 1;
      // Answers that will not change on a retry (a bad request, no permission, no such project) drop the
      // batch; anything else (network, 429, 5xx) puts it back at the front, in order, for the next flush.
      if (error instanceof SightlineProblem && error.status < 500 && error.status !== 429 && error.status !== 408) this.drop(batch, 'failed');
      else this.queue.unshift(...batch);
      throw error;
    } finally {
      this.sending = 0;
    }
  }

  /**
   * Sends every queued run now and waits for it. Rejects if a batch could not be delivered (the runs
   * stay queued). Runs waiting for a parent that is still running go when that parent ends.
   */
  async flush(): Promise<void> {
    if (this.pumping) await this.pumping.catch(() => {});
    if (this.queue.length > 0) await this.pump();
  }

  /** Stops the timer and sends what is queued. Runs finished later are dropped. */
  async shutdown(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.closed = true;
    await this.flush();
  }

  /** Starts a run that ends when you call `end` or `fail` (a stream, a callback API, …). */
  start(name: string, options: TraceOptions = {}): ActiveRun {
    return openRun(this, name, options, (run) => this.finished(run));
  }

  /**
   * Runs `fn` as a run: its start and end times, what it returned (as `outputs`), or what it threw
   * (status `failed`, then rethrown). Runs started inside `fn` become its children, also across
   * `await` and `Promise.all` (async context).
   */
  async trace<T>(name: string, fn: (run: RunHandle) => T | Promise<T>, options: TraceOptions = {}): Promise<Awaited<T>> {
    const loaded = loadedContextStorage();
    const storage = loaded === undefined ? await loadContextStorage() : loaded;
    const run = this.start(name, options);
    try {
      const result = await inContextOf(storage, run, () => fn(run));
      run.end(result);
      return result;
    } catch (error) {
      run.fail(error);
      throw error;
    }
  }

  /** `fn` as a traced function: every call is a run (its arguments as `inputs.args`). */
  wrap<A extends unknown[], R>(
    name: string,
    fn: (...args: A) => R | Promise<R>,
    options: Omit<TraceOptions, 'inputs' | 'parent'> = {},
  ): (...args: A) => Promise<Awaited<R>> {
    return (...args: A) => this.trace(name, () => fn(...args), { ...options, inputs: { args } });
  }

  /**
   * A finished run: queued at once, whether its parent has finished or not (the server stores a child
   * before its parent and links them when the parent arrives).
   */
  private finished(run: RunCreate): void {
    if (!this.admit([run])) return;
    this.queue.push(run);
    this.kick();
  }
}
