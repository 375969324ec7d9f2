import { sql, type Kysely, type SqlBool } from 'kysely';
import { insertIgnoringConflicts } from '../../db/bulk.js';
import { distinctValues, valueRange, valueRows } from '../../db/distinct.js';
import { foundRow } from '../../db/rows.js';
import type { Database, ScoreRow } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems } from '../../lib/problems.js';
import { cellKeys, rollUpScores, toCells, type ScoreCell } from './scores.rollups.js';
import { valueOf } from './scores.rules.js';
import type { Score, ScoreValuesRequest } from './scores.schemas.js';
import type { ScoreTarget } from '../../schemas/records.js';

export function toScore(row: ScoreRow): Score {
  const target = row.target as ScoreTarget;
  return {
    id: row.id,
    projectId: row.project_id,
    target,
    runId: target === 'run' ? row.target_id : null,
    traceId: target === 'trace' ? row.target_id : null,
    sessionId: target === 'session' ? row.target_id : null,
    name: row.name,
    dataType: row.data_type as Score['dataType'],
    value: valueOf(row),
    comment: row.comment,
    source: row.source as Score['source'],
    author: { kind: row.author_kind as Score['author']['kind'], id: row.author_id },
    configId: row.config_id,
    queueId: row.queue_id,
    metadata: JSON.parse(row.metadata) as Score['metadata'],
    createdAt: toIso(Number(row.created_at)),
    updatedAt: toIso(Number(row.updated_at)),
  };
}

/** What a target of each kind is called in problems, and where it lives. */
export const TARGET_NOUN: Record<ScoreTarget, string> = { run: 'Run', trace: 'Trace', session: 'Session' };

/** Which of `ids` name a target of this kind in the project (one query). */
export async function existingTargets(db: Kysely<Database>, projectId: string, target: ScoreTarget, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const unique = [...new Set(ids)];
  const rows =
    target === 'run'
      ? await db.selectFrom('runs').select('id as key').where('project_id', '=', projectId).where('id', 'in', unique).execute()
      : target === 'trace'
        ? await db.selectFrom('traces').select('trace_id as key').where('project_id', '=', projectId).where('trace_id', 'in', unique).execute()
        : await db.selectFrom('run_sessions').select('session_id as key').where('project_id', '=', projectId).where('session_id', 'in', unique).execute();
  return new Set(rows.map((r) => r.key));
}

const COLUMNS = [
  'project_id',
  'id',
  'organization_id',
  'target',
  'target_id',
  'name',
  'data_type',
  'value',
  'label',
  'comment',
  'source',
  'author_kind',
  'author_id',
  'config_id',
  'queue_id',
  'metadata',
  'content_hash',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof ScoreRow)[];
const INSERT_CHUNK = 500; // 19 columns × 500 rows stays under both engines' parameter limits

/**
 * Inserts scores in one transaction (the caller's, when `db` is one), skipping ids the project already
 * has; returns the ids inserted and the stored content hashes of those it skipped (for the caller to tell
 * a retry from a clash).
 */
export async function insertScores(
  db: Kysely<Database>,
  projectId: string,
  rows: readonly ScoreRow[],
): Promise<{ inserted: Set<string>; stored: Map<string, string> }> {
  const inserted = new Set<string>();
  const ordered = [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)); // one lock order for concurrent batches
  const insert = async (trx: Kysely<Database>) => {
    for (let i = 0; i < ordered.length; i += INSERT_CHUNK) {
      const done = await insertIgnoringConflicts(trx, 'scores', COLUMNS, ['project_id', 'id'], 'id', ordered.slice(i, i + INSERT_CHUNK));
      for (const r of done) inserted.add(r.id as string);
    }
    // Last, so concurrent batches hold the rollup rows they share only until they commit.
    await rollUpScores(trx, { add: ordered.filter((r) => inserted.has(r.id)), remove: [] });
  };
  if (db.isTransaction) await insert(db);
  else await db.transaction().execute(insert);
  const skipped = rows.filter((r) => !inserted.has(r.id)).map((r) => r.id);
  const stored = new Map<string, string>();
  for (let i = 0; i < skipped.length; i += INSERT_CHUNK) {
    const found = await db
      .selectFrom('scores')
      .select(['id', 'content_hash'])
      .where('project_id', '=', projectId)
      .where('id', 'in', skipped.slice(i, i + INSERT_CHUNK))
      .execute();
    for (const r of found) stored.set(r.id, r.content_hash);
  }
  return { inserted, stored };
}

export interface ScoreListFilters {
  name?: string | undefined;
  source?: string | undefined;
  target?: string | undefined;
  runId?: string | undefined;
  traceId?: string | undefined;
  sessionId?: string | undefined;
  configId?: string | undefined;
  queueId?: string | undefined;
  authorId?: string | undefined;
  createdAfter?: number | undefined;
  createdBefore?: number | undefined;
}

