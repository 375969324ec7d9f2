import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Dialect } from '../../db/dialect.js';
import type { Database } from '../../db/schema.js';
import { requireTimestamp } from '../../lib/clock.js';
import { queryWords, searchMatch, type SearchPlan } from './runs.search.js';

/** Normalised run filters: what the list, the metrics and monitors all apply, through `runFilterWhere`. */
export interface RunFilters {
  status?: string;
  kind?: string;
  name?: string;
  tags?: string[];
  model?: string;
  traceId?: string;
  sessionId?: string;
  userId?: string;
  /** `null` selects root runs only. */
  parentRunId?: string | null;
  startedAfter?: number;
  startedBefore?: number;
  metadata?: Record<string, string>;
  /** `metadata.<key>!=<value>`: runs without that value under that key. */
  metadataNot?: Record<string, string>;
  /** Top-level metadata keys that must be present. */
  hasMetadata?: string[];
  /** Words that must all appear in a run's name, inputs, outputs or error. */
  q?: string;
}

/** Reads the filter parameters out of a validated query (anything else in it is ignored here). */
export function parseRunFilters(query: Record<string, unknown>): RunFilters {
  const filters: RunFilters = {};
  for (const key of ['status', 'kind', 'name', 'model', 'traceId', 'sessionId', 'userId'] as const) {
    if (typeof query[key] === 'string') filters[key] = query[key] as string;
  }
  if (typeof query.q === 'string') filters.q = queryWords(query.q).join(' ');
  if (Array.isArray(query.tag)) filters.tags = [...new Set(query.tag as string[])].sort();
  if (typeof query.parentRunId === 'string') filters.parentRunId = query.parentRunId === 'null' ? null : query.parentRunId;
  if (typeof query.startedAfter === 'string') filters.startedAfter = requireTimestamp(query.startedAfter, { parameter: 'startedAfter' });
  if (typeof query.startedBefore === 'string') filters.startedBefore = requireTimestamp(query.startedBefore, { parameter: 'startedBefore' });
  if (Array.isArray(query.hasMetadata)) filters.hasMetadata = [...new Set(query.hasMetadata as string[])].sort();
  // fromEntries defines own properties, so a key such as `__proto__` stays a filter instead of vanishing.
  const metadataOf = (negated: boolean): Record<string, string> =>
    Object.fromEntries(
      Object.entries(query)
        .filter(([key, value]) => key.startsWith('metadata.') && key.endsWith('!') === negated && typeof value === 'string')
        .map(([key, value]) => [key.slice('metadata.'.length, negated ? -1 : undefined), value as string]),
    );
  const metadata = metadataOf(false);
  const metadataNot = metadataOf(true);
  if (Object.keys(metadata).length > 0) filters.metadata = metadata;
  if (Object.keys(metadataNot).length > 0) filters.metadataNot = metadataNot;
  return filters;
}

/**
 * A metadata value matches when it is the string given, or a number/boolean/null whose JSON text is
 * the value given (`metadata.attempt=2` matches 2 and "2"). Both engines compare the stored JSON text,
 * which JSON.stringify wrote: PostgreSQL through `json`, which keeps that text, not `jsonb`, which
 * rewrites numbers (1e-7 reads back as 0.0000001). Ingest keeps metadata parsable (see jsonValueFault).
 */
function metadataCandidates(value: string): string[] {
  const candidates = [JSON.stringify(value)];
  if (/^(true|false|null|-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?)$/.test(value)) {
    const literal = JSON.stringify(JSON.parse(value));
    if (!candidates.includes(literal)) candidates.push(literal);
  }
  return candidates;
}

/** A top-level metadata value's JSON text, or SQL null when the key is absent (a JSON null is the text `null`). */
function metadataValue(dialect: Dialect, key: string) {
  // Keys are limited to [A-Za-z0-9_-] by the query schema, so quoting them in a JSON path is safe.
  return dialect === 'postgres' ? sql`((runs.metadata)::json -> ${key})::text` : sql`(runs.metadata -> ${`$."${key}"`})`;
}

function metadataMatch(dialect: Dialect, key: string, value: string, negated = false): Expression<SqlBool> {
  const value_ = metadataValue(dialect, key);
  const candidates = sql.join(metadataCandidates(value));
  return negated ? sql<SqlBool>`(${value_} is null or ${value_} not in (${candidates}))` : sql<SqlBool>`${value_} in (${candidates})`;
}

/** A run name filter: exact, or ending in `*` a prefix (compared by characters, so no pattern syntax reaches the engine). */
function nameMatch(name: string): Expression<SqlBool> {
  if (!name.endsWith('*')) return sql<SqlBool>`runs.name = ${name}`;
  const prefix = name.slice(0, -1);
  // Both engines count characters (code points) in length and substr.
  return sql<SqlBool>`substr(runs.name, 1, ${sql.lit([...prefix].length)}) = ${prefix}`;
}

/**
 * The WHERE clause for a filter set, for queries over `runs` (project scoping is the caller's); `search`:
 * how a list finds the matches of `q` (planSearch), else as an aggregate does.
 */
export function runFilterWhere(dialect: Dialect, filters: RunFilters, search?: SearchPlan) {
  return (eb: ExpressionBuilder<Database, 'runs'>): Expression<SqlBool> => {
    const and: Expression<SqlBool>[] = [];
    if (filters.status !== undefined) and.push(eb('runs.status', '=', filters.status));
    if (filters.kind !== undefined) and.push(eb('runs.kind', '=', filters.kind));
    if (filters.name !== undefined) and.push(nameMatch(filters.name));
    if (filters.model !== undefined) and.push(eb('runs.model', '=', filters.model));
    if (filters.traceId !== undefined) and.push(eb('runs.trace_id', '=', filters.traceId));
    if (filters.sessionId !== undefined) and.push(eb('runs.session_id', '=', filters.sessionId));
    if (filters.userId !== undefined) and.push(eb('runs.user_id', '=', filters.userId));
    if (filters.parentRunId === null) and.push(eb('runs.parent_run_id', 'is', null));
    else if (filters.parentRunId !== undefined) and.push(eb('runs.parent_run_id', '=', filters.parentRunId));
    if (filters.startedAfter !== undefined) and.push(eb('runs.start_time', '>=', filters.startedAfter));
    if (filters.startedBefore !== undefined) and.push(eb('runs.start_time', '<', filters.startedBefore));
    for (const tag of filters.tags ?? []) {
      and.push(
        eb.exists(
          eb
            .selectFrom('run_tags')
            .select(sql`1`.as('one'))
            .whereRef('run_tags.project_id', '=', 'runs.project_id')
            .whereRef('run_tags.run_id', '=', 'runs.id')
            .where('run_tags.tag', '=', tag),
        ),
      );
    }
    if (filters.q !== undefined) and.push(searchMatch(dialect, queryWords(filters.q), search));
    for (const [key, value] of Object.entries(filters.metadata ?? {})) and.push(metadataMatch(dialect, key, value));
    for (const [key, value] of Object.entries(filters.metadataNot ?? {})) and.push(metadataMatch(dialect, key, value, true));
    for (const key of filters.hasMetadata ?? []) and.push(sql<SqlBool>`${metadataValue(dialect, key)} is not null`);
    return eb.and(and);
  };
}
