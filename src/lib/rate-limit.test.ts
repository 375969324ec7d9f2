import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem, manualClock } from '../../test/helpers/harness.js';
import { expectAllowed, expectLimited, expectNoRateHeaders, expectRateHeaders, garbageToken, rateLimitHelpers } from '../../test/helpers/rate-limit.js';

/**
 * Rate limits counted in process (docs/api.md, Rate limits): RateLimit-* headers on every response but health
 * checks, a 429 `rate-limited` problem with Retry-After per token, per client address when
 * unauthenticated, a stricter per-user limit on minting, and sliding one-minute windows: a spent limit
 * comes back gradually, never all at once at a minute boundary. Redis: rate-limit.redis.test.ts.
 *
 * With a limit of 5, a request weighs fully through the minute it was made in and fades out through the
 * next; so 5 requests at 0:59 leave room for the next one at 1:12 (5 × 48/60 + 1 = 5), then one every 12 s.
 */

describeEachDialect(
  'rate limits: headers on every response',
  (ctx) => {
    const LIMIT = 10_000_000; // testConfig's

    it('a /v1 200, a /v1 404 problem, a 401 problem, an unknown route and /openapi.json carry RateLimit-* headers', async () => {
      const caller = await ctx.make.caller();
      const ok = await ctx.request('GET', '/v1/me', { token: caller.token });
      expect(ok.statusCode, ok.body).toBe(200);
      expectRateHeaders(ok, LIMIT, LIMIT - 1);
      const second = await ctx.request('GET', '/v1/me', { token: caller.token });
      expectRateHeaders(second, LIMIT, LIMIT - 2);

      const missing = await ctx.request('GET', '/v1/projects/prj_01jd0000000000000000000000', { token: caller.token });
      expectProblem(missing, 404, 'not-found');
      expectRateHeaders(missing, LIMIT, LIMIT - 3);

      const noRoute = await ctx.request('GET', '/v1/no-such-thing', { token: caller.token });
      expectProblem(noRoute, 404, 'not-found');
      expectRateHeaders(noRoute, LIMIT);

      const outside = await ctx.request('GET', '/nothing-here');
      expectProblem(outside, 404, 'not-found');
      expectRateHeaders(outside, LIMIT);

      const unauthorized = await ctx.request('GET', '/v1/me', { token: 'not.a.token' });
      expectProblem(unauthorized, 401, 'unauthorized');
      expectRateHeaders(unauthorized, LIMIT);

      const openapi = await ctx.request('GET', '/openapi.json');
      expect(openapi.statusCode).toBe(200);
      expectRateHeaders(openapi, LIMIT);
    });

    it('/healthz and /readyz carry no RateLimit-* headers', async () => {
      for (const url of ['/healthz', '/readyz']) {
        const res = await ctx.request('GET', url);
        expect(res.statusCode, res.body).toBe(200);
        expectNoRateHeaders(res);
      }
    });
  },
  { clock: manualClock(Date.now()) },
);

