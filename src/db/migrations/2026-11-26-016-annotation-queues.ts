import type { Kysely } from 'kysely';
import { idType } from './dialect.js';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);

  // A project's annotation queues (docs/design/quality-loop.md: Annotation queues): runs or traces for
  // reviewers to score, with the score configs they are asked for (a JSON array of ids).
  await db.schema
    .createTable('annotation_queues')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('organization_id', id, (c) => c.notNull())
    .addColumn('project_id', id, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('target', id, (c) => c.notNull())
    .addColumn('score_config_ids', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('annotation_queues_name_uq').unique().on('annotation_queues').columns(['project_id', 'name']).execute();
  await db.schema.createIndex('annotation_queues_list_idx').on('annotation_queues').columns(['project_id', 'created_at', 'id']).execute();

  // A target in a queue, once (the unique index): pending until its reviewer completes or skips it. A
  // claim leases it to a reviewer (`reviewer_id`, `lease_until` in ms) for a while.
  await db.schema
    .createTable('annotation_items')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('queue_id', id, (c) => c.notNull().references('annotation_queues.id').onDelete('cascade'))
    .addColumn('project_id', id, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('organization_id', id, (c) => c.notNull())
    .addColumn('target_id', id, (c) => c.notNull())
    .addColumn('status', id, (c) => c.notNull())
    .addColumn('reviewer_id', id)
    .addColumn('lease_until', 'bigint')
    .addColumn('completed_by', id)
    .addColumn('completed_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('annotation_items_target_uq').unique().on('annotation_items').columns(['queue_id', 'target_id']).execute();
  // The items list (newest first); the claim (a queue's pending items, oldest first) and the counts by status.
  await db.schema.createIndex('annotation_items_list_idx').on('annotation_items').columns(['queue_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('annotation_items_claim_idx').on('annotation_items').columns(['queue_id', 'status', 'created_at', 'id']).execute();
  // A reviewer's own lease, found again when they claim.
  await db.schema.createIndex('annotation_items_reviewer_idx').on('annotation_items').columns(['queue_id', 'reviewer_id', 'status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('annotation_items').execute();
  await db.schema.dropTable('annotation_queues').execute();
}
