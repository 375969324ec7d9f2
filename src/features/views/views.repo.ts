import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database, SavedViewRow } from '../../db/schema.js';
import { deletedRow, foundRow, unlessTaken, updatedRow } from '../../db/rows.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems } from '../../lib/problems.js';
import { MAX_VIEWS, type SavedView } from './views.schemas.js';

/** Whose views: a user's, in one project (every query is bound to both, and to the organization). */
export interface ViewOwner {
  organizationId: string;
  projectId: string;
  userId: string;
}

export function toSavedView(row: SavedViewRow): SavedView {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    page: row.page as SavedView['page'],
    filters: JSON.parse(row.filters) as SavedView['filters'],
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

/** The caller's own rows: the one condition every query of views is bound by (organization, project and user). */
const ownedBy = (owner: ViewOwner) => (eb: ExpressionBuilder<Database, 'saved_views'>) =>
  eb.and([eb('organization_id', '=', owner.organizationId), eb('project_id', '=', owner.projectId), eb('user_id', '=', owner.userId)]);
const owned = (db: Kysely<Database>, owner: ViewOwner) => db.selectFrom('saved_views').where(ownedBy(owner));
const missing = (id: string) => problems.notFound(`Saved view ${id} does not exist.`);

const nameTaken = (name: string) => problems.conflict(`You already have a view named "${name}" in this project.`);

export async function listViews(
  db: Kysely<Database>,
  owner: ViewOwner,
  page: string | undefined,
  after: Position | null,
  take: number,
): Promise<KeysetRows<SavedViewRow>> {
  let query = owned(db, owner).selectAll();
  if (page !== undefined) query = query.where('page', '=', page);
  return keysetPage(query, { sort: 'created_at', id: 'id' }, after, take);
}

export async function createView(
  db: Kysely<Database>,
  owner: ViewOwner,
  input: { name: string; page: string; filters: Record<string, unknown> },
  now: number,
): Promise<SavedViewRow> {
  const count = await owned(db, owner)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  if (Number(count.n) >= MAX_VIEWS) throw problems.conflict(`You have ${MAX_VIEWS} views in this project, the most there can be: delete one first.`);
  const row: SavedViewRow = {
    id: newId('vew', now),
    organization_id: owner.organizationId,
    project_id: owner.projectId,
    user_id: owner.userId,
    name: input.name,
    page: input.page,
    filters: JSON.stringify(input.filters),
    created_at: now,
    updated_at: now,
  };
  await unlessTaken(db.insertInto('saved_views').values(row).execute(), () => nameTaken(input.name));
  return row;
}

/** One of the caller's views; another user's (or another project's) is a 404, as one that does not exist. */
export async function requireView(db: Kysely<Database>, owner: ViewOwner, id: string): Promise<SavedViewRow> {
  return foundRow(owned(db, owner).selectAll().where('id', '=', id), () => missing(id));
}

export async function updateView(
  db: Kysely<Database>,
  owner: ViewOwner,
  id: string,
  input: { name?: string | undefined; filters?: Record<string, unknown> | undefined },
  now: number,
): Promise<SavedViewRow> {
  const changes: Partial<SavedViewRow> = { updated_at: now };
  if (input.name !== undefined) changes.name = input.name;
  if (input.filters !== undefined) changes.filters = JSON.stringify(input.filters);
  const update = db.updateTable('saved_views').set(changes).where('id', '=', id).where(ownedBy(owner)).returningAll();
  return updatedRow(update, { missing: () => missing(id), taken: () => nameTaken(input.name ?? '') });
}

export async function deleteView(db: Kysely<Database>, owner: ViewOwner, id: string): Promise<void> {
  await deletedRow(db.deleteFrom('saved_views').where('id', '=', id).where(ownedBy(owner)), () => missing(id));
}
