import { sql, type SelectQueryBuilder, type SqlBool, type StringReference } from 'kysely';

// Part of the pagination module (pagination.ts re-exports it): the keyset order of a list's query, and
// the positions its cursors hold.

/** A position in a stream sorted by (sortKey, id), newest first unless walked oldest first. */
export type Position = readonly [sortKey: number, id: string];

/** The direction of a list sorted by time: newest first (the default) or oldest first. */
export type ListOrder = 'desc' | 'asc';

/**
 * The order of a list: its sort key, then a unique tie-breaker (newest first unless walked oldest first), each named as the query
 * names it (`column` or `table.column`). A row carries them under the column's own name.
 */
export interface Keyset<Sort extends string = string, Id extends string = string> {
  sort: Sort;
  id: Id;
}

/** The name a selected column has in a row: `m.user_id` → `user_id`. */
type FieldOf<Column extends string> = Column extends `${string}.${infer Field}` ? Field : Column;

/** A row that carries its keyset: an integer sort key and a text id. */
type KeyedRow<Sort extends string, Id extends string> = { [K in FieldOf<Sort>]: number } & { [K in FieldOf<Id>]: string };

/** One fetch of a list: its rows in stream order, and where each stands (read through the keyset that ordered them). */
export interface KeysetRows<Row> {
  rows: Row[];
  positionOf(row: Row): Position;
}

const fieldOf = (column: string): string => column.slice(column.lastIndexOf('.') + 1);

/** Rows fetched in a keyset's order (by `keysetQuery`), with their positions. */
export function keysetRows<Row extends KeyedRow<Sort, Id>, Sort extends string, Id extends string>(keyset: Keyset<Sort, Id>, rows: Row[]): KeysetRows<Row> {
  const sort = fieldOf(keyset.sort) as FieldOf<Sort>;
  const id = fieldOf(keyset.id) as FieldOf<Id>;
  return { rows, positionOf: (row) => [Number(row[sort]), row[id]] };
}

/**
 * The list query of a stream: the rows after `after` — the row value `(sort, id) < (?, ?)` (`>` oldest
 * first), which both engines answer from the `(sort, id)` index, walked either way, at a cost that does
 * not grow with depth — ordered by sort key then id, newest first unless `order` is `asc`, at most `take`.
 */
export function keysetQuery<DB, TB extends keyof DB, O extends KeyedRow<Sort, Id>, Sort extends StringReference<DB, TB>, Id extends StringReference<DB, TB>>(
  query: SelectQueryBuilder<DB, TB, O>,
  keyset: Keyset<Sort, Id>,
  after: Position | null,
  take: number,
  options: { sortSelected?: boolean; order?: ListOrder } = {},
): SelectQueryBuilder<DB, TB, O> {
  const order = options.order ?? 'desc';
  // `sortSelected`: the caller's conditions select few rows through another index (a rare search's
  // matches); the sort key is then compared and ordered as a value (`+key`, numeric keys only), so the
  // engine sorts those rows rather than walking the list's index in order and testing every row of it.
  const sort = options.sortSelected ? sql`+${sql.ref(keyset.sort)}` : sql.ref(keyset.sort);
  const past = order === 'desc' ? sql.raw('<') : sql.raw('>');
  const continued = after === null ? query : query.where(sql<SqlBool>`(${sort}, ${sql.ref(keyset.id)}) ${past} (${after[0]}, ${after[1]})`);
  return continued
    .orderBy(options.sortSelected ? sort : keyset.sort, order)
    .orderBy(keyset.id, order)
    .limit(take);
}

/** Runs a list query in its keyset's order (`keysetQuery`): what a repository's list function returns to `paginate`. */
export async function keysetPage<
  DB,
  TB extends keyof DB,
  O extends KeyedRow<Sort, Id>,
  Sort extends StringReference<DB, TB>,
  Id extends StringReference<DB, TB>,
>(query: SelectQueryBuilder<DB, TB, O>, keyset: Keyset<Sort, Id>, after: Position | null, take: number): Promise<KeysetRows<O>> {
  return keysetRows(keyset, await keysetQuery(query, keyset, after, take).execute());
}
