import { actorOf, recordAudit } from '../../db/audit.js';
import type { Kysely, Transaction } from 'kysely';
import { can, isRole, mayAssignRole, type Role } from '../../auth/permissions.js';
import type { Principal } from '../../auth/tokens.js';
import { lockRows, takeRowLock, type Dialect } from '../../db/dialect.js';
import { foundRow } from '../../db/rows.js';
import type { Database } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems } from '../../lib/problems.js';

interface MemberRow {
  user_id: string;
  email: string;
  name: string;
  user_created_at: number;
  role: string;
  /** When the membership began. */
  created_at: number;
}

export function toMember(row: MemberRow) {
  return {
    user: { id: row.user_id, email: row.email, name: row.name, createdAt: toIso(row.user_created_at) },
    role: (isRole(row.role) ? row.role : 'viewer') as Role,
    joinedAt: toIso(row.created_at),
  };
}

/** The organization's members with their users, as `toMember` reads them. */
const membersOf = (db: Kysely<Database>, organizationId: string) =>
  db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'u.email', 'u.name', 'u.created_at as user_created_at', 'm.role', 'm.created_at'])
    .where('m.organization_id', '=', organizationId);

export async function listMembers(db: Kysely<Database>, organizationId: string, after: Position | null, take: number): Promise<KeysetRows<MemberRow>> {
  return keysetPage(membersOf(db, organizationId), { sort: 'm.created_at', id: 'm.user_id' }, after, take);
}

/** The organization the user joined first (by membership, then organization id), if any. */
export async function firstOrganizationOf(db: Kysely<Database>, userId: string): Promise<string | undefined> {
  const membership = await db
    .selectFrom('memberships')
    .select('organization_id')
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('organization_id')
    .executeTakeFirst();
  return membership?.organization_id;
}

async function memberForUpdate(trx: Transaction<Database>, dialect: Dialect, organizationId: string, userId: string) {
  const query = trx.selectFrom('memberships').select(['role']).where('organization_id', '=', organizationId).where('user_id', '=', userId);
  return foundRow(lockRows(query, dialect), () => problems.notFound(`User ${userId} is not a member of this organization.`));
}

/** Locks the organization's owner rows (PostgreSQL) so two owners cannot demote each other at once. */
async function otherOwners(trx: Transaction<Database>, dialect: Dialect, organizationId: string, userId: string): Promise<number> {
  const query = trx
    .selectFrom('memberships')
    .select('user_id')
    .where('organization_id', '=', organizationId)
    .where('role', '=', 'owner')
    .where('user_id', '!=', userId);
  return (await lockRows(query, dialect).execute()).length;
}

/**
 * Serialises membership changes within one organization (PostgreSQL; SQLite runs one transaction at a
 * time): without it, two owners demoting each other lock each other's rows in opposite orders and
 * deadlock. Returns the acting user's role as it is now, which a concurrent change may have lowered
 * since the request was authenticated.
 */
async function lockOrganization(trx: Transaction<Database>, dialect: Dialect, principal: Principal): Promise<Role> {
  await takeRowLock(trx.selectFrom('organizations').select('id').where('id', '=', principal.organizationId), dialect, 'no key update');
  const actor = await trx
    .selectFrom('memberships')
    .select('role')
    .where('organization_id', '=', principal.organizationId)
    .where('user_id', '=', principal.userId)
    .executeTakeFirst();
  if (!actor || !isRole(actor.role) || !can(actor.role, 'members:admin')) throw problems.forbidden('Your role does not allow managing members.');
  return actor.role;
}

function assertMayTouch(actorRole: Role, currentRole: string, newRole: string | null): void {
  if (!mayAssignRole(actorRole, { from: currentRole, to: newRole })) {
    throw problems.forbidden('Only an owner may grant or take the owner role.');
  }
}

export async function changeRole(db: Kysely<Database>, dialect: Dialect, principal: Principal, userId: string, role: Role, now: number): Promise<MemberRow> {
  await db.transaction().execute(async (trx) => {
    const actorRole = await lockOrganization(trx, dialect, principal);
    const member = await memberForUpdate(trx, dialect, principal.organizationId, userId);
    assertMayTouch(actorRole, member.role, role);
    if (member.role === 'owner' && role !== 'owner' && (await otherOwners(trx, dialect, principal.organizationId, userId)) === 0) {
      throw problems.conflict('The organization must keep at least one owner.');
    }
    await trx.updateTable('memberships').set({ role }).where('organization_id', '=', principal.organizationId).where('user_id', '=', userId).execute();
    if (member.role !== role)
      await recordAudit(trx, {
        organizationId: principal.organizationId,
        actor: actorOf(principal),
        action: 'member.role_changed',
        target: { type: 'user', id: userId },
        details: { from: member.role, to: role },
        at: now,
      });
  });
  const [row] = await membersOf(db, principal.organizationId).where('m.user_id', '=', userId).execute();
  if (!row) throw problems.notFound(`User ${userId} is not a member of this organization.`);
  return row;
}

/** Removes a member and revokes their tokens in this organization, at once. */
export async function removeMember(db: Kysely<Database>, dialect: Dialect, principal: Principal, userId: string, now: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const actorRole = await lockOrganization(trx, dialect, principal);
    const member = await memberForUpdate(trx, dialect, principal.organizationId, userId);
    assertMayTouch(actorRole, member.role, null);
    if (member.role === 'owner' && (await otherOwners(trx, dialect, principal.organizationId, userId)) === 0) {
      throw problems.conflict('The organization must keep at least one owner.');
    }
    const revoked = await trx
      .updateTable('personal_access_tokens')
      .set({ revoked_at: now, revoked_reason: 'removed' })
      .where('organization_id', '=', principal.organizationId)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    await trx.deleteFrom('memberships').where('organization_id', '=', principal.organizationId).where('user_id', '=', userId).execute();
    await recordAudit(trx, {
      organizationId: principal.organizationId,
      actor: actorOf(principal),
      action: 'member.removed',
      target: { type: 'user', id: userId },
      details: { role: member.role, tokensRevoked: Number(revoked.numUpdatedRows) },
      at: now,
    });
  });
}
