import type { Kysely } from 'kysely';
import { covers, type Grant, type Scope } from '../../auth/permissions.js';
import { actorOf, audited, recordAudit, type AuditActor } from '../../db/audit.js';
import { tokenLimits } from '../../auth/token-limits.js';
import type { TokenService } from '../../auth/tokens.js';
import { hashToken, revokeFamily } from '../../auth/tokens.js';
import type { Database, TokenRow } from '../../db/schema.js';
import { DAY_MS, toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems } from '../../lib/problems.js';
import type { TokenRecord } from './tokens.schemas.js';

export function toTokenRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    name: row.name,
    createdAt: toIso(row.created_at),
    expiresAt: toIso(row.expires_at),
    lastUsedAt: toIso(row.last_used_at),
    revokedAt: toIso(row.revoked_at),
    ...tokenLimits.of(row),
  };
}

/** What a token is narrowed to (null: not narrowed). */
export interface TokenLimits {
  scopes: Scope[] | null;
  projectIds: string[] | null;
}

/** A narrowed credential acts on its user's tokens narrowed as far at least (`covers`); else the 403. */
function assertCovers(principal: Grant, row: TokenRow, action: string): void {
  if (!covers(principal, tokenLimits.of(row))) throw problems.forbidden(`This token may not ${action} a token that may do more than it.`);
}

/**
 * A token's lifetime as asked for: expires_at is cut to whole seconds (the JWT's exp), so the stored
 * difference is short by the sub-second part of created_at; rounding up recovers it and keeps a rotation
 * chain from losing up to a second per rotation.
 */
const originalLifetimeMs = (row: TokenRow): number => Math.ceil((row.expires_at - row.created_at) / 1000) * 1000;

/** What a token is minted with. */
interface TokenInput {
  organizationId: string;
  userId: string;
  name: string;
  expiresInDays?: number;
  lifetimeMs?: number;
  familyId?: string | null;
  limits?: TokenLimits;
}

/**
 * Mints a personal access token: stores its id and hash, returns the row and the string (shown once). With
 * an `actor`, the audit log's `token.created` is written in the same transaction.
 */
export async function issuePersonalAccessToken(
  db: Kysely<Database>,
  tokens: TokenService,
  input: TokenInput & { actor?: AuditActor },
  now: number,
): Promise<{ row: TokenRow; token: string }> {
  const { actor } = input;
  if (actor === undefined) return insertToken(db, tokens, input, now);
  return audited(
    db,
    (trx) => insertToken(trx, tokens, input, now),
    ({ row }) => ({
      organizationId: row.organization_id,
      actor,
      action: 'token.created',
      target: { type: 'token', id: row.id },
      details: tokenDetails(row),
      at: now,
    }),
  );
}

/** What the audit log says of a token: never its string or hash. */
const tokenDetails = (row: TokenRow) => ({ name: row.name, userId: row.user_id, expiresAt: toIso(row.expires_at), ...tokenLimits.of(row) });

async function insertToken(db: Kysely<Database>, tokens: TokenService, input: TokenInput, now: number): Promise<{ row: TokenRow; token: string }> {
  const id = newId('tok', now);
  const expiresAt = now + (input.lifetimeMs ?? (input.expiresInDays ?? 90) * DAY_MS);
  const token = await tokens.sign('personal_access_token', { sub: input.userId, org: input.organizationId, jti: id, iat: now, exp: expiresAt });
  const row: TokenRow = {
    id,
    organization_id: input.organizationId,
    user_id: input.userId,
    name: input.name,
    token_hash: hashToken(token),
    created_at: now,
    expires_at: Math.floor(expiresAt / 1000) * 1000, // the JWT's exp has second precision; keep them equal
    last_used_at: null,
    revoked_at: null,
    family_id: input.familyId ?? null,
    revoked_reason: null,
    ...tokenLimits.columns(input.limits ?? { scopes: null, projectIds: null }),
  };
  await db.insertInto('personal_access_tokens').values(row).execute();
  return { row, token };
}

/** Which of `ids` are projects of the organization (what a token may be narrowed to). */
export async function projectsOfOrganization(db: Kysely<Database>, organizationId: string, ids: readonly string[]): Promise<Set<string>> {
  const rows = await db
    .selectFrom('projects')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...ids])
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** The organization's tokens, newest first; with `userId`, only that member's. */
export async function listTokens(
  db: Kysely<Database>,
  owner: { organizationId: string; userId?: string },
  after: Position | null,
  take: number,
): Promise<KeysetRows<TokenRow>> {
  let query = db.selectFrom('personal_access_tokens').selectAll().where('organization_id', '=', owner.organizationId);
  if (owner.userId !== undefined) query = query.where('user_id', '=', owner.userId);
  return keysetPage(query, { sort: 'created_at', id: 'id' }, after, take);
}

