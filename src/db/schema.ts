import type { Generated, Selectable } from 'kysely';

/** All timestamps are integer milliseconds since the Unix epoch (UTC): exact on both engines. */
type Millis = number;

export interface OrganizationsTable {
  id: string;
  name: string;
  plan: string;
  created_at: Millis;
}

export interface UsersTable {
  id: string;
  email: string;
  name: string;
  created_at: Millis;
}

export interface MembershipsTable {
  organization_id: string;
  user_id: string;
  role: string;
  created_at: Millis;
}

export interface PersonalAccessTokensTable {
  id: string;
  organization_id: string;
  user_id: string;
  name: string;
  /** SHA-256 of the token string; the string itself is never stored. */
  token_hash: string;
  created_at: Millis;
  expires_at: Millis;
  last_used_at: Millis | null;
  revoked_at: Millis | null;
  /** The original token's id for every token rotated from it; null for a token never rotated. */
  family_id: string | null;
  /** 'revoked' or 'rotated' once revoked_at is set. */
  revoked_reason: string | null;
}

export interface OrganizationOriginsTable {
  organization_id: string;
  origin: string;
  source: 'organization' | 'operator';
  created_at: Millis;
}

export interface InvitationsTable {
  id: string;
  organization_id: string;
  email: string;
  role: string;
  invited_by: string;
  created_at: Millis;
}

export interface SessionsTable {
  id: string;
  /** SHA-256 of the cookie's secret; the secret itself is never stored. */
  secret_hash: string;
  user_id: string;
  organization_id: string;
  created_at: Millis;
  last_seen_at: Millis;
  /** The absolute end of the session. */
  expires_at: Millis;
  revoked_at: Millis | null;
}

export interface AuthRequestsTable {
  state_hash: string;
  nonce: string;
  code_verifier: string;
  created_at: Millis;
  expires_at: Millis;
}

export interface ServiceKeysTable {
  kid: string;
  purpose: 'signing' | 'cursor' | 'secret';
  algorithm: string;
  public_key: string | null;
  private_key: string;
  created_at: Millis;
}

export interface ProjectsTable {
  id: string;
  organization_id: string;
  name: string;
  /** Lower-cased name, computed in one place (JS) so search and uniqueness behave alike on both engines. */
  name_key: string;
  description: string;
  created_at: Millis;
  updated_at: Millis;
}

export interface RunsTable {
  project_id: string;
  id: string;
  trace_id: string;
  parent_run_id: string | null;
  name: string;
  kind: string;
  status: string;
  start_time: Millis;
  end_time: Millis | null;
  latency_ms: number | null;
  model: string | null;
  total_tokens: number | null;
  cost: number | null;
  /** JSON text of the metadata object, for the `metadata.<key>` filters. */
  metadata: string;
  /** SHA-256 of the creation request, for idempotent retries with a client id ('' for generated ids). */
  content_hash: string;
  created_at: Millis;
  /** The run's wire record (JSON), serialized with the response schema. */
  doc: string;
  session_id: string | null;
  user_id: string | null;
  /** 1 while the trace is provisional (the run came before its parent, with no trace id): see runs.ingest.ts. */
  trace_pending: number;
}

export interface RunTagsTable {
  project_id: string;
  run_id: string;
  tag: string;
}

export interface PromptsTable {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  latest_version: number;
  created_at: Millis;
  updated_at: Millis;
}

export interface PromptVersionsTable {
  prompt_id: string;
  version: number;
  /** JSON: a string or an array of chat messages. */
  template: string;
  /** JSON array of the `{{name}}` placeholders found in the template. */
  variables: string;
  /** JSON object of free model settings. */
  config: string;
  message: string;
  created_by: string;
  created_at: Millis;
}

export interface PromptLabelsTable {
  prompt_id: string;
  label: string;
  version: number;
  updated_by: string;
  updated_at: Millis;
}

