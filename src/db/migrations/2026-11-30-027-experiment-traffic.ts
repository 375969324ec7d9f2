import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * Experiment traffic: a trace is marked (`experiment = 1`) once an experiment records a result for one of
 * its runs (or names it as the result's trace), in the transaction that records the result; the lists'
 * `experiment` filter (`exclude`, `only`) reads the mark. `traces_experiment_idx` walks either kind of
 * trace in the traces list's order, and answers "which traces of a project are experiments" from its
 * first entries. The traces of the results recorded before this migration are marked here.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('traces')
    .addColumn('experiment', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('traces_experiment_idx').on('traces').columns(['project_id', 'experiment', 'start_time', 'trace_id']).execute();
  await sql`update traces set experiment = 1
    where exists (select 1 from experiment_results r where r.project_id = traces.project_id and r.trace_id = traces.trace_id)
       or exists (select 1 from experiment_results r join runs on runs.project_id = r.project_id and runs.id = r.run_id
                  where runs.project_id = traces.project_id and runs.trace_id = traces.trace_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('traces_experiment_idx').execute();
  await db.schema.alterTable('traces').dropColumn('experiment').execute();
}
