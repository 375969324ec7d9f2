import type { Kysely } from 'kysely';
import type { ProjectScope } from '../../db/scope.js';
import type { Dialect } from '../../db/dialect.js';
import type { AnnotationItemRow, AnnotationQueueRow, Database, ScoreRow } from '../../db/schema.js';
import { problems, type FieldError, type Problem } from '../../lib/problems.js';
import { ingestScores } from '../scores/index.js';
import { finishItem, lockItem, requireHeld } from './annotations.items.repo.js';
import type { CompleteItem } from './annotations.schemas.js';
import type { ScoreTarget } from '../../schemas/records.js';

/** One problem for a completion's refused scores: their field faults together, or the first other problem. */
function refusal(rejected: Problem[]): Problem {
  const other = rejected.find((p) => p.slug !== 'validation');
  if (other) return other;
  const errors: FieldError[] = rejected.flatMap((p) => p.errors ?? []);
  return problems.validation(errors);
}

/**
 * Completes an item held by the caller: its scores (source `annotation`, the queue's id) and its new
 * status in one transaction, so either both are stored or neither. 409 when the caller does not hold it.
 */
export async function completeItem(
  db: Kysely<Database>,
  dialect: Dialect,
  scope: ProjectScope,
  queue: AnnotationQueueRow,
  itemId: string,
  reviewerId: string,
  body: CompleteItem,
  now: number,
): Promise<{ item: AnnotationItemRow; scores: ScoreRow[] }> {
  return db.transaction().execute(async (trx) => {
    const row = await lockItem(trx, dialect, scope, queue.id, itemId);
    requireHeld(row, reviewerId, now);
    const author = { ...scope, kind: 'user' as const, id: reviewerId };
    const target = { target: queue.target as ScoreTarget, targetId: row.target_id };
    const results = await ingestScores(trx, author, body.scores, now, (i) => `/scores/${i}`, target, { queueId: queue.id, whole: true });
    const rejected = results.flatMap((r) => (r.status === 'rejected' ? [r.problem] : []));
    if (rejected.length > 0) throw refusal(rejected);
    const scores = results.flatMap((r) => (r.status === 'created' && r.row ? [r.row] : []));
    return { item: await finishItem(trx, scope, row, 'completed', reviewerId, now), scores };
  });
}

/** Skips an item held by the caller (409 otherwise): no scores, and nobody is given it again. */
export async function skipItem(
  db: Kysely<Database>,
  dialect: Dialect,
  scope: ProjectScope,
  queueId: string,
  itemId: string,
  reviewerId: string,
  now: number,
): Promise<AnnotationItemRow> {
  return db.transaction().execute(async (trx) => finishItem(trx, scope, await lockItem(trx, dialect, scope, queueId, itemId), 'skipped', reviewerId, now));
}
