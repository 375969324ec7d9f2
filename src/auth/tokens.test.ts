/**
 * The access hook's verification of bearer tokens (docs/tokens-and-access.md) on GET /v1/me: valid
 * tokens, the header, the token row and membership on every request, time. Forged tokens: tokens.forged.test.ts.
 */
import { ROLE_SCOPES } from './roles.js';
import { describe, expect, it } from 'vitest';
import { describeEachDialect, manualClock } from '../../test/helpers/harness.js';
import { craftToken, decodePayload, expectUnauthorized, nowSeconds, tokenHash } from '../../test/helpers/auth.js';
import { describeAttacks } from './tokens.test-support.js';

describeAttacks((ctx, { me, claims, header, real, present, mintLikeTheService }, k) => {
  it('answers a valid token with the user, organization, role and token', async () => {
    const res = await me(`Bearer ${k.victim.token}`);
    expect(res.statusCode, res.body).toBe(200);
    const row = await ctx.database.storage.db.selectFrom('personal_access_tokens').selectAll().where('id', '=', k.victim.tokenId).executeTakeFirstOrThrow();
    const body = res.json();
    expect(body).toEqual({
      user: { id: k.victim.userId, email: expect.stringMatching(/@example\.test$/), name: 'Test User', createdAt: expect.stringMatching(/Z$/) },
      organization: { id: k.victim.organizationId, name: expect.any(String), plan: 'enterprise', createdAt: expect.stringMatching(/Z$/) },
      role: 'member',
      // Not narrowed: every scope of its role.
      scopes: [...ROLE_SCOPES.member],
      token: { kind: 'personal_access_token', id: k.victim.tokenId, expiresAt: new Date(Number(row.expires_at)).toISOString(), scopes: null, projectIds: null },
    });
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  it('accepts a hand-crafted token with the service key and a matching row (control for the forgeries below)', async () => {
    const token = await craftToken(header(), claims(), real());
    const res = await present(token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().token.id).toBe(decodePayload(token)!.jti);
  });

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
      const res = await me(undefined, `/v1/me?access_token=${k.victim.token}`);
      expectUnauthorized(res, 'missing_token', k.victim.token);
    });

    const invalid: [string, () => string][] = [
      ['"Bearer" with no token', () => 'Bearer'],
      ['"Bearer " with an empty token', () => 'Bearer '],
      ['Basic credentials', () => `Basic ${Buffer.from('user:password').toString('base64')}`],
      ['the "Token" scheme with a valid token', () => `Token ${k.victim.token}`],
      ['a valid token without a scheme', () => k.victim.token],
      ['"Bearer:" glued to the token', () => `Bearer:${k.victim.token}`],
      ['a tab instead of a space', () => `Bearer\t${k.victim.token}`],
      ['trailing junk after the token', () => `Bearer ${k.victim.token} extra`],
      ['two bearer credentials', () => `Bearer ${k.victim.token}, Bearer ${k.victim.token}`],
      ['garbage', () => 'Bearer not-a-jwt'],
      ['garbage with dots', () => 'Bearer a.b.c'],
      ['four segments', () => `Bearer ${k.victim.token}.AAAA`],
      ['two segments', () => `Bearer ${k.victim.token.split('.').slice(0, 2).join('.')}`],
      ['non-base64url characters', () => `Bearer ${k.victim.token.replace(/\./, '.+/=')}`],
      ['a 10 KB token', () => `Bearer ${'a'.repeat(10 * 1024)}`],
      ['a 10 KB three-segment token', () => `Bearer ${'eyJh'.repeat(850)}.${'eyJh'.repeat(850)}.${'A'.repeat(3400)}`],
      ['the valid token with one byte more', () => `Bearer ${k.victim.token}A`],
    ];
    for (const [name, authorization] of invalid) {
      it(`${name}: 401 invalid_token`, async () => {
        expectUnauthorized(await me(authorization()), 'invalid_token', k.victim.token);
      });
    }

    it('the scheme is case-insensitive (RFC 6750 / RFC 9110): "bearer" and "BEARER" work', async () => {
      for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
        const res = await me(`${scheme} ${k.victim.token}`);
        expect(res.statusCode, `${scheme}: ${res.body}`).toBe(200);
        expect(res.json().user.id).toBe(k.victim.userId);
      }
    });

    it('more than one space after the scheme works (RFC 6750: "Bearer" 1*SP b64token)', async () => {
      const res = await me(`Bearer  ${k.victim.token}`);
      expect(res.statusCode, res.body).toBe(200);
    });
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
