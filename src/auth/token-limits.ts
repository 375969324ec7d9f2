import { isScope, type Scope } from './permissions.js';

/* What a scoped personal access token is narrowed to, as stored (JSON arrays) and as a request reads it. */

/** A stored list read once: tokens' limits are few and read on every request (`TokenService.authenticate`). */
function memoized<T>(parse: (text: string) => T): (text: string) => T {
  const seen = new Map<string, T>();
  return (text) => {
    let value = seen.get(text);
    if (value === undefined) {
      value = parse(text);
      if (seen.size >= 1000) seen.clear();
      seen.set(text, value);
    }
    return value;
  };
}

function stringList(text: string): string[] {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export const tokenLimits = {
  /** The scopes of a token's `scopes` column (names no longer in the permission table are dropped: they allow nothing). */
  scopes: memoized((text): ReadonlySet<Scope> => new Set(stringList(text).filter(isScope))),
  /** The project ids of a token's `project_ids` column. */
  projects: memoized((text): ReadonlySet<string> => new Set(stringList(text))),
  /** The columns' values for a token narrowed to `scopes` and `projectIds` (null: not narrowed). */
  columns(limits: { scopes: readonly Scope[] | null; projectIds: readonly string[] | null }): { scopes: string | null; project_ids: string | null } {
    return {
      scopes: limits.scopes === null ? null : JSON.stringify(limits.scopes),
      project_ids: limits.projectIds === null ? null : JSON.stringify(limits.projectIds),
    };
  },
  /** A token row's limits as its record shows them. */
  of(row: { scopes: string | null; project_ids: string | null }): { scopes: Scope[] | null; projectIds: string[] | null } {
    return {
      scopes: row.scopes === null ? null : [...tokenLimits.scopes(row.scopes)],
      projectIds: row.project_ids === null ? null : [...tokenLimits.projects(row.project_ids)],
    };
  },
};
