import type { Generated, Selectable } from 'kysely';
import type {
  AuthRequestsTable,
  InvitationsTable,
  MembershipsTable,
  OrganizationOriginsTable,
  OrganizationsTable,
  AuditEventsTable,
  PersonalAccessTokensTable,
  ProjectsTable,
  ServiceKeysTable,
  SessionsTable,
  UsersTable,
} from './schema.identity.js';
import type {
  ModelPricesTable,
  RunSessionsTable,
  RunTagsTable,
  RunUsersTable,
  RunValuesTable,
  RunsTable,
  SavedViewsTable,
  TracesTable,
} from './schema.runs.js';
import type { PromptLabelEventsTable, PromptLabelsTable, PromptVersionsTable, PromptsTable } from './schema.prompts.js';
import type { MonitorEventsTable, MonitorsTable, WebhookAttemptsTable, WebhookDeliveriesTable } from './schema.monitors.js';
import type { AnnotationItemsTable, AnnotationQueuesTable, ScoreConfigsTable, ScoreRollupsTable, ScoresTable } from './schema.scores.js';
import type { DatasetItemVersionsTable, DatasetsTable, ExperimentResultsTable, ExperimentsTable } from './schema.datasets.js';
import type { EvaluationJobsTable, EvaluatorRulesTable, ModelConnectionsTable } from './schema.evaluators.js';

/** Every table, by name: the type of `Kysely<Database>`. Its tables' types are in `schema.<area>.ts`. */
export interface Database {
  organizations: OrganizationsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  personal_access_tokens: PersonalAccessTokensTable;
  audit_events: AuditEventsTable;
  service_keys: ServiceKeysTable;
  projects: ProjectsTable;
  runs: RunsTable;
  run_tags: RunTagsTable;
  run_values: RunValuesTable;
  organization_origins: OrganizationOriginsTable;
  invitations: InvitationsTable;
  prompts: PromptsTable;
  prompt_versions: PromptVersionsTable;
  prompt_labels: PromptLabelsTable;
  prompt_label_events: PromptLabelEventsTable;
  monitors: MonitorsTable;
  monitor_events: MonitorEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  sessions: SessionsTable;
  auth_requests: AuthRequestsTable;
  /** `revision` and `experiment` apart: the rollups' upsert never writes them (migrations 024, 027). */
  traces: TracesTable & { revision: Generated<number>; experiment: Generated<number> };
  run_sessions: RunSessionsTable;
  run_users: RunUsersTable;
  model_prices: ModelPricesTable;
  saved_views: SavedViewsTable;
  score_configs: ScoreConfigsTable;
  scores: ScoresTable;
  datasets: DatasetsTable;
  dataset_item_versions: DatasetItemVersionsTable;
  annotation_queues: AnnotationQueuesTable;
  annotation_items: AnnotationItemsTable;
  experiments: ExperimentsTable;
  experiment_results: ExperimentResultsTable;
  evaluator_rules: EvaluatorRulesTable;
  evaluation_jobs: EvaluationJobsTable;
  model_connections: ModelConnectionsTable;
  score_rollups: ScoreRollupsTable;
}

export type OrganizationRow = Selectable<OrganizationsTable>;
export type UserRow = Selectable<UsersTable>;
export type TokenRow = Selectable<PersonalAccessTokensTable>;
export type AuditEventRow = Selectable<AuditEventsTable>;
export type SessionRow = Selectable<SessionsTable>;
export type InvitationRow = Selectable<InvitationsTable>;
export type PromptRow = Selectable<PromptsTable>;
export type PromptVersionRow = Selectable<PromptVersionsTable>;
export type PromptLabelEventRow = Selectable<PromptLabelEventsTable>;
export type ProjectRow = Selectable<ProjectsTable>;
export type RunRow = Selectable<RunsTable>;
export type TraceRow = Selectable<Database['traces']>;
export type { Generated };
export type MonitorRow = Selectable<MonitorsTable>;
export type MonitorEventRow = Selectable<MonitorEventsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;
export type ModelPriceRow = Selectable<ModelPricesTable>;
export type SavedViewRow = Selectable<SavedViewsTable>;
export type ScoreConfigRow = Selectable<ScoreConfigsTable>;
export type ScoreRow = Selectable<ScoresTable>;
export type DatasetRow = Selectable<DatasetsTable>;
export type DatasetItemVersionRow = Selectable<DatasetItemVersionsTable>;
export type AnnotationQueueRow = Selectable<AnnotationQueuesTable>;
export type AnnotationItemRow = Selectable<AnnotationItemsTable>;
export type EvaluatorRuleRow = Selectable<EvaluatorRulesTable>;
export type EvaluationJobRow = Selectable<EvaluationJobsTable>;
export type ModelConnectionRow = Selectable<ModelConnectionsTable>;
export type ExperimentRow = Selectable<ExperimentsTable>;
export type ExperimentResultRow = Selectable<ExperimentResultsTable>;
