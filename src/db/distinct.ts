import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { KeysetRows } from '../lib/pagination.js';
import type { Database } from './schema.js';

/**
 * Where a page of distinct text values starts and ends, in code-point order (the order both engines give
 * text of the `idType`, `collate "C"` on PostgreSQL): after the previous page's last value, and within
 * the values that start with a prefix (`[from, to)`, `to` null when nothing bounds it).
 */
export interface ValueRange {
  after: string | null;
  from: string | null;
  to: string | null;
}

const LAST_CODE_POINT = 0x10ffff;

/**
 * The range of the values that start with `prefix` (case-sensitive): from the prefix itself to the prefix
 * with its last code point moved one on, so an index answers it as a range. A prefix ending in the last
 * code point has no such bound; it is left open (the values past it start with the prefix too).
 */
export function valueRange(prefix: string | undefined, after: string | null): ValueRange {
  if (prefix === undefined || prefix === '') return { after, from: null, to: null };
  const points = [...prefix];
  const last = points.pop()!.codePointAt(0)!;
  // No text holds a surrogate code point: the one after U+D7FF is U+E000.
  const next = last === 0xd7ff ? 0xe000 : last + 1;
  return { after, from: prefix, to: last === LAST_CODE_POINT ? null : points.join('') + String.fromCodePoint(next) };
}

/**
 * A page of distinct values, ascending: a position is `[0, value]` (the value is unique in its list, so it
 * is the whole position, as `GET /v1/models/builtin` keeps its rows' keys).
 */
export function valueRows<Row extends { value: string }>(rows: Row[]): KeysetRows<Row> {
  return { rows, positionOf: (row) => [0, row.value] };
}

/** `column` within the range: past `after`, at or past `from`, before `to`. */
export function inRange(column: RawBuilder<unknown>, range: ValueRange): RawBuilder<SqlBool> {
  const bounds = [
    range.after === null ? null : sql`${column} > ${range.after}`,
    range.from === null ? null : sql`${column} >= ${range.from}`,
    range.to === null ? null : sql`${column} < ${range.to}`,
  ].filter((bound) => bound !== null);
  return bounds.length === 0 ? sql<SqlBool>`1 = 1` : sql<SqlBool>`${sql.join(bounds, sql` and `)}`;
}

/**
 * The first `take` distinct values of a column in a range, in order, by a loose index scan: each value is
 * one probe of an index that leads with `where`'s equalities and then the column (`min` of the values past
 * the last one), so a page costs `take` probes however many rows each value has. PostgreSQL 15 has no skip
 * scan (a DISTINCT reads every row of the project), and SQLite takes one only with statistics it may not
 * have: the recursion states it for both. `where` names the table's columns as they are (one table, no alias).
 */
export async function distinctValues(
  db: Kysely<Database>,
  { table, column, where, range, take }: { table: keyof Database & string; column: string; where: RawBuilder<SqlBool>; range: ValueRange; take: number },
): Promise<string[]> {
  const value = sql.ref(column);
  const next = (bound: RawBuilder<SqlBool>) =>
    sql`(select ${value} from ${sql.table(table)} where ${where} and ${value} is not null and ${bound} order by ${value} limit 1)`;
  const step = range.to === null ? sql<SqlBool>`${value} > found.value` : sql<SqlBool>`${value} > found.value and ${value} < ${range.to}`;
  const { rows } = await sql<{ value: string }>`with recursive found (value, n) as (
      select ${next(inRange(value, range))}, 1
      union all
      select ${next(step)}, found.n + 1 from found where found.value is not null and found.n < ${take}
    )
    select value from found where value is not null`.execute(db);
  return rows.map((row) => row.value);
}
