import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect } from './dialect.js';
import { sqliteHandle } from './rowwise.js';
import type { Database } from './schema.js';

/**
 * A column any query can select: the database's state as that statement saw it, as text. Two equal
 * values mean that nothing was written in between, so every read answers the same; it never takes a
 * value it had before, so an equal value is never a coincidence.
 *
 * - PostgreSQL: the statement's snapshot (`pg_current_snapshot()`: xmin, xmax and the transactions in
 *   progress). Visibility is a function of the snapshot, and xmax moves on as soon as any transaction is
 *   given an id (any write, on any instance sharing the cluster).
 * - SQLite: the rows this process's one connection has changed (`total_changes()`, committed or not: the
 *   connection is not shared while a transaction holds it) and the commits of other connections to the
 *   file (`data_version`: another process, such as the CLI minting a token).
 */
export function readStateColumn(dialect: Dialect): RawBuilder<string> {
  return dialect === 'postgres' ? sql<string>`pg_current_snapshot()::text` : sql.raw<string>(SQLITE_STATE);
}

/** SQLite's state: this connection's changed rows, and the other connections' commits. */
const SQLITE_STATE = "total_changes() || '.' || (select data_version from pragma_data_version)";
const stateStatements = new WeakMap<object, { changes: { get(): unknown }; version: { get(): unknown } }>();

/**
 * SQLite: the state now (as `readStateColumn` reads it), read on the connection at once, without a query
 * through Kysely; null on PostgreSQL, where knowing it takes a round trip. A row read in the same state is
 * the row as it is now: nothing was written since. (Two statements: the pragma itself costs two thirds
 * of the table-valued `pragma_data_version` in one select.)
 */
export function sqliteReadState(db: Kysely<Database>): string | null {
  const handle = sqliteHandle(db);
  if (handle === null) return null;
  let statements = stateStatements.get(handle);
  if (statements === undefined) {
    statements = { changes: handle.prepare('select total_changes()').pluck(), version: handle.prepare('pragma data_version').pluck() };
    stateStatements.set(handle, statements);
  }
  return `${String(statements.changes.get())}.${String(statements.version.get())}`;
}
