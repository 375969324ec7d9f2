import type { Kysely } from 'kysely';
import { inProject, type ProjectScope } from '../../db/scope.js';
import { foundRow } from '../../db/rows.js';
import { insertIgnoringConflicts } from '../../db/bulk.js';
import { lockRows, type Dialect } from '../../db/dialect.js';
import type { AnnotationItemRow, AnnotationQueueRow, Database } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems } from '../../lib/problems.js';
import { ANNOTATION_LEASE_MS, holds, type ItemStatus, type QueueTarget } from './annotations.rules.js';
import type { AnnotationItem } from './annotations.schemas.js';

/** An item with its queue's target (what `targetId` names). */
export type ItemOfQueue = AnnotationItemRow & { target: QueueTarget };

export function toItem(row: ItemOfQueue): AnnotationItem {
  return {
    id: row.id,
    queueId: row.queue_id,
    projectId: row.project_id,
    target: row.target,
    targetId: row.target_id,
    status: row.status as ItemStatus,
    reviewerId: row.reviewer_id,
    leaseUntil: toIso(row.lease_until === null ? null : Number(row.lease_until)),
    completedBy: row.completed_by,
    completedAt: toIso(row.completed_at === null ? null : Number(row.completed_at)),
    createdAt: toIso(Number(row.created_at)),
  };
}

export const ofQueue = (queue: AnnotationQueueRow, row: AnnotationItemRow): ItemOfQueue => ({ ...row, target: queue.target as QueueTarget });

/** A queue's items, in every query: the organization, the project and the queue. */
const itemsOf = (db: Kysely<Database>, scope: ProjectScope, queueId: string) =>
  db.selectFrom('annotation_items').where(inProject(scope)).where('queue_id', '=', queueId);

const COLUMNS = [
  'id',
  'queue_id',
  'project_id',
  'organization_id',
  'target_id',
  'status',
  'reviewer_id',
  'lease_until',
  'completed_by',
  'completed_at',
  'created_at',
] as const satisfies readonly (keyof AnnotationItemRow)[];
const INSERT_CHUNK = 500;

/**
 * Puts targets in a queue, in the order given (the order they are claimed in), each once: a target the
 * queue has already is left as it is and counted as `existing`.
 */
export async function insertItems(
  db: Kysely<Database>,
  scope: ProjectScope,
  queueId: string,
  targetIds: readonly string[],
  now: number,
): Promise<{ added: number; existing: number }> {
  const unique = [...new Set(targetIds)];
  const rows: AnnotationItemRow[] = unique.map((targetId) => ({
    id: newId('aqi', now),
    queue_id: queueId,
    project_id: scope.projectId,
    organization_id: scope.organizationId,
    target_id: targetId,
    status: 'pending',
    reviewer_id: null,
    lease_until: null,
    completed_by: null,
    completed_at: null,
    created_at: now,
  }));
  let added = 0;
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK)
      added += (await insertIgnoringConflicts(trx, 'annotation_items', COLUMNS, ['queue_id', 'target_id'], 'id', rows.slice(i, i + INSERT_CHUNK))).length;
  });
  return { added, existing: unique.length - added };
}

/** A queue's items, newest first; `status`: only those. */
export async function listItems(
  db: Kysely<Database>,
  scope: ProjectScope,
  queueId: string,
  status: ItemStatus | undefined,
  after: Position | null,
  take: number,
): Promise<KeysetRows<AnnotationItemRow>> {
  let query = itemsOf(db, scope, queueId).selectAll();
  if (status !== undefined) query = query.where('status', '=', status);
  return keysetPage(query, { sort: 'created_at', id: 'id' }, after, take);
}

const missingItem = (id: string) => problems.notFound(`Annotation item ${id} does not exist.`);

/** The item, locked for the rest of the caller's transaction (PostgreSQL; SQLite has one writer at a time). */
export async function lockItem(trx: Kysely<Database>, dialect: Dialect, scope: ProjectScope, queueId: string, itemId: string): Promise<AnnotationItemRow> {
  return foundRow(lockRows(itemsOf(trx, scope, queueId).selectAll().where('id', '=', itemId), dialect), () => missingItem(itemId));
}

