import { newRunId } from './ids.js';
import { asObject, errorText, snapshot } from './snapshot.js';
import type { RunCreate, RunKind } from './types.js';

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

/** The tracer a run belongs to, as its runs see it: a run's children are traced through it. */
export interface RunOwner {
  trace<T>(name: string, fn: (run: RunHandle) => T | Promise<T>, options?: TraceOptions): Promise<Awaited<T>>;
}

const SPAN: unique symbol = Symbol('sightline.span');

/** A run's place in its trace, and whether it is still open. */

interface Span {
  tracer: RunOwner;
  id: string;
  traceId: string;
  parentRunId: string | null;
  parent: Span | null;
  open: boolean;
  sessionId: string | undefined;
  userId: string | undefined;
}

export interface ContextStorage {
  run<R>(store: Span, fn: () => R): R;
  getStore(): Span | undefined;
}

let contextStorage: Promise<ContextStorage | null> | null = null;
let loadedStorage: ContextStorage | null | undefined;

/** The async context's storage once loaded: null where the runtime has none, undefined until known. */
export const loadedContextStorage = (): ContextStorage | null | undefined => loadedStorage;

/**
 * AsyncLocalStorage where the runtime has it (Node, Bun, Deno, workers with Node compatibility): a
 * global one, else `node:async_hooks`, loaded lazily so that the SDK itself imports nothing of Node.
 * Without it, nesting is explicit (`parent`, or `run.trace`).
 */
export function loadContextStorage(): Promise<ContextStorage | null> {
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

/** What a run in progress has been told so far (by its options and its handle). */
interface RunState {
  outputs: unknown;
  outputsSet: boolean;
  model: string | undefined;
  provider: string | undefined;
  usage: Usage | undefined;
  cost: number | undefined;
  tags: string[];
  metadata: Record<string, unknown>;
}

/**
 * A new run's span: its parent is `options.parent`, or else (async context) the run of `owner` whose
 * `trace` callback we are in; a stored run (or a run of another tracer) as the parent is a reference by
 * id only.
 */
function openSpan(owner: RunOwner, options: TraceOptions): Span {
  const implicit = options.parent === undefined ? loadedStorage?.getStore() : undefined;
  const parentSpan = options.parent === undefined ? (implicit?.tracer === owner ? implicit : null) : spanOf(options.parent, owner);
  const explicitRef = options.parent && !parentSpan ? options.parent : null;
  const id = options.id ?? newRunId();
  return {
    tracer: owner,
    id,
    traceId: parentSpan?.traceId ?? explicitRef?.traceId ?? id,
    parentRunId: parentSpan?.id ?? explicitRef?.id ?? null,
    parent: parentSpan,
    open: true,
    sessionId: options.sessionId ?? parentSpan?.sessionId,
    userId: options.userId ?? parentSpan?.userId,
  };
}

/** The finished run as the server takes it: snapshots of what it was given, within the server's bounds. */
function runRecord(
  span: Span,
  name: string,
  options: TraceOptions,
  state: RunState,
  startTime: string,
  ending: { status: 'succeeded' | 'failed'; result: unknown; error?: unknown },
): RunCreate {
  const { status, result, error } = ending;
  const endTime = new Date(Math.max(Date.now(), Date.parse(startTime))).toISOString();
  return {
    id: span.id,
    traceId: span.traceId,
    ...(span.parentRunId ? { parentRunId: span.parentRunId } : {}),
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
}

/**
 * Starts a run of `owner`: the handle the application writes to, which hands the run's record to
 * `finished` once, when it ends or fails.
 */
export function openRun(owner: RunOwner, name: string, options: TraceOptions, finished: (run: RunCreate) => void): ActiveRun {
  const span = openSpan(owner, options);
  const startTime = (options.startTime ?? new Date()).toISOString();
  const state: RunState = {
    outputs: undefined,
    outputsSet: false,
    model: options.model,
    provider: options.provider,
    usage: undefined,
    cost: undefined,
    tags: [...(options.tags ?? [])],
    metadata: { ...(options.metadata ?? {}) },
  };
  const finish = (status: 'succeeded' | 'failed', result: unknown, error?: unknown) => {
    if (!span.open) return;
    span.open = false;
    finished(runRecord(span, name, options, state, startTime, { status, result, error }));
  };
  const handle: ActiveRun & { [SPAN]: Span } = {
    [SPAN]: span,
    id: span.id,
    traceId: span.traceId,
    parentRunId: span.parentRunId,
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
    trace: (childName, fn, childOptions = {}) => owner.trace(childName, fn, { ...childOptions, parent: handle }),
    end: (outputs) => finish('succeeded', outputs),
    fail: (error) => finish('failed', undefined, error),
  };
  return handle;
}

/** Calls `fn` with `run` (a handle of `openRun`) as the current run of the async context, where there is one. */
export function inContextOf<R>(storage: ContextStorage | null, run: ActiveRun, fn: () => R): R {
  return storage ? storage.run((run as unknown as { [SPAN]: Span })[SPAN], fn) : fn();
}

function spanOf(parent: RunHandle | { id: string; traceId: string } | null, owner: RunOwner): Span | null {
  if (parent === null) return null;
  const span = (parent as { [SPAN]?: Span })[SPAN];
  return span && span.tracer === owner ? span : null;
}
