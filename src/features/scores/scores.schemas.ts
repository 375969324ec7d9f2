import { Type, type Static } from '@sinclair/typebox';
import { listQuery, nameContains, recordPage } from '../../lib/pagination.js';
import { acrossFields, IdParam, NamedRecord, recordTimes, StringEnum, Timestamp, TRIMMED_TEXT_PATTERN, TrimmedText } from '../../schemas/common.js';
import { metricsSchema, metricsWindowProperties } from '../query/metrics.schemas.js';
import { MAX_CATEGORIES, MAX_COMMENT } from './scores.rules.js';
import { JsonObject, RunRef, SCORE_DATA_TYPES, SCORE_SOURCES, SCORE_TARGETS, ValuePrefix } from '../../schemas/records.js';

const Name = (description: string) => TrimmedText(100, description);
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const ScoreValue = Type.Union([Type.Number(), Type.Boolean(), Type.String({ minLength: 1, maxLength: 100 })], {
  description: 'A number (numeric), true or false (boolean), or a category (categorical): the type of the value is the type of the score',
});
export const ScoreDataType = StringEnum(SCORE_DATA_TYPES);
export const ScoreSource = StringEnum(SCORE_SOURCES, { description: '`api` (default), `annotation` (a reviewer), `evaluator` (an automatic judge)' });
export const ScoreTarget = StringEnum(SCORE_TARGETS);

export const ScoreSchema = NamedRecord('Score', {
  id: Type.String(),
  projectId: Type.String(),
  target: ScoreTarget,
  runId: Nullable(Type.String({ description: 'The run it judges (target `run`)' })),
  traceId: Nullable(Type.String({ description: 'The trace it judges (target `trace`)' })),
  sessionId: Nullable(Type.String({ description: 'The session it judges (target `session`)' })),
  name: Type.String(),
  dataType: ScoreDataType,
  value: ScoreValue,
  comment: Nullable(Type.String()),
  source: ScoreSource,
  author: Type.Object(
    {
      kind: StringEnum(['user', 'rule'] as const, { description: '`user`: the member (or token) that sent it; `rule`: an evaluator rule' }),
      id: Type.String(),
    },
    { additionalProperties: false },
  ),
  configId: Nullable(Type.String({ description: 'The score config it was validated against' })),
  queueId: Nullable(Type.String({ description: 'The annotation queue it was given in' })),
  metadata: JsonObject,
  ...recordTimes,
});
export type Score = Static<typeof ScoreSchema>;
export const ScorePage = recordPage('Score');

const scoreFields = {
  id: Type.Optional(RunRef({ description: 'A client-chosen id (1..128 of A-Z a-z 0-9 _ . : -); makes the create idempotent.' })),
  name: Type.Optional(Name('The score’s name (default: its config’s); a config of the organization with this name validates it')),
  configId: Type.Optional(IdParam('scc', 'A score config to validate the value against')),
  value: ScoreValue,
  comment: Type.Optional(Nullable(Type.String({ maxLength: MAX_COMMENT }))),
  source: Type.Optional(ScoreSource),
  metadata: Type.Optional(JsonObject),
};

/** A score of the target the path names. */
// scores.ingest.ts's rule, in its words: a score has a name, or a config whose name it takes.
const NAMED = { anyOf: [{ required: ['name'] }, { required: ['configId'] }] };
export const ScoreInputSchema = acrossFields(Type.Object(scoreFields, { title: 'ScoreCreate', additionalProperties: false }), NAMED);
export type ScoreInput = Static<typeof ScoreInputSchema>;

/** A score in a batch: it names its target. */
export const ScoreBatchItemSchema = Type.Object(
  {
    ...scoreFields,
    runId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    traceId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    sessionId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  },
  { title: 'ScoreBatchItem', additionalProperties: false },
);
export type ScoreBatchItem = Static<typeof ScoreBatchItemSchema>;

export const ScoreBatchBody = Type.Object(
  {
    scores: Type.Array(
      Type.Object({}, { additionalProperties: true, description: 'A score with exactly one of runId, traceId and sessionId; each is validated on its own' }),
      { minItems: 1, maxItems: 1000 },
    ),
  },
  { title: 'ScoreBatch', additionalProperties: false },
);

export const ScoreBatchResult = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          index: Type.Integer(),
          id: Type.Union([Type.String(), Type.Null()]),
          status: StringEnum(['created', 'existing', 'rejected'] as const),
          problem: Type.Optional(Type.Ref('Problem')),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { title: 'ScoreBatchResult', additionalProperties: false },
);

export const UpdateScoreBody = Type.Object(
  { value: Type.Optional(ScoreValue), comment: Type.Optional(Nullable(Type.String({ maxLength: MAX_COMMENT }))), metadata: Type.Optional(JsonObject) },
  { title: 'ScoreUpdate', additionalProperties: false, minProperties: 1 },
);
export type ScoreUpdate = Static<typeof UpdateScoreBody>;

