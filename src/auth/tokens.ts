import { createHash } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { dialectOf } from '../db/dialect.js';
import { readStateColumn, sqliteReadState } from '../db/read-state.js';
import { revokeFamily } from './token-family.js';
import { BATCH_INTERVAL_MS, byId, tokenWithRole, tokensWithRole, type TokenRow } from './token-rows.js';
import type { Database } from '../db/schema.js';
import { BatchLoader } from '../lib/batch-loader.js';
import type { Clock } from '../lib/clock.js';
import type { Keyring } from '../lib/keys.js';
import { SIGNING_ALGORITHM } from '../lib/keys.js';
import { problems } from '../lib/problems.js';
import { isRole, type Grant, type Role } from './permissions.js';
import { tokenLimits } from './token-limits.js';

export const PAT_TYPE = 'sl-pat+jwt';
export const SESSION_TYPE = 'sl-session+jwt';
const MAX_TOKEN_LENGTH = 4096;
const FORBIDDEN_HEADERS = ['jwk', 'jku', 'x5u', 'x5c', 'x5t', 'x5t#S256'];

export type CredentialKind = 'personal_access_token' | 'session';

export interface Principal extends Grant {
  userId: string;
  organizationId: string;
  role: Role;
  credential: { kind: CredentialKind; id: string; expiresAt: number };
  /**
   * The database's state as the credential's row was read (`readStateColumn`): equal for two requests
   * only when nothing was written between them, which lets a read answered before be answered again
   * (`lib/read-cache.ts`).
   */
  readState?: string;
}

interface VerifiedToken {
  kind: CredentialKind;
  /** hashToken(token), computed once per cached verification. */
  hash: string;
  jti: string;
  sub: string;
  org: string;
  exp: number;
}

export { revokeFamily };

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/**
 * Mints and verifies the service's JWTs. Verification is the single path for every /v1 request:
 * signature with an algorithm allow-list and a kid from our keyring, iss, aud, typ, exp, nbf; then,
 * on every request, the token row (revoked, expired) and the user's current membership and role.
 */
