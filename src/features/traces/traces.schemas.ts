import { Type, type Static } from '@sinclair/typebox';
import { listOrderProperty, listQuery, recordPage } from '../../lib/pagination.js';
import { NamedRecord, StringEnum, Timestamp } from '../../schemas/common.js';
import { METADATA_FILTER_PATTERN, runFilterProperties, SCORE_FILTER_PATTERN, scoreFilter } from '../query/filters.schemas.js';
import { ScoreSummaries } from '../query/score-summaries.schemas.js';
import { metricsSchema, metricsWindowProperties } from '../query/metrics.schemas.js';
import { RunKind, RunStatusSchema } from '../../schemas/records.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Count = Type.Integer({ minimum: 0 });

/** Tokens by type, summed over runs (each run's `usage`; runs without usage add nothing). */
export const UsageTotalsSchema = Type.Object(
  {
    promptTokens: Count,
    completionTokens: Count,
    totalTokens: Count,
    cacheReadTokens: Count,
    cacheCreationTokens: Count,
    reasoningTokens: Count,
    estimatedTokens: Type.Integer({
      minimum: 0,
      description:
        'The part of `totalTokens` that is estimated: the tokens of runs whose `usage.estimated` is true (model runs that reported none have their texts counted)',
    }),
  },
  { additionalProperties: false },
);

/** What a trace, a session or an end user adds up to. */
export const rollupProperties = {
  startTime: Timestamp,
  endTime: Type.String({ format: 'date-time', description: 'The latest end of its runs (the start of one still running)' }),
  runCount: Count,
  errorCount: Count,
  runningCount: Count,
  usage: UsageTotalsSchema,
  cost: Type.Number({ description: 'The sum of its runs’ costs (USD)' }),
  computedCost: Type.Number({ description: 'The part of `cost` computed from model prices (the rest was sent by clients: see a run’s `costSource`)' }),
  estimatedCost: Type.Number({ description: 'The part of `cost` of runs whose tokens are estimated (`usage.estimated`)' }),
};

export const TraceSchema = NamedRecord('Trace', {
  traceId: Type.String(),
  projectId: Type.String(),
  rootRunId: Type.Union([Type.String(), Type.Null()], { description: 'Null until the run without a parent has arrived' }),
  name: Type.String({ description: 'The root run’s name (the first run’s while the root has not arrived)' }),
  status: StringEnum(['running', 'failed', 'succeeded'] as const, { description: '`running` while a run runs, else `failed` when one failed' }),
  ...rollupProperties,
  latencyMs: Type.Integer({ description: 'endTime − startTime' }),
  sessionId: Nullable(Type.String()),
  userId: Nullable(Type.String()),
  tags: Type.Array(Type.String(), { description: 'The root run’s tags' }),
  input: Nullable(Type.String({ description: 'A preview of the root run’s inputs (at most 200 characters)' })),
  output: Nullable(Type.String({ description: 'A preview of the root run’s outputs (at most 200 characters)' })),
  scores: ScoreSummaries('trace'),
  rootScores: ScoreSummaries('trace’s root run'),
});
export type Trace = Static<typeof TraceSchema>;
export const TracePage = recordPage('Trace');

/** The runs of a trace in tree order, without their inputs, outputs and metadata (GET the run for those). */
export const RunOutlineSchema = Type.Object(
  {
    id: Type.String(),
    parentRunId: Nullable(Type.String()),
    depth: Type.Integer({ minimum: 0, description: '0 for a root (or a run whose parent is not in the trace)' }),
    name: Type.String(),
    kind: RunKind,
    status: RunStatusSchema,
    startTime: Timestamp,
    endTime: Type.Union([Timestamp, Type.Null()]),
    latencyMs: Type.Union([Type.Integer(), Type.Null()]),
    model: Nullable(Type.String()),
    totalTokens: Type.Union([Type.Integer(), Type.Null()]),
    cost: Type.Union([Type.Number(), Type.Null()]),
  },
  { title: 'RunOutline', additionalProperties: false },
);
export type RunOutline = Static<typeof RunOutlineSchema>;

/** The most runs a trace's outline lists (its totals always count every run). */
export const MAX_OUTLINE_RUNS = 50_000;

export const TraceDetailSchema = Type.Object(
  {
    trace: Type.Ref('Trace'),
    runs: Type.Array(RunOutlineSchema, {
      description: `Every run in tree order: parents before children, siblings by start time (at most \`runLimit\`, at most ${MAX_OUTLINE_RUNS.toLocaleString('en-US')})`,
    }),
    truncated: Type.Boolean({
      description:
        `True when the trace has more runs than \`runs\` lists: more than \`runLimit\`, or more than ${MAX_OUTLINE_RUNS.toLocaleString('en-US')} ` +
        "(list those with the runs list's traceId filter)",
    }),
  },
  { title: 'TraceDetail', additionalProperties: false },
);

export const TraceDetailQuery = Type.Object(
  {
    runLimit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_OUTLINE_RUNS,
        format: 'int32',
        description:
          `The outline's first runs in tree order, at most this many (default ${MAX_OUTLINE_RUNS.toLocaleString('en-US')}): ` +
          'a first screen of a big trace, drawn while its whole outline is on its way',
      }),
    ),
  },
  { additionalProperties: false },
);

const { parentRunId: _p, traceId: _t, ...traceFilterProperties } = runFilterProperties;
const traceFilterPatterns = {
  [METADATA_FILTER_PATTERN]: Type.String({ maxLength: 1000, description: '`metadata.<key>=<value>`, as on the runs list' }),
  [SCORE_FILTER_PATTERN]: scoreFilter,
};
export const ListTracesQuery = listQuery({ ...traceFilterProperties, ...listOrderProperty('the trace’s start') }, { patternProperties: traceFilterPatterns });

/** `GET …/traces/metrics`: the traces list's filters and a window of trace starts. */
export const TraceMetricsQuery = Type.Object(
  { ...traceFilterProperties, ...metricsWindowProperties },
  { additionalProperties: false, patternProperties: traceFilterPatterns },
);
export const TraceMetricsSchema = metricsSchema(
  {
    count: Type.Integer({ description: 'Traces that started in the bucket' }),
    errorCount: Type.Integer({ description: 'Of those, the traces with at least one failed run' }),
    latencyP50: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Nearest-rank median of the latencies (first start to last end) of the traces whose runs have all ended',
    }),
    latencyP95: Type.Union([Type.Integer(), Type.Null()], { description: 'The same, 95th percentile' }),
    totalTokens: Type.Integer({ description: 'The tokens of all of the traces’ runs (estimated ones included)' }),
    cost: Type.Number({ description: 'The cost of all of the traces’ runs' }),
  },
  'TraceMetrics',
);
