import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { dialectOf } from './dialect.js';
import { eachRow, heldSqlite } from './rowwise.js';
import type { Database } from './schema.js';

type Db = Kysely<Database> | Transaction<Database>;

const statements = new Map<string, string>();

/**
 * Multi-row INSERT … ON CONFLICT DO NOTHING RETURNING <key>, for ingestion's hot path (in a SQLite
 * `writeTransaction`, one prepared one-row statement per row instead: see `eachRow`). Kysely writes
 * the SQL once per (engine, table, columns, row count) — so it stays correct for each engine — and later calls
 * only bind values: building an 8,500-value query tree per chunk cost more than inserting it.
 */
export async function insertIgnoringConflicts<T extends keyof Database & string, R extends string>(
  db: Db,
  table: T,
  columns: readonly (keyof Database[T] & string)[],
  conflictColumns: readonly (keyof Database[T] & string)[],
  returning: R,
  rows: readonly Database[T][],
): Promise<Record<R, unknown>[]> {
  if (rows.length === 0) return [];
  // In a SQLite write transaction: a prepared one-row statement per row, the rows it did not skip.
  const handle = heldSqlite(db);
  if (handle) {
    const results = eachRow(
      handle,
      db,
      `insert-ignoring|${table}|${columns.join(',')}|${conflictColumns.join(',')}`,
      columns,
      (kysely, row) =>
        (kysely as Kysely<any>)
          .insertInto(table)
          .values(row)
          .onConflict((oc) => oc.columns([...conflictColumns] as string[]).doNothing()),
      rows,
    );
    const inserted: Record<R, unknown>[] = [];
    for (let i = 0; i < rows.length; i++) {
      if (results[i]!.changes > 0) inserted.push({ [returning]: (rows[i] as unknown as Record<string, unknown>)[returning] } as Record<R, unknown>);
    }
    return inserted;
  }
  const key = `${dialectOf(db as Kysely<any>)}|${table}|${columns.join(',')}|${conflictColumns.join(',')}|${returning}|${rows.length}`;
  let sqlText = statements.get(key);
  if (sqlText === undefined) {
    const dummy = Object.fromEntries(columns.map((c) => [c, null]));
    sqlText = (db as Kysely<any>)
      .insertInto(table)
      .values(rows.map(() => dummy))
      .onConflict((oc) => oc.columns([...conflictColumns] as string[]).doNothing())
      .returning(returning)
      .compile().sql;
    if (statements.size > 200) statements.clear();
    statements.set(key, sqlText);
  }
  const parameters: unknown[] = new Array(rows.length * columns.length);
  let p = 0;
  for (const row of rows) for (const column of columns) parameters[p++] = (row as unknown as Record<string, unknown>)[column];
  const result = await db.executeQuery<Record<R, unknown>>(CompiledQuery.raw(sqlText, parameters));
  return result.rows;
}
