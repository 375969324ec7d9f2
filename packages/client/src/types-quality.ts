// The wire types of prompts.ts, monitors.ts, scores.ts, datasets.ts and evaluators.ts: prompts, monitors,
// scores and annotation queues, datasets and experiments, evaluator rules and model connections (derived
// as types-base.ts says).
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
  ScoreValuesQuery as ScoreValuesQuerySchema,
  UpdateScoreBody,
  UpdateScoreConfigBody,
} from '../../../src/features/scores/scores.schemas.js';
import type { ScoreSummarySchema } from '../../../src/features/query/score-summaries.schemas.js';
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
  CompareQuery,
  ComparisonRowSchema,
  CreateExperimentBody,
  ExperimentResultSchema,
  ExperimentSchema,
  ListExperimentsQuery,
  NewResultSchema,
  ResultsRecordedSchema,
  UpdateExperimentBody,
} from '../../../src/features/experiments/experiments.schemas.js';
import type {
  CreateRuleBody as CreateEvaluatorRuleBody,
  EvaluatorRuleSchema,
  EvaluatorSchema,
  UpdateRuleBody as UpdateEvaluatorRuleBody,
} from '../../../src/features/evaluators/evaluators.schemas.js';
import type {
  ConnectionTestSchema,
  CreateModelConnectionBody,
  ListModelConnectionsQuery,
  ModelConnectionSchema,
  UpdateModelConnectionBody,
} from '../../../src/features/model-connections/model-connections.schemas.js';
import type { PageParams, Static } from './types-base.js';

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

// Scores
export type Score = Static<typeof ScoreSchema>;
/** The scores of one name on a listed run, trace or session: the mean (boolean: the share of true) or the most frequent label. */
export type ScoreSummary = Static<typeof ScoreSummarySchema>;
export type ScoreCreate = Static<typeof ScoreInputSchema>;
export type ScoreBatchItem = Static<typeof ScoreBatchItemSchema>;
export type ScoreBatchResult = Static<typeof ScoreBatchResultSchema>;
export type ScoreUpdate = Static<typeof UpdateScoreBody>;
export type ScoreFilters = Omit<Static<typeof ListScoresQuery>, PageParams>;
/** Whose values `scores.values` lists (`name`), and the prefix they start with. */
export type ScoreValuesQuery = Omit<Static<typeof ScoreValuesQuerySchema>, PageParams>;
export type ScoreMetricsQuery = Static<typeof ScoreMetricsQuerySchema>;
export type ScoreMetrics = Static<typeof ScoreMetricsSchema>;
/** What a score judges: a run, a trace or a session. */
export type ScoreTarget = { runId: string } | { traceId: string } | { sessionId: string };
export type ScoreConfig = Static<typeof ScoreConfigSchema>;
export type CreateScoreConfigInput = Static<typeof CreateScoreConfigBody>;
export type UpdateScoreConfigInput = Static<typeof UpdateScoreConfigBody>;
export type ScoreConfigFilters = Omit<Static<typeof ListScoreConfigsQuery>, PageParams>;

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
/** What counts as a regression in a comparison: a drop of `metric`'s mean (any score name's without it) by more than `threshold`. */
export type ComparisonRule = Pick<Static<typeof CompareQuery>, 'metric' | 'threshold'>;

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
