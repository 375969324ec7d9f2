/**
 * Every wire type of the API, derived from the TypeBox schemas the server validates and serializes
 * with (`src/features/*\/*.schemas.ts`): nothing here is a hand-copied shape, so a change to a server
 * schema changes these types (and breaks code that no longer fits). These are type-only imports: none
 * of the server's code ends up in the SDK's JavaScript. A published build carries the declarations
 * generated from the same schemas (see the package README).
 */
import type { Static as SchemaStatic, TSchema } from '@sinclair/typebox';
import type { RoleSchema } from '../../../src/schemas/common.js';
import type { Page as ServerPage } from '../../../src/lib/pagination.js';
import type { FieldErrorSchema, ProblemSchema } from '../../../src/lib/problems.js';
import type { MeSchema } from '../../../src/features/me/me.schemas.js';
import type {
  ConnectionTestSchema,
  CreateModelConnectionBody,
  ListModelConnectionsQuery,
  ModelConnectionSchema,
  UpdateModelConnectionBody,
} from '../../../src/features/model-connections/model-connections.schemas.js';
import type { SignInStatusSchema } from '../../../src/features/auth/auth.schemas.js';
import type { createTokenBody, NewTokenSchema, TokenRecordSchema } from '../../../src/features/tokens/tokens.schemas.js';
import type {
  CreateInvitationBody,
  InvitationSchema,
  MemberSchema,
  OrganizationDetailSchema,
  OrganizationTokenSchema,
  UpdateMemberBody,
  UpdateOrganizationBody,
} from '../../../src/features/organizations/organizations.schemas.js';
import type { CreateProjectBody, ListProjectsQuery, ProjectSchema, UpdateProjectBody } from '../../../src/features/projects/projects.schemas.js';
import type { ListTracesQuery, TraceDetailSchema, TraceSchema } from '../../../src/features/traces/traces.schemas.js';
import type { CreateViewBody, ListViewsQuery, SavedViewSchema, UpdateViewBody } from '../../../src/features/views/views.schemas.js';
import type { EndUserSchema, ListActivityQuery, SessionSchema } from '../../../src/features/sessions/sessions.schemas.js';
import type {
  CreateScoreConfigBody,
  ListScoreConfigsQuery,
  ListScoresQuery,
  ScoreBatchItemSchema,
  ScoreBatchResult as ScoreBatchResultSchema,
  ScoreConfigSchema,
  ScoreInputSchema,
  ScoreMetricsQuery as ScoreMetricsQuerySchema,
  ScoreMetricsSchema,
  ScoreSchema,
  UpdateScoreBody,
  UpdateScoreConfigBody,
} from '../../../src/features/scores/scores.schemas.js';
import type { BatchResultSchema, ListRunsQuery, RunInputSchema, RunPatchSchema, RunWithScoresSchema } from '../../../src/features/runs/runs.schemas.js';
import type { RunMetricsQuery as RunMetricsQuerySchema, RunMetricsSchema } from '../../../src/features/query/metrics.schemas.js';
import type { ScoreSummarySchema } from '../../../src/features/query/score-summaries.schemas.js';
import type {
  CreatePromptBody,
  CreateVersionBody,
  LabelEventSchema,
  ListPromptsQuery,
  PromptSchema,
  PromptVersionSchema,
  RenderBody,
  RenderResultSchema,
  UpdatePromptBody,
} from '../../../src/features/prompts/prompts.schemas.js';
import type {
  CreateMonitorBody,
  ListMonitorsQuery,
  MonitorEventSchema,
  MonitorMetricsQuery as MonitorMetricsQuerySchema,
  MonitorMetricsSchema,
  MonitorSchema,
  MonitorWithSecretSchema,
  UpdateMonitorBody,
  WebhookAttemptSchema,
} from '../../../src/features/monitors/monitors.schemas.js';
import type {
  BuiltinModelPriceSchema,
  CreateModelPriceBody,
  ListBuiltinPricesQuery,
  ListModelPricesQuery,
  ModelPriceSchema,
  UpdateModelPriceBody,
} from '../../../src/features/models/models.schemas.js';

import type {
  AddItemsBody,
  CreateDatasetBody,
  DatasetItemSchema,
  DatasetItemsAddedSchema,
  DatasetSchema,
  ListDatasetsQuery,
  ListItemsQuery,
  NewItemSchema,
  RunToDatasetBody,
  UpdateDatasetBody,
  UpdateItemBody,
} from '../../../src/features/datasets/datasets.schemas.js';

