/** Table types (Kysely): evaluator rules, their jobs, and the model connections LLM-as-judge evaluators call. Composed into `Database` by schema.ts. */
import type { Millis } from './schema.millis.js';

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
