import { Type, type Static } from '@sinclair/typebox';
import { acrossFields, NamedRecord, NullableTimestamp, StringEnum, Timestamp } from '../../schemas/common.js';
import { JsonObject, RunKind, RunRef, RunStatusSchema, ValuePrefix } from '../../schemas/records.js';
import { METADATA_KEY_PATTERN, metadataFilters, runFilterProperties } from '../query/filters.schemas.js';
import { ScoreSummaries } from '../query/score-summaries.schemas.js';
import { listOrderProperty, listQuery, recordPage } from '../../lib/pagination.js';

export { TERMINAL_STATUSES } from './runs.rules.js';

const RunIdInput = RunRef({ description: 'A client-chosen id (1..128 of A-Z a-z 0-9 _ . : -); makes the create idempotent.' });

// Bounds that keep every stored value, and sums over millions of runs, inside both engines' bigint and
// double precision (a larger value was a 500 on PostgreSQL).
const MAX_TOKENS = 1_000_000_000_000;
export const MAX_COST = 1_000_000_000_000;
const Tokens = (options: { description?: string } = {}) => Type.Integer({ minimum: 0, maximum: MAX_TOKENS, format: 'int64', ...options });
const Cost = Type.Number({ minimum: 0, maximum: MAX_COST });
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 50, uniqueItems: true });

const usageDetails = {
  cacheReadTokens: Type.Optional(Tokens({ description: 'Input tokens read from a prompt cache (part of promptTokens)' })),
  cacheCreationTokens: Type.Optional(Tokens({ description: 'Input tokens written to a prompt cache (part of promptTokens)' })),
  reasoningTokens: Type.Optional(Tokens({ description: 'Output tokens spent on reasoning (part of completionTokens)' })),
};
const Estimated = Type.Boolean({
  description:
    'true when the counts are estimates: a model run (llm, embedding) that reported no usage has its texts counted with a tokenizer (o200k_base), and its cost computed from them; absent otherwise',
});
export const UsageSchema = Type.Object(
  {
    promptTokens: Tokens({ description: 'Input tokens' }),
    completionTokens: Tokens({ description: 'Output tokens' }),
    totalTokens: Type.Optional(Tokens({ description: 'Defaults to promptTokens + completionTokens' })),
    ...usageDetails,
    estimated: Type.Optional(Estimated),
  },
  { additionalProperties: false },
);

/** Free-form JSON: inputs and outputs may be any value (an object, a list of messages, a string). */
const JsonValue = (description: string) => Type.Unknown({ description });
/** The conversation and end user a run belongs to, and the model's provider: short ids of the client's. */
const ContextId = (description: string) => Type.String({ minLength: 1, maxLength: 256, description });

/** The price a run's computed cost was reckoned at (docs/prices-and-costs.md: Model prices), in USD per million tokens. */
const PerMillion = (what: string) => Type.Number({ description: `USD per million ${what}` });
const RunPriceSchema = Type.Object(
  {
    source: Type.Union([Type.Literal('builtin'), Type.Literal('organization')], { description: "The built-in table, or one of the organization's prices" }),
    id: Type.Union([Type.String(), Type.Null()], { description: "The organization's price (GET /v1/models/{id}); null for the built-in table" }),
    model: Type.String({ description: 'The model name (or pattern) that matched' }),
    provider: Type.Union([Type.String(), Type.Null()]),
    inputPrice: PerMillion('input tokens'),
    outputPrice: PerMillion('output tokens'),
    cacheReadPrice: Type.Union([PerMillion('cache-read tokens'), Type.Null()]),
    cacheWritePrice: Type.Union([PerMillion('cache-write tokens'), Type.Null()]),
    reasoningPrice: Type.Union([PerMillion('reasoning tokens'), Type.Null()]),
  },
  { additionalProperties: false },
);

