import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Ids are compared as keyset tie-breakers, so both engines must order them bytewise:
 * SQLite's BINARY collation does; PostgreSQL needs the "C" collation spelled out.
 */
export function idType(db: Kysely<any>): RawBuilder<unknown> {
  return isPostgres(db) ? sql`text collate "C"` : sql`text`;
}
