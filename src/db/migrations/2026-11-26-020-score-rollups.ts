import { sql, type Kysely } from 'kysely';
import { idType } from './dialect.js';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);

  // Kept at ingest (scores.rollups.ts), in the transaction that inserts, changes or deletes a score, so
  // score metrics over whole hours add up one row per hour and kind instead of every score (design note:
  // score metrics). `label` is '' for numeric scores (a key column cannot be null; `data_type` tells them
  // apart from a categorical ''); `sum` adds up `value` (numbers, booleans as 1 and 0).
  await db.schema
    .createTable('score_rollups')
    .addColumn('project_id', id, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('name', id, (c) => c.notNull())
    .addColumn('source', id, (c) => c.notNull())
    .addColumn('target', id, (c) => c.notNull())
    .addColumn('data_type', id, (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addColumn('sum', 'double precision', (c) => c.notNull())
    .addPrimaryKeyConstraint('score_rollups_pk', ['project_id', 'hour', 'name', 'source', 'target', 'data_type', 'label'])
    .execute();

  // The runs lists filtered by score start from the scores of a name when they are few (runs.score-plan.ts):
  // a bound on the value (and the type, numbers matching only numeric scores), or the label, then the target, read from the index alone.
  await db.schema.createIndex('scores_value_idx').on('scores').columns(['project_id', 'name', 'value', 'data_type', 'target', 'target_id']).execute();
  await db.schema.createIndex('scores_label_idx').on('scores').columns(['project_id', 'name', 'label', 'target', 'target_id']).execute();

  // The scores stored before the rollups existed.
  await sql`insert into score_rollups (project_id, hour, name, source, target, data_type, label, count, sum)
    select project_id, (created_at / 3600000) * 3600000, name, source, target, data_type,
      case when data_type = 'numeric' then '' else coalesce(label, '') end, count(*), coalesce(sum(value), 0)
    from scores
    group by project_id, (created_at / 3600000) * 3600000, name, source, target, data_type,
      case when data_type = 'numeric' then '' else coalesce(label, '') end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('scores_label_idx').execute();
  await db.schema.dropIndex('scores_value_idx').execute();
  await db.schema.dropTable('score_rollups').execute();
}
