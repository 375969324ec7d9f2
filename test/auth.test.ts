import { exportJWK, exportSPKI, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/lib/ids.js';
import { Keyring } from '../src/lib/keys.js';
import { describeEachDialect, manualClock, PUBLIC_URL, type Caller } from './helpers/harness.js';
import {
  b64url,
  craftToken,
  decodePayload,
  expectUnauthorized,
  registerRow,
  tokenHash,
  type SigningMaterial,
  AUDIENCE,
  nowSeconds,
  patClaims,
} from './helpers/auth.js';

const PAT_TYP = 'sl-pat+jwt';

function without<T extends Record<string, unknown>>(value: T, ...keys: string[]): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...value };
  for (const key of keys) delete copy[key];
  return copy;
}

function flipSignature(token: string): string {
  const [h, p, s] = token.split('.') as [string, string, string];
  const bytes = Buffer.from(s, 'base64url');
  bytes[10] = bytes[10]! ^ 0x01;
  return `${h}.${p}.${b64url(bytes)}`;
}

describeEachDialect('authentication: token attack matrix on GET /v1/me', (ctx) => {
  let kid: string;
  let cursorKid: string;
  let serviceKey: CryptoKey;
  let attackerKey: CryptoKey;
  let attackerJwk: JWK;
  let rsaKey: CryptoKey;
  let jwksText: string;
  let publishedJwk: JWK;
  let publishedPem: string;
  let victim: Caller;
  let colleague: Caller;

  const me = (authorization?: string, url = '/v1/me') => ctx.request('GET', url, { headers: authorization === undefined ? {} : { authorization } });

  /** The claims the service itself puts in a PAT (src/auth/tokens.ts TokenService.sign), with a fresh jti. */
  const claims = (overrides: Record<string, unknown> = {}) => patClaims(victim, overrides);
  const header = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({ alg: 'ES256', kid, typ: PAT_TYP, ...overrides });
  const real = (): SigningMaterial => ({ alg: 'ES256', key: serviceKey });
  const attacker = (): SigningMaterial => ({ alg: 'ES256', key: attackerKey });

  /** Registers a row that would accept the token, then presents it: only the JWT checks can refuse it. */
  const present = async (token: string) => {
    await registerRow(ctx.database.storage.db, token, { userId: victim.userId, organizationId: victim.organizationId, expiresAt: Date.now() + 3_600_000 });
    return me(`Bearer ${token}`);
  };

  beforeAll(async () => {
    const keys = new Keyring(ctx.database.storage.db, ctx.clock);
    await keys.init();
    kid = keys.signingKey().kid;
    serviceKey = keys.signingKey().privateKey;
    cursorKid = keys.cursorKey().kid;
    const pair = await generateKeyPair('ES256', { extractable: true });
    attackerKey = pair.privateKey;
    attackerJwk = await exportJWK(pair.publicKey);
    rsaKey = (await generateKeyPair('RS256', { extractable: true })).privateKey;
    const jwks = await ctx.request('GET', '/.well-known/jwks.json');
    expect(jwks.statusCode).toBe(200);
    jwksText = jwks.body;
    publishedJwk = (jwks.json() as { keys: JWK[] }).keys.find((k) => k.kid === kid)!;
    expect(publishedJwk).toBeDefined();
    expect(publishedJwk).not.toHaveProperty('d');
    publishedPem = await exportSPKI((await importJWK(publishedJwk, 'ES256')) as CryptoKey);
    victim = await ctx.make.caller({ role: 'member' });
    colleague = await ctx.make.caller({ role: 'owner', organizationId: victim.organizationId });
  });

  it('answers a valid token with the user, organization, role and token', async () => {
    const res = await me(`Bearer ${victim.token}`);
    expect(res.statusCode, res.body).toBe(200);
    const row = await ctx.database.storage.db.selectFrom('personal_access_tokens').selectAll().where('id', '=', victim.tokenId).executeTakeFirstOrThrow();
    const body = res.json();
    expect(body).toEqual({
      user: { id: victim.userId, email: expect.stringMatching(/@example\.test$/), name: 'Test User', createdAt: expect.stringMatching(/Z$/) },
      organization: { id: victim.organizationId, name: expect.any(String), plan: 'enterprise', createdAt: expect.stringMatching(/Z$/) },
      role: 'member',
      token: { kind: 'personal_access_token', id: victim.tokenId, expiresAt: new Date(Number(row.expires_at)).toISOString() },
    });
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  it('accepts a hand-crafted token with the service key and a matching row (control for the forgeries below)', async () => {
    const token = await craftToken(header(), claims(), real());
    const res = await present(token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().token.id).toBe(decodePayload(token)!.jti);
  });

  /** A PAT minted exactly as TokenService.sign does, through jose, with the service's own key. */
  const mintLikeTheService = (iat: number, exp: number, jti = newId('tok')) =>
    new SignJWT({ org: victim.organizationId })
      .setProtectedHeader({ alg: 'ES256', kid, typ: PAT_TYP })
      .setIssuer(PUBLIC_URL)
      .setAudience(AUDIENCE)
      .setSubject(victim.userId)
      .setJti(jti)
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(exp)
      .sign(serviceKey);

  it('accepts a token minted through jose like TokenService.sign, and refuses it once expired (token_expired)', async () => {
    const fresh = await mintLikeTheService(nowSeconds() - 10, nowSeconds() + 3600);
    const ok = await present(fresh);
    expect(ok.statusCode, ok.body).toBe(200);
    const expired = await mintLikeTheService(nowSeconds() - 7200, nowSeconds() - 1);
    expectUnauthorized(await present(expired), 'token_expired', expired);
  });

  describe('the Authorization header', () => {
    it('without one: 401 missing_token, challenge without an error attribute', async () => {
      expectUnauthorized(await me(), 'missing_token');
    });

    it('empty: 401 missing_token', async () => {
      expectUnauthorized(await me(''), 'missing_token');
    });

    it('a token only in the query string (?access_token=) is ignored: 401 missing_token', async () => {
      const res = await me(undefined, `/v1/me?access_token=${victim.token}`);
      expectUnauthorized(res, 'missing_token', victim.token);
    });

    const invalid: [string, () => string][] = [
      ['"Bearer" with no token', () => 'Bearer'],
      ['"Bearer " with an empty token', () => 'Bearer '],
      ['Basic credentials', () => `Basic ${Buffer.from('user:password').toString('base64')}`],
      ['the "Token" scheme with a valid token', () => `Token ${victim.token}`],
      ['a valid token without a scheme', () => victim.token],
      ['"Bearer:" glued to the token', () => `Bearer:${victim.token}`],
      ['a tab instead of a space', () => `Bearer\t${victim.token}`],
      ['trailing junk after the token', () => `Bearer ${victim.token} extra`],
      ['two bearer credentials', () => `Bearer ${victim.token}, Bearer ${victim.token}`],
      ['garbage', () => 'Bearer not-a-jwt'],
      ['garbage with dots', () => 'Bearer a.b.c'],
      ['four segments', () => `Bearer ${victim.token}.AAAA`],
      ['two segments', () => `Bearer ${victim.token.split('.').slice(0, 2).join('.')}`],
      ['non-base64url characters', () => `Bearer ${victim.token.replace(/\./, '.+/=')}`],
      ['a 10 KB token', () => `Bearer ${'a'.repeat(10 * 1024)}`],
      ['a 10 KB three-segment token', () => `Bearer ${'eyJh'.repeat(850)}.${'eyJh'.repeat(850)}.${'A'.repeat(3400)}`],
      ['the valid token with one byte more', () => `Bearer ${victim.token}A`],
    ];
    for (const [name, authorization] of invalid) {
      it(`${name}: 401 invalid_token`, async () => {
        expectUnauthorized(await me(authorization()), 'invalid_token', victim.token);
      });
    }

    it('the scheme is case-insensitive (RFC 6750 / RFC 9110): "bearer" and "BEARER" work', async () => {
      for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
        const res = await me(`${scheme} ${victim.token}`);
        expect(res.statusCode, `${scheme}: ${res.body}`).toBe(200);
        expect(res.json().user.id).toBe(victim.userId);
      }
    });

    it('more than one space after the scheme works (RFC 6750: "Bearer" 1*SP b64token)', async () => {
      const res = await me(`Bearer  ${victim.token}`);
      expect(res.statusCode, res.body).toBe(200);
    });
  });

  describe('forged and malformed JWTs (each has a token row that would accept it)', () => {
    const cases: { name: string; reason?: 'token_expired' | 'token_for_other_url'; make: () => Promise<string> }[] = [
      // alg confusion
      { name: 'alg "none", empty signature', make: () => craftToken(header({ alg: 'none' }), claims(), { alg: 'none' }) },
      { name: 'alg "none" with a signature segment', make: () => craftToken(header({ alg: 'none' }), claims(), { alg: 'none', signature: 'AAAA' }) },
      { name: 'alg "none" signed with the real key', make: async () => craftToken(header({ alg: 'none' }), claims(), real()) },
      { name: 'alg "None"', make: () => craftToken(header({ alg: 'None' }), claims(), { alg: 'none', signature: 'AAAA' }) },
      { name: 'alg missing', make: () => craftToken(without(header(), 'alg'), claims(), real()) },
      {
        name: 'HS256 keyed with the published JWK (JSON text)',
        make: () => craftToken(header({ alg: 'HS256' }), claims(), { alg: 'HS256', secret: JSON.stringify(publishedJwk) }),
      },
      { name: 'HS256 keyed with the JWKS document text', make: () => craftToken(header({ alg: 'HS256' }), claims(), { alg: 'HS256', secret: jwksText }) },
      {
        name: 'HS256 keyed with the public key as PEM/SPKI',
        make: () => craftToken(header({ alg: 'HS256' }), claims(), { alg: 'HS256', secret: publishedPem }),
      },
      {
        name: 'HS256 keyed with the PEM without its final newline',
        make: () => craftToken(header({ alg: 'HS256' }), claims(), { alg: 'HS256', secret: publishedPem.trim() }),
      },
      {
        name: 'HS256 keyed with the public point x',
        make: () => craftToken(header({ alg: 'HS256' }), claims(), { alg: 'HS256', secret: Buffer.from(publishedJwk.x!, 'base64url') }),
      },
      { name: 'RS256 with an attacker RSA key and the service kid', make: () => craftToken(header({ alg: 'RS256' }), claims(), { alg: 'RS256', key: rsaKey }) },
      // wrong key
      { name: "ES256 with an attacker's key and the service kid", make: () => craftToken(header(), claims(), attacker()) },
      { name: 'embedded jwk header (attacker key, no kid)', make: () => craftToken(without(header({ jwk: attackerJwk }), 'kid'), claims(), attacker()) },
      { name: 'embedded jwk header (attacker key) with the service kid', make: () => craftToken(header({ jwk: attackerJwk }), claims(), attacker()) },
      { name: 'jku header pointing at an attacker JWKS', make: () => craftToken(header({ jku: 'https://attacker.example/jwks.json' }), claims(), attacker()) },
      {
        name: 'x5u header pointing at an attacker certificate',
        make: () => craftToken(header({ x5u: 'https://attacker.example/cert.pem' }), claims(), attacker()),
      },
      // kid injection
      { name: 'kid "../../etc/passwd"', make: () => craftToken(header({ kid: '../../etc/passwd' }), claims(), real()) },
      { name: 'kid with an SQL quote', make: () => craftToken(header({ kid: "key_' OR '1'='1" }), claims(), real()) },
      { name: 'kid of the service key followed by SQL', make: () => craftToken(header({ kid: `${kid}' --` }), claims(), real()) },
      { name: 'an unknown, well-formed kid', make: () => craftToken(header({ kid: 'key_00000000000000000000000000' }), claims(), real()) },
      { name: 'the kid of the cursor key', make: () => craftToken(header({ kid: cursorKid }), claims(), real()) },
      { name: 'kid missing', make: () => craftToken(without(header(), 'kid'), claims(), real()) },
      { name: 'kid as a number', make: () => craftToken(header({ kid: 1 }), claims(), real()) },
      { name: 'kid as an object', make: () => craftToken(header({ kid: { $ne: null } }), claims(), real()) },
      // time
      {
        name: 'expired (exp in the past)',
        reason: 'token_expired',
        make: () => craftToken(header(), claims({ iat: nowSeconds() - 7200, nbf: nowSeconds() - 7200, exp: nowSeconds() - 60 }), real()),
      },
      { name: 'nbf in the future', make: () => craftToken(header(), claims({ nbf: nowSeconds() + 3600 }), real()) },
      // issuer and audience
      { name: 'wrong iss', reason: 'token_for_other_url', make: () => craftToken(header(), claims({ iss: 'https://attacker.example' }), real()) },
      { name: 'iss with a trailing slash', reason: 'token_for_other_url', make: () => craftToken(header(), claims({ iss: `${PUBLIC_URL}/` }), real()) },
      { name: 'iss missing', make: () => craftToken(header(), without(claims(), 'iss'), real()) },
      { name: 'wrong aud', reason: 'token_for_other_url', make: () => craftToken(header(), claims({ aud: 'https://attacker.example/v1' }), real()) },
      { name: 'aud of the bare public URL', reason: 'token_for_other_url', make: () => craftToken(header(), claims({ aud: PUBLIC_URL }), real()) },
      { name: 'aud missing', make: () => craftToken(header(), without(claims(), 'aud'), real()) },
      {
        name: 'aud as a list without the API',
        reason: 'token_for_other_url',
        make: () => craftToken(header(), claims({ aud: ['https://attacker.example/v1'] }), real()),
      },
      // typ
      { name: 'typ "JWT"', make: () => craftToken(header({ typ: 'JWT' }), claims(), real()) },
      { name: 'typ "at+jwt"', make: () => craftToken(header({ typ: 'at+jwt' }), claims(), real()) },
      { name: 'typ missing', make: () => craftToken(without(header(), 'typ'), claims(), real()) },
      // required claims and their types
      { name: 'jti missing', make: () => craftToken(header(), without(claims(), 'jti'), real()) },
      { name: 'sub missing', make: () => craftToken(header(), without(claims(), 'sub'), real()) },
      { name: 'exp missing', make: () => craftToken(header(), without(claims(), 'exp'), real()) },
      { name: 'org missing', make: () => craftToken(header(), without(claims(), 'org'), real()) },
      { name: 'exp as a string', make: () => craftToken(header(), claims({ exp: String(nowSeconds() + 3600) }), real()) },
      { name: 'sub as a number', make: () => craftToken(header(), claims({ sub: 42 }), real()) },
      { name: 'org as a number', make: () => craftToken(header(), claims({ org: 42 }), real()) },
      { name: 'jti as an object', make: () => craftToken(header(), claims({ jti: { $gt: '' } }), real()) },
      // tampering
      {
        name: 'tampered payload (a claim changed, signature kept)',
        make: async () => {
          const signed = await craftToken(header(), claims(), real());
          const [h, , s] = signed.split('.');
          return `${h}.${b64url(JSON.stringify(claims({ exp: nowSeconds() + 10 * 365 * 86400 })))}.${s}`;
        },
      },
      {
        name: "the victim's real token with its sub changed to the owner's (and a fresh jti)",
        make: async () => {
          const [h, , s] = victim.token.split('.');
          return `${h}.${b64url(JSON.stringify({ ...decodePayload(victim.token), sub: colleague.userId, jti: newId('tok') }))}.${s}`;
        },
      },
      { name: 'tampered signature (one bit flipped)', make: async () => flipSignature(await craftToken(header(), claims(), real())) },
      { name: 'signature of the wrong length', make: async () => `${(await craftToken(header(), claims(), real())).slice(0, -10)}` },
      // what makes the JWT library itself throw
      { name: 'header segment is base64url but not JSON', make: () => craftToken({ raw: 'not json at all' }, claims(), real()) },
      { name: 'header segment is a JSON array', make: () => craftToken(['ES256', kid], claims(), real()) },
      { name: 'header segment is JSON null', make: () => craftToken({ raw: 'null' }, claims(), real()) },
      { name: 'header segment of an invalid base64url length', make: async () => `e.${b64url(JSON.stringify(claims()))}.AAAA` },
      { name: 'payload is a JSON array (validly signed)', make: () => craftToken(header(), [claims()], real()) },
      { name: 'payload is a JSON string (validly signed)', make: () => craftToken(header(), { raw: '"hello"' }, real()) },
      { name: 'payload is not JSON (validly signed)', make: () => craftToken(header(), { raw: '{"sub": ' }, real()) },
      { name: 'payload is empty (validly signed)', make: () => craftToken(header(), { raw: '' }, real()) },
      { name: 'unknown critical header (validly signed)', make: () => craftToken(header({ crit: ['exp'], exp: 1 }), claims(), real()) },
      { name: 'crit that is not an array (validly signed)', make: () => craftToken(header({ crit: 'b64' }), claims(), real()) },
      { name: 'unencoded payload (b64: false, validly signed)', make: () => craftToken(header({ b64: false, crit: ['b64'] }), claims(), real()) },
    ];

    for (const c of cases) {
      it(`${c.name}: 401 ${c.reason ?? 'invalid_token'}`, async () => {
        const token = await c.make();
        const res = await present(token);
        const body = expectUnauthorized(res, c.reason ?? 'invalid_token', token);
        if (c.reason === 'token_for_other_url') expect(body.detail).toMatch(/^The bearer token was issued for another public URL of this service/);
      });
    }
  });

  describe('the token row and the membership are checked on every request', () => {
    it('a revoked token: 401 token_revoked, also right after a successful (cached) use', async () => {
      const caller = await ctx.make.caller({ role: 'viewer' });
      const minted = await ctx.request('POST', '/v1/tokens', { token: caller.token, body: { name: 'second' } });
      expect(minted.statusCode, minted.body).toBe(201);
      const second = minted.json() as { id: string; token: string };
      expect((await me(`Bearer ${second.token}`)).statusCode).toBe(200);
      const revoked = await ctx.request('DELETE', `/v1/tokens/${second.id}`, { token: caller.token });
      expect(revoked.statusCode, revoked.body).toBe(204);
      expectUnauthorized(await me(`Bearer ${second.token}`), 'token_revoked', second.token);
      // The other token of the same user is unaffected.
      expect((await me(`Bearer ${caller.token}`)).statusCode).toBe(200);
    });

    it('a token that revokes itself stops working at once', async () => {
      const caller = await ctx.make.caller();
      expect((await ctx.request('DELETE', `/v1/tokens/${caller.tokenId}`, { token: caller.token })).statusCode).toBe(204);
      expectUnauthorized(await me(`Bearer ${caller.token}`), 'token_revoked', caller.token);
    });

    it("a removed member's token: 401", async () => {
      const caller = await ctx.make.caller({ role: 'admin' });
      expect((await me(`Bearer ${caller.token}`)).statusCode).toBe(200);
      await ctx.database.storage.db
        .deleteFrom('memberships')
        .where('organization_id', '=', caller.organizationId)
        .where('user_id', '=', caller.userId)
        .execute();
      expectUnauthorized(await me(`Bearer ${caller.token}`), 'invalid_token', caller.token);
    });

    it('a token whose row was deleted: 401', async () => {
      const caller = await ctx.make.caller();
      expect((await me(`Bearer ${caller.token}`)).statusCode).toBe(200);
      await ctx.database.storage.db.deleteFrom('personal_access_tokens').where('id', '=', caller.tokenId).execute();
      expectUnauthorized(await me(`Bearer ${caller.token}`), 'invalid_token', caller.token);
    });

    it('a row whose expiry has passed although the JWT has not: 401 token_expired', async () => {
      const caller = await ctx.make.caller();
      await ctx.database.storage.db
        .updateTable('personal_access_tokens')
        .set({ expires_at: Date.now() - 1000 })
        .where('id', '=', caller.tokenId)
        .execute();
      expectUnauthorized(await me(`Bearer ${caller.token}`), 'token_expired', caller.token);
    });

    it("a validly signed token for user A carrying user B's jti: 401 (even when the row's hash matches)", async () => {
      const a = await ctx.make.caller({ role: 'member' });
      const b = await ctx.make.caller({ role: 'owner', organizationId: a.organizationId });
      const forged = await craftToken(header(), claims({ sub: a.userId, org: a.organizationId, jti: b.tokenId }), real());
      expectUnauthorized(await me(`Bearer ${forged}`), 'invalid_token', forged);
      // Make the row recognise the forged string: only the sub/user check stands in the way now.
      await ctx.database.storage.db
        .updateTable('personal_access_tokens')
        .set({ token_hash: tokenHash(forged) })
        .where('id', '=', b.tokenId)
        .execute();
      expectUnauthorized(await me(`Bearer ${forged}`), 'invalid_token', forged);
    });

    it("a validly signed token naming another organization than its row's: 401", async () => {
      const a = await ctx.make.caller({ role: 'member' });
      const other = await ctx.make.org();
      const forged = await craftToken(header(), claims({ sub: a.userId, org: other.id, jti: a.tokenId }), real());
      await ctx.database.storage.db
        .updateTable('personal_access_tokens')
        .set({ token_hash: tokenHash(forged) })
        .where('id', '=', a.tokenId)
        .execute();
      expectUnauthorized(await me(`Bearer ${forged}`), 'invalid_token', forged);
    });

    it('a validly signed token whose jti names no row: 401', async () => {
      const forged = await craftToken(header(), claims(), real());
      expectUnauthorized(await me(`Bearer ${forged}`), 'invalid_token', forged);
    });
  });
});

describeEachDialect(
  'authentication: time moves on while a verified token is cached',
  (ctx) => {
    const clock = ctx as unknown as { clock: ReturnType<typeof manualClock> };
    it('a token that expires is refused at once, not after the cache entry runs out', async () => {
      const caller = await ctx.make.caller({ expiresInDays: 1 });
      expect((await ctx.request('GET', '/v1/me', { token: caller.token })).statusCode).toBe(200);
      clock.clock.advance(86_400_000 + 1000);
      expectUnauthorized(await ctx.request('GET', '/v1/me', { token: caller.token }), 'token_expired', caller.token);
      clock.clock.advance(-(86_400_000 + 1000));
      expect((await ctx.request('GET', '/v1/me', { token: caller.token })).statusCode).toBe(200);
    });

    it('a token used before its nbf (clock behind the issuer) is refused', async () => {
      const caller = await ctx.make.caller();
      clock.clock.advance(-3_600_000);
      try {
        expectUnauthorized(await ctx.request('GET', '/v1/me', { token: caller.token }), 'invalid_token', caller.token);
      } finally {
        clock.clock.advance(3_600_000);
      }
    });
  },
  { clock: manualClock(Date.now()) },
);