export interface PromptLabelEventsTable {
  id: string;
  prompt_id: string;
  label: string;
  from_version: number | null;
  to_version: number | null;
  actor: string;
  created_at: Millis;
}

export interface MonitorsTable {
  id: string;
  project_id: string;
  name: string;
  description: string;
  filter: string;
  metric: string;
  window_size: string;
  threshold_op: string | null;
  threshold_value: number | null;
  /** 1 or 0 (an integer on both engines). */
  enabled: number;
  state: string;
  last_value: number | null;
  last_count: number | null;
  last_evaluated_at: Millis | null;
  webhook_urls: string;
  webhook_secret: string;
  next_evaluation_at: Millis;
  lease_owner: string | null;
  lease_until: Millis | null;
  created_at: Millis;
  updated_at: Millis;
  /** Score metrics: JSON `{ name, label? }` of the scores watched; null for the run metrics (migration 021). */
  score: string | null;
}

export interface MonitorEventsTable {
  id: string;
  monitor_id: string;
  project_id: string;
  from_state: string;
  to_state: string;
  value: number | null;
  count: number;
  threshold_op: string | null;
  threshold_value: number | null;
  window_start: Millis;
  window_end: Millis;
  reason: string;
  created_at: Millis;
}

export interface WebhookDeliveriesTable {
  id: string;
  monitor_id: string;
  event_id: string;
  url: string;
  payload: string;
  /** pending, succeeded, failed */
  status: string;
  attempts: number;
  next_attempt_at: Millis | null;
  lease_owner: string | null;
  lease_until: Millis | null;
  created_at: Millis;
  updated_at: Millis;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  monitor_id: string;
  event_id: string;
  url: string;
  attempt: number;
  /** succeeded, retrying, failed */
  outcome: string;
  response_status: number | null;
  latency_ms: number;
  error: string | null;
  next_attempt_at: Millis | null;
  created_at: Millis;
}

/** What a trace, a session or an end user adds up to (kept at ingest: runs.rollups.ts). */
export interface RollupTotals {
  run_count: number;
  error_count: number;
  running_count: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cache_read_tokens: number;
  cache_creation_tokens: number;
  reasoning_tokens: number;
  cost: number;
  /** The part of `cost` computed from the price table (the rest was sent by clients). */
  computed_cost: number;
  /** The earliest start of its runs. */
  start_time: Millis;
  /** The latest end of its runs (the start of one still running). */
  end_time: Millis;
}

export interface TracesTable extends RollupTotals {
  project_id: string;
  trace_id: string;
  /** The run without a parent, once it has arrived. */
  root_run_id: string | null;
  /** The root's name, else the first run's to arrive. */
  name: string;
  /** The first session and end user its runs named. */
  session_id: string | null;
  user_id: string | null;
}

export interface RunSessionsTable extends RollupTotals {
  project_id: string;
  session_id: string;
}

export interface RunUsersTable extends RollupTotals {
  project_id: string;
  user_id: string;
}

/** An organization's price for a model (features/models): USD per million tokens, in force from `effective_from`. */
export interface ModelPricesTable {
  id: string;
  organization_id: string;
  model: string;
  /** The model as matched: lower case. */
  model_key: string;
  /** '' for any provider. */
  provider: string;
  input_price: number;
  output_price: number;
  cache_read_price: number | null;
  cache_write_price: number | null;
  reasoning_price: number | null;
  currency: string;
  effective_from: Millis;
  created_by: string;
  created_at: Millis;
  updated_at: Millis;
}

/** A user's named filter set for one of a project's lists (docs/traces-and-search.md: Saved views). */
export interface ScoreConfigsTable {
  id: string;
  organization_id: string;
  name: string;
  /** `numeric`, `boolean` or `categorical`. */
  data_type: string;
  min_value: number | null;
  max_value: number | null;
  /** A JSON array of the allowed labels (categorical), else null. */
  categories: string | null;
  description: string | null;
  archived: number;
  created_at: Millis;
  updated_at: Millis;
}