import type {
  AddItemsBody as AddAnnotationItemsBody,
  AnnotationItemSchema,
  AnnotationQueueSchema,
  CompleteItemBody,
  CreateQueueBody,
  ItemsAddedSchema,
  ListItemsQuery as ListAnnotationItemsQuery,
  QueueFilterSchema,
  UpdateQueueBody,
} from '../../../src/features/annotations/annotations.schemas.js';

import type {
  CreateRuleBody as CreateEvaluatorRuleBody,
  EvaluatorRuleSchema,
  EvaluatorSchema,
  UpdateRuleBody as UpdateEvaluatorRuleBody,
} from '../../../src/features/evaluators/evaluators.schemas.js';

import type {
  ComparisonRowSchema,
  CreateExperimentBody,
  ExperimentResultSchema,
  ExperimentSchema,
  ListExperimentsQuery,
  NewResultSchema,
  ResultsRecordedSchema,
  UpdateExperimentBody,
} from '../../../src/features/experiments/experiments.schemas.js';

type PageParams = 'limit' | 'cursor';

/** Any JSON object (`inputs`, `outputs`, `metadata`, `config`: free-form objects in the schemas). */
export type JsonObject = { [key: string]: unknown };
/** A schema's static type, with free-form objects (`{}` in TypeBox) as `JsonObject`. */
type Refine<T> = T extends string | number | boolean | bigint | null | undefined
  ? T
  : T extends readonly (infer U)[]
    ? Refine<U>[]
    : T extends object
      ? keyof T extends never
        ? JsonObject
        : { [K in keyof T]: Refine<T[K]> }
      : T;
type Static<S extends TSchema> = Refine<SchemaStatic<S>>;

// Problems and pages
export type ProblemDocument = Static<typeof ProblemSchema>;
export type FieldError = Static<typeof FieldErrorSchema>;
/** The page envelope of every list: `nextCursor` absent or null on the last page. */
export type Page<T> = Omit<ServerPage<T>, 'nextCursor'> & { nextCursor?: string | null };

// Identity and tokens
export type Role = Static<typeof RoleSchema>;
export type Me = Static<typeof MeSchema>;
/** What the dashboard's sign-in page is told by `GET /auth/status` (outside /v1). */
export type SignInStatus = Static<typeof SignInStatusSchema>;
export type TokenRecord = Static<typeof TokenRecordSchema>;
export type NewToken = Static<typeof NewTokenSchema>;
export type CreateTokenInput = Static<ReturnType<typeof createTokenBody>>;

// Organization
export type Organization = Static<typeof OrganizationDetailSchema>;
export type UpdateOrganizationInput = Static<typeof UpdateOrganizationBody>;
export type Member = Static<typeof MemberSchema>;
export type UpdateMemberInput = Static<typeof UpdateMemberBody>;
export type Invitation = Static<typeof InvitationSchema>;
export type CreateInvitationInput = Static<typeof CreateInvitationBody>;
export type OrganizationToken = Static<typeof OrganizationTokenSchema>;

// Projects
export type Project = Static<typeof ProjectSchema>;
export type CreateProjectInput = Static<typeof CreateProjectBody>;
export type UpdateProjectInput = Static<typeof UpdateProjectBody>;
export type ProjectFilters = Omit<Static<typeof ListProjectsQuery>, PageParams>;

// Runs
/** A run as every answer gives it: its record and, in `scores`, the summaries of the scores given to it. */
export type Run = Static<typeof RunWithScoresSchema>;
export type RunKind = Run['kind'];
export type RunStatus = Run['status'];
/** A run to create (`POST …/runs`, one item of `…/runs/batch`). */
export type RunCreate = Static<typeof RunInputSchema>;
export type RunPatch = Static<typeof RunPatchSchema>;
type BatchItem = Static<typeof BatchResultSchema>['results'][number];
/** One result per run of a batch, in order; a rejected run carries its own problem. */
export type RunBatchResult = { results: (Omit<BatchItem, 'problem'> & { problem?: ProblemDocument })[] };
export type RunMetrics = Static<typeof RunMetricsSchema>;
/** `metadata.<key>` filters: exact match on a top-level metadata value. */
export type MetadataFilters = { [key: `metadata.${string}`]: string | number | boolean };
type RunFilterFields = Omit<Static<typeof ListRunsQuery>, PageParams | 'parentRunId'> & {
  /** A run id, or `null` for root runs only. */
  parentRunId?: string | null;
};
/** The runs list's filters (also those of the runs metrics). */
export type RunFilters = RunFilterFields & MetadataFilters;
export type RunMetricsQuery = Omit<Static<typeof RunMetricsQuerySchema>, 'parentRunId'> & Pick<RunFilterFields, 'parentRunId'> & MetadataFilters;

