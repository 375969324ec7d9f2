import type { Kysely } from 'kysely';
import { audited, type AuditActor } from '../db/audit.js';
import type { Database } from '../db/schema.js';

/**
 * Revokes every still-valid token rotated from the same original (reuse detection), with the audit log's
 * `token.reuse_detected` in the same transaction when it revoked any (an old token replayed again revokes
 * nothing more, and records nothing more).
 */
export async function revokeFamily(
  db: Kysely<Database>,
  familyId: string,
  now: number,
  seen: { organizationId: string; actor: AuditActor; usedTokenId: string },
): Promise<void> {
  await audited(
    db,
    (trx) =>
      trx
        .updateTable('personal_access_tokens')
        .set({ revoked_at: now, revoked_reason: 'reused' })
        .where((eb) => eb.or([eb('family_id', '=', familyId), eb('id', '=', familyId)]))
        .where((eb) => eb.or([eb('revoked_at', 'is', null), eb('revoked_at', '>', now)]))
        .executeTakeFirst(),
    (revoked) =>
      Number(revoked.numUpdatedRows) === 0
        ? null
        : {
            organizationId: seen.organizationId,
            actor: seen.actor,
            action: 'token.reuse_detected',
            target: { type: 'token', id: familyId },
            details: { usedTokenId: seen.usedTokenId, revoked: Number(revoked.numUpdatedRows) },
            at: now,
          },
  );
}