export class TokenService {
  /** Verified signatures, keyed by the token string. Bounded and short-lived; never skips the row check. */
  private readonly cache = new Map<string, { token: VerifiedToken; until: number }>();
  private readonly cacheMax = 10_000;
  private readonly lastUsedWritten = new Map<string, number>();
  /** SQLite: token rows by id with the state they were read in, used again while the state is the same. */
  private readonly rows = new Map<string, TokenRow>();
  /**
   * The token rows of the requests that arrive together, read once for all of them after they arrived:
   * each is as fresh as a query of its own, and a burst of requests shares one round trip (PostgreSQL) or
   * one reading of the state (SQLite).
   */
  private readonly batch: BatchLoader<string, TokenRow>;
  readonly audience: string;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly keys: Keyring,
    private readonly config: Pick<Config, 'publicUrl' | 'tokenCacheSeconds' | 'sessionIdleMinutes'>,
    private readonly clock: Clock,
  ) {
    this.audience = `${config.publicUrl}/v1`;
    this.batch = new BatchLoader(
      dialectOf(db) === 'postgres' ? async (ids) => byId(await tokensWithRole(db, ids)) : (ids) => this.sqliteRows(ids),
      500,
      BATCH_INTERVAL_MS,
    );
  }

  async sign(kind: CredentialKind, claims: { sub: string; org: string; jti: string; iat: number; exp: number }): Promise<string> {
    const key = this.keys.signingKey();
    return new SignJWT({ org: claims.org })
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: key.kid, typ: kind === 'session' ? SESSION_TYPE : PAT_TYPE })
      .setIssuer(this.config.publicUrl)
      .setAudience(this.audience)
      .setSubject(claims.sub)
      .setJti(claims.jti)
      .setIssuedAt(Math.floor(claims.iat / 1000))
      .setNotBefore(Math.floor(claims.iat / 1000))
      .setExpirationTime(Math.floor(claims.exp / 1000))
      .sign(key.privateKey);
  }

  /** A token whose signature and claims were verified lately (`tokenCacheSeconds`), or undefined. */
  private verifiedLately(token: string): VerifiedToken | undefined {
    const cached = this.cache.get(token);
    if (cached === undefined) return undefined;
    if (cached.until > this.clock.now()) return cached.token;
    this.cache.delete(token);
    return undefined;
  }

  /** Cryptographic and claim checks; throws the 401 problem on any failure, including library errors. */
  private async verifySignature(token: string): Promise<VerifiedToken> {
    const now = this.clock.now();

    if (token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) {
      throw problems.unauthorized('invalid_token', 'The bearer token is malformed.');
    }
    let payload: JWTPayload;
    let typ: unknown;
    try {
      const result = await jwtVerify(
        token,
        async (header) => {
          if (FORBIDDEN_HEADERS.some((h) => h in header)) throw new Error('embedded key material refused');
          if (typeof header.kid !== 'string' || !/^key_[0-9a-z]{26}$/.test(header.kid)) throw new Error('unknown kid');
          const key = await this.keys.verificationKey(header.kid);
          if (!key) throw new Error('unknown kid');
          return key;
        },
        {
          algorithms: [SIGNING_ALGORITHM],
          issuer: this.config.publicUrl,
          audience: this.audience,
          requiredClaims: ['exp', 'nbf', 'iat', 'jti', 'sub'],
          currentDate: new Date(now),
          clockTolerance: 0,
        },
      );
      payload = result.payload;
      typ = result.protectedHeader.typ;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw problems.unauthorized('token_expired', 'The bearer token has expired.');
      // jose checks the claims only after the signature: this token is one of ours, minted while the
      // service had another public URL (SIGHTLINE_PUBLIC_URL), or by an instance configured with one.
      if (error instanceof joseErrors.JWTClaimValidationFailed && (error.claim === 'iss' || error.claim === 'aud') && error.reason === 'check_failed') {
        throw problems.unauthorized(
          'token_for_other_url',
          'The bearer token was issued for another public URL of this service: mint a token at the URL you call, or check SIGHTLINE_PUBLIC_URL.',
        );
      }
      throw problems.unauthorized('invalid_token', 'The bearer token is invalid.');
    }
    const kind: CredentialKind | null = typ === PAT_TYPE ? 'personal_access_token' : typ === SESSION_TYPE ? 'session' : null;
    if (!kind || typeof payload.org !== 'string' || typeof payload.sub !== 'string' || typeof payload.jti !== 'string' || typeof payload.exp !== 'number') {
      throw problems.unauthorized('invalid_token', 'The bearer token is invalid.');
    }
    const verified: VerifiedToken = { kind, hash: hashToken(token), jti: payload.jti, sub: payload.sub, org: payload.org, exp: payload.exp * 1000 };
    if (this.config.tokenCacheSeconds > 0) {
      if (this.cache.size >= this.cacheMax) {
        const oldest = this.cache.keys().next();
        if (!oldest.done) this.cache.delete(oldest.value);
      }
      this.cache.set(token, { token: verified, until: Math.min(now + this.config.tokenCacheSeconds * 1000, verified.exp) });
    }
    return verified;
  }

  /**
   * Verifies a token and resolves the caller's current identity and role. `accept` is the one kind
   * the caller's channel may carry: PATs in the Authorization header, session JWTs only as minted
   * from the session cookie by the access hook. Neither is ever taken for the other.
   */
  async authenticate(token: string, accept: CredentialKind = 'personal_access_token'): Promise<Principal> {
    const verified = this.verifiedLately(token) ?? (await this.verifySignature(token));
    if (verified.kind !== accept) throw problems.unauthorized('invalid_token', 'The bearer token is invalid.');
    const now = this.clock.now();
    if (verified.kind === 'session') {
      // The session row must still be live: signing out or a timeout ends its JWTs at once.
      const row = await this.db
        .selectFrom('sessions as s')
        .leftJoin('memberships as m', (join) => join.onRef('m.organization_id', '=', 's.organization_id').onRef('m.user_id', '=', 's.user_id'))
        .select(['s.user_id', 's.organization_id', 's.revoked_at', 's.expires_at', 's.last_seen_at', 'm.role'])
        .select(readStateColumn(dialectOf(this.db)).as('read_state'))
        .where('s.id', '=', verified.jti)
        .executeTakeFirst();
      if (!row || row.user_id !== verified.sub || row.organization_id !== verified.org || !isRole(row.role)) {
        throw problems.unauthorized('invalid_token', 'The bearer token is invalid.');
      }
      if (row.revoked_at !== null) throw problems.unauthorized('token_revoked', 'The session has ended. Sign in again.');
      if (row.expires_at <= now || row.last_seen_at + this.config.sessionIdleMinutes * 60_000 <= now) {
        throw problems.unauthorized('token_expired', 'The session has expired. Sign in again.');
      }
      return {
        userId: verified.sub,
        organizationId: verified.org,
        role: row.role,
        credential: { kind: 'session', id: verified.jti, expiresAt: verified.exp },
        readState: row.read_state,
      };
    }
    const row = await this.batch.load(verified.jti);
    if (!row || row.user_id !== verified.sub || row.organization_id !== verified.org || row.token_hash !== verified.hash) {
      throw problems.unauthorized('invalid_token', 'The bearer token is invalid.');
    }
    if (row.revoked_at !== null && row.revoked_at <= now) {
      // A rotated-away token used again: someone kept a copy. Revoke every token of its rotation family.
      if (row.revoked_reason === 'rotated') {
        const actor = { userId: row.user_id, credential: { kind: 'personal_access_token' as const, id: verified.jti } };
        await revokeFamily(this.db, row.family_id ?? verified.jti, now, { organizationId: row.organization_id, actor, usedTokenId: verified.jti });
      }
      throw problems.unauthorized('token_revoked', 'The bearer token has been revoked.');
    }
    if (row.expires_at <= now) throw problems.unauthorized('token_expired', 'The bearer token has expired.');
    if (!isRole(row.role)) throw problems.unauthorized('invalid_token', 'The bearer token is invalid.');
    this.touch(verified.jti, row.last_used_at, now);
    const principal: Principal = {
      userId: row.user_id,
      organizationId: row.organization_id,
      role: row.role,
      credential: { kind: 'personal_access_token', id: verified.jti, expiresAt: row.expires_at },
      readState: row.read_state,
    };
    if (row.scopes !== null) principal.scopes = tokenLimits.scopes(row.scopes);
    if (row.project_ids !== null) principal.projects = tokenLimits.projects(row.project_ids);
    return principal;
  }

  /**
   * SQLite: the token rows as they are now. A row read in the state the database is still in is used
   * again: nothing was written since, so no revocation or role change either (the state is read on the
   * connection, once for the batch, a fraction of the query's cost).
   */
  private async sqliteRows(ids: readonly string[]): Promise<Map<string, TokenRow>> {
    const state = sqliteReadState(this.db);
    const found = new Map<string, TokenRow>();
    for (const id of ids) {
      let row = this.rows.get(id);
      if (row === undefined || row.read_state !== state) {
        [row] = await tokenWithRole(this.db, id);
        if (row === undefined) continue;
        if (this.rows.size >= 10_000) this.rows.clear();
        this.rows.set(id, row);
      }
      found.set(id, row);
    }
    return found;
  }

  /** Records last use at most once a minute per token (per instance, and conditionally in the database). */
  private touch(tokenId: string, storedLastUsed: number | null, now: number): void {
    const written = Math.max(this.lastUsedWritten.get(tokenId) ?? 0, storedLastUsed ?? 0);
    if (now - written < 60_000) return;
    if (this.lastUsedWritten.size > 100_000) this.lastUsedWritten.clear();
    this.lastUsedWritten.set(tokenId, now);
    this.db
      .updateTable('personal_access_tokens')
      .set({ last_used_at: now })
      .where('id', '=', tokenId)
      // Same bound as the in-process check above (a write is due once 60 s have passed, inclusive).
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', now - 60_000)]))
      .execute()
      .catch(() => this.lastUsedWritten.delete(tokenId));
  }

  /** How many reads of token rows (batches) this service has made: for the suites. */
  get rowReads(): number {
    return this.batch.loaded;
  }

  /** Forgets cached verifications, e.g. after a revocation on this instance. */
  forget(token?: string): void {
    if (token) this.cache.delete(token);
    else this.cache.clear();
  }
}
