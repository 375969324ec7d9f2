import type { Kysely } from 'kysely';
import { idType } from './dialect.js';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);

  await db.schema
    .createTable('prompts')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('organization_id', id, (c) => c.notNull().references('organizations.id'))
    .addColumn('name', id, (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('latest_version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('prompts_name_uq').unique().on('prompts').columns(['organization_id', 'name']).execute();
  await db.schema.createIndex('prompts_list_idx').on('prompts').columns(['organization_id', 'created_at', 'id']).execute();

  // Versions are immutable: written once, never updated.
  await db.schema
    .createTable('prompt_versions')
    .addColumn('prompt_id', id, (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('template', 'text', (c) => c.notNull())
    .addColumn('variables', 'text', (c) => c.notNull())
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('created_by', id, (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('prompt_versions_pk', ['prompt_id', 'version'])
    .execute();

  await db.schema
    .createTable('prompt_labels')
    .addColumn('prompt_id', id, (c) => c.notNull())
    .addColumn('label', id, (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('updated_by', id, (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('prompt_labels_pk', ['prompt_id', 'label'])
    .execute();

  // Every label move: who, when, from which version to which (null: created / removed).
  await db.schema
    .createTable('prompt_label_events')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('prompt_id', id, (c) => c.notNull())
    .addColumn('label', id, (c) => c.notNull())
    .addColumn('from_version', 'integer')
    .addColumn('to_version', 'integer')
    .addColumn('actor', id, (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('prompt_label_events_list_idx').on('prompt_label_events').columns(['prompt_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['prompt_label_events', 'prompt_labels', 'prompt_versions', 'prompts']) await db.schema.dropTable(table).execute();
}
