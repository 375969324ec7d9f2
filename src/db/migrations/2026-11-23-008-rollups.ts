import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import { idType, isPostgres } from './dialect.js';

/** What a trace, a session or an end user adds up to: counts, tokens by type, cost, and its time span. */
const TOTALS = [
  ['run_count', 'bigint'],
  ['error_count', 'bigint'],
  ['running_count', 'bigint'],
  ['prompt_tokens', 'bigint'],
  ['completion_tokens', 'bigint'],
  ['total_tokens', 'bigint'],
  ['cache_read_tokens', 'bigint'],
  ['cache_creation_tokens', 'bigint'],
  ['reasoning_tokens', 'bigint'],
  ['cost', 'double precision'],
  ['start_time', 'bigint'],
  ['end_time', 'bigint'],
] as const;

function withTotals(table: CreateTableBuilder<any, any>): CreateTableBuilder<any, any> {
  let built = table;
  for (const [name, type] of TOTALS) built = built.addColumn(name, type, (c) => c.notNull());
  return built;
}

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);
  // Kept at ingest (runs.rollups.ts), so the lists of traces, sessions and end users are keyset scans
  // over one row each, never GROUP BYs over millions of runs.
  await withTotals(
    db.schema
      .createTable('traces')
      .addColumn('project_id', id, (c) => c.notNull())
      .addColumn('trace_id', id, (c) => c.notNull())
      .addColumn('root_run_id', id)
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('session_id', id)
      .addColumn('user_id', id),
  )
    .addPrimaryKeyConstraint('traces_pk', ['project_id', 'trace_id'])
    .execute();
  await db.schema.createIndex('traces_stream_idx').on('traces').columns(['project_id', 'start_time', 'trace_id']).execute();
  for (const key of ['session_id', 'user_id'] as const) {
    await db.schema.createIndex(`traces_${key}_idx`).on('traces').columns(['project_id', key, 'start_time']).where(sql.ref(key), 'is not', null).execute();
  }

  // `sessions` and `users` are the dashboard's sign-in sessions and the people who sign in.
  for (const [table, key] of [
    ['run_sessions', 'session_id'],
    ['run_users', 'user_id'],
  ] as const) {
    await withTotals(
      db.schema
        .createTable(table)
        .addColumn('project_id', id, (c) => c.notNull())
        .addColumn(key, id, (c) => c.notNull()),
    )
      .addPrimaryKeyConstraint(`${table}_pk`, ['project_id', key])
      .execute();
    // Newest activity first (the end of its latest run, or the start of one still running).
    await db.schema.createIndex(`${table}_activity_idx`).on(table).columns(['project_id', 'end_time', key]).execute();
  }
  await backfill(db);
}

/** The totals of a group of runs, as the rollups keep them (token types from the stored records). */
function totalsOf(db: Kysely<any>) {
  const usage = (field: string) =>
    isPostgres(db)
      ? sql`coalesce(sum((runs.doc::json #>> ${`{usage,${field}}`})::bigint), 0)`
      : sql`coalesce(sum(json_extract(runs.doc, ${`$.usage.${field}`})), 0)`;
  return sql.join([
    sql`count(*)`,
    sql`sum(case when runs.status = 'failed' then 1 else 0 end)`,
    sql`sum(case when runs.status = 'running' then 1 else 0 end)`,
    usage('promptTokens'),
    usage('completionTokens'),
    usage('totalTokens'),
    usage('cacheReadTokens'),
    usage('cacheCreationTokens'),
    usage('reasoningTokens'),
    sql`coalesce(sum(runs.cost), 0)`,
    sql`min(runs.start_time)`,
    sql`max(coalesce(runs.end_time, runs.start_time))`,
  ]);
}

const TOTAL_COLUMNS = sql.join(TOTALS.map(([name]) => sql.ref(name)));

/** The rollups of the runs stored before they existed. */
async function backfill(db: Kysely<any>): Promise<void> {
  await sql`insert into traces (project_id, trace_id, root_run_id, name, session_id, user_id, ${TOTAL_COLUMNS})
    select runs.project_id, runs.trace_id, max(case when runs.parent_run_id is null then runs.id end), min(runs.name),
      max(runs.session_id), max(runs.user_id), ${totalsOf(db)}
    from runs group by runs.project_id, runs.trace_id`.execute(db);
  await sql`update traces set name = (select runs.name from runs where runs.project_id = traces.project_id and runs.id = traces.root_run_id)
    where traces.root_run_id is not null`.execute(db);
  for (const [table, key] of [
    ['run_sessions', 'session_id'],
    ['run_users', 'user_id'],
  ] as const) {
    await sql`insert into ${sql.table(table)} (project_id, ${sql.ref(key)}, ${TOTAL_COLUMNS})
      select runs.project_id, ${sql.ref(`runs.${key}`)}, ${totalsOf(db)}
      from runs where ${sql.ref(`runs.${key}`)} is not null group by runs.project_id, ${sql.ref(`runs.${key}`)}`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['run_users', 'run_sessions', 'traces']) await db.schema.dropTable(table).execute();
}
