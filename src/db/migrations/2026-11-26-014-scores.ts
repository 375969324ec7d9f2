import type { Kysely } from 'kysely';
import { idType } from './dialect.js';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);

  // An organization's score configs (README: Scores): what a score of that name may be.
  await db.schema
    .createTable('score_configs')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('organization_id', id, (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('data_type', id, (c) => c.notNull())
    .addColumn('min_value', 'double precision')
    .addColumn('max_value', 'double precision')
    .addColumn('categories', 'text')
    .addColumn('description', 'text')
    .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('score_configs_name_uq').unique().on('score_configs').columns(['organization_id', 'name']).execute();
  await db.schema.createIndex('score_configs_list_idx').on('score_configs').columns(['organization_id', 'created_at', 'id']).execute();

  // Judgments on a run, a trace or a session. Ids are the client's (idempotent retries) or the
  // server's, unique within the project. `value` is a number for numeric and boolean scores (1 or 0),
  // `label` the text of categorical and boolean ones ('true' or 'false').
  await db.schema
    .createTable('scores')
    .addColumn('project_id', id, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('id', id, (c) => c.notNull())
    .addColumn('organization_id', id, (c) => c.notNull())
    .addColumn('target', id, (c) => c.notNull())
    .addColumn('target_id', id, (c) => c.notNull())
    .addColumn('name', id, (c) => c.notNull())
    .addColumn('data_type', id, (c) => c.notNull())
    .addColumn('value', 'double precision')
    .addColumn('label', 'text')
    .addColumn('comment', 'text')
    .addColumn('source', id, (c) => c.notNull())
    .addColumn('author_kind', id, (c) => c.notNull())
    .addColumn('author_id', id, (c) => c.notNull())
    .addColumn('config_id', id)
    .addColumn('queue_id', id)
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('scores_pk', ['project_id', 'id'])
    .execute();
  // The list (newest first), an item's scores (and the lists' filters by score), a name's over time (metrics).
  await db.schema.createIndex('scores_stream_idx').on('scores').columns(['project_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('scores_target_idx').on('scores').columns(['project_id', 'target', 'target_id', 'name']).execute();
  await db.schema.createIndex('scores_name_idx').on('scores').columns(['project_id', 'name', 'target', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('scores').execute();
  await db.schema.dropTable('score_configs').execute();
}
