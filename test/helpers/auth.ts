import { newId } from '../../src/lib/ids.js';
import { createHash, createHmac, webcrypto } from 'node:crypto';
import type { CryptoKey } from 'jose';
import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { expectProblem, type ProblemResponse, PUBLIC_URL } from './harness.js';
import { expectCleanProblem } from './problems.js';

/**
 * Hand-made JWTs for attack tests. Signing is done here with WebCrypto / node:crypto rather than through
 * jose, so a token can carry any header or payload bytes at all (not JSON, an array, `alg: none` …).
 */

export const b64url = (input: string | Uint8Array): string => Buffer.from(input).toString('base64url');

export type Segment = Record<string, unknown> | unknown[] | { raw: string };

function encodeSegment(segment: Segment): string {
  if (!Array.isArray(segment) && 'raw' in segment && typeof segment.raw === 'string' && Object.keys(segment).length === 1) return b64url(segment.raw);
  return b64url(JSON.stringify(segment));
}

export type SigningMaterial =
  { alg: 'ES256'; key: CryptoKey } | { alg: 'RS256'; key: CryptoKey } | { alg: 'HS256'; secret: string | Uint8Array } | { alg: 'none'; signature?: string };

/** Signs `b64(header).b64(payload)` with the given material; the header's `alg` is whatever the caller put in it. */
export async function craftToken(header: Segment, payload: Segment, signing: SigningMaterial): Promise<string> {
  const input = `${encodeSegment(header)}.${encodeSegment(payload)}`;
  const data = new TextEncoder().encode(input);
  let signature: string;
  switch (signing.alg) {
    case 'ES256':
      signature = b64url(new Uint8Array(await webcrypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, signing.key, data)));
      break;
    case 'RS256':
      signature = b64url(new Uint8Array(await webcrypto.subtle.sign({ name: 'RSASSA-PKCS1-v1_5' }, signing.key, data)));
      break;
    case 'HS256':
      signature = createHmac('sha256', signing.secret).update(input).digest('base64url');
      break;
    case 'none':
      signature = signing.signature ?? '';
      break;
  }
  return `${input}.${signature}`;
}

/** The stored hash of a token string, computed independently of src/ (SHA-256, base64url). */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

export function decodePayload(token: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Inserts a token row that would accept exactly this token string (its id = the token's jti, its hash,
 * user and organization from the claims), so that a forged token can only be refused by the
 * cryptographic and claim checks, never by the row lookup. Returns false when the claims cannot name a row.
 */
export async function registerRow(
  db: Kysely<Database>,
  token: string,
  fallback: { userId: string; organizationId: string; expiresAt: number },
): Promise<boolean> {
  const claims = decodePayload(token);
  const jti = claims?.jti;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 200) return false;
  const existing = await db.selectFrom('personal_access_tokens').select('id').where('id', '=', jti).executeTakeFirst();
  if (existing) return false;
  const organizationId = typeof claims?.org === 'string' ? claims.org : fallback.organizationId;
  const userId = typeof claims?.sub === 'string' ? claims.sub : fallback.userId;
  const membership = await db
    .selectFrom('memberships')
    .select('role')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!membership) return false;
  await db
    .insertInto('personal_access_tokens')
    .values({
      id: jti,
      organization_id: organizationId,
      user_id: userId,
      name: 'forged',
      token_hash: tokenHash(token),
      created_at: Date.now(),
      expires_at: typeof claims?.exp === 'number' ? claims.exp * 1000 : fallback.expiresAt,
      last_used_at: null,
      revoked_at: null,
    })
    .execute();
  return true;
}

export const CHALLENGE_INVALID = 'Bearer realm="sightline", error="invalid_token"';
export const CHALLENGE_MISSING = 'Bearer realm="sightline"';

/** The 401 problem with the RFC 6750 challenge; the credential is never echoed back. */
export function expectUnauthorized(
  response: ProblemResponse,
  reason: 'missing_token' | 'invalid_token' | 'token_expired' | 'token_revoked' | 'token_for_other_url',
  secret?: string,
): Record<string, unknown> {
  const body = expectProblem(response, 401, 'unauthorized');
  expectCleanProblem(response);
  expect(body.reason, response.body).toBe(reason);
  expect(response.headers['www-authenticate']).toBe(reason === 'missing_token' ? CHALLENGE_MISSING : CHALLENGE_INVALID);
  expect(response.headers['sightline-token-expires-at']).toBeUndefined();
  if (secret !== undefined && secret.length >= 8) {
    expect(response.body.includes(secret), 'the 401 body echoes the token').toBe(false);
    for (const [name, value] of Object.entries(response.headers)) {
      expect(String(value).includes(secret), `the 401 header ${name} echoes the token`).toBe(false);
    }
    // Nor any of its segments (a header or payload being reflected back).
    for (const part of secret.split('.')) {
      if (part.length >= 16) expect(response.body.includes(part), 'the 401 body echoes a token segment').toBe(false);
    }
  }
  return body;
}

export const AUDIENCE = `${PUBLIC_URL}/v1`;
export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The claims the service itself puts in a PAT (src/auth/tokens.ts TokenService.sign), with a fresh jti. */
export function patClaims(victim: { organizationId: string; userId: string }, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    org: victim.organizationId,
    iss: PUBLIC_URL,
    aud: AUDIENCE,
    sub: victim.userId,
    jti: newId('tok'),
    iat: nowSeconds() - 10,
    nbf: nowSeconds() - 10,
    exp: nowSeconds() + 3600,
    ...overrides,
  };
}
