import type { Kysely } from 'kysely';
import type { PendingSignIn } from '../../auth/oidc.js';
import { hashToken } from '../../auth/tokens.js';
import type { Database } from '../../db/schema.js';
import type { AuthRequestsTable } from '../../db/schema.identity.js';

/** Keeps a sign-in in progress between /auth/login and /auth/callback, under the hash of its state. */
export async function storeSignInRequest(db: Kysely<Database>, pending: PendingSignIn, now: number, expiresAt: number): Promise<void> {
  await db
    .insertInto('auth_requests')
    .values({ state_hash: hashToken(pending.state), nonce: pending.nonce, code_verifier: pending.codeVerifier, created_at: now, expires_at: expiresAt })
    .execute();
}

/** Takes the sign-in request of this state: deleted as it is read, so a state is used once whatever happens next. */
export async function takeSignInRequest(db: Kysely<Database>, state: string): Promise<AuthRequestsTable | undefined> {
  return db.deleteFrom('auth_requests').where('state_hash', '=', hashToken(state)).returningAll().executeTakeFirst();
}
