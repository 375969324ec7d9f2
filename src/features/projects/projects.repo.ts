import type { Kysely } from 'kysely';
import type { Database, ProjectRow } from '../../db/schema.js';
import { containsText } from '../../db/errors.js';
import { unlessTaken, updatedRow } from '../../db/rows.js';
import { prepared } from '../../db/prepared.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems } from '../../lib/problems.js';
import type { Project } from './projects.schemas.js';

export function toProject(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

const nameKey = (name: string) => name.toLowerCase();
const missingProject = (id: string) => problems.notFound(`Project ${id} does not exist.`);

export async function listProjects(
  db: Kysely<Database>,
  organizationId: string,
  filters: { name?: string | undefined; only?: readonly string[] | undefined },
  after: Position | null,
  take: number,
): Promise<KeysetRows<ProjectRow>> {
  let query = db.selectFrom('projects').selectAll().where('organization_id', '=', organizationId);
  if (filters.name !== undefined) query = query.where(containsText('name_key', nameKey(filters.name!)));
  if (filters.only !== undefined) query = query.where('id', 'in', [...filters.only]);
  return keysetPage(query, { sort: 'created_at', id: 'id' }, after, take);
}

/** The project, if it belongs to the organization; otherwise the 404 problem (never revealing it exists). */
const projectInOrganization = prepared((db, projectId: string, organizationId: string) =>
  db.selectFrom('projects').selectAll().where('id', '=', projectId).where('organization_id', '=', organizationId),
);

export async function requireProject(db: Kysely<Database>, organizationId: string, projectId: string): Promise<ProjectRow> {
  const [row] = await projectInOrganization(db, projectId, organizationId);
  if (!row) throw missingProject(projectId);
  return row;
}

/** The project a `/projects/:project_id/…` request names, if it belongs to the caller's organization; otherwise the 404 problem. */
export function requestedProject(
  db: Kysely<Database>,
  request: { principal: { organizationId: string }; params: { project_id: string } },
): Promise<ProjectRow> {
  return requireProject(db, request.principal.organizationId, request.params.project_id);
}

/** The organization's project with this id, or else this name (names are unique regardless of case), if any. */
export async function findProject(db: Kysely<Database>, organizationId: string, idOrName: string): Promise<ProjectRow | null> {
  const rows = await db
    .selectFrom('projects')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where((eb) => eb.or([eb('id', '=', idOrName), eb('name_key', '=', nameKey(idOrName))]))
    .execute();
  return rows.find((row) => row.id === idOrName) ?? rows[0] ?? null;
}

/** How many projects the organization has created since `since` (by any way: the API or OTLP's first use). */
export async function projectsCreatedSince(db: Kysely<Database>, organizationId: string, since: number): Promise<number> {
  const row = await db
    .selectFrom('projects')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('organization_id', '=', organizationId)
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

function nameTaken(name: string) {
  return problems.conflict(`A project named "${name}" already exists in this organization.`);
}

export async function createProject(
  db: Kysely<Database>,
  organizationId: string,
  input: { name: string; description?: string | undefined },
  now: number,
): Promise<ProjectRow> {
  const row: ProjectRow = {
    id: newId('prj', now),
    organization_id: organizationId,
    name: input.name,
    name_key: nameKey(input.name),
    description: input.description ?? '',
    created_at: now,
    updated_at: now,
  };
  await unlessTaken(db.insertInto('projects').values(row).execute(), () => nameTaken(input.name));
  return row;
}

export async function updateProject(
  db: Kysely<Database>,
  organizationId: string,
  projectId: string,
  input: { name?: string | undefined; description?: string | undefined },
  now: number,
): Promise<ProjectRow> {
  const changes: Partial<ProjectRow> = { updated_at: now };
  if (input.name !== undefined) Object.assign(changes, { name: input.name, name_key: nameKey(input.name) });
  if (input.description !== undefined) changes.description = input.description;
  const update = db.updateTable('projects').set(changes).where('id', '=', projectId).where('organization_id', '=', organizationId).returningAll();
  return updatedRow(update, { missing: () => missingProject(projectId), taken: () => nameTaken(input.name ?? '') });
}
