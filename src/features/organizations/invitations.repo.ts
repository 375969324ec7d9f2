import type { Kysely } from 'kysely';
import { actorOf, audited, recordAudit, type AuditActor } from '../../db/audit.js';
import { isRole, mayAssignRole, type Role } from '../../auth/permissions.js';
import type { Principal } from '../../auth/tokens.js';
import { deletedRow, unlessTaken } from '../../db/rows.js';
import type { Database, InvitationRow } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems } from '../../lib/problems.js';
import { normalizeEmail } from '../../lib/email.js';

export function toInvitation(row: InvitationRow) {
  return { id: row.id, email: row.email, role: row.role as Role, invitedBy: row.invited_by, createdAt: toIso(row.created_at) };
}

export async function listInvitations(db: Kysely<Database>, organizationId: string, after: Position | null, take: number): Promise<KeysetRows<InvitationRow>> {
  const query = db.selectFrom('invitations').selectAll().where('organization_id', '=', organizationId);
  return keysetPage(query, { sort: 'created_at', id: 'id' }, after, take);
}

export async function createInvitation(db: Kysely<Database>, principal: Principal, input: { email: string; role: Role }, now: number): Promise<InvitationRow> {
  if (!mayAssignRole(principal.role, { to: input.role })) throw problems.forbidden('Only an owner may invite an owner.');
  const email = normalizeEmail(input.email);
  const member = await db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select('m.user_id')
    .where('m.organization_id', '=', principal.organizationId)
    .where('u.email', '=', email)
    .executeTakeFirst();
  if (member) throw problems.conflict(`${email} is already a member of this organization.`);
  const row: InvitationRow = {
    id: newId('inv', now),
    organization_id: principal.organizationId,
    email,
    role: input.role,
    invited_by: principal.userId,
    created_at: now,
  };
  await unlessTaken(
    audited(
      db,
      (trx) => trx.insertInto('invitations').values(row).execute(),
      () => ({
        organizationId: principal.organizationId,
        actor: actorOf(principal),
        action: 'invitation.created',
        target: { type: 'invitation', id: row.id },
        details: { email, role: input.role },
        at: now,
      }),
    ),
    () => problems.conflict(`${email} has already been invited.`),
  );
  return row;
}

export async function deleteInvitation(db: Kysely<Database>, principal: Principal, invitationId: string, now: number): Promise<void> {
  const { organizationId } = principal;
  await audited(
    db,
    async (trx) => {
      const found = await trx
        .selectFrom('invitations')
        .select(['email', 'role'])
        .where('organization_id', '=', organizationId)
        .where('id', '=', invitationId)
        .executeTakeFirst();
      const invitation = trx.deleteFrom('invitations').where('organization_id', '=', organizationId).where('id', '=', invitationId);
      await deletedRow(invitation, () => problems.notFound(`Invitation ${invitationId} does not exist.`));
      return found!;
    },
    (found) => ({
      organizationId,
      actor: actorOf(principal),
      action: 'invitation.deleted',
      target: { type: 'invitation', id: invitationId },
      details: { email: found.email, role: found.role },
      at: now,
    }),
  );
}

/**
 * Turns a user's pending invitations into memberships with the invited roles (at sign-in or bootstrap).
 * An existing membership is left as it is. Returns the inviting organizations' ids, oldest invitation first.
 */
export async function acceptInvitations(db: Kysely<Database>, userId: string, email: string, now: number, actor: AuditActor): Promise<string[]> {
  const invitations = await db.selectFrom('invitations').selectAll().where('email', '=', normalizeEmail(email)).orderBy('created_at').orderBy('id').execute();
  const joined: string[] = [];
  for (const invitation of invitations) {
    if (!isRole(invitation.role)) continue;
    await db.transaction().execute(async (trx) => {
      const added = await trx
        .insertInto('memberships')
        .values({ organization_id: invitation.organization_id, user_id: userId, role: invitation.role, created_at: now })
        .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doNothing())
        .executeTakeFirst();
      await trx.deleteFrom('invitations').where('id', '=', invitation.id).execute();
      if (Number(added.numInsertedOrUpdatedRows ?? 0n) > 0)
        await recordAudit(trx, {
          organizationId: invitation.organization_id,
          actor,
          action: 'member.added',
          target: { type: 'user', id: userId },
          details: { role: invitation.role, invitationId: invitation.id },
          at: now,
        });
    });
    joined.push(invitation.organization_id);
  }
  return joined;
}
