import { parseTimestamp, toIso } from '../../lib/clock.js';
import { MAX_JSON_DEPTH, setMember } from '../../lib/json.js';
import { langfuseCost, langfuseIo, langfuseKind, langfuseUsage, type SpanUsage } from '../otlp/index.js';
import type { Run } from '../runs/index.js';
import type { ReadEvent } from './langfuse.events.js';
import type { ObservationBody, TraceBody } from './langfuse.schemas.js';

type RunKind = Run['kind'];
type ObservationEvent = Extract<ReadEvent, { entity: 'observation' }>;
type TraceEvent = Extract<ReadEvent, { entity: 'trace' }>;

/**
 * A run in the making from Langfuse's events: what is stored of it (when it is), each event about it
 * applied on top in the order of their timestamps, as Langfuse merges them: a field an event gives
 * replaces the one before, a field it leaves out or sends as null keeps it, metadata objects merge key by
 * key, a trace's tags add up. What Langfuse says that runs have no field for is kept in the metadata
 * under `langfuse.*` (the names of the OpenTelemetry attributes Langfuse's newer SDKs send it as).
 */
export interface RunState {
  id: string;
  traceId: string | null;
  parentRunId: string | null;
  name: string | null;
  kind: RunKind | null;
  startTime: number | null;
  endTime: number | null;
  inputs: unknown;
  outputs: unknown;
  model: string | null;
  provider: string | null;
  usage: Run['usage'];
  cost: number | null;
  tags: string[];
  metadata: Record<string, unknown>;
  sessionId: string | null;
  userId: string | null;
}

export const TYPE_KEY = 'langfuse.observation.type';
const LEVEL_KEY = 'langfuse.observation.level';
const STATUS_MESSAGE_KEY = 'langfuse.observation.status_message';

/** A run as stored, to apply events on; or nothing yet. */
export function stateOf(id: string, stored: Run | undefined): RunState {
  if (!stored)
    return {
      id,
      ...{ traceId: null, parentRunId: null, name: null, kind: null, startTime: null, endTime: null, inputs: undefined, outputs: undefined },
      ...{ model: null, provider: null, usage: null, cost: null, tags: [], metadata: {}, sessionId: null, userId: null },
    };
  return {
    id,
    traceId: stored.traceId,
    parentRunId: stored.parentRunId,
    name: stored.name,
    kind: stored.kind,
    startTime: Date.parse(stored.startTime),
    endTime: stored.endTime === null ? null : Date.parse(stored.endTime),
    inputs: stored.inputs,
    outputs: stored.outputs,
    model: stored.model,
    provider: stored.provider,
    usage: stored.usage,
    // A cost the client gave is kept; a computed one is computed again from what the run is now.
    cost: stored.costSource === 'client' ? stored.cost : null,
    tags: stored.tags,
    metadata: { ...(stored.metadata as Record<string, unknown>) },
    sessionId: stored.sessionId,
    userId: stored.userId,
  };
}

const given = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `source` merged into `target` key by key, objects at every depth (anything else replaced whole), in
 * place: the state's objects are its own (parsed for this request), and a copy per event made a thousand
 * events of a thousand keys about one observation cost a billion steps. Below MAX_JSON_DEPTH levels,
 * which no stored value passes, values are replaced whole: the recursion stays bounded whatever is sent.
 */
function mergeInto(target: Record<string, unknown>, source: Record<string, unknown>, depth: number): void {
  for (const key of Object.keys(source)) {
    const value = source[key];
    const prior = Object.hasOwn(target, key) ? target[key] : undefined;
    if (value === undefined) continue;
    if (isObject(value) && isObject(prior) && depth < MAX_JSON_DEPTH) mergeInto(prior, value, depth + 1);
    else setMember(target, key, value);
  }
}

/** Metadata merged as Langfuse merges it (deeply); metadata that is not an object is kept whole under `metadata`. */
function mergeMetadata(state: RunState, metadata: unknown): void {
  if (!given(metadata)) return;
  if (isObject(metadata)) mergeInto(state.metadata, metadata, 1);
  else setMember(state.metadata, 'metadata', metadata);
}

/** A field runs have no place for, under its `langfuse.*` key: replaced when the event gives it (`null` too). */
function keep(state: RunState, key: string, value: unknown): void {
  if (value !== undefined) state.metadata[key] = value;
}

