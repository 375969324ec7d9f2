import { sql, type Kysely } from 'kysely';
import { idType } from './dialect.js';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);

  // The conversation and the end user a run belongs to, filterable like the other columns.
  await db.schema.alterTable('runs').addColumn('session_id', id).execute();
  await db.schema.alterTable('runs').addColumn('user_id', id).execute();
  // 1 while a run's trace is provisional: it arrived before its parent, without a trace id of its own,
  // and takes its trace from the parent once the parent arrives (its trace is the parent's id till then).
  await db.schema
    .alterTable('runs')
    .addColumn('trace_pending', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createIndex('runs_session_idx')
    .on('runs')
    .columns(['project_id', 'session_id', 'start_time'])
    .where(sql.ref('session_id'), 'is not', null)
    .execute();
  await db.schema.createIndex('runs_user_idx').on('runs').columns(['project_id', 'user_id', 'start_time']).where(sql.ref('user_id'), 'is not', null).execute();
  // Almost always empty: what an arriving run looks up to adopt children that came before it.
  await db.schema.createIndex('runs_trace_pending_idx').on('runs').columns(['project_id', 'trace_id']).where(sql.ref('trace_pending'), '=', 1).execute();

  // The stored wire records gain the new fields (null for every run so far), at the record's end, where
  // new records have them too. Text surgery rather than a JSON function: a JSON round trip through the
  // engine could rewrite numbers the clients sent (PostgreSQL's jsonb writes 1e-7 as 0.0000001).
  await sql`update runs set doc = substr(doc, 1, length(doc) - 1) || ${',"provider":null,"sessionId":null,"userId":null}'}`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  // The records keep their three extra fields (an older server sends them as they are).
  for (const index of ['runs_trace_pending_idx', 'runs_user_idx', 'runs_session_idx']) await db.schema.dropIndex(index).execute();
  for (const column of ['trace_pending', 'user_id', 'session_id']) await db.schema.alterTable('runs').dropColumn(column).execute();
}
