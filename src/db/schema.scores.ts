/** Table types (Kysely): scores, their configs and rollups, and annotation queues. Composed into `Database` by schema.ts. */
import type { Millis } from './schema.millis.js';

/** An organization's score config: the name, type and range of the scores it describes. */
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
