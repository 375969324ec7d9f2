import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { listQuery, pageSchema, recordPage } from '../../lib/pagination.js';
import { IdParam, NamedRecord, SPACE, StringEnum, Timestamp, TrimmedText } from '../../schemas/common.js';
import { enforcedElsewhere } from '../../lib/enforced-elsewhere.js';
import { RunRef } from '../../schemas/records.js';

/** The most results one request records. */
export const MAX_RESULTS_PER_REQUEST = 100;
/** How many experiments one comparison lines up. */
export const MIN_COMPARED = 2;
export const MAX_COMPARED = 5;

const JsonObject = Type.Object({}, { additionalProperties: true, description: 'Any JSON object' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const Name = TrimmedText(200, 'Unique per dataset (exactly as written): what `runExperiment` resumes an experiment by');
const Status = StringEnum(['running', 'completed'] as const, { description: '`running` until marked `completed`' });

const ScoreAggregate = Type.Object(
  {
    count: Type.Integer({ description: 'Scores of this name on the runs' }),
    mean: Nullable(Type.Number({ description: 'Mean of the numeric and boolean (1/0) values; null when every one is categorical' })),
  },
  { additionalProperties: false },
);

export const ExperimentSchema = NamedRecord('Experiment', {
  id: Type.String(),
  name: Type.String(),
  datasetId: Type.String(),
  datasetVersion: Type.Integer({ description: 'The dataset version it runs over' }),
  projectId: Type.String({ description: 'Where its runs (traces) are stored' }),
  metadata: JsonObject,
  status: Status,
  counts: Type.Object(
    {
      items: Type.Integer({ description: 'Items at the dataset version' }),
      done: Type.Integer({ description: 'Items with a result (failed ones included)' }),
      failed: Type.Integer({ description: 'Results with an error' }),
    },
    { additionalProperties: false },
  ),
  aggregates: Type.Object(
    {
      latency: Type.Object(
        {
          mean: Nullable(Type.Number()),
          p50: Nullable(Type.Integer({ description: 'Nearest rank' })),
          p95: Nullable(Type.Integer({ description: 'Nearest rank' })),
        },
        { additionalProperties: false, description: 'Of the results’ latencyMs; null before the first result' },
      ),
      tokens: Type.Integer({ description: 'Total tokens of the results’ usage' }),
      cost: Type.Number({ description: 'Sum of the results’ cost (USD)' }),
      scores: Type.Record(Type.String(), ScoreAggregate, { description: 'By score name: the scores on the results’ runs' }),
    },
    { additionalProperties: false },
  ),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  completedAt: Nullable(Timestamp),
});
export type Experiment = Static<typeof ExperimentSchema>;
export const ExperimentPage = recordPage('Experiment');

const UsageSchema = Type.Object(
  {
    promptTokens: Type.Integer({ minimum: 0, maximum: 1_000_000_000, format: 'int32' }),
    completionTokens: Type.Integer({ minimum: 0, maximum: 1_000_000_000, format: 'int32' }),
    totalTokens: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_000_000_000, format: 'int32', description: 'Default: prompt + completion' })),
  },
  { additionalProperties: false },
);

const ResultFields = {
  runId: Type.String({ description: 'The run that produced the output (in the experiment’s project)' }),
  traceId: Nullable(Type.String()),
  output: Type.Unknown({ description: 'Any JSON value; null when the task failed' }),
  error: Nullable(Type.String()),
  latencyMs: Type.Integer(),
  usage: Nullable(
    Type.Object({ promptTokens: Type.Integer(), completionTokens: Type.Integer(), totalTokens: Type.Integer() }, { additionalProperties: false }),
  ),
  cost: Nullable(Type.Number()),
};

export const ExperimentResultSchema = NamedRecord('ExperimentResult', {
  experimentId: Type.String(),
  itemId: Type.String(),
  ...ResultFields,
  item: Nullable(
    Type.Object(
      { input: Type.Unknown({ description: 'Any JSON value' }), expectedOutput: Type.Unknown({ description: 'Any JSON value' }) },
      { additionalProperties: false, description: 'The item at the experiment’s dataset version' },
    ),
  ),
  scores: Type.Array(Type.Ref('Score'), { description: 'The scores on its run (at most 100)' }),
  createdAt: Timestamp,
});
export type ExperimentResult = Static<typeof ExperimentResultSchema>;
export const ExperimentResultPage = recordPage('ExperimentResult');

