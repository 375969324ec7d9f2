import type { Kysely } from 'kysely';
import { idType } from './dialect.js';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);

  // A project's evaluator rules (docs/design/quality-loop.md: Evaluators): which new runs to sample
  // (`filter`, JSON of the runs list's filters; `sample_rate`), how to judge them (`evaluator`, JSON)
  // and the name of the scores they give.
  await db.schema
    .createTable('evaluator_rules')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('organization_id', id, (c) => c.notNull())
    .addColumn('project_id', id, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('filter', 'text', (c) => c.notNull())
    .addColumn('sample_rate', 'double precision', (c) => c.notNull())
    .addColumn('evaluator', 'text', (c) => c.notNull())
    .addColumn('score_name', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('evaluator_rules_name_uq').unique().on('evaluator_rules').columns(['project_id', 'name']).execute();
  await db.schema.createIndex('evaluator_rules_list_idx').on('evaluator_rules').columns(['project_id', 'created_at', 'id']).execute();

  // A sampled run waiting for (or done with) one rule's evaluation: once per rule and run (the primary
  // key), so a run is never evaluated twice by a rule. `status`: pending, done, failed or skipped;
  // a worker holds a pending job under a lease (`lease_owner`, `lease_until`) and retries it at
  // `next_attempt_at`; `attempts` counts tries, `last_error` keeps the last failure.
  await db.schema
    .createTable('evaluation_jobs')
    .addColumn('rule_id', id, (c) => c.notNull().references('evaluator_rules.id').onDelete('cascade'))
    .addColumn('project_id', id, (c) => c.notNull())
    .addColumn('run_id', id, (c) => c.notNull())
    .addColumn('status', id, (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', id)
    .addColumn('lease_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('score_id', id)
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('evaluation_jobs_pk', ['rule_id', 'run_id'])
    .execute();
  // The workers' claim: due pending jobs, oldest due first.
  await db.schema.createIndex('evaluation_jobs_due_idx').on('evaluation_jobs').columns(['status', 'next_attempt_at']).execute();
  // A rule's counts by status.
  await db.schema.createIndex('evaluation_jobs_rule_status_idx').on('evaluation_jobs').columns(['rule_id', 'status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('evaluation_jobs').execute();
  await db.schema.dropTable('evaluator_rules').execute();
}
