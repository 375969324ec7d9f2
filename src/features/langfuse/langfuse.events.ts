import { parseTimestamp, TIMESTAMP_FAULT } from '../../lib/clock.js';
import { problems, type Problem } from '../../lib/problems.js';
import { toFieldErrors, validatorFor } from '../../lib/validation.js';
import {
  EventEnvelopeSchema,
  OBSERVATION_TYPES,
  ObservationBodySchema,
  ScoreBodySchema,
  TraceBodySchema,
  type EventType,
  type ObservationBody,
  type ScoreBody,
  type TraceBody,
} from './langfuse.schemas.js';

export type ObservationType = (typeof OBSERVATION_TYPES)[number];

interface Read {
  /** Where the event is in the batch, and its own id (what the answer names it by). */
  index: number;
  id: string;
  /** The event's timestamp (ms): events about one thing apply in this order. */
  at: number;
}

/** An event read and checked on its own: what it is about and what it says of it. */
export type ReadEvent =
  | (Read & { entity: 'trace'; key: string; body: TraceBody })
  | (Read & { entity: 'observation'; key: string; type: ObservationType; create: boolean; body: ObservationBody })
  | (Read & { entity: 'score'; body: ScoreBody })
  | (Read & { entity: 'log' });

/** An event that cannot be taken, and why. */
export interface Refusal {
  index: number;
  id: string;
  problem: Problem;
}

/** `*-create` of Langfuse's typed observations (agent, tool, …), by event type. */
const TYPED: Partial<Record<EventType, ObservationType>> = {
  'span-create': 'span',
  'span-update': 'span',
  'generation-create': 'generation',
  'generation-update': 'generation',
  'event-create': 'event',
  'agent-create': 'agent',
  'tool-create': 'tool',
  'chain-create': 'chain',
  'retriever-create': 'retriever',
  'evaluator-create': 'evaluator',
  'embedding-create': 'embedding',
  'guardrail-create': 'guardrail',
};

/** The observation type of `observation-create` and `-update`, whose body says it (`SPAN`, `GENERATION`, …): a span when it says none Langfuse has. */
function typeNamed(value: unknown): ObservationType {
  const type = typeof value === 'string' ? value.toLowerCase() : '';
  return (OBSERVATION_TYPES as readonly string[]).includes(type) ? (type as ObservationType) : 'span';
}

const pointerOf = (index: number) => `/batch/${index}`;

function invalid(schema: object, value: unknown, pointer: string): Problem | null {
  const validate = validatorFor(schema);
  return validate(value) ? null : problems.validation(toFieldErrors(validate.errors ?? [], 'body', pointer));
}

const TARGETS_FAULT = 'Provide exactly one of the following: traceId (with optional observationId), sessionId or datasetRunId. ObservationId requires traceId.';

/**
 * What Langfuse refuses of a score beyond its fields' types: a target other than exactly one of a trace
 * (with an observation or not), a session and a dataset run (which Sightline has not: refused too); a
 * value of another type than its data type says (NUMERIC a number, BOOLEAN 1 or 0, CATEGORICAL and TEXT text).
 */
function scoreFault(body: ScoreBody, pointer: string): Problem | null {
  const targets = [body.traceId, body.sessionId, body.datasetRunId].filter((t) => t !== undefined && t !== null).length;
  if (targets !== 1 || (body.observationId != null && body.traceId == null)) return problems.validation([{ pointer, detail: TARGETS_FAULT }]);
  if (body.datasetRunId != null)
    return problems.validation([
      { pointer: `${pointer}/datasetRunId`, detail: 'Scores of dataset runs are not taken here: score the experiment’s runs or traces.' },
    ]);
  const { dataType, value } = body;
  const fits =
    dataType === 'NUMERIC' ? typeof value === 'number' : dataType === 'BOOLEAN' ? value === 0 || value === 1 : dataType ? typeof value === 'string' : true;
  const expected = dataType === 'NUMERIC' ? 'a number' : dataType === 'BOOLEAN' ? '1 or 0' : 'text';
  return fits ? null : problems.validation([{ pointer: `${pointer}/value`, detail: `A ${dataType} score's value must be ${expected}.` }]);
}

/**
 * One event of a batch, checked on its own (its envelope, then its body by its type) and read: a trace,
 * an observation (which, whether it is a create), a score, or an SDK log line. An observation's event
 * names its observation, as Langfuse requires; a trace that names no id gets one (`newId`; Langfuse
 * drops it), a score's is the scores API's to give.
 */
export function readEvent(raw: unknown, index: number, newId: () => string): ReadEvent | Refusal {
  const pointer = pointerOf(index);
  const rawId = (raw as { id?: unknown } | null)?.id;
  const id = typeof rawId === 'string' ? rawId : 'unknown';
  const refuse = (problem: Problem): Refusal => ({ index, id, problem });
  const envelopeFault = invalid(EventEnvelopeSchema, raw, pointer);
  if (envelopeFault) return refuse(envelopeFault);
  const event = raw as { timestamp: string; type: EventType; body: Record<string, unknown> };
  const at = parseTimestamp(event.timestamp);
  if (at === null) return refuse(problems.validation([{ pointer: `${pointer}/timestamp`, detail: TIMESTAMP_FAULT }]));
  const read = { index, id, at };
  const bodyPointer = `${pointer}/body`;
  if (event.type === 'sdk-log') return { ...read, entity: 'log' };
  if (event.type === 'trace-create') {
    const fault = invalid(TraceBodySchema, event.body, bodyPointer);
    if (fault) return refuse(fault);
    const body = event.body as TraceBody;
    return { ...read, entity: 'trace', key: body.id ?? newId(), body };
  }
  if (event.type === 'score-create') {
    const fault = invalid(ScoreBodySchema, event.body, bodyPointer) ?? scoreFault(event.body as ScoreBody, bodyPointer);
    return fault ? refuse(fault) : { ...read, entity: 'score', body: event.body as ScoreBody };
  }
  const fault = invalid(ObservationBodySchema, event.body, bodyPointer);
  if (fault) return refuse(fault);
  const body = event.body as ObservationBody;
  const create = event.type.endsWith('-create');
  if (body.id === undefined || body.id === null)
    return refuse(problems.validation([{ pointer: `${bodyPointer}/id`, detail: 'An observation’s event names the observation (its id).' }]));
  if ((body.promptName == null) !== (body.promptVersion == null))
    return refuse(
      problems.validation([{ pointer: `${bodyPointer}/promptVersion`, detail: 'promptName and promptVersion go together: send both or neither.' }]),
    );
  const type = TYPED[event.type] ?? typeNamed(body.type);
  return { ...read, entity: 'observation', key: body.id, type, create, body };
}
