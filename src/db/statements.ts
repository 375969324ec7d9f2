import type BetterSqlite3 from 'better-sqlite3';
import { Lru } from '../lib/lru.js';

/**
 * Kysely prepares every query afresh; on SQLite preparing costs as much as running a small indexed
 * query, so statements are reused by their SQL text. Bounded in count and in memory: a prepared
 * statement holds its compiled program in native memory, which for a multi-row insert of thousands of
 * parameters is large, so long statements (bulk inserts, one per row count) have a small cache of their
 * own, the least recently used dropped first.
 */
export function withStatementCache(database: BetterSqlite3.Database) {
  const small = new Lru<KyselyStatement>(SMALL_STATEMENTS);
  const large = new Lru<KyselyStatement>(LARGE_STATEMENTS);
  return {
    close: () => database.close(),
    prepare: (sqlText: string) => (sqlText.length > LONG_STATEMENT ? large : small).get(sqlText, () => objectRows(database.prepare(sqlText))),
  };
}

/** What Kysely's SQLite driver uses of a statement. */
interface KyselyStatement {
  readonly reader: boolean;
  all(parameters: readonly unknown[]): unknown[];
  run(parameters: readonly unknown[]): BetterSqlite3.RunResult;
  iterate(parameters: readonly unknown[]): IterableIterator<unknown>;
}

/**
 * A reading statement whose rows are read as arrays (better-sqlite3's raw mode) and made into objects by
 * a function written for its columns: better-sqlite3 sets each column of each row object as a named
 * property from C++, which for a page of wide rows (a traces page: 19 columns) costs twice the reading.
 * The rows are the same objects, with the same keys in the same order (a later column of the same name
 * wins, as in better-sqlite3). A column named `__proto__` (only a query's alias could be) keeps
 * better-sqlite3's own objects.
 */
export function objectRows(statement: BetterSqlite3.Statement): KyselyStatement {
  if (!statement.reader) return statement;
  const names = statement.columns().map((column) => column.name);
  if (names.includes('__proto__')) return statement;
  const make = rowMaker(names);
  statement.raw(true);
  return {
    reader: true,
    all: (parameters) => (statement.all(parameters) as unknown[][]).map(make),
    run: (parameters) => statement.run(parameters),
    *iterate(parameters) {
      for (const values of statement.iterate(parameters) as IterableIterator<unknown[]>) yield make(values);
    },
  };
}

/** Row makers by column list, shared by the statements that select the same columns (bounded). */
const rowMakers = new Lru<(values: unknown[]) => Record<string, unknown>>(1000);

function rowMaker(names: string[]): (values: unknown[]) => Record<string, unknown> {
  return rowMakers.get(names.join('\0'), () => {
    // An object literal of string keys (JSON-quoted) gets one hidden class for every row.
    const body = `return { ${names.map((name, i) => `${JSON.stringify(name)}: values[${i}]`).join(', ')} };`;
    return new Function('values', body) as (values: unknown[]) => Record<string, unknown>;
  });
}

const SMALL_STATEMENTS = 500;
const LARGE_STATEMENTS = 8;
/** SQL text past this many characters is a long statement (a bulk insert of many rows). */
const LONG_STATEMENT = 4096;
