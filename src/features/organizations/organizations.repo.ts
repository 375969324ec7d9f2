import type { Kysely } from 'kysely';
import { recordAudit, type AuditActor } from '../../db/audit.js';
import type { Role } from '../../auth/permissions.js';
import { isUniqueViolation } from '../../db/errors.js';
import { unlessTaken } from '../../db/rows.js';
import type { Database, OrganizationRow, UserRow } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { normalizeEmail } from '../../lib/email.js';
import { problems } from '../../lib/problems.js';
import { replaceOriginsIn } from './origins.repo.js';

export function toOrganization(row: OrganizationRow) {
  return { id: row.id, name: row.name, plan: row.plan, createdAt: toIso(row.created_at) };
}

export function toUser(row: UserRow) {
  return { id: row.id, email: row.email, name: row.name, createdAt: toIso(row.created_at) };
}

export async function getOrganization(db: Kysely<Database>, organizationId: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', organizationId).executeTakeFirst();
}

/** The organization with this name, or else with this id (the operator's CLI names it either way). */
export async function findOrganization(db: Kysely<Database>, nameOrId: string): Promise<Pick<OrganizationRow, 'id' | 'name'> | undefined> {
  return db
    .selectFrom('organizations')
    .select(['id', 'name'])
    .where((eb) => eb.or([eb('name', '=', nameOrId), eb('id', '=', nameOrId)]))
    .executeTakeFirst();
}

/**
 * Renames the organization and replaces its allowed origins, all or nothing: a name conflict must not
 * leave the origins changed, nor a refused origin list the name.
 */
export async function updateOrganization(
  db: Kysely<Database>,
  org: OrganizationRow,
  changes: { name?: string | undefined; allowedOrigins?: string[] | undefined },
  now: number,
  actor: AuditActor,
): Promise<void> {
  const { name, allowedOrigins } = changes;
  await db.transaction().execute(async (trx) => {
    const details: Record<string, unknown> = {};
    if (allowedOrigins !== undefined) {
      const before = (await trx.selectFrom('organization_origins').select('origin').where('organization_id', '=', org.id).execute()).map((row) => row.origin);
      await replaceOriginsIn(trx, org.id, org.plan, allowedOrigins, now);
      const after = (await trx.selectFrom('organization_origins').select('origin').where('organization_id', '=', org.id).execute()).map((row) => row.origin);
      const added = after.filter((origin) => !before.includes(origin));
      const removed = before.filter((origin) => !after.includes(origin));
      if (added.length > 0 || removed.length > 0) details.allowedOrigins = { added, removed };
    }
    if (name !== undefined && name !== org.name) {
      const renamed = trx.updateTable('organizations').set({ name }).where('id', '=', org.id).execute();
      await unlessTaken(renamed, () => problems.conflict(`The name "${name}" is taken.`));
      details.name = { from: org.name, to: name };
    }
    if (Object.keys(details).length > 0)
      await recordAudit(trx, { organizationId: org.id, actor, action: 'organization.updated', target: { type: 'organization', id: org.id }, details, at: now });
  });
}

/** A new organization (a first sign-in's own). Names are unique: a taken one gets the new id appended. */
export async function createOrganization(db: Kysely<Database>, name: string, plan: string, now: number): Promise<string> {
  const id = newId('org', now);
  try {
    await db.insertInto('organizations').values({ id, name, plan, created_at: now }).execute();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await db
      .insertInto('organizations')
      .values({ id, name: `${name} (${id})`, plan, created_at: now })
      .execute();
  }
  return id;
}

export async function getUser(db: Kysely<Database>, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
}

/** Finds the organization by name or creates it (bootstrap). Race-safe across instances. */
export async function ensureOrganization(db: Kysely<Database>, name: string, plan: string, now: number): Promise<OrganizationRow> {
  await db
    .insertInto('organizations')
    .values({ id: newId('org', now), name, plan, created_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  return db.selectFrom('organizations').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
}

export async function ensureUser(db: Kysely<Database>, email: string, name: string, now: number): Promise<UserRow> {
  const normalized = normalizeEmail(email);
  await db
    .insertInto('users')
    .values({ id: newId('usr', now), email: normalized, name, created_at: now })
    .onConflict((oc) => oc.column('email').doNothing())
    .execute();
  return db.selectFrom('users').selectAll().where('email', '=', normalized).executeTakeFirstOrThrow();
}

/**
 * Sets (inserting or updating) the user's role in the organization. With an `actor` (the bootstrap command, a
 * first sign-in), the audit log's `member.added` or `member.role_changed` is written in the same transaction.
 */
export async function setMembership(db: Kysely<Database>, organizationId: string, userId: string, role: Role, now: number, actor?: AuditActor): Promise<void> {
  const upsert = (trx: Kysely<Database>) =>
    trx
      .insertInto('memberships')
      .values({ organization_id: organizationId, user_id: userId, role, created_at: now })
      .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doUpdateSet({ role }))
      .execute();
  if (actor === undefined) return void (await upsert(db));
  await db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('memberships')
      .select('role')
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    await upsert(trx);
    if (before?.role === role) return;
    const target = { type: 'user', id: userId };
    if (before === undefined) await recordAudit(trx, { organizationId, actor, action: 'member.added', target, details: { role }, at: now });
    else await recordAudit(trx, { organizationId, actor, action: 'member.role_changed', target, details: { from: before.role, to: role }, at: now });
  });
}
