import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect.js';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  // Traces, sessions and end users say how much of their cost was computed from the price table (the
  // rest came from clients): the part of `cost` whose runs' records say `"costSource":"computed"`.
  for (const table of ['traces', 'run_sessions', 'run_users']) {
    await db.schema
      .alterTable(table)
      .addColumn('computed_cost', 'double precision', (c) => c.notNull().defaultTo(0))
      .execute();
  }
  const computed = isPostgres(db) ? sql`(doc::jsonb ->> 'costSource') = 'computed'` : sql`json_extract(doc, '$.costSource') = 'computed'`;
  // One pass over the priced runs per rollup (UPDATE … FROM: SQLite ≥ 3.33 and PostgreSQL alike).
  for (const [table, key] of [
    ['traces', 'trace_id'],
    ['run_sessions', 'session_id'],
    ['run_users', 'user_id'],
  ] as const) {
    await sql`update ${sql.table(table)} set computed_cost = s.total
      from (select project_id, ${sql.ref(key)} as k, sum(cost) as total from runs
            where cost is not null and ${sql.ref(key)} is not null and ${computed}
            group by project_id, ${sql.ref(key)}) s
      where ${sql.ref(`${table}.project_id`)} = s.project_id and ${sql.ref(`${table}.${key}`)} = s.k`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['traces', 'run_sessions', 'run_users']) await db.schema.alterTable(table).dropColumn('computed_cost').execute();
}
