import type { Kysely } from 'kysely';
import { idType } from './dialect.js';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);

  // A task run over one version of a dataset (docs/design/quality-loop.md: Datasets and experiments). Its
  // runs go to `project_id`; `item_count` is the number of items at `dataset_version` (versions never
  // change, so it is counted once, when the experiment is created). Deleting the dataset or the project
  // deletes its experiments.
  await db.schema
    .createTable('experiments')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('organization_id', id, (c) => c.notNull())
    .addColumn('dataset_id', id, (c) => c.notNull().references('datasets.id').onDelete('cascade'))
    .addColumn('dataset_version', 'integer', (c) => c.notNull())
    .addColumn('project_id', id, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('status', id, (c) => c.notNull())
    .addColumn('item_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('completed_at', 'bigint')
    .execute();
  // A name is unique per dataset (exactly as given): what the SDK resumes an experiment by.
  await db.schema.createIndex('experiments_name_uq').unique().on('experiments').columns(['dataset_id', 'name']).execute();
  await db.schema.createIndex('experiments_list_idx').on('experiments').columns(['organization_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('experiments_dataset_idx').on('experiments').columns(['dataset_id', 'created_at', 'id']).execute();

  // One result per dataset item (the primary key): a resumed experiment never records an item twice.
  await db.schema
    .createTable('experiment_results')
    .addColumn('experiment_id', id, (c) => c.notNull().references('experiments.id').onDelete('cascade'))
    .addColumn('item_id', id, (c) => c.notNull())
    .addColumn('organization_id', id, (c) => c.notNull())
    .addColumn('project_id', id, (c) => c.notNull())
    .addColumn('run_id', id, (c) => c.notNull())
    .addColumn('trace_id', id)
    .addColumn('output', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('usage', 'text')
    .addColumn('total_tokens', 'bigint')
    .addColumn('cost', 'double precision')
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('experiment_results_pk', ['experiment_id', 'item_id'])
    .execute();
  // The results list (newest first) and the latency percentiles.
  await db.schema.createIndex('experiment_results_list_idx').on('experiment_results').columns(['experiment_id', 'created_at', 'item_id']).execute();
  await db.schema.createIndex('experiment_results_latency_idx').on('experiment_results').columns(['experiment_id', 'latency_ms']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('experiment_results').execute();
  await db.schema.dropTable('experiments').execute();
}
