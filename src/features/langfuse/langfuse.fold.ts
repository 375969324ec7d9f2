import { parseTimestamp, toIso } from '../../lib/clock.js';
import { setMember } from '../../lib/json.js';
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

/**
 * Metadata merged as Langfuse merges it: an object's keys over the ones before; anything else kept whole
 * under `metadata`. In place (the state's metadata is its own copy): a copy per event made a thousand
 * events of a thousand keys about one observation cost a billion steps.
 */
function mergeMetadata(state: RunState, metadata: unknown): void {
  if (!given(metadata)) return;
  if (typeof metadata !== 'object' || Array.isArray(metadata)) setMember(state.metadata, 'metadata', metadata);
  else for (const key of Object.keys(metadata as object)) setMember(state.metadata, key, (metadata as Record<string, unknown>)[key]);
}

function keep(state: RunState, key: string, value: unknown): void {
  if (given(value)) state.metadata[key] = value;
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

/** An observation's usage: its usage details, else the older `usage` object when it counts tokens (other units stay in metadata). */
function observationUsage(state: RunState, body: ObservationBody): void {
  const legacy = body.usage;
  let details: Record<string, unknown> | null = given(body.usageDetails) ? body.usageDetails : null;
  if (!details && given(legacy)) {
    if (given(legacy.unit) && legacy.unit !== 'TOKENS') keep(state, 'langfuse.observation.usage', legacy);
    else
      details = Object.fromEntries(
        Object.entries({
          input: legacy.input ?? legacy.promptTokens,
          output: legacy.output ?? legacy.completionTokens,
          total: legacy.total ?? legacy.totalTokens,
        }).filter(([, n]) => given(n)),
      );
  }
  if (details) state.usage = tokenUsage(langfuseUsage({ 'langfuse.observation.usage_details': details })) ?? state.usage;
  let costs: Record<string, unknown> | null = given(body.costDetails) ? body.costDetails : null;
  if (!costs && given(legacy) && (given(legacy.inputCost) || given(legacy.outputCost) || given(legacy.totalCost)))
    costs = Object.fromEntries(Object.entries({ input: legacy.inputCost, output: legacy.outputCost, total: legacy.totalCost }).filter(([, n]) => given(n)));
  if (costs) state.cost = langfuseCost({ 'langfuse.observation.cost_details': costs }) ?? state.cost;
}

/** Applies an observation's event (create or update); the fields whose times cannot be read go to `faults`. */
export function applyObservation(state: RunState, event: ObservationEvent, faults: string[]): void {
  const { body, type, create } = event;
  if (create || state.kind === null) {
    state.kind = langfuseKind({ [TYPE_KEY]: type }) ?? 'custom';
    state.metadata[TYPE_KEY] = type;
  }
  const kind = state.kind;
  if (given(body.traceId)) state.traceId = body.traceId;
  if (given(body.parentObservationId)) state.parentRunId = body.parentObservationId;
  if (given(body.name)) state.name = body.name;
  state.startTime = time(body.startTime, 'startTime', faults) ?? state.startTime;
  state.endTime = time(body.endTime, 'endTime', faults) ?? state.endTime;
  if (given(body.completionStartTime) && time(body.completionStartTime, 'completionStartTime', faults) !== null)
    keep(state, 'langfuse.observation.completion_start_time', body.completionStartTime);
  if (given(body.input)) state.inputs = langfuseIo({ 'langfuse.observation.input': body.input }, 'input', kind);
  if (given(body.output)) state.outputs = langfuseIo({ 'langfuse.observation.output': body.output }, 'output', kind);
  if (given(body.model)) state.model = body.model;
  keep(state, 'langfuse.observation.model.parameters', body.modelParameters);
  observationUsage(state, body);
  keep(state, LEVEL_KEY, body.level);
  keep(state, STATUS_MESSAGE_KEY, body.statusMessage);
  keep(state, 'langfuse.observation.version', body.version);
  keep(state, 'langfuse.environment', body.environment);
  keep(state, 'langfuse.observation.prompt.name', body.promptName);
  keep(state, 'langfuse.observation.prompt.version', body.promptVersion);
  mergeMetadata(state, body.metadata);
}

/** Applies a trace's event (`trace-create`, which Langfuse's SDKs send again to change a trace). */
export function applyTrace(state: RunState, event: TraceEvent, faults: string[]): void {
  const body: TraceBody = event.body;
  state.kind = 'chain';
  state.traceId = state.id;
  state.parentRunId = null;
  if (given(body.name)) state.name = body.name;
  state.startTime = time(body.timestamp, 'timestamp', faults) ?? state.startTime;
  if (given(body.input)) state.inputs = body.input;
  if (given(body.output)) state.outputs = body.output;
  if (given(body.sessionId)) state.sessionId = body.sessionId;
  if (given(body.userId)) state.userId = body.userId;
  if (given(body.tags)) state.tags = [...new Set([...state.tags, ...body.tags])].sort();
  keep(state, 'langfuse.trace.release', body.release);
  keep(state, 'langfuse.trace.version', body.version);
  keep(state, 'langfuse.environment', body.environment);
  keep(state, 'langfuse.trace.public', body.public);
  mergeMetadata(state, body.metadata);
}

/**
 * The run a state makes, as the runs API takes it. An observation without an end is running; an event
 * (a point in time) ends when it starts; level ERROR fails it with its status message (ended then, if it
 * had not). A trace is its root run, succeeded, over its own time and that of its runs (`latestEnd`).
 * `firstAt`: the first event's time, the start of a run no event gave one.
 */
export function runInputOf(state: RunState, trace: boolean, firstAt: number, latestEnd: number | null): Record<string, unknown> {
  // An update that came before its create has no start: its first event's time, or its end if that is earlier.
  const start = state.startTime ?? Math.min(firstAt, state.endTime ?? firstAt);
  let end = state.endTime;
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