export interface ScoresTable {
  project_id: string;
  id: string;
  organization_id: string;
  /** `run`, `trace` or `session`. */
  target: string;
  target_id: string;
  name: string;
  data_type: string;
  /** Numeric: the number; boolean: 1 or 0; categorical: null. */
  value: number | null;
  /** Categorical: the label; boolean: 'true' or 'false'; numeric: null. */
  label: string | null;
  comment: string | null;
  /** `api`, `annotation` or `evaluator`. */
  source: string;
  /** `user` (author_id a user id) or `rule` (an evaluator rule's id). */
  author_kind: string;
  author_id: string;
  config_id: string | null;
  queue_id: string | null;
  /** A JSON object. */
  metadata: string;
  content_hash: string;
  created_at: Millis;
  updated_at: Millis;
}

/** Per hour (of createdAt) and kind, what a project's scores add up to (migration 020; scores.rollups.ts). */
export interface ScoreRollupsTable {
  project_id: string;
  /** The start of the UTC hour. */
  hour: Millis;
  name: string;
  source: string;
  target: string;
  data_type: string;
  /** The label of boolean and categorical scores; '' for numeric ones. */
  label: string;
  count: number;
  /** The sum of `value` (numbers, booleans as 1 and 0; categorical scores add 0). */
  sum: number;
}

export interface SavedViewsTable {
  id: string;
  organization_id: string;
  project_id: string;
  user_id: string;
  name: string;
  page: string;
  /** The list's query parameters, as JSON text. */
  filters: string;
  created_at: number;
  updated_at: number;
}

export interface DatasetsTable {
  id: string;
  organization_id: string;
  name: string;
  /** The name in lower case: unique in the organization, and what the `name` filter searches. */
  name_key: string;
  description: string;
  /** JSON text of the metadata object. */
  metadata: string;
  /** The number of changes made to its items (0: none yet). */
  version: number;
  /** Items at `version`. */
  item_count: number;
  created_at: Millis;
  updated_at: Millis;
}

/** One change to a dataset item: immutable, written once (docs/design/quality-loop.md: Datasets). */
export interface DatasetItemVersionsTable {
  organization_id: string;
  dataset_id: string;
  item_id: string;
  /** The dataset version that wrote it. */
  version: number;
  /** JSON text of the input, the expected output and the metadata object. */
  input: string;
  expected_output: string;
  metadata: string;
  source_run_id: string | null;
  source_project_id: string | null;
  /** 1: the item was deleted at this version. */
  deleted: number;
  /** The item's creation (its first row's), the same on each of its rows. */
  created_at: Millis;
  /** When this row was written. */
  updated_at: Millis;
}

/** A project's annotation queue (docs/design/quality-loop.md: Annotation queues). */
export interface AnnotationQueuesTable {
  id: string;
  organization_id: string;
  project_id: string;
  name: string;
  description: string;
  /** `run` or `trace`: what its items are. */
  target: string;
  /** JSON text of the score config ids reviewers are asked for. */
  score_config_ids: string;
  created_at: Millis;
  updated_at: Millis;
}

/** A target in a queue (once): pending, then completed or skipped by the reviewer holding its lease. */
export interface AnnotationItemsTable {
  id: string;
  queue_id: string;
  project_id: string;
  organization_id: string;
  target_id: string;
  /** `pending`, `completed` or `skipped`. */
  status: string;
  /** The last reviewer to claim it. */
  reviewer_id: string | null;
  /** Until when (ms) `reviewer_id` holds it; null when never claimed or done. */
  lease_until: Millis | null;
  completed_by: string | null;
  completed_at: Millis | null;
  created_at: Millis;
}

/** A project's evaluator rule: which new runs to sample and how to score them. */
export interface EvaluatorRulesTable {
  id: string;
  organization_id: string;
  project_id: string;
  name: string;
  /** JSON text of the runs list's filters, as an object. */
  filter: string;
  sample_rate: number;
  /** JSON text of the evaluator: `{ type, … }`. */
  evaluator: string;
  score_name: string;
  enabled: number;
  created_at: Millis;
  updated_at: Millis;
}

