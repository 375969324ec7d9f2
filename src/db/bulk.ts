import { CompiledQuery, sql, type Kysely, type Transaction } from 'kysely';
import { dialectOf } from './dialect.js';
import { eachRow, heldSqlite } from './rowwise.js';
import type { Database } from './schema.js';

type Db = Kysely<Database> | Transaction<Database>;

const statements = new Map<string, string>();

/**
 * INSERT … ON CONFLICT DO NOTHING RETURNING <key> of many rows, for ingestion's hot path: on PostgreSQL
 * the rows as one JSON parameter (`selectJsonRows`); in a SQLite `writeTransaction`, one prepared one-row
 * statement per row (`eachRow`); otherwise (SQLite outside one) a multi-row statement whose SQL Kysely
 * writes once per (table, columns, row count), later calls only binding values.
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
  if (dialectOf(db as Kysely<any>) === 'postgres') {
    // One parameter whatever the row count: the rows as a JSON array, typed by the table's own row type.
    const query = sql<Record<R, unknown>>`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))})
      ${selectJsonRows(table, columns, rows)}
      on conflict (${sql.join(conflictColumns.map((c) => sql.ref(c)))}) do nothing returning ${sql.ref(returning)}`;
    return (await query.execute(db)).rows;
  }
  const key = `${table}|${columns.join(',')}|${conflictColumns.join(',')}|${returning}|${rows.length}`;
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

/**
 * PostgreSQL: a SELECT of rows' columns, from one JSON parameter (`json_populate_recordset` over
 * the table's row type, so each value takes its column's type). A multi-row VALUES of thousands of
 * parameters cost more to parse and plan, at every call, than the rows cost to insert.
 */
export function selectJsonRows<T extends keyof Database & string>(table: T, columns: readonly (keyof Database[T] & string)[], rows: readonly object[]) {
  const values = rows.map((row) => {
    const picked: Record<string, unknown> = {};
    for (const column of columns) picked[column] = (row as Record<string, unknown>)[column];
    return picked;
  });
  return sql`select ${sql.join(columns.map((c) => sql.ref(`r.${c}`)))} from json_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(values)}::json) as r`;
}
