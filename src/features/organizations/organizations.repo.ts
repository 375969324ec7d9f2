import type { Kysely } from 'kysely';
import type { Role } from '../../auth/permissions.js';
import type { Database, OrganizationRow, UserRow } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { normalizeEmail } from '../../lib/email.js';

export function toOrganization(row: OrganizationRow) {
  return { id: row.id, name: row.name, plan: row.plan, createdAt: toIso(row.created_at) };
}

export function toUser(row: UserRow) {
  return { id: row.id, email: row.email, name: row.name, createdAt: toIso(row.created_at) };
}

export async function getOrganization(db: Kysely<Database>, organizationId: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', organizationId).executeTakeFirst();
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

/** Sets (inserting or updating) the user's role in the organization. */
export async function setMembership(db: Kysely<Database>, organizationId: string, userId: string, role: Role, now: number): Promise<void> {
  await db
    .insertInto('memberships')
    .values({ organization_id: organizationId, user_id: userId, role, created_at: now })
    .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doUpdateSet({ role }))
    .execute();
}