/** The 409 when the caller does not hold the item (only its lease holder may complete or skip it). */
export function requireHeld(row: AnnotationItemRow, reviewerId: string, now: number): void {
  if (holds(row, reviewerId, now)) return;
  if (row.status !== 'pending') throw problems.conflict(`Annotation item ${row.id} is ${row.status} already.`);
  if (row.reviewer_id === reviewerId) throw problems.conflict(`Your lease on annotation item ${row.id} has expired; claim an item again.`);
  throw problems.conflict(`Annotation item ${row.id} is not claimed by you; claim it first.`);
}

/** Marks a held item completed or skipped by its reviewer (in the caller's transaction, after `lockItem`). */
export async function finishItem(
  trx: Kysely<Database>,
  scope: ProjectScope,
  row: AnnotationItemRow,
  status: Exclude<ItemStatus, 'pending'>,
  reviewerId: string,
  now: number,
): Promise<AnnotationItemRow> {
  requireHeld(row, reviewerId, now);
  const done = await trx
    .updateTable('annotation_items')
    .set({ status, lease_until: null, completed_by: reviewerId, completed_at: now })
    .where(inProject(scope))
    .where('id', '=', row.id)
    .where('status', '=', 'pending')
    .where('reviewer_id', '=', reviewerId)
    .where('lease_until', '>', now)
    .returningAll()
    .executeTakeFirst();
  if (!done) throw problems.conflict(`Annotation item ${row.id} changed while this request was made; claim again.`);
  return done;
}

/** Rounds of a claim before it gives up on a queue that other claimers keep taking from under it. */
const CLAIM_ROUNDS = 20;

/**
 * The next item for a reviewer, leased to them until `now` + the lease: the one they hold already
 * (renewed), else the oldest pending item nobody holds; null when there is none. Two reviewers never get
 * one item: the UPDATE takes an item only while its lease is free, and on PostgreSQL the candidate is
 * picked with FOR UPDATE SKIP LOCKED, so concurrent claimers pass over each other's picks rather than
 * wait. A round that loses every candidate to others is tried again while free items remain.
 */
export async function claimItem(
  db: Kysely<Database>,
  dialect: Dialect,
  scope: ProjectScope,
  queueId: string,
  reviewerId: string,
  now: number,
): Promise<AnnotationItemRow | null> {
  const leaseUntil = now + ANNOTATION_LEASE_MS;
  const pending = (trx: Kysely<Database>) => itemsOf(trx, scope, queueId).where('status', '=', 'pending');
  const oldest = <Q extends ReturnType<typeof pending>>(query: Q) => query.orderBy('created_at').orderBy('id').limit(1);
  const free = (trx: Kysely<Database>) => pending(trx).where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]));
  const take = (trx: Kysely<Database>) =>
    trx.updateTable('annotation_items').where(inProject(scope)).where('queue_id', '=', queueId).where('status', '=', 'pending');

  for (let round = 0; round < CLAIM_ROUNDS; round++) {
    const claimed = await db.transaction().execute(async (trx) => {
      const own = lockRows(oldest(pending(trx).select('id').where('reviewer_id', '=', reviewerId).where('lease_until', '>', now)), dialect);
      const renewed = await take(trx)
        .set({ lease_until: leaseUntil })
        .where('id', '=', own)
        .where('reviewer_id', '=', reviewerId)
        .where('lease_until', '>', now)
        .returningAll()
        .executeTakeFirst();
      if (renewed) return renewed;
      const next = lockRows(oldest(free(trx).select('id')), dialect, 'update skip locked');
      return take(trx)
        .set({ reviewer_id: reviewerId, lease_until: leaseUntil })
        .where('id', '=', next)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
        .returningAll()
        .executeTakeFirst();
    });
    if (claimed) return claimed;
    const left = await free(db).select('id').limit(1).executeTakeFirst();
    if (!left) return null;
  }
  throw problems.unavailable('Other reviewers are claiming the items of this queue; claim again.', 1);
}