describeEachDialect(
  'rate limits: SIGHTLINE_RATE_LIMIT=5, SIGHTLINE_TOKEN_MINT_RATE_LIMIT=3',
  (ctx) => {
    const h = rateLimitHelpers(ctx);

    it('the 6th request of a token within a minute: 429 rate-limited with Retry-After; the limit comes back gradually, not at the minute boundary', async () => {
      const caller = await ctx.make.caller();
      h.freshWindow(1_000);
      // Reset: when the next unit comes back (the i requests made at 0:01 fade out through the next minute).
      const resets = [119, 89, 79, 74, 71];
      for (let i = 1; i <= 5; i++) expectAllowed(await h.me(caller.token), 5, 5 - i, resets[i - 1]);
      expectLimited(await h.me(caller.token), 5, 71);
      // Other routes are limited by the same credential.
      expectLimited(await ctx.request('GET', '/v1/tokens', { token: caller.token }), 5, 71);

      h.clock().advance(58_000); // 0:59
      expectLimited(await h.me(caller.token), 5, 13);
      h.clock().advance(1_000); // 1:00: a new minute, but the last one still weighs fully
      expectLimited(await h.me(caller.token), 5, 12);
      h.clock().advance(11_000); // 1:11
      expectLimited(await h.me(caller.token), 5, 1);
      h.clock().advance(1_000); // 1:12, as Retry-After said: 5 × 48/60 + 1 = 5
      expectAllowed(await h.me(caller.token), 5, 0, 12);
      // Refused requests were not counted: the next one is due 12 s later, as for a client that waited.
      expectLimited(await h.me(caller.token), 5, 12);
    });

    it('a client that spends the whole limit at the end of a minute cannot spend it again right after the boundary', async () => {
      const caller = await ctx.make.caller();
      h.freshWindow(59_000);
      for (let i = 1; i <= 5; i++) expectAllowed(await h.me(caller.token), 5, 5 - i);
      h.clock().advance(2_000); // one second into the next minute, where a fixed window would start afresh
      for (let i = 0; i < 5; i++) expectLimited(await h.me(caller.token), 5, 11);
      h.clock().advance(10_000);
      expectLimited(await h.me(caller.token), 5, 1);
      h.clock().advance(1_000);
      expectAllowed(await h.me(caller.token), 5, 0);
      expectLimited(await h.me(caller.token), 5, 12);
    });

    it('another token of the same user is counted separately', async () => {
      const caller = await ctx.make.caller();
      h.freshWindow();
      const minted = await ctx.request('POST', '/v1/tokens', { token: caller.token, body: { name: 'second' } });
      expect(minted.statusCode, minted.body).toBe(201);
      // Two policies apply to a mint; the headers report the one closest to exhaustion (mint: 2 of 3 left).
      expectRateHeaders(minted, 3, 2, 119);
      const second = (minted.json() as { token: string }).token;
      for (let i = 0; i < 4; i++) expect((await h.me(caller.token)).statusCode).toBe(200);
      expectLimited(await h.me(caller.token), 5, 71);
      expectAllowed(await h.me(second), 5, 4, 119);
    });

    it('failed requests are limited per client address: the 6th bad token gets 429 instead of 401; a valid token is unaffected', async () => {
      const caller = await ctx.make.caller();
      h.freshWindow(30_000);
      const resets = [90, 60, 50, 45, 42];
      for (let i = 1; i <= 5; i++) {
        const res = await h.inject(ctx.app, 'GET', '/v1/me', garbageToken());
        expectProblem(res, 401, 'unauthorized');
        expectRateHeaders(res, 5, 5 - i, resets[i - 1]);
      }
      const sixth = await h.inject(ctx.app, 'GET', '/v1/me', garbageToken());
      expectLimited(sixth, 5, 42);
      expect(String(sixth.json().detail)).toMatch(/for this client address/);
      // No header at all counts against the address as well.
      expectLimited(await h.inject(ctx.app, 'GET', '/v1/me'), 5, 42);
      // So do the unauthenticated routes other than the health checks.
      expectLimited(await ctx.request('GET', '/openapi.json'), 5, 42);
      // A valid token is limited by itself, not by its address.
      expectAllowed(await h.me(caller.token), 5, 4);
      // Health checks are never limited.
      for (let i = 0; i < 10; i++) {
        for (const url of ['/healthz', '/readyz']) {
          const res = await ctx.request('GET', url);
          expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
          expectNoRateHeaders(res);
        }
      }
      // Retry-After later (a second before, still 429): 401 again.
      h.clock().advance(41_000);
      expectLimited(await h.inject(ctx.app, 'GET', '/v1/me', garbageToken()), 5, 1);
      h.clock().advance(1_000);
      const later = await h.inject(ctx.app, 'GET', '/v1/me', garbageToken());
      expectProblem(later, 401, 'unauthorized');
      expectRateHeaders(later, 5, 0, 12);
    });

    it('health checks do not use up the address budget', async () => {
      h.freshWindow();
      for (let i = 0; i < 12; i++) expect((await ctx.request('GET', '/healthz')).statusCode).toBe(200);
      expectAllowed(await ctx.request('GET', '/openapi.json'), 5, 4);
    });

    it('minting: the 4th creation or rotation of a user within a minute is 429, while other requests still work', async () => {
      const caller = await ctx.make.caller({ role: 'member' });
      const colleague = await ctx.make.caller({ role: 'member', organizationId: caller.organizationId });
      h.freshWindow();
      const mint = (token: string, name: string) => ctx.request('POST', '/v1/tokens', { token, body: { name } });
      const b = await mint(caller.token, 'b');
      expect(b.statusCode, b.body).toBe(201);
      const c = await mint(caller.token, 'c');
      expect(c.statusCode, c.body).toBe(201);
      const tokenB = b.json() as { id: string; token: string };
      const tokenC = c.json() as { id: string; token: string };
      // The third mint, a rotation with another of the user's tokens: the limit is per user.
      const rotated = await ctx.request('POST', `/v1/tokens/${tokenC.id}/rotate`, { token: tokenB.token });
      expect(rotated.statusCode, rotated.body).toBe(201);
      const tokenD = rotated.json() as { id: string; token: string };

      // 3 mints at 0:01 leave room for the next at 1:20 (3 × 40/60 + 1 = 3).
      const fourth = await mint(tokenD.token, 'e');
      expectLimited(fourth, 3, 79);
      expect(String(fourth.json().detail)).toMatch(/\b3 requests per minute for minting tokens\b/);
      expectLimited(await ctx.request('POST', `/v1/tokens/${tokenB.id}/rotate`, { token: caller.token }), 3, 79);

      // Nothing was minted or rotated by the refused requests.
      const list = await ctx.request('GET', '/v1/tokens', { token: caller.token });
      expect(list.statusCode, list.body).toBe(200);
      const items = (list.json() as { items: { id: string; revokedAt: string | null }[] }).items;
      expect(items.map((t) => t.id).sort()).toEqual([caller.tokenId, tokenB.id, tokenC.id, tokenD.id].sort());
      expect(items.find((t) => t.id === tokenB.id)!.revokedAt).toBeNull();

      // Other requests of the user still work; another user of the organization may still mint.
      expect((await h.me(caller.token)).statusCode).toBe(200);
      expect((await h.me(tokenB.token)).statusCode).toBe(200);
      const theirs = await mint(colleague.token, 'theirs');
      expect(theirs.statusCode, theirs.body).toBe(201);

      // Retry-After later the user may mint again; a second before, not yet.
      h.clock().advance(78_000);
      expectLimited(await mint(tokenD.token, 'e'), 3, 1);
      h.clock().advance(1_000);
      const next = await mint(tokenD.token, 'e');
      expect(next.statusCode, next.body).toBe(201);
    });

    it('on a mint the headers report the policy closest to exhaustion: RateLimit-Remaining never promises a request that then gets 429', async () => {
      const caller = await ctx.make.caller();
      h.freshWindow();
      for (let i = 0; i < 4; i++) expect((await h.me(caller.token)).statusCode).toBe(200);
      // The 5th request of the credential (0 left) is its 1st mint (2 of 3 left): 0 is what the client must see.
      const minted = await ctx.request('POST', '/v1/tokens', { token: caller.token, body: { name: 'last' } });
      expect(minted.statusCode, minted.body).toBe(201);
      expectRateHeaders(minted, 5, 0, 71);
      expectLimited(await h.me(caller.token), 5, 71);
    });
  },
  { clock: manualClock(Date.now()), env: { SIGHTLINE_RATE_LIMIT: '5', SIGHTLINE_TOKEN_MINT_RATE_LIMIT: '3' } },
);
