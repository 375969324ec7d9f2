import { sql, type Kysely } from 'kysely';
import { idType } from './dialect.js';

// Frozen once shipped: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);

  // The runs stream index, widened so that metrics over a time range are answered from the index alone
  // (no visit to the table, whose rows carry the whole serialized run): same leading keys, so the list's
  // keyset scans are unchanged.
  await db.schema.dropIndex('runs_stream_idx').execute();
  await db.schema
    .createIndex('runs_stream_idx')
    .on('runs')
    .columns(['project_id', 'start_time', 'id', 'status', 'latency_ms', 'total_tokens', 'cost', 'kind', 'model'])
    .execute();

  await db.schema
    .createTable('monitors')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('project_id', id, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    /** JSON object in the runs list's filter names. */
    .addColumn('filter', 'text', (c) => c.notNull())
    .addColumn('metric', 'text', (c) => c.notNull())
    .addColumn('window_size', 'text', (c) => c.notNull())
    .addColumn('threshold_op', 'text')
    .addColumn('threshold_value', 'double precision')
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('last_value', 'double precision')
    .addColumn('last_count', 'bigint')
    .addColumn('last_evaluated_at', 'bigint')
    /** JSON array of URLs. */
    .addColumn('webhook_urls', 'text', (c) => c.notNull())
    /** The signing secret, encrypted with a service key (never stored in clear). */
    .addColumn('webhook_secret', 'text', (c) => c.notNull())
    .addColumn('next_evaluation_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('monitors_list_idx').on('monitors').columns(['project_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('monitors_due_idx').on('monitors').columns(['next_evaluation_at']).where(sql.ref('enabled'), '=', 1).execute();

  await db.schema
    .createTable('monitor_events')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('monitor_id', id, (c) => c.notNull())
    .addColumn('project_id', id, (c) => c.notNull())
    .addColumn('from_state', 'text', (c) => c.notNull())
    .addColumn('to_state', 'text', (c) => c.notNull())
    .addColumn('value', 'double precision')
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addColumn('threshold_op', 'text')
    .addColumn('threshold_value', 'double precision')
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('window_end', 'bigint', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('monitor_events_list_idx').on('monitor_events').columns(['monitor_id', 'created_at', 'id']).execute();

  // One row per (event, URL): what is left to deliver, claimed by one instance at a time through a lease.
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('monitor_id', id, (c) => c.notNull())
    .addColumn('event_id', id, (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due_idx')
    .on('webhook_deliveries')
    .columns(['next_attempt_at'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema.createIndex('webhook_deliveries_monitor_idx').on('webhook_deliveries').columns(['monitor_id']).execute();

  // Every attempt, as the API lists it.
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('delivery_id', id, (c) => c.notNull())
    .addColumn('monitor_id', id, (c) => c.notNull())
    .addColumn('event_id', id, (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_attempts_list_idx').on('webhook_attempts').columns(['monitor_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'monitor_events', 'monitors']) await db.schema.dropTable(table).execute();
  await db.schema.dropIndex('runs_stream_idx').execute();
  await db.schema.createIndex('runs_stream_idx').on('runs').columns(['project_id', 'start_time', 'id']).execute();
}