/** The project's scores that the filters select (the list's and the metrics' one query). */
function filteredScores(db: Kysely<Database>, projectId: string, filters: ScoreListFilters) {
  let query = db.selectFrom('scores').where('project_id', '=', projectId);
  if (filters.name !== undefined) query = query.where('name', '=', filters.name);
  if (filters.source !== undefined) query = query.where('source', '=', filters.source);
  if (filters.target !== undefined) query = query.where('target', '=', filters.target);
  if (filters.runId !== undefined) query = query.where('target', '=', 'run').where('target_id', '=', filters.runId);
  if (filters.sessionId !== undefined) query = query.where('target', '=', 'session').where('target_id', '=', filters.sessionId);
  if (filters.traceId !== undefined) {
    // The trace's own scores and those of its runs: the (target, target id) pairs, each an exact probe of
    // scores_target_idx (an OR of the two read every score of the project on PostgreSQL: 96 ms at 400,000).
    const traceId = filters.traceId;
    query = query.where(
      sql<SqlBool>`(scores.target, scores.target_id) in (select 'trace', ${traceId} union all
        select 'run', runs.id from runs where runs.project_id = ${projectId} and runs.trace_id = ${traceId})`,
    );
  }
  if (filters.configId !== undefined) query = query.where('config_id', '=', filters.configId);
  if (filters.queueId !== undefined) query = query.where('queue_id', '=', filters.queueId);
  if (filters.authorId !== undefined) query = query.where('author_id', '=', filters.authorId);
  if (filters.createdAfter !== undefined) query = query.where('created_at', '>=', filters.createdAfter);
  if (filters.createdBefore !== undefined) query = query.where('created_at', '<', filters.createdBefore);
  return query;
}

export async function listScores(
  db: Kysely<Database>,
  projectId: string,
  filters: ScoreListFilters,
  after: Position | null,
  take: number,
): Promise<KeysetRows<ScoreRow>> {
  return keysetPage(filteredScores(db, projectId, filters).selectAll(), { sort: 'created_at', id: 'id' }, after, take);
}

/** A page of the project's distinct score names, in code-point order: a loose scan of `scores_name_idx` (one probe a name). */
export async function listScoreValues(
  db: Kysely<Database>,
  projectId: string,
  { prefix }: ScoreValuesRequest,
  after: Position | null,
  take: number,
): Promise<KeysetRows<{ value: string }>> {
  const range = valueRange(prefix, after === null ? null : after[1]);
  const names = await distinctValues(db, { table: 'scores', column: 'name', where: sql`project_id = ${projectId}`, range, take });
  return valueRows(names.map((value) => ({ value })));
}

/** Counts and value sums of the filtered scores per bucket (of createdAt), group and label: what the metrics add up. */
export async function scoreCells(
  db: Kysely<Database>,
  projectId: string,
  filters: ScoreListFilters,
  bucketMs: number | null,
  groupBy: 'name' | 'source' | 'target' | null,
): Promise<ScoreCell[]> {
  const rows = await filteredScores(db, projectId, filters)
    .select([
      ...cellKeys('created_at', bucketMs, groupBy),
      (eb) => eb.fn.countAll<number>().as('n'),
      (eb) => eb.fn.sum<number>('value').as('total'),
      (eb) => eb.fn.count<number>('value').as('valued'),
    ])
    .groupBy([sql`1`, sql`2`, sql`3`])
    .execute();
  return toCells(rows);
}

const missing = (id: string) => problems.notFound(`Score ${id} does not exist.`);

export async function requireScore(db: Kysely<Database>, projectId: string, id: string): Promise<ScoreRow> {
  return foundRow(db.selectFrom('scores').selectAll().where('project_id', '=', projectId).where('id', '=', id), () => missing(id));
}

/** Runs `work` in the caller's transaction, or in one of its own. */
const inTransaction = <T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> =>
  db.isTransaction ? work(db) : db.transaction().execute(work);

/**
 * Writes a score's new value, comment or metadata, if it is still the one read (`updated_at` and
 * content), and moves it between hourly rollups in the same transaction.
 */
export async function writeScore(
  db: Kysely<Database>,
  seen: ScoreRow,
  changes: Pick<ScoreRow, 'data_type' | 'value' | 'label' | 'comment' | 'metadata' | 'content_hash' | 'updated_at' | 'config_id'>,
): Promise<ScoreRow> {
  return inTransaction(db, async (trx) => {
    const row = await trx
      .updateTable('scores')
      .set(changes)
      .where('project_id', '=', seen.project_id)
      .where('id', '=', seen.id)
      .where('updated_at', '=', seen.updated_at)
      // Two changes within one millisecond: only the one that saw the stored value may move it.
      .where('content_hash', '=', seen.content_hash)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw problems.conflict(`Score ${seen.id} changed while this change was made; read it again and retry.`);
    await rollUpScores(trx, { add: [row], remove: [seen] });
    return row;
  });
}

/** Deletes a score and takes it out of its hourly rollup, in one transaction. */
export async function deleteScore(db: Kysely<Database>, projectId: string, id: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const deleted = await trx.deleteFrom('scores').where('project_id', '=', projectId).where('id', '=', id).returningAll().executeTakeFirst();
    if (!deleted) throw missing(id);
    await rollUpScores(trx, { add: [], remove: [deleted] });
  });
}
