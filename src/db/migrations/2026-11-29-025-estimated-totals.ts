import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect.js';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * Traces, sessions and end users say how much of their totals was estimated: `estimated_tokens`, the
 * tokens of runs whose usage was counted from their texts (`"usage":{"estimated":true}`: a model run that
 * reported none, or a client's own estimate), and `estimated_cost`, those runs' cost. Summed from the runs into their
 * traces, then from the traces into the session and end user each keeps (as migration 023 does).
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['traces', 'run_sessions', 'run_users']) {
    // One column per statement: SQLite's ALTER TABLE adds one at a time.
    await db.schema
      .alterTable(table)
      .addColumn('estimated_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable(table)
      .addColumn('estimated_cost', 'double precision', (c) => c.notNull().defaultTo(0))
      .execute();
  }
  const postgres = isPostgres(db);
  const estimated = postgres ? sql`(doc::jsonb -> 'usage' ->> 'estimated') = 'true'` : sql`json_extract(doc, '$.usage.estimated') = 1`;
  // Only runs with tokens can say they were estimated (Sightline's estimates, or a client's): the JSON is read for those alone.
  await sql`update traces set estimated_tokens = s.tokens, estimated_cost = s.cost
    from (select project_id, trace_id, sum(total_tokens) as tokens, sum(coalesce(cost, 0)) as cost
          from runs where total_tokens is not null and ${estimated}
          group by project_id, trace_id) s
    where traces.project_id = s.project_id and traces.trace_id = s.trace_id`.execute(db);
  for (const [table, key] of [
    ['run_sessions', 'session_id'],
    ['run_users', 'user_id'],
  ] as const) {
    await sql`update ${sql.table(table)} set estimated_tokens = s.tokens, estimated_cost = s.cost
      from (select project_id, ${sql.ref(key)} as k, sum(estimated_tokens) as tokens, sum(estimated_cost) as cost from traces
            where ${sql.ref(key)} is not null and estimated_tokens > 0 group by project_id, ${sql.ref(key)}) s
      where ${sql.ref(`${table}.project_id`)} = s.project_id and ${sql.ref(`${table}.${key}`)} = s.k`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['traces', 'run_sessions', 'run_users'])
    for (const column of ['estimated_tokens', 'estimated_cost']) await db.schema.alterTable(table).dropColumn(column).execute();
}
