import { MAX_BATCH, type RunBatchSender } from './batch.js';
import { SightlineProblem } from './errors.js';
import { newRunId } from './ids.js';
import type { RunCreate, RunKind } from './types.js';

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

export interface TraceOptions {
  /**
   * The run's id (default: a new `run_` ULID). An id derived from the work (as `runExperiment` does)
   * makes a re-run of the same work the same run: the server answers `existing` rather than storing two.
   */
  id?: string;
  /** Default `chain`. */
  kind?: RunKind;
  /** Any JSON value (default `{}`). */
  inputs?: unknown;
  tags?: string[];
  metadata?: Record<string, unknown>;
  model?: string;
  provider?: string;
  /** The conversation the run belongs to. Default: the parent's. */
  sessionId?: string;
  /** The end user the run acts for. Default: the parent's. */
  userId?: string;
  /**
   * The parent run. Default: the run whose `trace` callback we are in (async context, where the
   * runtime has AsyncLocalStorage). `null` starts a new trace; a `{ id, traceId }` of a stored run
   * makes this run its child.
   */
  parent?: RunHandle | { id: string; traceId: string } | null;
  /** The start time (default now). */
  startTime?: Date;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens?: number;
  /** Input tokens read from a prompt cache (part of promptTokens). */
  cacheReadTokens?: number;
  /** Input tokens written to a prompt cache (part of promptTokens). */
  cacheCreationTokens?: number;
  /** Output tokens spent on reasoning (part of completionTokens). */
  reasoningTokens?: number;
}

/** A run in progress. */
export interface RunHandle {
  readonly id: string;
  readonly traceId: string;
  readonly parentRunId: string | null;
  /** Replaces the outputs (by default a `trace` run's outputs are what its function returned). */
  setOutputs(outputs: unknown): void;
  setModel(model: string, provider?: string): void;
  setUsage(usage: Usage): void;
  /** The conversation and the end user (children started later inherit them). */
  setSession(sessionId: string): void;
  setUser(userId: string): void;
  setCost(cost: number): void;
  addTags(...tags: string[]): void;
  addMetadata(metadata: Record<string, unknown>): void;
  /** A child run of this one (explicit nesting; `tracer.trace` finds the parent by itself where it can). */
  trace<T>(name: string, fn: (run: RunHandle) => T | Promise<T>, options?: Omit<TraceOptions, 'parent'>): Promise<Awaited<T>>;
}

/** A run started with `tracer.start` (for work that does not fit one function call, such as a stream). */
export interface ActiveRun extends RunHandle {
  /** Ends the run as succeeded (with these outputs, if given). Later calls do nothing. */
  end(outputs?: unknown): void;
  /** Ends the run as failed with this error. Later calls do nothing. */
  fail(error: unknown): void;
}

const SPAN: unique symbol = Symbol('sightline.span');

interface Span {
  tracer: Tracer;
  id: string;
  traceId: string;
  parentRunId: string | null;
  parent: Span | null;
  open: boolean;
  sessionId: string | undefined;
  userId: string | undefined;
}

interface ContextStorage {
  run<R>(store: Span, fn: () => R): R;
  getStore(): Span | undefined;
}

let contextStorage: Promise<ContextStorage | null> | null = null;
let loadedStorage: ContextStorage | null | undefined;

/**
 * AsyncLocalStorage where the runtime has it (Node, Bun, Deno, workers with Node compatibility): a
 * global one, else `node:async_hooks`, loaded lazily so that the SDK itself imports nothing of Node.
 * Without it, nesting is explicit (`parent`, or `run.trace`).
 */
function loadContextStorage(): Promise<ContextStorage | null> {
  contextStorage ??= (async () => {
    type Ctor = new () => ContextStorage;
    let Als = (globalThis as { AsyncLocalStorage?: Ctor }).AsyncLocalStorage;
    if (typeof Als !== 'function') {
      try {
        const specifier = 'node:async_hooks';
        Als = ((await import(/* @vite-ignore */ specifier)) as { AsyncLocalStorage?: Ctor }).AsyncLocalStorage;
      } catch {
        Als = undefined;
      }
    }
    loadedStorage = typeof Als === 'function' ? new Als() : null;
    return loadedStorage;
  })();
  return contextStorage;
}

const MAX_DEPTH = 64;
const MAX_ERROR = 100_000;

/**
 * A JSON snapshot of a value: cycles, functions, symbols and undefined left out, bigints as strings,
 * dates as ISO strings, nesting cut at a depth the server accepts. Taken when the run ends, so a retry
 * sends exactly the same content (which the server needs to recognise it) whatever the app does next.
 */
export function snapshot(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return undefined;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (seen.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Truncated]';
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    let converted: unknown;
    try {
      converted = (toJSON as () => unknown).call(value);
    } catch {
      converted = String(value);
    }
    if (converted !== value) return snapshot(converted, depth, seen);
  }
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => snapshot(item, depth + 1, seen) ?? null);
    if (value instanceof Map) return snapshot(Object.fromEntries(value), depth, seen);
    if (value instanceof Set) return snapshot([...value], depth, seen);
    if (value instanceof Error) return { name: value.name, message: value.message };
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const copy = snapshot(item, depth + 1, seen);
      if (copy !== undefined) out[key] = copy;
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/** A JSON object for `inputs`/`outputs`/`metadata`: objects as they are, anything else as `{ output }`. */
function asObject(value: unknown, key = 'output'): Record<string, unknown> | null {
  const copy = snapshot(value);
  if (copy === undefined) return null;
  if (copy !== null && typeof copy === 'object' && !Array.isArray(copy)) return copy as Record<string, unknown>;
  return { [key]: copy };
}

