import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { StringEnum } from '../../schemas/common.js';

/**
 * Langfuse's batch ingestion API (`POST /api/public/ingestion`) as its SDKs and integrations send it
 * (docs/langfuse.md): the request, each event's envelope and body, and the multi-status answer. Fields are
 * Langfuse's, nullable as Langfuse's are (`null` means not given); unknown fields are ignored, as Langfuse
 * ignores them.
 */

/** Every event type Langfuse's API takes. `sdk-log` is accepted and not stored. */
export const OBSERVATION_TYPES = ['span', 'generation', 'event', 'agent', 'tool', 'chain', 'retriever', 'evaluator', 'embedding', 'guardrail'] as const;
export const EVENT_TYPES = [
  'trace-create',
  'score-create',
  'span-create',
  'span-update',
  'generation-create',
  'generation-update',
  'event-create',
  'observation-create',
  'observation-update',
  'agent-create',
  'tool-create',
  'chain-create',
  'retriever-create',
  'evaluator-create',
  'embedding-create',
  'guardrail-create',
  'sdk-log',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Most events one request may carry (Langfuse's SDKs send 15 at a time by default). */
export const MAX_EVENTS = 1000;

const Nullish = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
/** Lengths and patterns are the runs' and scores' own rules, which every event goes through after this. */
const Text = Type.String();
const Id = Type.String();
const DateTime = Type.String({ description: 'An ISO 8601 date-time with its offset' });
const Anything = Type.Optional(Type.Unknown());

export const EventEnvelopeSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 256, description: 'The event’s own id (the SDK makes one per event)' }),
    timestamp: DateTime,
    type: StringEnum(EVENT_TYPES),
    body: Type.Object({}, { additionalProperties: true }),
    metadata: Anything,
  },
  { title: 'LangfuseIngestionEvent', additionalProperties: true },
);

export const TraceBodySchema = Type.Object(
  {
    id: Nullish(Id),
    timestamp: Nullish(DateTime),
    name: Nullish(Text),
    input: Anything,
    output: Anything,
    sessionId: Nullish(Text),
    userId: Nullish(Text),
    release: Nullish(Text),
    version: Nullish(Text),
    metadata: Anything,
    tags: Nullish(Type.Array(Type.String())),
    environment: Anything,
    public: Nullish(Type.Boolean()),
  },
  { additionalProperties: true },
);
export type TraceBody = Static<typeof TraceBodySchema>;

export const ObservationBodySchema = Type.Object(
  {
    id: Nullish(Id),
    traceId: Nullish(Id),
    type: Nullish(Type.String()),
    name: Nullish(Text),
    startTime: Nullish(DateTime),
    endTime: Nullish(DateTime),
    completionStartTime: Nullish(DateTime),
    metadata: Anything,
    input: Anything,
    output: Anything,
    level: Nullish(StringEnum(['DEBUG', 'DEFAULT', 'WARNING', 'ERROR'] as const)),
    statusMessage: Nullish(Text),
    parentObservationId: Nullish(Id),
    version: Nullish(Text),
    environment: Anything,
    model: Nullish(Type.String()),
    modelParameters: Nullish(Type.Record(Type.String(), Type.Unknown())),
    usage: Nullish(
      Type.Object(
        {
          input: Nullish(Type.Number()),
          output: Nullish(Type.Number()),
          total: Nullish(Type.Number()),
          unit: Nullish(Type.String()),
          inputCost: Nullish(Type.Number()),
          outputCost: Nullish(Type.Number()),
          totalCost: Nullish(Type.Number()),
          promptTokens: Nullish(Type.Number()),
          completionTokens: Nullish(Type.Number()),
          totalTokens: Nullish(Type.Number()),
        },
        { additionalProperties: true },
      ),
    ),
    usageDetails: Nullish(Type.Record(Type.String(), Type.Unknown())),
    costDetails: Nullish(Type.Record(Type.String(), Type.Unknown())),
    promptName: Nullish(Text),
    promptVersion: Nullish(Type.Integer()),
  },
  { additionalProperties: true },
);
export type ObservationBody = Static<typeof ObservationBodySchema>;

export const ScoreBodySchema = Type.Object(
  {
    id: Nullish(Id),
    name: Type.String(),
    value: Type.Union([Type.Number(), Type.String()]),
    dataType: Nullish(StringEnum(['NUMERIC', 'BOOLEAN', 'CATEGORICAL', 'TEXT'] as const)),
    datasetRunId: Nullish(Id),
    traceId: Nullish(Id),
    observationId: Nullish(Id),
    sessionId: Nullish(Id),
    comment: Nullish(Type.String()),
    metadata: Anything,
    configId: Nullish(Id),
    environment: Anything,
  },
  { additionalProperties: true },
);
export type ScoreBody = Static<typeof ScoreBodySchema>;

export const IngestionBodySchema = Type.Object(
  {
    batch: Type.Array(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            'An event `{ id, timestamp, type, body, metadata? }`: `type` one of ' +
            EVENT_TYPES.map((type) => `\`${type}\``).join(', ') +
            '. Each is validated on its own (docs/langfuse.md lists the fields of each body).',
        },
      ),
      { maxItems: MAX_EVENTS },
    ),
    metadata: Anything,
  },
  { title: 'LangfuseIngestionBatch', additionalProperties: true },
);
export type IngestionBody = Static<typeof IngestionBodySchema>;

export const IngestionResultSchema = Type.Object(
  {
    successes: Type.Array(Type.Object({ id: Type.String(), status: Type.Integer({ description: '201' }) }, { additionalProperties: false })),
    errors: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          status: Type.Integer({ description: 'The HTTP status the event alone would have had: 400, 403, 404 or 409' }),
          message: Type.String(),
          error: Type.Optional(Type.Unknown({ description: 'The problem’s field errors, when there are some' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { title: 'LangfuseIngestionResult', additionalProperties: false },
);
export type IngestionResult = Static<typeof IngestionResultSchema>;
