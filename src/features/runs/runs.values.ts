import { sql, type Kysely } from 'kysely';
import { insertIgnoringConflicts } from '../../db/bulk.js';
import { distinctValues, inRange, valueRange, valueRows } from '../../db/distinct.js';
import type { Database } from '../../db/schema.js';
import type { RunValuesTable } from '../../db/schema.runs.js';
import type { KeysetRows, Position } from '../../lib/pagination.js';
import { problems } from '../../lib/problems.js';
import { METADATA_KEY_PATTERN } from '../query/index.js';
import type { RunValuesRequest } from './runs.schemas.js';

/*
 * The distinct values of a project's runs, a page at a time (GET …/runs/values). Sessions and end users
 * are columns with an index each (`runs_session_idx`, `runs_user_idx`), read by a loose index scan. Names,
 * models, tags and metadata have none a page could be read from (metadata none can have; a tag's index is
 * in the database's collation), so what they hold is kept in `run_values` as runs are stored: one row per
 * value the project has not had yet, written with the run in its transaction, never removed but with the
 * project (a value an amended run no longer has stays listed).
 */

/** What `run_values` keeps of a run. */
export interface ValuedRun {
  name: string;
  model: string | null;
  tags: readonly string[];
  metadata: Record<string, unknown>;
}

const LISTED_KEY = new RegExp(METADATA_KEY_PATTERN);
/** The longest metadata value listed (UTF-16 code units of its text): as long as a run name may be. */
export const MAX_LISTED_VALUE = 256;

/**
 * A metadata value as `metadata.<key>=<value>` takes it, or null when that filter cannot name it: a
 * string as it is, a number, boolean or null as its JSON text (the filter matches both), no object or array.
 */
export function metadataValueText(value: unknown): string | null {
  if (typeof value === 'string') return value.length <= MAX_LISTED_VALUE ? value : null;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return JSON.stringify(value);
  return null;
}

/** Sorted (the default order of strings: any one order, the same for every caller). */
const sorted = (values: Iterable<string>) => [...values].sort();

/**
 * The distinct (field, key, value) rows of some runs of a project, in one order for every caller (no two
 * transactions wait on each other in turn). A batch's runs mostly repeat their names, models and metadata
 * keys: each is tested once.
 */
export function valuesOf(projectId: string, runs: readonly ValuedRun[]): RunValuesTable[] {
  const names = new Set<string>();
  const models = new Set<string>();
  const tags = new Set<string>();
  const listedKeys = new Map<string, boolean>();
  const valuesByKey = new Map<string, Set<string>>();
  for (const run of runs) {
    names.add(run.name);
    if (run.model !== null) models.add(run.model);
    for (const tag of run.tags) tags.add(tag);
    for (const key of Object.keys(run.metadata)) {
      let listed = listedKeys.get(key);
      if (listed === undefined) listedKeys.set(key, (listed = LISTED_KEY.test(key)));
      if (!listed) continue;
      const text = metadataValueText(run.metadata[key]);
      let values = valuesByKey.get(key);
      if (values === undefined) valuesByKey.set(key, (values = new Set()));
      if (text !== null) values.add(text);
    }
  }
  const rows = (field: RunValuesTable['field'], key: string, values: Iterable<string>) =>
    sorted(values).map((value) => ({ project_id: projectId, field, key, value }));
  const keys = sorted(valuesByKey.keys());
  return [
    ...rows('metadataKey', '', keys),
    ...keys.flatMap((key) => rows('metadataValue', key, valuesByKey.get(key)!)),
    ...rows('model', '', models),
    ...rows('name', '', names),
    ...rows('tag', '', tags),
  ];
}

const COLUMNS = ['project_id', 'field', 'key', 'value'] as const;

/** Keeps the values of runs just stored, in the caller's transaction: the new ones are inserted, the known ones skipped. */
export async function keepValues(db: Kysely<Database>, projectId: string, runs: readonly ValuedRun[]): Promise<void> {
  const rows = valuesOf(projectId, runs);
  for (let i = 0; i < rows.length; i += 2000) await insertIgnoringConflicts(db, 'run_values', COLUMNS, COLUMNS, 'value', rows.slice(i, i + 2000));
}

/** `key` goes with field=metadataValue, always and only. */
export function valuesRequestFault(request: RunValuesRequest): string | null {
  if (request.field === 'metadataValue' && request.key === undefined) return 'Required with field=metadataValue: the metadata key whose values are listed.';
  if (request.field !== 'metadataValue' && request.key !== undefined) return 'Only with field=metadataValue: the metadata key whose values are listed.';
  return null;
}

/** The 400 for a `key` missing or extra (`valuesRequestFault`), or nothing. */
export function checkValuesRequest(request: RunValuesRequest): void {
  const fault = valuesRequestFault(request);
  if (fault !== null) throw problems.validation([{ parameter: 'key', detail: fault }]);
}

const INDEXED = { sessionId: 'session_id', userId: 'user_id' } as const;

/** A page of the project's distinct values of a field, in code-point order, after a position (`[0, value]`). */
export async function listRunValues(
  db: Kysely<Database>,
  projectId: string,
  { field, key, prefix }: RunValuesRequest,
  after: Position | null,
  take: number,
): Promise<KeysetRows<{ value: string }>> {
  const range = valueRange(prefix, after === null ? null : after[1]);
  if (field === 'sessionId' || field === 'userId') {
    const values = await distinctValues(db, { table: 'runs', column: INDEXED[field], where: sql`project_id = ${projectId}`, range, take });
    return valueRows(values.map((value) => ({ value })));
  }
  const rows = await db
    .selectFrom('run_values')
    .select('value')
    .where('project_id', '=', projectId)
    .where('field', '=', field)
    .where('key', '=', key ?? '')
    .where(inRange(sql.ref('value'), range))
    .orderBy('value')
    .limit(take)
    .execute();
  return valueRows(rows);
}