function time(value: string | null | undefined, field: string, faults: string[]): number | null {
  if (!given(value)) return null;
  const ms = parseTimestamp(value);
  if (ms === null) faults.push(field);
  return ms;
}

/** Usage as runs take it, from Langfuse's reading of usage details (null when there are no token counts). */
function tokenUsage(usage: SpanUsage | null): Run['usage'] {
  if (!usage) return null;
  const { inputTokens, outputTokens, totalTokens, cacheReadTokens, cacheCreationTokens, reasoningTokens } = usage;
  return {
    promptTokens: inputTokens,
    completionTokens: outputTokens,
    totalTokens,
    ...(cacheReadTokens !== null ? { cacheReadTokens } : {}),
    ...(cacheCreationTokens !== null ? { cacheCreationTokens } : {}),
    ...(reasoningTokens !== null ? { reasoningTokens } : {}),
  };
}

const numbers = (entries: Record<string, unknown>) => Object.fromEntries(Object.entries(entries).filter(([, n]) => given(n)));
const isEmpty = (value: object) => Object.keys(value).length === 0;

/**
 * An observation's usage and cost, as Langfuse reads an event's: the older `usage` object's counts
 * (OpenAI's `promptTokens`, … renamed, its costs then dropped) with `usageDetails` over them, and its
 * costs with `costDetails` over them; each replaces the one before whole when the event gives it.
 * Usage in another unit than tokens stays in metadata.
 */
function observationUsage(state: RunState, body: ObservationBody): void {
  const legacy = given(body.usage) && !isEmpty(body.usage) ? body.usage : null;
  const openAi = legacy !== null && (given(legacy.promptTokens) || given(legacy.completionTokens) || given(legacy.totalTokens));
  let counts: Record<string, unknown> = {};
  if (legacy && given(legacy.unit) && legacy.unit !== 'TOKENS' && !openAi) keep(state, 'langfuse.observation.usage', legacy);
  else if (legacy)
    counts = openAi
      ? numbers({ input: legacy.promptTokens, output: legacy.completionTokens, total: legacy.totalTokens })
      : numbers({ input: legacy.input, output: legacy.output, total: legacy.total });
  if (given(body.usageDetails)) counts = { ...counts, ...body.usageDetails };
  if (!isEmpty(counts)) state.usage = tokenUsage(langfuseUsage({ 'langfuse.observation.usage_details': counts })) ?? state.usage;
  let costs: Record<string, unknown> = legacy && !openAi ? numbers({ input: legacy.inputCost, output: legacy.outputCost, total: legacy.totalCost }) : {};
  if (given(body.costDetails)) costs = { ...costs, ...body.costDetails };
  if (!isEmpty(costs)) state.cost = langfuseCost({ 'langfuse.observation.cost_details': costs }) ?? state.cost;
}

/**
 * Applies an observation's event (create or update), as Langfuse merges one: its type and trace are the
 * first event's, its start the first event's `startTime` (else that event's timestamp); a field the event
 * gives replaces the one before, `null` included, but inputs and outputs, which only a value that is not
 * empty (`""`, 0, false, null) replaces. The fields whose times cannot be read go to `faults`.
 */
export function applyObservation(state: RunState, event: ObservationEvent, faults: string[]): void {
  const { body, type } = event;
  if (state.kind === null) {
    state.kind = langfuseKind({ [TYPE_KEY]: type }) ?? 'custom';
    state.metadata[TYPE_KEY] = type;
  }
  const kind = state.kind;
  state.traceId ??= body.traceId ?? null;
  if (given(body.parentObservationId)) state.parentRunId = body.parentObservationId;
  state.startTime ??= time(body.startTime, 'startTime', faults) ?? event.at;
  if (body.endTime !== undefined) state.endTime = time(body.endTime, 'endTime', faults);
  if (body.name !== undefined) state.name = body.name;
  if (body.model !== undefined) state.model = body.model;
  if (given(body.completionStartTime) && time(body.completionStartTime, 'completionStartTime', faults) !== null)
    keep(state, 'langfuse.observation.completion_start_time', body.completionStartTime);
  if (body.input) state.inputs = langfuseIo({ 'langfuse.observation.input': body.input }, 'input', kind);
  if (body.output) state.outputs = langfuseIo({ 'langfuse.observation.output': body.output }, 'output', kind);
  if (!given(body.modelParameters) || !isEmpty(body.modelParameters)) keep(state, 'langfuse.observation.model.parameters', body.modelParameters);
  observationUsage(state, body);
  keep(state, LEVEL_KEY, body.level);
  keep(state, STATUS_MESSAGE_KEY, body.statusMessage);
  keep(state, 'langfuse.observation.version', body.version);
  keep(state, 'langfuse.environment', body.environment);
  keep(state, 'langfuse.observation.prompt.name', body.promptName);
  keep(state, 'langfuse.observation.prompt.version', body.promptVersion);
  mergeMetadata(state, body.metadata);
}