function errorText(error: unknown): string {
  const text =
    error instanceof Error ? `${error.name}: ${error.message}` : typeof error === 'string' ? error : (JSON.stringify(snapshot(error)) ?? String(error));
  return text.length > MAX_ERROR ? text.slice(0, MAX_ERROR) : text;
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
    const implicit = options.parent === undefined ? loadedStorage?.getStore() : undefined;
    const parentSpan = options.parent === undefined ? (implicit?.tracer === this ? implicit : null) : spanOf(options.parent, this);
    // A stored run (or a run of another tracer) as the parent: a reference by id only.
    const explicitRef = options.parent && !parentSpan ? options.parent : null;
    const id = options.id ?? newRunId();
    const traceId = parentSpan?.traceId ?? explicitRef?.traceId ?? id;
    const parentRunId = parentSpan?.id ?? explicitRef?.id ?? null;
    const span: Span = {
      tracer: this,
      id,
      traceId,
      parentRunId,
      parent: parentSpan,
      open: true,
      sessionId: options.sessionId ?? parentSpan?.sessionId,
      userId: options.userId ?? parentSpan?.userId,
    };
    const startTime = (options.startTime ?? new Date()).toISOString();
    const state = {
      outputs: undefined as unknown,
      outputsSet: false,
      model: options.model,
      provider: options.provider,
      usage: undefined as Usage | undefined,
      cost: undefined as number | undefined,
      tags: [...(options.tags ?? [])],
      metadata: { ...(options.metadata ?? {}) } as Record<string, unknown>,
    };
    const finish = (status: 'succeeded' | 'failed', result: unknown, error?: unknown) => {
      if (!span.open) return;
      span.open = false;
      const endTime = new Date(Math.max(Date.now(), Date.parse(startTime))).toISOString();
      const run: RunCreate = {
        id,
        traceId,
        ...(parentRunId ? { parentRunId } : {}),
        name: name.slice(0, 256) || 'run',
        kind: options.kind ?? 'chain',
        status,
        startTime,
        endTime,
        inputs: snapshot(options.inputs ?? {}) ?? {},
        outputs: status === 'failed' && !state.outputsSet ? null : (snapshot(state.outputsSet ? state.outputs : result) ?? null),
        ...(status === 'failed' ? { error: errorText(error) } : {}),
        ...(state.model ? { model: state.model.slice(0, 256) } : {}),
        ...(state.provider ? { provider: state.provider.slice(0, 256) } : {}),
        ...(span.sessionId ? { sessionId: span.sessionId.slice(0, 256) } : {}),
        ...(span.userId ? { userId: span.userId.slice(0, 256) } : {}),
        ...(state.usage ? { usage: state.usage } : {}),
        ...(state.cost !== undefined ? { cost: state.cost } : {}),
        tags: [...new Set(state.tags.filter((t) => t.length > 0).map((t) => t.slice(0, 128)))].slice(0, 50),
        metadata: asObject(state.metadata, 'value') ?? {},
      };
      this.finished(run);
    };
    const handle: ActiveRun & { [SPAN]: Span } = {
      [SPAN]: span,
      id,
      traceId,
      parentRunId,
      setOutputs: (outputs) => {
        state.outputs = outputs;
        state.outputsSet = true;
      },
      setModel: (model, provider) => {
        state.model = model;
        if (provider !== undefined) state.provider = provider;
      },
      setUsage: (usage) =>
        (state.usage = Object.fromEntries(
          (['promptTokens', 'completionTokens', 'totalTokens', 'cacheReadTokens', 'cacheCreationTokens', 'reasoningTokens'] as const)
            .filter((key) => usage[key] !== undefined)
            .map((key) => [key, usage[key]]),
        ) as unknown as Usage),
      setSession: (sessionId) => void (span.sessionId = sessionId),
      setUser: (userId) => void (span.userId = userId),
      setCost: (cost) => (state.cost = cost),
      addTags: (...tags) => void state.tags.push(...tags),
      addMetadata: (metadata) => void Object.assign(state.metadata, metadata),
      trace: (childName, fn, childOptions = {}) => this.trace(childName, fn, { ...childOptions, parent: handle }),
      end: (outputs) => finish('succeeded', outputs),
      fail: (error) => finish('failed', undefined, error),
    };
    return handle;
  }

  /**
   * Runs `fn` as a run: its start and end times, what it returned (as `outputs`), or what it threw
   * (status `failed`, then rethrown). Runs started inside `fn` become its children, also across
   * `await` and `Promise.all` (async context).
   */
  async trace<T>(name: string, fn: (run: RunHandle) => T | Promise<T>, options: TraceOptions = {}): Promise<Awaited<T>> {
    const storage = loadedStorage === undefined ? await loadContextStorage() : loadedStorage;
    const run = this.start(name, options);
    const span = (run as unknown as { [SPAN]: Span })[SPAN];
    try {
      const result = await (storage ? storage.run(span, () => fn(run)) : fn(run));
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

function spanOf(parent: RunHandle | { id: string; traceId: string } | null, tracer: Tracer): Span | null {
  if (parent === null) return null;
  const span = (parent as { [SPAN]?: Span })[SPAN];
  return span && span.tracer === tracer ? span : null;
}