/** The filters shared by the scores list and the score metrics. */
const scoreFilterProperties = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Scores of this name' })),
  source: Type.Optional(ScoreSource),
  target: Type.Optional(ScoreTarget),
  runId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Scores of this run' })),
  traceId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Scores of this trace and of its runs' })),
  sessionId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Scores of this session' })),
  configId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  queueId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  authorId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Scores given by this user or evaluator rule' })),
};

export const ListScoresQuery = listQuery({ ...scoreFilterProperties, createdAfter: Type.Optional(Timestamp), createdBefore: Type.Optional(Timestamp) });
export type ScoreFilters = Omit<Static<typeof ListScoresQuery>, 'limit' | 'cursor'>;

/** GET …/scores/values: the distinct values of a score field (names, for now), as the runs' values list gives a run field's. */
export const ScoreValuesQuery = listQuery({
  field: StringEnum(['name'] as const, {
    description: 'Whose values: `name` (the names the `hasScore` and `score.<name>` filters and the scores list’s `name` take)',
  }),
  prefix: Type.Optional(ValuePrefix),
});
export type ScoreValuesRequest = Omit<Static<typeof ScoreValuesQuery>, 'limit' | 'cursor'>;

export const SCORE_GROUP_BY = ['name', 'source', 'target'] as const;
export const ScoreMetricsQuery = Type.Object(
  {
    ...scoreFilterProperties,
    ...metricsWindowProperties,
    groupBy: Type.Optional(StringEnum(SCORE_GROUP_BY)),
  },
  { additionalProperties: false },
);

const ScoreAggregate = {
  count: Type.Integer({ minimum: 0, description: 'Scores' }),
  mean: Type.Union([Type.Number(), Type.Null()], { description: 'The mean of the numeric and boolean ones (true as 1, false as 0); null without any' }),
  shares: Type.Object(
    {},
    { additionalProperties: Type.Number(), description: 'Boolean and categorical ones: each label’s fraction of them (`true`/`false` for booleans)' },
  ),
};
export const ScoreMetricsSchema = metricsSchema(ScoreAggregate, 'ScoreMetrics');

export const ScoreParams = Type.Object({ project_id: IdParam('prj', 'Project id'), score_id: IdParam('scr', 'Score id') }, { additionalProperties: false });

// Score configs

const Bound = Type.Union([Type.Number(), Type.Null()]);
const Categories = Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: TRIMMED_TEXT_PATTERN }), {
  minItems: 1,
  maxItems: MAX_CATEGORIES,
  uniqueItems: true,
  description: 'Categorical only: the labels a score may take',
});

export const ScoreConfigSchema = NamedRecord('ScoreConfig', {
  id: Type.String(),
  name: Type.String(),
  dataType: ScoreDataType,
  min: Type.Union([Type.Number(), Type.Null()], { description: 'Numeric: the least value allowed, or null' }),
  max: Type.Union([Type.Number(), Type.Null()], { description: 'Numeric: the greatest value allowed, or null' }),
  categories: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'Categorical: the labels allowed; else null' }),
  description: Nullable(Type.String()),
  archived: Type.Boolean({ description: 'Still validates the scores that name it; no longer offered by the dashboard' }),
  ...recordTimes,
});
export type ScoreConfig = Static<typeof ScoreConfigSchema>;
export const ScoreConfigPage = recordPage('ScoreConfig');

// configFaults' rules (scores.rules.ts), but for a minimum above the maximum: bounds only for numbers, categories only (and always) for categories.
export const CreateScoreConfigBody = acrossFields(
  Type.Object(
    {
      name: Name('Unique in the organization; scores of this name are validated against it'),
      dataType: ScoreDataType,
      min: Type.Optional(Bound),
      max: Type.Optional(Bound),
      categories: Type.Optional(Categories),
      description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    },
    { title: 'ScoreConfigCreate', additionalProperties: false },
  ),
  {
    allOf: [
      { if: { properties: { dataType: { const: 'numeric' } } }, else: { properties: { min: { type: 'null' }, max: { type: 'null' } } } },
      {
        if: { properties: { dataType: { const: 'categorical' } } },
        then: { required: ['categories'], properties: { categories: { not: { type: 'null' } } } },
        else: { properties: { categories: { type: 'null' } } },
      },
    ],
  },
);
export type CreateScoreConfig = Static<typeof CreateScoreConfigBody>;

export const UpdateScoreConfigBody = Type.Object(
  {
    name: Type.Optional(Name('Unique in the organization')),
    min: Type.Optional(Bound),
    max: Type.Optional(Bound),
    categories: Type.Optional(Categories),
    description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    archived: Type.Optional(Type.Boolean()),
  },
  { title: 'ScoreConfigUpdate', additionalProperties: false, minProperties: 1 },
);
export type UpdateScoreConfig = Static<typeof UpdateScoreConfigBody>;

export const ListScoreConfigsQuery = listQuery({
  name: nameContains(100),
  archived: Type.Optional(Type.Boolean({ description: 'Only archived configs (true) or only those in use (false)' })),
});
export const ScoreConfigParams = Type.Object({ config_id: IdParam('scc', 'Score config id') }, { additionalProperties: false });