/** A sampled run for one rule (once): pending (maybe leased), then done, failed or skipped. */
export interface EvaluationJobsTable {
  rule_id: string;
  project_id: string;
  run_id: string;
  status: string;
  attempts: number;
  next_attempt_at: Millis;
  lease_owner: string | null;
  lease_until: Millis | null;
  last_error: string | null;
  score_id: string | null;
  created_at: Millis;
  updated_at: Millis;
}

/** A task run over one version of a dataset (docs/design/quality-loop.md: Datasets and experiments). */
export interface ExperimentsTable {
  id: string;
  organization_id: string;
  dataset_id: string;
  dataset_version: number;
  /** Where its runs are stored. */
  project_id: string;
  /** Unique per dataset. */
  name: string;
  /** JSON text of the metadata object. */
  metadata: string;
  /** `running` or `completed`. */
  status: string;
  /** Items at `dataset_version`. */
  item_count: number;
  created_at: Millis;
  updated_at: Millis;
  completed_at: Millis | null;
}

/** An experiment's result for one dataset item (once). */
export interface ExperimentResultsTable {
  experiment_id: string;
  item_id: string;
  organization_id: string;
  project_id: string;
  run_id: string;
  trace_id: string | null;
  /** JSON text of the output. */
  output: string;
  error: string | null;
  latency_ms: number;
  /** JSON text of the usage object, or null. */
  usage: string | null;
  total_tokens: number | null;
  cost: number | null;
  /** What a repeat is compared by (same → `existing`, else 409). */
  content_hash: string;
  created_at: Millis;
}

export interface Database {
  organizations: OrganizationsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  personal_access_tokens: PersonalAccessTokensTable;
  service_keys: ServiceKeysTable;
  projects: ProjectsTable;
  runs: RunsTable;
  run_tags: RunTagsTable;
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
  traces: TracesTable;
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

/** An organization's OpenAI-compatible model endpoint for LLM-as-judge evaluators (features/model-connections). */
export interface ModelConnectionsTable {
  id: string;
  organization_id: string;
  name: string;
  base_url: string;
  model: string;
  /** The API key sealed by the keyring (`Keyring.seal`), or null: none sent. */
  api_key: string | null;
  /** What the answers show of the key (its last 4 characters), or null. */
  api_key_hint: string | null;
  /** The extra headers (a JSON object) sealed by the keyring, or null. */
  headers: string | null;
  /** A JSON array of the extra headers' names, in order. */
  header_names: string;
  monthly_budget_usd: number;
  /** USD per million tokens; both null: the price table's. */
  input_price: number | null;
  output_price: number | null;
  /** The calendar month (UTC, `YYYY-MM`) of `spent_picousd`; '' before the first call. */
  spent_month: string;
  /** What that month's calls cost, in 10^-12 USD (a bigint, read as a number). */
  spent_picousd: number;
  /** The lease of the test call in progress (one at a time per connection): its holder's token and until when; null: none. */
  test_lease_owner: string | null;
  test_lease_until: Millis | null;
  created_at: Millis;
  updated_at: Millis;
}

export type OrganizationRow = Selectable<OrganizationsTable>;
export type UserRow = Selectable<UsersTable>;
export type TokenRow = Selectable<PersonalAccessTokensTable>;
export type SessionRow = Selectable<SessionsTable>;
export type InvitationRow = Selectable<InvitationsTable>;
export type PromptRow = Selectable<PromptsTable>;
export type PromptVersionRow = Selectable<PromptVersionsTable>;
export type PromptLabelEventRow = Selectable<PromptLabelEventsTable>;
export type ProjectRow = Selectable<ProjectsTable>;
export type RunRow = Selectable<RunsTable>;
export type TraceRow = Selectable<TracesTable>;
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
