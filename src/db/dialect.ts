import { PostgresAdapter, type Kysely, type SelectQueryBuilder } from 'kysely';

/** The two engines Sightline stores in. */
export type Dialect = 'sqlite' | 'postgres';

/**
 * The engine behind a Kysely instance or transaction. `openStorage` answers it once (`Storage.dialect`,
 * handed to features as `Deps.dialect`); this is for code that holds only the `db`. (The migrations
 * keep their own frozen `isPostgres` in `migrations/dialect.ts`.)
 */
export function dialectOf<DB>(db: Kysely<DB>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * How a read locks its rows on PostgreSQL:
 * - `update`: FOR UPDATE — the rows stay as read until the transaction ends; other lockers wait;
 * - `update skip locked`: FOR UPDATE SKIP LOCKED — rows another transaction holds are passed over, not
 *   waited for, so concurrent claimers of work (leases) take disjoint sets;
 * - `no key update`: FOR NO KEY UPDATE — serialises writers of the row without blocking inserts of
 *   rows that reference it.
 */
export type RowLock = 'update' | 'update skip locked' | 'no key update';

/**
 * The query with its row lock on PostgreSQL; on SQLite the query as it is: SQLite has no row locks and
 * needs none, it runs one write transaction at a time (and Kysely's one connection one transaction).
 * The one place that knows this difference: write `lockRows(query, dialect)`, never a dialect check.
 */
export function lockRows<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  dialect: Dialect,
  lock: RowLock = 'update',
): SelectQueryBuilder<DB, TB, O> {
  if (dialect !== 'postgres') return query;
  if (lock === 'no key update') return query.forNoKeyUpdate();
  return lock === 'update skip locked' ? query.forUpdate().skipLocked() : query.forUpdate();
}

/**
 * Takes a row lock for the rest of the transaction without reading anything the caller needs (to
 * serialise changes behind one row): runs the locking query on PostgreSQL, nothing on SQLite.
 */
export async function takeRowLock<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, dialect: Dialect, lock: RowLock = 'update'): Promise<void> {
  if (dialect === 'postgres') await lockRows(query, dialect, lock).execute();
}