export const NewResultSchema = Type.Object(
  {
    itemId: Type.String({ minLength: 1, maxLength: 128, description: 'An item of the dataset at the experiment’s version' }),
    runId: RunRef({ description: 'The run that produced the output: a run of the experiment’s project (else a 400 at this field)' }),
    traceId: Type.Optional(RunRef({ description: 'Default: the run’s trace' })),
    output: Type.Optional(Type.Unknown({ description: 'Any JSON value (default null)' })),
    error: Type.Optional(Nullable(Type.String({ maxLength: 100_000 }))),
    latencyMs: Type.Integer({ minimum: 0, maximum: 2_147_483_647, format: 'int32' }),
    usage: Type.Optional(Nullable(UsageSchema)),
    cost: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1_000_000 }))),
  },
  { title: 'NewExperimentResult', additionalProperties: false },
);
export type NewResult = Static<typeof NewResultSchema>;
export const RecordResultsBody = Type.Object(
  { results: Type.Array(NewResultSchema, { minItems: 1, maxItems: MAX_RESULTS_PER_REQUEST }) },
  { title: 'RecordExperimentResults', additionalProperties: false },
);
export const ResultsRecordedSchema = Type.Object(
  {
    results: Type.Array(
      Type.Object({ index: Type.Integer(), itemId: Type.String(), status: StringEnum(['created', 'existing'] as const) }, { additionalProperties: false }),
    ),
  },
  { title: 'ExperimentResultsRecorded', additionalProperties: false },
);

export const CreateExperimentBody = Type.Object(
  {
    name: Name,
    datasetId: Type.String({ minLength: 1, maxLength: 200, description: 'A dataset of your organization' }),
    datasetVersion: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 2_147_483_647, format: 'int32', description: 'A version of the dataset (default: its current one)' }),
    ),
    projectId: Type.String({ minLength: 1, maxLength: 200, description: 'A project of your organization: where the runs go' }),
    metadata: Type.Optional(JsonObject),
  },
  { title: 'CreateExperiment', additionalProperties: false },
);
export const UpdateExperimentBody = Type.Object(
  { status: Type.Optional(Status), metadata: Type.Optional(JsonObject) },
  { title: 'UpdateExperiment', additionalProperties: false, minProperties: 1 },
);
export const ListExperimentsQuery = listQuery({
  datasetId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'One dataset’s experiments' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The name, exactly' })),
});
/** One id of `ids`: anything but a comma, and not only whitespace (ids are trimmed). */
const COMPARED_ID = `[^,]*[^,${SPACE}][^,]*`;
export const CompareQuery = listQuery({
  // comparedExperiments says what is wrong, in its words: the pattern states the count and that none is empty.
  ids: enforcedElsewhere(
    Type.String({
      minLength: 1,
      maxLength: 1000,
      description: `${MIN_COMPARED} to ${MAX_COMPARED} distinct experiment ids, comma-separated, of one dataset; the first is the baseline the others are compared with`,
    }),
    { pattern: `^${COMPARED_ID}(?:,${COMPARED_ID}){${MIN_COMPARED - 1},${MAX_COMPARED - 1}}$` },
  ),
  metric: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'The score name whose drop counts as a regression (default: a drop of any score name counts)' }),
  ),
  threshold: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1_000_000,
      description: 'A drop counts as a regression only when the mean falls by more than this (default 0: any drop)',
    }),
  ),
});

const CellScore = Type.Object(
  {
    count: Type.Integer(),
    mean: Nullable(Type.Number({ description: 'Numeric and boolean (1/0) values; null when categorical' })),
    values: Type.Array(Type.Union([Type.Number(), Type.Boolean(), Type.String()])),
  },
  { additionalProperties: false },
);
export const ComparisonRowSchema = NamedRecord('ExperimentComparisonRow', {
  itemId: Type.String(),
  input: Type.Unknown({ description: 'At the baseline’s dataset version' }),
  expectedOutput: Type.Unknown({ description: 'At the baseline’s dataset version' }),
  results: Type.Array(
    Type.Object(
      {
        experimentId: Type.String(),
        recorded: Type.Boolean({ description: 'Whether the experiment has a result for the item (else the fields below are null)' }),
        runId: Nullable(Type.String()),
        traceId: Nullable(Type.String()),
        output: Type.Unknown({ description: 'Any JSON value' }),
        error: Nullable(Type.String()),
        latencyMs: Nullable(Type.Integer()),
        cost: Nullable(Type.Number()),
        scores: Type.Record(Type.String(), CellScore, { description: 'By name: the scores on its run' }),
      },
      { additionalProperties: false },
    ),
    { description: 'One per experiment, in the order of `ids`' },
  ),
  differences: Type.Array(
    Type.Object(
      {
        name: Type.String({ description: 'A score name' }),
        experimentId: Type.String({ description: 'The experiment compared with the baseline' }),
        difference: Nullable(Type.Number({ description: 'Its mean minus the baseline’s; null unless both have a numeric or boolean mean' })),
        regression: Type.Boolean({
          description: 'The difference is below minus `threshold` (below 0 by default), for the `metric` score name when one is given',
        }),
      },
      { additionalProperties: false },
    ),
  ),
  newErrors: Type.Array(Type.String(), {
    description: 'The experiments whose result for the item is an error where the baseline’s result is not: a new failure',
  }),
  regression: Type.Boolean({ description: 'Any difference is a regression, or an experiment failed where the baseline did not' }),
});
export type ComparisonRow = Static<typeof ComparisonRowSchema>;
export const ComparisonPage = pageSchema(Type.Ref('ExperimentComparisonRow'), 'ExperimentComparisonPage');

export const ExperimentParams = Type.Object({ experiment_id: IdParam('exp', 'Experiment id') }, { additionalProperties: false });