/**
 * Applies a trace's event (`trace-create`, which Langfuse's SDKs send again to change a trace), merged as
 * an observation's is: its start is the first event's `timestamp` (else that event's), fixed from then on.
 */
export function applyTrace(state: RunState, event: TraceEvent, faults: string[]): void {
  const body: TraceBody = event.body;
  state.kind = 'chain';
  state.traceId = state.id;
  state.parentRunId = null;
  state.startTime ??= time(body.timestamp, 'timestamp', faults) ?? event.at;
  if (body.name !== undefined) state.name = body.name;
  if (body.input) state.inputs = body.input;
  if (body.output) state.outputs = body.output;
  if (body.sessionId !== undefined) state.sessionId = body.sessionId;
  if (body.userId !== undefined) state.userId = body.userId;
  if (given(body.tags)) state.tags = [...new Set([...state.tags, ...body.tags])].sort();
  keep(state, 'langfuse.trace.release', body.release);
  keep(state, 'langfuse.trace.version', body.version);
  keep(state, 'langfuse.environment', body.environment);
  // As Langfuse records it: every trace-create says whether the trace is public (false when it does not say).
  keep(state, 'langfuse.trace.public', body.public ?? false);
  mergeMetadata(state, body.metadata);
}

/**
 * The run a state makes, as the runs API takes it. An observation without an end is running; an event
 * (a point in time) ends when it starts; level ERROR fails it with its status message (ended then, if it
 * had not). A trace is its root run, succeeded, over its own time and that of its runs (`latestEnd`).
 * `firstAt`: the first event's time, the start of a run no event gave one.
 */
export function runInputOf(state: RunState, trace: boolean, firstAt: number, latestEnd: number | null): Record<string, unknown> {
  const start = state.startTime ?? firstAt;
  // As Langfuse stores it: an end before the start is the start (an update that came before its create took
  // its own timestamp as the start, which is after the end it reports).
  let end = state.endTime === null ? null : Math.max(state.endTime, start);
  let status: Run['status'] = end === null ? 'running' : 'succeeded';
  let error: string | null = null;
  if (trace) {
    end = Math.max(start, end ?? start, latestEnd ?? start);
    status = 'succeeded';
  } else if (state.metadata[TYPE_KEY] === 'event') {
    end ??= start;
    status = 'succeeded';
  }
  if (!trace && state.metadata[LEVEL_KEY] === 'ERROR') {
    const message = state.metadata[STATUS_MESSAGE_KEY];
    error = typeof message === 'string' && message !== '' ? message : 'The observation ended with level ERROR.';
    end ??= start;
    status = 'failed';
  }
  return {
    id: state.id,
    ...(state.traceId !== null ? { traceId: state.traceId } : {}),
    parentRunId: trace ? null : (state.parentRunId ?? (state.traceId !== state.id ? state.traceId : null)),
    name: state.name ?? (trace ? 'trace' : String(state.metadata[TYPE_KEY] ?? 'span')),
    kind: state.kind ?? 'custom',
    status,
    startTime: toIso(start),
    endTime: end === null ? null : toIso(end),
    inputs: state.inputs === undefined ? {} : state.inputs,
    outputs: state.outputs === undefined ? null : state.outputs,
    error,
    model: state.model,
    provider: state.provider,
    usage: state.usage,
    ...(state.cost !== null ? { cost: state.cost } : {}),
    tags: state.tags,
    metadata: state.metadata,
    sessionId: state.sessionId,
    userId: state.userId,
  };
}
