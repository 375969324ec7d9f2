import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/dialect.js';
import type { Database } from '../../db/schema.js';
import { Problem, problems, type FieldError } from '../../lib/problems.js';
import type { KeysetRows, Position } from '../../lib/pagination.js';
import { parseRunFilters, type RunFilters } from '../query/index.js';
import { listRuns } from '../runs/index.js';
import { existingTargets, TARGET_NOUN } from '../scores/index.js';
import { listTraces } from '../traces/index.js';
import { MAX_ADD, MAX_SAMPLED_SCAN, sampled, type QueueTarget } from './annotations.rules.js';
import type { AddItems, QueueFilter } from './annotations.schemas.js';

/** Fields of the runs filter that the traces list does not take (a trace queue's filter refuses them). */
const RUN_ONLY = ['parentRunId', 'traceId'] as const;
/** Rows read at a time while walking a list for its matches. */
const CHUNK = 500;

/**
 * A queue's filter as the runs list (or the traces list) reads it: the same code, so a filter selects
 * here what it lists there. Faults point into the body's `filter`.
 */
export function queueFilters(target: QueueTarget, filter: QueueFilter): RunFilters {
  const faults: FieldError[] =
    target === 'trace'
      ? RUN_ONLY.filter((key) => filter[key] !== undefined).map((key) => ({
          pointer: `/filter/${key}`,
          detail: `A trace queue's filter is the traces list's: it has no ${key}.`,
        }))
      : [];
  if (faults.length > 0) throw problems.validation(faults);
  try {
    return parseRunFilters(filter as Record<string, unknown>);
  } catch (error) {
    if (error instanceof Problem && error.slug === 'validation')
      throw problems.validation((error.errors ?? []).map((e) => ({ pointer: `/filter/${e.parameter ?? ''}`, detail: e.detail })));
    throw error;
  }
}

/** A page of a queue's targets, read by id from the list of its kind: the ids and where the page ends. */
function targetList(db: Kysely<Database>, dialect: Dialect, projectId: string, target: QueueTarget) {
  const ended = <Row>(page: KeysetRows<Row>) => (page.rows.length === 0 ? null : page.positionOf(page.rows[page.rows.length - 1]!));
  return async (filters: RunFilters, after: Position | null, take: number): Promise<{ ids: string[]; end: Position | null }> => {
    if (target === 'run') {
      const page = await listRuns(db, dialect, projectId, filters, after, take);
      return { ids: page.rows.map((r) => r.id), end: ended(page) };
    }
    const page = await listTraces(db, dialect, projectId, filters, after, take);
    return { ids: page.rows.map((r) => r.trace_id), end: ended(page) };
  };
}

/**
 * The targets an add request names, in the order they are to be reviewed: its ids (all must exist in
 * the project, else a 400 lists those that do not), or the newest runs or traces the filter matches (up
 * to `limit`), or a sample of them at `rate` (among the newest MAX_SAMPLED_SCAN matches).
 */
export async function targetsToAdd(
  db: Kysely<Database>,
  dialect: Dialect,
  projectId: string,
  queue: { id: string; target: QueueTarget },
  body: AddItems,
): Promise<{ ids: string[]; examined: number }> {
  const given = ['ids', 'filter'].filter((key) => body[key as keyof AddItems] !== undefined);
  if (given.length !== 1) throw problems.validation([{ pointer: '', detail: 'Give exactly one of ids and filter.' }]);
  if (body.ids !== undefined) {
    const extra = (['rate', 'limit'] as const).filter((key) => body[key] !== undefined);
    if (extra.length > 0) throw problems.validation(extra.map((key) => ({ pointer: `/${key}`, detail: `${key} goes with filter, not with ids.` })));
    const ids = [...new Set(body.ids)];
    const found = await existingTargets(db, projectId, queue.target, ids);
    const missing = body.ids.flatMap((id, i) =>
      found.has(id) ? [] : [{ pointer: `/ids/${i}`, detail: `${TARGET_NOUN[queue.target]} ${id} does not exist in this project.` }],
    );
    if (missing.length > 0) throw problems.validation(missing);
    return { ids, examined: ids.length };
  }
  const filters = queueFilters(queue.target, body.filter!);
  const limit = body.limit ?? MAX_ADD;
  const rate = body.rate;
  const scanCap = rate === undefined ? limit : MAX_SAMPLED_SCAN;
  const fetch = targetList(db, dialect, projectId, queue.target);
  const ids: string[] = [];
  let examined = 0;
  let after: Position | null = null;
  for (;;) {
    const want = Math.min(CHUNK, scanCap - examined);
    const page = await fetch(filters, after, want);
    for (const id of page.ids) {
      examined++;
      if (rate === undefined || sampled(queue.id, id, rate)) ids.push(id);
      if (ids.length === limit) return { ids, examined };
    }
    if (page.ids.length < want || examined >= scanCap || page.end === null) return { ids, examined };
    after = page.end;
  }
}
