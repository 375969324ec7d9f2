import type { Kysely } from 'kysely';
import { insertIgnoringConflicts } from '../../db/bulk.js';
import type { Database } from '../../db/schema.js';
import type { EvaluationJobsTable } from '../../db/schema.evaluators.js';
import { RULES_CACHE_MS, RULES_CACHE_PROJECTS, sampled } from './evaluators.rules.js';

/** What ingest needs of a rule: its id and rate (the filter is the worker's to check). */
interface SamplingRule {
  id: string;
  rate: number;
}

interface Cached {
  readUntil: number;
  rules: SamplingRule[];
}

// Per database (tests run many in one process), per project: the enabled rules, read at most every
// RULES_CACHE_MS and for at most RULES_CACHE_PROJECTS projects (the oldest read is dropped first).
// The instance that changes a rule forgets its project's entry at once; other instances within
// RULES_CACHE_MS.
const caches = new WeakMap<Kysely<Database>, Map<string, Cached>>();

function cacheOf(db: Kysely<Database>): Map<string, Cached> {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  return cache;
}

/** Forgets a project's cached rules (after a rule of it is created, changed or deleted). */
export function forgetRules(db: Kysely<Database>, projectId: string): void {
  caches.get(db)?.delete(projectId);
}

async function enabledRules(db: Kysely<Database>, projectId: string): Promise<SamplingRule[]> {
  const cache = cacheOf(db);
  const at = performance.now();
  const hit = cache.get(projectId);
  if (hit && hit.readUntil > at) return hit.rules;
  const rows = await db.selectFrom('evaluator_rules').select(['id', 'sample_rate']).where('project_id', '=', projectId).where('enabled', '=', 1).execute();
  const rules = rows.map((r) => ({ id: r.id, rate: Number(r.sample_rate) }));
  cache.delete(projectId);
  if (cache.size >= RULES_CACHE_PROJECTS) cache.delete(cache.keys().next().value!);
  cache.set(projectId, { readUntil: at + RULES_CACHE_MS, rules });
  return rules;
}

const COLUMNS = [
  'rule_id',
  'project_id',
  'run_id',
  'status',
  'attempts',
  'next_attempt_at',
  'lease_owner',
  'lease_until',
  'last_error',
  'score_id',
  'created_at',
  'updated_at',
] as const;
const CHUNK = 500;

/**
 * Queues the evaluation of newly stored runs: for each enabled rule of the project, the runs its rate
 * samples (a stable hash of rule and run) get a pending job, once per rule and run (a job that exists
 * stays as it is). Whether a run matches the rule's filter, and is finished, the worker checks. Called by
 * the ingestion pipeline right after the runs are inserted; a project without enabled rules costs one
 * cached lookup.
 */
export async function queueEvaluations(db: Kysely<Database>, projectId: string, runIds: readonly string[], now: number): Promise<number> {
  if (runIds.length === 0) return 0;
  try {
    return await insertJobs(db, projectId, await enabledRules(db, projectId), runIds, now);
  } catch (error) {
    // A cached rule deleted meanwhile (its jobs' foreign key): read the rules again, once.
    if (!caches.get(db)?.has(projectId)) throw error;
    forgetRules(db, projectId);
    return insertJobs(db, projectId, await enabledRules(db, projectId), runIds, now);
  }
}

async function insertJobs(db: Kysely<Database>, projectId: string, rules: SamplingRule[], runIds: readonly string[], now: number): Promise<number> {
  if (rules.length === 0) return 0;
  const jobs: EvaluationJobsTable[] = [];
  for (const rule of rules)
    for (const runId of runIds)
      if (sampled(rule.id, runId, rule.rate))
        jobs.push({
          rule_id: rule.id,
          project_id: projectId,
          run_id: runId,
          status: 'pending',
          attempts: 0,
          next_attempt_at: now,
          lease_owner: null,
          lease_until: null,
          last_error: null,
          score_id: null,
          created_at: now,
          updated_at: now,
        });
  for (let i = 0; i < jobs.length; i += CHUNK)
    await insertIgnoringConflicts(db, 'evaluation_jobs', COLUMNS, ['rule_id', 'run_id'], 'run_id', jobs.slice(i, i + CHUNK));
  return jobs.length;
}
