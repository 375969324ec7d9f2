import type BetterSqlite3 from 'better-sqlite3';
import type { Compilable, CompiledQuery, Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';
import { Lru } from '../lib/lru.js';

type Db = Kysely<Database> | Transaction<Database>;
type Handle = BetterSqlite3.Database;

const roots = new WeakMap<object, Handle>();
const held = new WeakMap<object, Handle>();

/** Called by `openStorage`: the driver handle behind a SQLite Kysely instance. */
export function registerSqliteRoot(db: Kysely<Database>, handle: Handle): void {
  roots.set(db, handle);
}

/**
 * The SQLite connection behind a Kysely instance (null on PostgreSQL), for reads of many rows at once
 * run on it synchronously (the aggregation of runs, `rawRows`). Writes go through `writeTransaction`.
 */
export function sqliteHandle(db: Kysely<Database>): Handle | null {
  return roots.get(db) ?? null;
}

/**
 * `db.transaction().execute(fn)`, which on SQLite also lends the transaction's connection to the row-wise
 * writers (`heldSqlite`): Kysely's SQLite dialect has one connection, and inside the transaction it is
 * ours alone, so statements run on its driver handle are part of the transaction, never of another's.
 */
export async function writeTransaction<T>(db: Kysely<Database>, fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const handle = roots.get(db);
  return db.transaction().execute(async (trx) => {
    if (handle) held.set(trx, handle);
    try {
      return await fn(trx);
    } finally {
      held.delete(trx);
    }
  });
}

/** The SQLite driver handle of a transaction opened by `writeTransaction`; null otherwise (and on PostgreSQL). */
export function heldSqlite(db: Db): Handle | null {
  return held.get(db) ?? null;
}

/**
 * Values kept per SQLite connection and key (prepared statements), at most `most` per connection, the
 * least recently used dropped first: a statement holds its compiled program in native memory.
 */
export class PerConnection<V> {
  private readonly byHandle = new WeakMap<Handle, Lru<V>>();

  constructor(private readonly most: number) {}

  get(handle: Handle, key: string, make: () => V): V {
    let kept = this.byHandle.get(handle);
    if (!kept) this.byHandle.set(handle, (kept = new Lru<V>(this.most)));
    return kept.get(key, make);
  }
}

interface RowStatement {
  statement: BetterSqlite3.Statement;
  /** For each parameter of the statement, the index of the column whose value it takes. */
  order: number[];
}

/** One per shape of row a writer names (a handful of tables): the bound is a backstop. */
const statements = new PerConnection<RowStatement>(256);
const SENTINEL = '\u0000sightline-column:';

/**
 * Writes rows one execution of a prepared statement each: SQLite's fastest way to write many rows (a
 * multi-row statement of hundreds of rows costs more to prepare and bind than it saves, and its text
 * changes with the row count). Kysely writes the statement once per `key` from `build`, given a row
 * whose every value is a placeholder, so the SQL stays Kysely's; each row then only binds its values.
 * Returns each row's result (`changes` is 0 for a row an ON CONFLICT DO NOTHING skipped).
 */
export function eachRow<Row extends object>(
  handle: Handle,
  db: Db,
  key: string,
  columns: readonly (keyof Row & string)[],
  build: (db: Db, row: Row) => Compilable<unknown> | CompiledQuery,
  rows: readonly Row[],
): BetterSqlite3.RunResult[] {
  return eachRowBy(rowStatement(handle, db, key, columns, build), columns, rows, (statement, values) => statement.run(values));
}

/** `eachRow` for a statement that returns one row (`RETURNING`): each row's answer, in order (undefined where it returned none). */
export function eachRowReturning<Row extends object, Out>(
  handle: Handle,
  db: Db,
  key: string,
  columns: readonly (keyof Row & string)[],
  build: (db: Db, row: Row) => Compilable<unknown> | CompiledQuery,
  rows: readonly Row[],
): (Out | undefined)[] {
  return eachRowBy(rowStatement(handle, db, key, columns, build), columns, rows, (statement, values) => statement.get(values) as Out | undefined);
}

/** Runs `step` on the statement once per row, its parameters bound from the row's columns. */
function eachRowBy<Out>(
  { statement, order }: RowStatement,
  columns: readonly string[],
  rows: readonly object[],
  step: (statement: BetterSqlite3.Statement, values: unknown[]) => Out,
): Out[] {
  const results: Out[] = new Array(rows.length);
  const values: unknown[] = new Array(order.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as Record<string, unknown>;
    for (let p = 0; p < order.length; p++) values[p] = row[columns[order[p]!]!];
    results[r] = step(statement, values);
  }
  return results;
}

/** The prepared statement of a row shape (`key`), written once by Kysely from a row of placeholders. */
function rowStatement<Row extends object>(
  handle: Handle,
  db: Db,
  key: string,
  columns: readonly (keyof Row & string)[],
  build: (db: Db, row: Row) => Compilable<unknown> | CompiledQuery,
): RowStatement {
  return statements.get(handle, key, () => {
    const placeholders = Object.fromEntries(columns.map((c, i) => [c, `${SENTINEL}${i}`]));
    const query = build(db, placeholders as Row);
    const compiled = 'compile' in query ? query.compile() : query;
    const order = compiled.parameters.map((p) => {
      const index = typeof p === 'string' && p.startsWith(SENTINEL) ? Number(p.slice(SENTINEL.length)) : -1;
      if (index < 0) throw new Error(`eachRow: a parameter of ${key} is not a column of the row: ${compiled.sql}`);
      return index;
    });
    return { statement: handle.prepare(compiled.sql), order };
  });
}
