import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../db/dialect.js';
import type { Database, EvaluationJobRow } from '../../db/schema.js';
import type { EvaluationJobsTable } from '../../db/schema.evaluators.js';
import { JOB_LEASE_MS, MAX_ERROR } from './evaluators.rules.js';

/**
 * Claims up to `take` due jobs of enabled rules for `token`: pending, due, and not held under a lease
 * that has not run out. PostgreSQL picks them with FOR UPDATE SKIP LOCKED, so workers on several
 * instances pass over each other's picks; on SQLite the one UPDATE is atomic. A job is held by one
 * worker at a time.
 */
export async function claimJobs(db: Kysely<Database>, dialect: Dialect, token: string, now: number, take: number): Promise<EvaluationJobRow[]> {
  const lock = dialect === 'postgres' ? sql`for update of j skip locked` : sql``;
  const result = await sql<EvaluationJobRow>`
    update evaluation_jobs set lease_owner = ${token}, lease_until = ${now + JOB_LEASE_MS}
    where (rule_id, run_id) in (
      select j.rule_id, j.run_id from evaluation_jobs j
      where j.status = 'pending' and j.next_attempt_at <= ${now}
        and (j.lease_until is null or j.lease_until < ${now})
        and exists (select 1 from evaluator_rules r where r.id = j.rule_id and r.enabled = 1)
      order by j.next_attempt_at
      limit ${take}
      ${lock}
    )
    and status = 'pending' and (lease_until is null or lease_until < ${now})
    returning *`.execute(db);
  return result.rows;
}

/** A held job's new state, and its lease given back; false when the lease was lost meanwhile (nothing changed). */
export async function settleJob(
  db: Kysely<Database>,
  job: Pick<EvaluationJobRow, 'rule_id' | 'run_id'>,
  token: string,
  change: Partial<Pick<EvaluationJobsTable, 'status' | 'attempts' | 'next_attempt_at' | 'last_error' | 'score_id' | 'updated_at'>>,
): Promise<boolean> {
  const updated = await db
    .updateTable('evaluation_jobs')
    .set({ ...change, ...(change.last_error ? { last_error: change.last_error.slice(0, MAX_ERROR) } : {}), lease_owner: null, lease_until: null })
    .where('rule_id', '=', job.rule_id)
    .where('run_id', '=', job.run_id)
    .where('lease_owner', '=', token)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}
