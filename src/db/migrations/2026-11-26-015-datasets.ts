import type { Kysely } from 'kysely';
import { idType } from './dialect.js';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);
  // Named sets of examples (docs/design/quality-loop.md: Datasets). `version` counts the changes to its
  // items; `item_count` is the number of items at that version, kept with every change so lists need no count.
  await db.schema
    .createTable('datasets')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('organization_id', id, (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('item_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('datasets_name_uq').unique().on('datasets').columns(['organization_id', 'name_key']).execute();
  await db.schema.createIndex('datasets_list_idx').on('datasets').columns(['organization_id', 'created_at', 'id']).execute();

  // An item's history, one immutable row per change (a deletion is a row too): the items at version V are
  // each item's latest row at or before V that is not a deletion. `created_at` is the item's (its first
  // row's, carried to every row), `updated_at` when this row was written.
  await db.schema
    .createTable('dataset_item_versions')
    .addColumn('organization_id', id, (c) => c.notNull())
    .addColumn('dataset_id', id, (c) => c.notNull().references('datasets.id').onDelete('cascade'))
    .addColumn('item_id', id, (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('input', 'text', (c) => c.notNull())
    .addColumn('expected_output', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('source_run_id', id)
    .addColumn('source_project_id', id)
    .addColumn('deleted', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('dataset_item_versions_pk', ['dataset_id', 'item_id', 'version'])
    .execute();
  // The items list walks this in (created_at, item_id) order, newest first; an item's rows are adjacent,
  // and whether a row is the latest at or before V is one probe of the primary key.
  await db.schema
    .createIndex('dataset_item_versions_list_idx')
    .on('dataset_item_versions')
    .columns(['dataset_id', 'created_at', 'item_id', 'version'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('dataset_item_versions').execute();
  await db.schema.dropTable('datasets').execute();
}
