import { sampled as sampledBy } from '../annotations/annotations.rules.js';

/** What a job is: waiting (maybe held under a lease), scored, given up on after its retries, or not to be evaluated. */
export const JOB_STATUSES = ['pending', 'done', 'failed', 'skipped'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The evaluators a rule may name; `llm_judge` asks a model (the model connections feature). */
export const EVALUATOR_TYPES = ['json_valid', 'json_schema', 'regex', 'contains', 'exact_match', 'fuzzy_match', 'length', 'latency', 'llm_judge'] as const;
export type EvaluatorType = (typeof EVALUATOR_TYPES)[number];

/** Tries of one job before it is `failed` (the first and the retries). */
export const MAX_ATTEMPTS = 3;
/** The wait before the n-th retry: doubled each time (5 s, 10 s). */
export const RETRY_BACKOFF_MS = 5_000;
/** How long a job waits for its run to finish (a run still `running`), checked every WAIT_RETRY_MS; then `skipped`. */
export const UNFINISHED_WAIT_MS = 60 * 60_000;
export const WAIT_RETRY_MS = 10_000;
/** How long a claimed job stays with its worker; a crashed instance's jobs are claimed again after it. */
export const JOB_LEASE_MS = 60_000;
/** Jobs claimed at a time by one worker, and evaluated at once. */
export const JOB_BATCH = 20;
export const JOB_CONCURRENCY = 4;
/** Enabled rules of a project read at ingest are kept this long (the instance that changes a rule forgets them at once). */
export const RULES_CACHE_MS = 2_000;
/** Projects whose rules one process keeps at once. */
export const RULES_CACHE_PROJECTS = 1_000;
/** Rules one project may have. */
export const MAX_RULES_PER_PROJECT = 100;
/** The longest error message kept on a job. */
export const MAX_ERROR = 1_000;

/** The backoff before retry `attempt` (1-based: the wait after the first failure is attempt 1's). */
export function retryDelay(attempt: number): number {
  return RETRY_BACKOFF_MS * 2 ** Math.max(0, attempt - 1);
}

/**
 * Whether a rule at `rate` evaluates a run: a hash of (rule, run) read as a fraction of 1, below the
 * rate (the annotation queues' sampling, with the rule's id for the queue's). The same rule takes the
 * same runs at the same rate, on any instance and in any order; another rule takes another sample.
 */
export function sampled(ruleId: string, runId: string, rate: number): boolean {
  return rate >= 1 || sampledBy(ruleId, runId, rate);
}
