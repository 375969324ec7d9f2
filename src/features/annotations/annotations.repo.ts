import { sql, type Kysely } from 'kysely';
import { inProject, type ProjectScope } from '../../db/scope.js';
import { deletedRow, foundRow, unlessTaken, updatedRow } from '../../db/rows.js';
import type { AnnotationQueueRow, Database } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems } from '../../lib/problems.js';
import { configsNamed } from '../scores/index.js';
import type { QueueTarget } from './annotations.rules.js';
import type { AnnotationQueue, CreateQueue, QueueCounts, UpdateQueue } from './annotations.schemas.js';

export type QueueWithCounts = AnnotationQueueRow & { counts: QueueCounts };

export function toQueue(row: QueueWithCounts): AnnotationQueue {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    description: row.description,
    target: row.target as QueueTarget,
    scoreConfigIds: JSON.parse(row.score_config_ids) as string[],
    counts: row.counts,
    createdAt: toIso(Number(row.created_at)),
    updatedAt: toIso(Number(row.updated_at)),
  };
}

const missing = (id: string) => problems.notFound(`Annotation queue ${id} does not exist.`);
const nameTaken = (name: string) => problems.conflict(`The project already has an annotation queue named "${name}".`);

/** The 400 naming each id that is not a score config of the organization. */
async function checkConfigs(db: Kysely<Database>, organizationId: string, ids: readonly string[]): Promise<void> {
  const { byId } = await configsNamed(db, organizationId, ids, []);
  const faults = ids.flatMap((id, i) => (byId.has(id) ? [] : [{ pointer: `/scoreConfigIds/${i}`, detail: `Score config ${id} does not exist.` }]));
  if (faults.length > 0) throw problems.validation(faults);
}

/**
 * Every item of each queue counted once: pending (nobody holds it), in progress (pending under a lease
 * that has not run out at `now`), completed, skipped. One grouped query for any number of queues.
 */
export async function queueCounts(db: Kysely<Database>, scope: ProjectScope, queueIds: readonly string[], now: number): Promise<Map<string, QueueCounts>> {
  const counts = new Map<string, QueueCounts>(queueIds.map((id) => [id, { pending: 0, inProgress: 0, completed: 0, skipped: 0 }]));
  if (queueIds.length === 0) return counts;
  const rows = await db
    .selectFrom('annotation_items')
    .select(['queue_id', 'status', (eb) => eb.fn.countAll().as('count'), sql<number>`sum(case when lease_until > ${now} then 1 else 0 end)`.as('leased')])
    .where(inProject(scope))
    .where('queue_id', 'in', [...queueIds])
    .groupBy(['queue_id', 'status'])
    .execute();
  for (const row of rows) {
    const of = counts.get(row.queue_id)!;
    const n = Number(row.count);
    if (row.status === 'completed') of.completed += n;
    else if (row.status === 'skipped') of.skipped += n;
    else {
      of.inProgress += Number(row.leased);
      of.pending += n - Number(row.leased);
    }
  }
  return counts;
}

async function withCounts(db: Kysely<Database>, scope: ProjectScope, rows: AnnotationQueueRow[], now: number): Promise<QueueWithCounts[]> {
  const counts = await queueCounts(
    db,
    scope,
    rows.map((r) => r.id),
    now,
  );
  return rows.map((row) => ({ ...row, counts: counts.get(row.id)! }));
}

/** A project's queues, newest first, each with its counts. */
export async function listQueues(
  db: Kysely<Database>,
  scope: ProjectScope,
  after: Position | null,
  take: number,
  now: number,
): Promise<KeysetRows<QueueWithCounts>> {
  const query = db.selectFrom('annotation_queues').selectAll().where(inProject(scope));
  const page = await keysetPage(query, { sort: 'created_at', id: 'id' }, after, take);
  const rows = await withCounts(db, scope, page.rows, now);
  return { rows, positionOf: (row) => page.positionOf(row) };
}

export async function createQueue(db: Kysely<Database>, scope: ProjectScope, input: CreateQueue, now: number): Promise<QueueWithCounts> {
  const scoreConfigIds = input.scoreConfigIds ?? [];
  await checkConfigs(db, scope.organizationId, scoreConfigIds);
  const row: AnnotationQueueRow = {
    id: newId('aq', now),
    organization_id: scope.organizationId,
    project_id: scope.projectId,
    name: input.name,
    description: input.description ?? '',
    target: input.target ?? 'run',
    score_config_ids: JSON.stringify(scoreConfigIds),
    created_at: now,
    updated_at: now,
  };
  await unlessTaken(db.insertInto('annotation_queues').values(row).execute(), () => nameTaken(input.name));
  return { ...row, counts: { pending: 0, inProgress: 0, completed: 0, skipped: 0 } };
}

export async function requireQueue(db: Kysely<Database>, scope: ProjectScope, id: string): Promise<AnnotationQueueRow> {
  return foundRow(db.selectFrom('annotation_queues').selectAll().where(inProject(scope)).where('id', '=', id), () => missing(id));
}

/** A queue with its counts as of `now`. */
export async function queueWithCounts(db: Kysely<Database>, scope: ProjectScope, id: string, now: number): Promise<QueueWithCounts> {
  const [row] = await withCounts(db, scope, [await requireQueue(db, scope, id)], now);
  return row!;
}

/** A queue's new name, description or score configs (its target never changes: its items are of it). */
export async function updateQueue(db: Kysely<Database>, scope: ProjectScope, id: string, patch: UpdateQueue, now: number): Promise<QueueWithCounts> {
  if (patch.scoreConfigIds !== undefined) await checkConfigs(db, scope.organizationId, patch.scoreConfigIds);
  const changes: Partial<AnnotationQueueRow> = { updated_at: now };
  if (patch.name !== undefined) changes.name = patch.name;
  if (patch.description !== undefined) changes.description = patch.description;
  if (patch.scoreConfigIds !== undefined) changes.score_config_ids = JSON.stringify(patch.scoreConfigIds);
  const update = db.updateTable('annotation_queues').set(changes).where(inProject(scope)).where('id', '=', id).returningAll();
  const row = await updatedRow(update, { missing: () => missing(id), taken: () => nameTaken(patch.name ?? '') });
  const [updated] = await withCounts(db, scope, [row], now);
  return updated!;
}

/** Deletes a queue and (by the foreign key's cascade) its items; the scores given in it keep their values and their `queueId`. */
export async function deleteQueue(db: Kysely<Database>, scope: ProjectScope, id: string): Promise<void> {
  await deletedRow(db.deleteFrom('annotation_queues').where(inProject(scope)).where('id', '=', id), () => missing(id));
}
