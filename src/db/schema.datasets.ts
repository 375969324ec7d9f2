/** Table types (Kysely): datasets and the experiments run over them. Composed into `Database` by schema.ts. */
import type { Millis } from './schema.millis.js';

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
