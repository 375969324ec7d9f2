/** Table types (Kysely): runs and what is kept of them: tags, the trace, session and end-user rollups, model prices and saved views. Composed into `Database` by schema.ts. */
import type { Millis } from './schema.millis.js';

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

/**
 * A distinct value of a project's runs (GET …/runs/values): a name, model, tag or metadata key (`key` ''),
 * or a value of the metadata key `key` (`metadataValue`). Kept at ingest; never removed but with the project.
 */
export interface RunValuesTable {
  project_id: string;
  field: 'name' | 'model' | 'tag' | 'metadataKey' | 'metadataValue';
  key: string;
  value: string;
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
  /** The tokens of runs whose usage is estimated (`usage.estimated`), and those runs' cost. */
  estimated_tokens: number;
  estimated_cost: number;
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
