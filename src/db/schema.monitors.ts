/** Table types (Kysely): monitors, their events and the webhooks they send. Composed into `Database` by schema.ts. */
import type { Millis } from './schema.millis.js';

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