/**
 * Revokes a token of the organization. `onlyOwn` limits it to the caller's own tokens (non-admins):
 * anything else is a 404, as if it did not exist; a narrowed caller's, to those narrowed as far. Revoking
 * twice is harmless.
 */
export async function revokeToken(
  db: Kysely<Database>,
  organizationId: string,
  tokenId: string,
  onlyOwn: (Grant & { userId: string }) | null,
  now: number,
  actor: AuditActor,
): Promise<void> {
  let query = db.selectFrom('personal_access_tokens').selectAll().where('id', '=', tokenId).where('organization_id', '=', organizationId);
  if (onlyOwn !== null) query = query.where('user_id', '=', onlyOwn.userId);
  const row = await query.executeTakeFirst();
  if (!row) throw problems.notFound(`Token ${tokenId} does not exist.`);
  if (onlyOwn !== null) assertCovers(onlyOwn, row, 'revoke');
  if (row.revoked_at === null || row.revoked_at > now) {
    // Also ends a rotation grace at once (a rotated-away token keeps its 'rotated' reason for reuse detection).
    await audited(
      db,
      (trx) =>
        trx
          .updateTable('personal_access_tokens')
          .set((eb) => ({ revoked_at: now, revoked_reason: eb.fn.coalesce('revoked_reason', eb.val('revoked')) }))
          .where('id', '=', tokenId)
          .where((eb) => eb.or([eb('revoked_at', 'is', null), eb('revoked_at', '>', now)]))
          .executeTakeFirst(),
      (updated) =>
        Number(updated.numUpdatedRows) === 0
          ? null
          : { organizationId, actor, action: 'token.revoked', target: { type: 'token', id: tokenId }, details: tokenDetails(row), at: now },
    );
  }
}

/**
 * Rotation: a new token with the same name, lifetime and limits; the old one is revoked at once (or after the
 * configured grace). Rotating a token that was already rotated or revoked is reuse: the whole rotation
 * family is revoked and the answer is 401.
 */
export async function rotateToken(
  db: Kysely<Database>,
  tokens: TokenService,
  principal: Grant & { organizationId: string; userId: string; credential: { kind: 'personal_access_token' | 'session'; id: string } },
  tokenId: string,
  now: number,
  graceMs: number,
): Promise<{ row: TokenRow; token: string }> {
  const row = await db
    .selectFrom('personal_access_tokens')
    .selectAll()
    .where('id', '=', tokenId)
    .where('organization_id', '=', principal.organizationId)
    .where('user_id', '=', principal.userId)
    .executeTakeFirst();
  if (!row) throw problems.notFound(`Token ${tokenId} does not exist.`);
  assertCovers(principal, row, 'rotate');
  const familyId = row.family_id ?? row.id;
  const actor = actorOf(principal);
  const reuse = async () => {
    await revokeFamily(db, familyId, now, { organizationId: row.organization_id, actor, usedTokenId: tokenId });
    return problems.unauthorized('token_revoked', 'This token was already rotated or revoked; every token rotated from the same original has been revoked.');
  };
  if (row.revoked_at !== null || row.expires_at <= now) throw await reuse();
  // The old token's revocation, the new token and the audit log's event: one transaction.
  const rotated = await db.transaction().execute(async (trx) => {
    const claimed = await trx
      .updateTable('personal_access_tokens')
      .set({ revoked_at: now + graceMs, revoked_reason: 'rotated', family_id: familyId })
      .where('id', '=', tokenId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) return null; // a concurrent rotation won
    const input = {
      organizationId: row.organization_id,
      userId: row.user_id,
      name: row.name,
      lifetimeMs: originalLifetimeMs(row),
      familyId,
      limits: tokenLimits.of(row),
    };
    const issued = await insertToken(trx, tokens, input, now);
    await recordAudit(trx, {
      organizationId: row.organization_id,
      actor,
      action: 'token.rotated',
      target: { type: 'token', id: issued.row.id },
      details: { ...tokenDetails(issued.row), rotatedFrom: tokenId },
      at: now,
    });
    return issued;
  });
  if (rotated === null) throw await reuse();
  return rotated;
}