// Traces
export type Trace = Static<typeof TraceSchema>;
/** A trace's totals and its runs in tree order (outlines: GET the run for its inputs and outputs). */
export type TraceDetail = Omit<Static<typeof TraceDetailSchema>, 'trace'> & { trace: Trace };
/** The traces list's filters: a trace matches when one of its runs matches them all (the time range bounds its start). */
export type TraceFilters = Omit<Static<typeof ListTracesQuery>, PageParams> & MetadataFilters;
/** The sessions and end-users lists' filters: the runs list's (one of its runs must match them all). */
export type ActivityFilters = Omit<Static<typeof ListActivityQuery>, PageParams> & MetadataFilters;

// Sessions and end users
export type Session = Static<typeof SessionSchema>;
export type EndUser = Static<typeof EndUserSchema>;
/** A session's totals and its traces, oldest first (the conversation as it happened). */
export type SessionDetail = { session: Session; traces: Trace[]; truncated: boolean };
export type EndUserDetail = { user: EndUser; traces: Trace[]; truncated: boolean };

// Prompts
export type Prompt = Static<typeof PromptSchema>;
export type PromptVersion = Static<typeof PromptVersionSchema>;
export type PromptTemplate = PromptVersion['template'];
export type LabelEvent = Static<typeof LabelEventSchema>;
export type CreatePromptInput = Static<typeof CreatePromptBody>;
export type CreateVersionInput = Static<typeof CreateVersionBody>;
export type UpdatePromptInput = Static<typeof UpdatePromptBody>;
export type RenderInput = Static<typeof RenderBody>;
export type RenderResult = Static<typeof RenderResultSchema>;
export type PromptFilters = Omit<Static<typeof ListPromptsQuery>, PageParams>;

// Monitors
export type Monitor = Static<typeof MonitorSchema>;
export type MonitorWithSecret = Static<typeof MonitorWithSecretSchema>;
export type CreateMonitorInput = Static<typeof CreateMonitorBody>;
export type UpdateMonitorInput = Static<typeof UpdateMonitorBody>;
export type MonitorFilters = Omit<Static<typeof ListMonitorsQuery>, PageParams | 'enabled'> & {
  enabled?: boolean | Static<typeof ListMonitorsQuery>['enabled'];
};
export type MonitorMetricsQuery = Static<typeof MonitorMetricsQuerySchema>;
export type MonitorMetrics = Static<typeof MonitorMetricsSchema>;
export type MonitorEvent = Static<typeof MonitorEventSchema>;
export type WebhookAttempt = Static<typeof WebhookAttemptSchema>;

// Model prices
export type ModelPrice = Static<typeof ModelPriceSchema>;
export type BuiltinModelPrice = Static<typeof BuiltinModelPriceSchema>;
export type CreateModelPriceInput = Static<typeof CreateModelPriceBody>;
export type UpdateModelPriceInput = Static<typeof UpdateModelPriceBody>;
export type SavedView = Static<typeof SavedViewSchema>;
export type CreateSavedViewInput = Static<typeof CreateViewBody>;
export type UpdateSavedViewInput = Static<typeof UpdateViewBody>;
export type SavedViewFilters = Omit<Static<typeof ListViewsQuery>, PageParams>;
export type ModelPriceFilters = Omit<Static<typeof ListModelPricesQuery>, PageParams>;

// Scores
export type Score = Static<typeof ScoreSchema>;
/** The scores of one name on a listed run, trace or session: the mean (boolean: the share of true) or the most frequent label. */
export type ScoreSummary = Static<typeof ScoreSummarySchema>;
export type ScoreCreate = Static<typeof ScoreInputSchema>;
export type ScoreBatchItem = Static<typeof ScoreBatchItemSchema>;
export type ScoreBatchResult = Static<typeof ScoreBatchResultSchema>;
export type ScoreUpdate = Static<typeof UpdateScoreBody>;
export type ScoreFilters = Omit<Static<typeof ListScoresQuery>, PageParams>;
export type ScoreMetricsQuery = Static<typeof ScoreMetricsQuerySchema>;
export type ScoreMetrics = Static<typeof ScoreMetricsSchema>;
/** What a score judges: a run, a trace or a session. */
export type ScoreTarget = { runId: string } | { traceId: string } | { sessionId: string };
export type ScoreConfig = Static<typeof ScoreConfigSchema>;
export type CreateScoreConfigInput = Static<typeof CreateScoreConfigBody>;
export type UpdateScoreConfigInput = Static<typeof UpdateScoreConfigBody>;
export type ScoreConfigFilters = Omit<Static<typeof ListScoreConfigsQuery>, PageParams>;
export type BuiltinModelPriceFilters = Omit<Static<typeof ListBuiltinPricesQuery>, PageParams>;

