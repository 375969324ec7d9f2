import { sql, type RawBuilder, type SqlBool } from 'kysely';

/** True when a database error is a unique-constraint violation, on either engine. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string } | null;
  return !!e && (e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY');
}

/**
 * `column LIKE '%value%'` with the value's own `%`, `_` and `\\` taken literally, alike on both engines;
 * `ignoreCase` compares `lower(column)` with the value in lower case (ASCII letters on SQLite).
 */
export function containsText(column: string, value: string, ignoreCase = false): RawBuilder<SqlBool> {
  const text = ignoreCase ? value.toLowerCase() : value;
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return ignoreCase ? sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'` : sql<SqlBool>`${sql.ref(column)} like ${pattern} escape '\\'`;
}