// Not a component of the API document: every answer is the record with its scores (`Run` below).
export const RunSchema = NamedRecord('RunRecord', {
  id: Type.String(),
  projectId: Type.String(),
  traceId: Type.String(),
  parentRunId: Type.Union([Type.String(), Type.Null()]),
  name: Type.String(),
  kind: RunKind,
  status: RunStatusSchema,
  startTime: Timestamp,
  endTime: NullableTimestamp,
  latencyMs: Type.Union([Type.Integer(), Type.Null()]),
  inputs: JsonValue('Any JSON value; `{}` when none was given'),
  outputs: JsonValue('Any JSON value; null when none was given'),
  error: Type.Union([Type.String(), Type.Null()]),
  model: Type.Union([Type.String(), Type.Null()]),
  usage: Type.Union([
    Type.Object(
      {
        promptTokens: Type.Integer(),
        completionTokens: Type.Integer(),
        totalTokens: Type.Integer(),
        cacheReadTokens: Type.Optional(Type.Integer()),
        cacheCreationTokens: Type.Optional(Type.Integer()),
        reasoningTokens: Type.Optional(Type.Integer()),
        estimated: Type.Optional(Estimated),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ]),
  cost: Type.Union([Type.Number(), Type.Null()]),
  tags: Type.Array(Type.String()),
  metadata: JsonObject,
  createdAt: Timestamp,
  provider: Type.Union([Type.String(), Type.Null()]),
  sessionId: Type.Union([Type.String(), Type.Null()]),
  userId: Type.Union([Type.String(), Type.Null()]),
  costSource: Type.Union([Type.Literal('client'), Type.Literal('computed'), Type.Null()], {
    description: '`client`: the cost the client sent; `computed`: from the model, the usage and `price`; null: no cost',
  }),
  price: Type.Union([RunPriceSchema, Type.Null()], { description: 'The price a computed cost was reckoned at' }),
});
/** A run's record as stored in `runs.doc`. */
export type Run = Static<typeof RunSchema>;

/**
 * A run as every answer gives it (the list, GET, create, change, the NDJSON export): the stored record
 * and, last, its scores' summaries, spliced in (`withScoresText`) rather than stored.
 */
export const RunWithScoresSchema = NamedRecord('Run', { ...RunSchema.properties, scores: ScoreSummaries('run') });
export type RunWithScores = Static<typeof RunWithScoresSchema>;

export const RunPage = recordPage('Run');

// runStateFaults' rules (runs.rules.ts), but for an end before the start: a finished run has an end, a running one
// (the default) none, and only a failed one an error.
export const RunInputSchema = acrossFields(
  Type.Object(
    {
      id: Type.Optional(RunIdInput),
      traceId: Type.Optional(RunRef({ description: "Defaults to the parent's trace, or to the run's own id for a root run" })),
      parentRunId: Type.Optional(Type.Union([RunRef(), Type.Null()])),
      name: Type.String({ minLength: 1, maxLength: 256 }),
      kind: RunKind,
      status: Type.Optional(RunStatusSchema),
      startTime: Timestamp,
      endTime: Type.Optional(
        Type.Union([Timestamp, Type.Null()], {
          description: 'Required when status is succeeded or failed; absent or null while running (the default status); not before startTime',
        }),
      ),
      inputs: Type.Optional(JsonValue('Any JSON value; default `{}`')),
      outputs: Type.Optional(JsonValue('Any JSON value; default null')),
      error: Type.Optional(Type.Union([Type.String({ maxLength: 100_000 }), Type.Null()], { description: 'Only when status is failed' })),
      model: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 256 }), Type.Null()])),
      provider: Type.Optional(Type.Union([ContextId('The model provider (openai, anthropic, …)'), Type.Null()])),
      sessionId: Type.Optional(Type.Union([ContextId('The conversation (session) the run belongs to'), Type.Null()])),
      userId: Type.Optional(Type.Union([ContextId('The end user the run acted for'), Type.Null()])),
      usage: Type.Optional(Type.Union([UsageSchema, Type.Null()])),
      cost: Type.Optional(Type.Union([Cost, Type.Null()])),
      tags: Type.Optional(Tags),
      metadata: Type.Optional(JsonObject),
    },
    { title: 'RunInput', additionalProperties: false },
  ),
  {
    allOf: [
      {
        if: { required: ['status'], properties: { status: { enum: ['succeeded', 'failed'] } } },
        then: { required: ['endTime'], properties: { endTime: { not: { type: 'null' } } } },
        else: { properties: { endTime: { type: 'null' } } },
      },
      { if: { required: ['status'], properties: { status: { const: 'failed' } } }, else: { properties: { error: { type: 'null' } } } },
    ],
  },
);
export type RunInput = Static<typeof RunInputSchema>;

export const RunPatchSchema = Type.Object(
  {
    status: Type.Optional(RunStatusSchema),
    endTime: Type.Optional(Timestamp),
    outputs: Type.Optional(JsonValue('Any JSON value')),
    error: Type.Optional(Type.Union([Type.String({ maxLength: 100_000 }), Type.Null()])),
    usage: Type.Optional(Type.Union([UsageSchema, Type.Null()])),
    cost: Type.Optional(Type.Union([Cost, Type.Null()])),
    tags: Type.Optional(Tags),
    metadata: Type.Optional(JsonObject),
  },
  { title: 'RunPatch', additionalProperties: false, minProperties: 1 },
);
export type RunPatch = Static<typeof RunPatchSchema>;

export const BatchBodySchema = Type.Object(
  {
    runs: Type.Array(Type.Object({}, { additionalProperties: true, description: 'A run as for POST …/runs; each is validated on its own' }), {
      minItems: 1,
      maxItems: 1000,
    }),
  },
  { title: 'RunBatch', additionalProperties: false },
);

export const BatchResultSchema = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          index: Type.Integer(),
          id: Type.Union([Type.String(), Type.Null()]),
          status: Type.Union([Type.Literal('created'), Type.Literal('existing'), Type.Literal('rejected')]),
          problem: Type.Optional(Type.Ref('Problem')),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { title: 'RunBatchResult', additionalProperties: false },
);

export const ListRunsQuery = listQuery({ ...runFilterProperties, ...listOrderProperty('startTime') }, { patternProperties: metadataFilters });

/** The run fields whose distinct values `GET …/runs/values` lists: the runs list's filters of the same names, and metadata. */
export const RUN_VALUE_FIELDS = ['name', 'model', 'tag', 'userId', 'sessionId', 'metadataKey', 'metadataValue'] as const;
export type RunValueField = (typeof RUN_VALUE_FIELDS)[number];

// `key` goes with field=metadataValue, always and only: the route says which is missing or extra (no
// schema of one query parameter can say it of another).
export const RunValuesQuery = listQuery({
  field: StringEnum(RUN_VALUE_FIELDS, {
    description:
      'Whose values: `name`, `model`, `tag`, `userId`, `sessionId` (the runs list’s filters of the same names), `metadataKey` (the top-level metadata keys the `metadata.<key>` filters take), `metadataValue` (the values of the metadata key `key`, as `metadata.<key>=<value>` takes them)',
  }),
  key: Type.Optional(
    Type.String({
      pattern: METADATA_KEY_PATTERN,
      maxLength: 64,
      description: 'The metadata key whose values are listed: required with field=metadataValue, refused otherwise',
    }),
  ),
  prefix: Type.Optional(ValuePrefix),
});
export type RunValuesRequest = Omit<Static<typeof RunValuesQuery>, 'limit' | 'cursor'>;
