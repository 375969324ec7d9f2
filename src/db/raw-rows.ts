import type BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery, Kysely } from 'kysely';
import { PerConnection, sqliteHandle } from './rowwise.js';
import type { Database } from './schema.js';

/** Raw-mode statements kept per connection (their own: a statement's mode is its own state). */
const statements = new PerConnection<BetterSqlite3.Statement>(64);

/**
 * The rows of a query as arrays of their values, in the order the query selects its columns. On SQLite
 * they are read in better-sqlite3's raw mode, without an object per row: for the thousand runs of a
 * trace's outline, making the row objects cost more than reading the rows. While the connection is in a
 * transaction (another request's, which Kysely's lock holds), or on PostgreSQL, the query goes through
 * Kysely like any other and each row's values are taken in column order.
 */
export async function rawRows(db: Kysely<Database>, query: { compile(): CompiledQuery }): Promise<unknown[][]> {
  const compiled = query.compile();
  const handle = sqliteHandle(db);
  if (handle && !handle.inTransaction)
    return statements.get(handle, compiled.sql, () => handle.prepare(compiled.sql).raw(true)).all(...(compiled.parameters as unknown[])) as unknown[][];
  return (await db.executeQuery<Record<string, unknown>>(compiled)).rows.map((row) => Object.values(row));
}
