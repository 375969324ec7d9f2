import { sql, type Kysely } from 'kysely';
import { idType, isPostgres } from './dialect.js';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);

  await db.schema
    .createTable('organizations')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('memberships')
    .addColumn('organization_id', id, (c) => c.notNull().references('organizations.id'))
    .addColumn('user_id', id, (c) => c.notNull().references('users.id'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['organization_id', 'user_id'])
    .execute();
  await db.schema.createIndex('memberships_user_idx').on('memberships').columns(['user_id']).execute();

  await db.schema
    .createTable('personal_access_tokens')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('organization_id', id, (c) => c.notNull().references('organizations.id'))
    .addColumn('user_id', id, (c) => c.notNull().references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('pat_user_list_idx').on('personal_access_tokens').columns(['organization_id', 'user_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('service_keys')
    .addColumn('kid', id, (c) => c.primaryKey())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('algorithm', 'text', (c) => c.notNull())
    .addColumn('public_key', 'text')
    .addColumn('private_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('projects')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('organization_id', id, (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('projects_name_uq').unique().on('projects').columns(['organization_id', 'name_key']).execute();
  await db.schema.createIndex('projects_list_idx').on('projects').columns(['organization_id', 'created_at', 'id']).execute();

  // A run is stored as the columns the filters, sorting and metrics need, plus `doc`: its wire record,
  // serialized once with the response schema when it is written, so a list page is sent without
  // re-serializing (or even parsing) the free-form inputs, outputs and metadata.
  await db.schema
    .createTable('runs')
    .addColumn('project_id', id, (c) => c.notNull())
    .addColumn('id', id, (c) => c.notNull())
    .addColumn('trace_id', id, (c) => c.notNull())
    .addColumn('parent_run_id', id)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('start_time', 'bigint', (c) => c.notNull())
    .addColumn('end_time', 'bigint')
    .addColumn('latency_ms', 'bigint')
    .addColumn('model', 'text')
    .addColumn('total_tokens', 'bigint')
    .addColumn('cost', 'double precision')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('doc', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('runs_pk', ['project_id', 'id'])
    .execute();
  // The list stream and the metrics ranges: (project, start_time, id) serves both, scanned either way.
  await db.schema.createIndex('runs_stream_idx').on('runs').columns(['project_id', 'start_time', 'id']).execute();
  await db.schema.createIndex('runs_trace_idx').on('runs').columns(['project_id', 'trace_id']).execute();
  // Most runs are roots: index only the children (the roots filter is answered from the stream).
  await db.schema.createIndex('runs_parent_idx').on('runs').columns(['project_id', 'parent_run_id']).where(sql.ref('parent_run_id'), 'is not', null).execute();

  let runTags = db.schema
    .createTable('run_tags')
    .addColumn('project_id', id, (c) => c.notNull())
    .addColumn('run_id', id, (c) => c.notNull())
    .addColumn('tag', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('run_tags_pk', ['project_id', 'run_id', 'tag']);
  // On SQLite a table of short keys is cheaper clustered on its primary key (one b-tree, not two).
  if (!isPostgres(db)) runTags = runTags.modifyEnd(sql`without rowid`);
  await runTags.execute();
  await db.schema.createIndex('run_tags_tag_idx').on('run_tags').columns(['project_id', 'tag']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['run_tags', 'runs', 'projects', 'service_keys', 'personal_access_tokens', 'memberships', 'users', 'organizations']) {
    await db.schema.dropTable(table).execute();
  }
}
