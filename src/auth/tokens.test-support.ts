// What the token attack suites (tokens*.test.ts) share: the keys in play, and GET /v1/me with tokens made every way.
import { exportJWK, exportSPKI, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWK } from 'jose';
import { beforeAll, expect } from 'vitest';
import { newId } from '../lib/ids.js';
import { Keyring } from '../lib/keys.js';
import { describeEachDialect, PUBLIC_URL, type Caller, type TestContext } from '../../test/helpers/harness.js';
import { AUDIENCE, b64url, patClaims, registerRow, type SigningMaterial } from '../../test/helpers/auth.js';

export const PAT_TYP = 'sl-pat+jwt';

export function without<T extends Record<string, unknown>>(value: T, ...keys: string[]): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...value };
  for (const key of keys) delete copy[key];
  return copy;
}

export function flipSignature(token: string): string {
  const [h, p, s] = token.split('.') as [string, string, string];
  const bytes = Buffer.from(s, 'base64url');
  bytes[10] = bytes[10]! ^ 0x01;
  return `${h}.${p}.${b64url(bytes)}`;
}

/** What the attack suites' tests share, filled in before they run: the service's keys and what it publishes, an attacker's keys, a victim and a colleague. */
export interface Keys {
  kid: string;
  cursorKid: string;
  serviceKey: CryptoKey;
  attackerKey: CryptoKey;
  attackerJwk: JWK;
  rsaKey: CryptoKey;
  jwksText: string;
  publishedJwk: JWK;
  publishedPem: string;
  victim: Caller;
  colleague: Caller;
}

/** GET /v1/me with any Authorization header, and tokens made the service's way or an attacker's. */
export function helpers(ctx: TestContext, k: Keys) {
  const me = (authorization?: string, url = '/v1/me') => ctx.request('GET', url, { headers: authorization === undefined ? {} : { authorization } });

  /** The claims the service itself puts in a PAT (src/auth/tokens.ts TokenService.sign), with a fresh jti. */
  const claims = (overrides: Record<string, unknown> = {}) => patClaims(k.victim, overrides);
  const header = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({ alg: 'ES256', kid: k.kid, typ: PAT_TYP, ...overrides });
  const real = (): SigningMaterial => ({ alg: 'ES256', key: k.serviceKey });
  const attacker = (): SigningMaterial => ({ alg: 'ES256', key: k.attackerKey });

  /** Registers a row that would accept the token, then presents it: only the JWT checks can refuse it. */
  const present = async (token: string) => {
    await registerRow(ctx.database.storage.db, token, { userId: k.victim.userId, organizationId: k.victim.organizationId, expiresAt: Date.now() + 3_600_000 });
    return me(`Bearer ${token}`);
  };

  /** A PAT minted exactly as TokenService.sign does, through jose, with the service's own key. */
  const mintLikeTheService = (iat: number, exp: number, jti = newId('tok')) =>
    new SignJWT({ org: k.victim.organizationId })
      .setProtectedHeader({ alg: 'ES256', kid: k.kid, typ: PAT_TYP })
      .setIssuer(PUBLIC_URL)
      .setAudience(AUDIENCE)
      .setSubject(k.victim.userId)
      .setJti(jti)
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(exp)
      .sign(k.serviceKey);

  return { me, claims, header, real, attacker, present, mintLikeTheService };
}

/** The token attack matrix on each engine. */
export function describeAttacks(body: (ctx: TestContext, h: ReturnType<typeof helpers>, k: Keys) => void): void {
  describeEachDialect('authentication: token attack matrix on GET /v1/me', (ctx) => {
    const k = {} as Keys;
    beforeAll(async () => {
      const keys = new Keyring(ctx.database.storage.db, ctx.clock);
      await keys.init();
      k.kid = keys.signingKey().kid;
      k.serviceKey = keys.signingKey().privateKey;
      k.cursorKid = keys.cursorKey().kid;
      const pair = await generateKeyPair('ES256', { extractable: true });
      k.attackerKey = pair.privateKey;
      k.attackerJwk = await exportJWK(pair.publicKey);
      k.rsaKey = (await generateKeyPair('RS256', { extractable: true })).privateKey;
      const jwks = await ctx.request('GET', '/.well-known/jwks.json');
      expect(jwks.statusCode).toBe(200);
      k.jwksText = jwks.body;
      k.publishedJwk = (jwks.json() as { keys: JWK[] }).keys.find((key) => key.kid === k.kid)!;
      expect(k.publishedJwk).toBeDefined();
      expect(k.publishedJwk).not.toHaveProperty('d');
      k.publishedPem = await exportSPKI((await importJWK(k.publishedJwk, 'ES256')) as CryptoKey);
      k.victim = await ctx.make.caller({ role: 'member' });
      k.colleague = await ctx.make.caller({ role: 'owner', organizationId: k.victim.organizationId });
    });
    body(ctx, helpers(ctx, k), k);
  });
}
