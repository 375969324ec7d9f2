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

/** A score's value of another type than its data type says (Langfuse's rules: NUMERIC a number, BOOLEAN 1 or 0, CATEGORICAL text). */
function scoreTypeFault(body: ScoreBody, pointer: string): Problem | null {
  const { dataType, value } = body;
  const fits =
    dataType === 'NUMERIC'
      ? typeof value === 'number'
      : dataType === 'BOOLEAN'
        ? value === 0 || value === 1
        : dataType === 'CATEGORICAL'
          ? typeof value === 'string'
          : true;
  return fits
    ? null
    : problems.validation([
        {
          pointer: `${pointer}/value`,
          detail: `A ${dataType} score's value must be ${dataType === 'NUMERIC' ? 'a number' : dataType === 'BOOLEAN' ? '1 or 0' : 'text'}.`,
        },
      ]);
}

/**
 * One event of a batch, checked on its own (its envelope, then its body by its type) and read: a trace,
 * an observation (which, whether it is a create), a score, or an SDK log line. An event that names no
 * id for the thing it creates gets one (`newId`), as Langfuse gives one.
 */
export function readEvent(raw: unknown, index: number, newId: () => string): ReadEvent | Refusal {
  const pointer = pointerOf(index);
  const rawId = (raw as { id?: unknown } | null)?.id;
  const id = typeof rawId === 'string' ? rawId : '';
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
    const fault = invalid(ScoreBodySchema, event.body, bodyPointer) ?? scoreTypeFault(event.body as ScoreBody, bodyPointer);
    return fault ? refuse(fault) : { ...read, entity: 'score', body: event.body as ScoreBody };
  }
  const fault = invalid(ObservationBodySchema, event.body, bodyPointer);
  if (fault) return refuse(fault);
  const body = event.body as ObservationBody;
  const create = event.type.endsWith('-create');
  if (!create && (body.id === undefined || body.id === null))
    return refuse(problems.validation([{ pointer: `${bodyPointer}/id`, detail: 'An update names the observation it changes.' }]));
  const type = TYPED[event.type] ?? typeNamed(body.type);
  return { ...read, entity: 'observation', key: body.id ?? newId(), type, create, body };
}