// Datasets
export type Dataset = Static<typeof DatasetSchema>;
export type CreateDatasetInput = Static<typeof CreateDatasetBody>;
export type UpdateDatasetInput = Static<typeof UpdateDatasetBody>;
export type DatasetFilters = Omit<Static<typeof ListDatasetsQuery>, PageParams>;
export type DatasetItem = Static<typeof DatasetItemSchema>;
export type NewDatasetItem = Static<typeof NewItemSchema>;
export type AddDatasetItemsInput = Static<typeof AddItemsBody>;
export type DatasetItemsAdded = Omit<Static<typeof DatasetItemsAddedSchema>, 'items'> & { items: DatasetItem[] };
export type UpdateDatasetItemInput = Static<typeof UpdateItemBody>;
/** Which version of a dataset to read (default: its current one). */
export type DatasetItemFilters = Omit<Static<typeof ListItemsQuery>, PageParams>;
export type AddRunToDatasetInput = Static<typeof RunToDatasetBody>;

// Annotation queues
export type AnnotationQueue = Static<typeof AnnotationQueueSchema>;
export type CreateAnnotationQueueInput = Static<typeof CreateQueueBody>;
export type UpdateAnnotationQueueInput = Static<typeof UpdateQueueBody>;
export type AnnotationItem = Static<typeof AnnotationItemSchema>;
export type AnnotationItemFilters = Omit<Static<typeof ListAnnotationItemsQuery>, PageParams>;
/** The runs list's filters, as an object (a trace queue takes the traces list's). */
export type AnnotationFilter = Static<typeof QueueFilterSchema> & { [metadata: `metadata.${string}`]: string };
/** Exactly one of `ids` and `filter` (with `limit`, and `rate` to sample). */
// A union of two object types (not an intersection with the body's type, which the published declarations
// printed as an array's expanded structure that plain string[] did not satisfy).
export type AddAnnotationItemsInput =
  | { ids: NonNullable<AddAnnotationItems['ids']>; filter?: never; rate?: never; limit?: never }
  | { ids?: never; filter: AnnotationFilter; rate?: AddAnnotationItems['rate']; limit?: AddAnnotationItems['limit'] };
type AddAnnotationItems = Static<typeof AddAnnotationItemsBody>;
export type AnnotationItemsAdded = Static<typeof ItemsAddedSchema>;
export type CompleteAnnotationItemInput = Static<typeof CompleteItemBody>;
export type AnnotationItemCompleted = { item: AnnotationItem; scores: Score[] };

// Experiments
export type Experiment = Static<typeof ExperimentSchema>;
export type CreateExperimentInput = Static<typeof CreateExperimentBody>;
export type UpdateExperimentInput = Static<typeof UpdateExperimentBody>;
/** `datasetId` and `name` (exactly). */
export type ExperimentFilters = Omit<Static<typeof ListExperimentsQuery>, PageParams>;
export type ExperimentResult = Omit<Static<typeof ExperimentResultSchema>, 'scores'> & { scores: Score[] };
export type NewExperimentResult = Static<typeof NewResultSchema>;
export type ExperimentResultsRecorded = Static<typeof ResultsRecordedSchema>;
/** One item of a comparison: the item, each experiment's result (in the order asked), the score differences from the first. */
export type ExperimentComparisonRow = Static<typeof ComparisonRowSchema>;

// Evaluator rules
/** What a rule does with a sampled run: a built-in (no model) or an LLM judge, by `type`. */
export type Evaluator = Static<typeof EvaluatorSchema>;
export type EvaluatorRule = Omit<Static<typeof EvaluatorRuleSchema>, 'evaluator' | 'filter'> & { evaluator: Evaluator; filter: AnnotationFilter };
export type CreateEvaluatorRuleInput = Omit<Static<typeof CreateEvaluatorRuleBody>, 'filter'> & { filter?: AnnotationFilter };
export type UpdateEvaluatorRuleInput = Omit<Static<typeof UpdateEvaluatorRuleBody>, 'filter'> & { filter?: AnnotationFilter };
// Model connections (LLM-as-judge)
export type ModelConnection = Static<typeof ModelConnectionSchema>;
export type CreateModelConnectionInput = Static<typeof CreateModelConnectionBody>;
export type UpdateModelConnectionInput = Static<typeof UpdateModelConnectionBody>;
export type ModelConnectionFilters = Omit<Static<typeof ListModelConnectionsQuery>, PageParams>;
export type ModelConnectionTest = Static<typeof ConnectionTestSchema>;
