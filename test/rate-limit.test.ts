import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { App } from '../src/deps.js';
import { describeEachDialect, expectProblem, manualClock, testConfig, type TestContext } from './helpers/harness.js';
import { REDIS_URL, redisReachable } from './helpers/services.js';

/**
 * Rate limits (api.md 2 and 6): RateLimit-* headers on every response but health checks, a 429
 * `rate-limited` problem with Retry-After per token, per client address when unauthenticated, a
 * stricter per-user limit on minting, one-minute windows, a limit shared through Redis, and a limiter
 * that fails open when Redis is down.
 */

/** Like PostgreSQL in test/helpers/storage.ts: used when reachable, required in CI, skipped otherwise. */
const redisUp = await redisReachable();
if (!redisUp && process.env.CI) throw new Error(`Redis is required in CI but ${REDIS_URL} is not reachable`);

type ManualClock = ReturnType<typeof manualClock>;
const GARBAGE = () => `Bearer ${randomBytes(12).toString('base64url')}.${randomBytes(20).toString('base64url')}.${randomBytes(32).toString('base64url')}`;

function expectRateHeaders(res: LightMyRequestResponse, limit: number, remaining?: number, reset?: number): void {
  const summary = `${res.statusCode} ${JSON.stringify(res.headers)}`;
  expect(res.headers['ratelimit-limit'], summary).toBe(String(limit));
  expect(String(res.headers['ratelimit-remaining']), summary).toMatch(/^\d+$/);
  expect(String(res.headers['ratelimit-reset']), summary).toMatch(/^\d+$/);
  const left = Number(res.headers['ratelimit-remaining']);
  const resetIn = Number(res.headers['ratelimit-reset']);
  expect(left, summary).toBeLessThanOrEqual(limit);
  expect(resetIn, summary).toBeGreaterThanOrEqual(1);
  expect(resetIn, summary).toBeLessThanOrEqual(60);
  if (remaining !== undefined) expect(left, summary).toBe(remaining);
  if (reset !== undefined) expect(resetIn, summary).toBe(reset);
}

function expectNoRateHeaders(res: LightMyRequestResponse): void {
  for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after']) expect(res.headers[name], name).toBeUndefined();
}

/** The 429 problem: type rate-limited, Retry-After in whole seconds, nothing left. */
function expectLimited(res: LightMyRequestResponse, limit: number, retryAfter?: number): void {
  const body = expectProblem(res, 429, 'rate-limited');
  expect(body.title).toBe('Too many requests');
  expect(String(res.headers['retry-after']), res.body).toMatch(/^[1-9]\d*$/);
  if (retryAfter !== undefined) expect(Number(res.headers['retry-after'])).toBe(retryAfter);
  expect(res.headers['ratelimit-remaining']).toBe('0');
  expect(res.headers['ratelimit-limit']).toBe(String(limit));
  expect(res.headers['ratelimit-reset']).toBe(res.headers['retry-after']);
}

function helpers(ctx: TestContext) {
  const clock = () => ctx.clock as ManualClock;
  /** Moves the manual clock to `offset` ms into the next one-minute window, so every test starts afresh. */
  const freshWindow = (offset = 1_000) => clock().set(Math.floor(clock().now() / 60_000) * 60_000 + 60_000 + offset);
  const inject = (app: App, method: 'GET' | 'POST', url: string, authorization?: string, body?: unknown) =>
    app.inject({
      method,
      url,
      headers: { ...(authorization ? { authorization } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
  const me = (token: string, app: App = ctx.app) => inject(app, 'GET', '/v1/me', `Bearer ${token}`);
  const extraApp = async (env: Record<string, string>): Promise<App> => {
    const app = await buildApp({ config: testConfig(env), storage: ctx.database.storage, clock: ctx.clock });
    await app.ready();
    return app;
  };
  return { clock, freshWindow, inject, me, extraApp };
}

describeEachDialect('rate limits: headers on every response', (ctx) => {
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
}, { clock: manualClock(Date.now()) });

describeEachDialect(
  'rate limits: SIGHTLINE_RATE_LIMIT=5, SIGHTLINE_TOKEN_MINT_RATE_LIMIT=3',
  (ctx) => {
    const h = helpers(ctx);

    it('the 6th request of a token in a window: 429 rate-limited with Retry-After; the next window starts afresh', async () => {
      const caller = await ctx.make.caller();
      h.freshWindow(1_000);
      for (let i = 1; i <= 5; i++) {
        const res = await h.me(caller.token);
        expect(res.statusCode, `request ${i}: ${res.body}`).toBe(200);
        expectRateHeaders(res, 5, 5 - i, 59);
      }
      const sixth = await h.me(caller.token);
      expectLimited(sixth, 5, 59);
      expect(String(sixth.json().detail)).toMatch(/5 requests per minute/);
      // Other routes are limited by the same credential.
      expectLimited(await ctx.request('GET', '/v1/tokens', { token: caller.token }), 5);

      // Still the same window a second before its end.
      h.clock().advance(58_000);
      expectLimited(await h.me(caller.token), 5, 1);
      // The next window.
      h.clock().advance(1_000);
      const again = await h.me(caller.token);
      expect(again.statusCode, again.body).toBe(200);
      expectRateHeaders(again, 5, 4, 60);
    });

    it('another token of the same user is counted separately', async () => {
      const caller = await ctx.make.caller();
      h.freshWindow();
      const minted = await ctx.request('POST', '/v1/tokens', { token: caller.token, body: { name: 'second' } });
      expect(minted.statusCode, minted.body).toBe(201);
      // Two policies apply to a mint; the headers report the one closest to exhaustion (mint: 2 of 3 left).
      expectRateHeaders(minted, 3, 2);
      const second = (minted.json() as { token: string }).token;
      for (let i = 0; i < 4; i++) expect((await h.me(caller.token)).statusCode).toBe(200);
      expectLimited(await h.me(caller.token), 5);
      const other = await h.me(second);
      expect(other.statusCode, other.body).toBe(200);
      expectRateHeaders(other, 5, 4);
    });

    it('failed requests are limited per client address: the 6th bad token gets 429 instead of 401; a valid token is unaffected', async () => {
      const caller = await ctx.make.caller();
      h.freshWindow(30_000);
      for (let i = 1; i <= 5; i++) {
        const res = await h.inject(ctx.app, 'GET', '/v1/me', GARBAGE());
        expectProblem(res, 401, 'unauthorized');
        expectRateHeaders(res, 5, 5 - i, 30);
      }
      const sixth = await h.inject(ctx.app, 'GET', '/v1/me', GARBAGE());
      expectLimited(sixth, 5, 30);
      // No header at all counts against the address as well.
      expectLimited(await h.inject(ctx.app, 'GET', '/v1/me'), 5);
      // So do the unauthenticated routes other than the health checks.
      expectLimited(await ctx.request('GET', '/openapi.json'), 5);
      // A valid token is limited by itself, not by its address.
      const ok = await h.me(caller.token);
      expect(ok.statusCode, ok.body).toBe(200);
      expectRateHeaders(ok, 5, 4);
      // Health checks are never limited.
      for (let i = 0; i < 10; i++) {
        for (const url of ['/healthz', '/readyz']) {
          const res = await ctx.request('GET', url);
          expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
          expectNoRateHeaders(res);
        }
      }
      // The next window: 401 again.
      h.clock().advance(30_000);
      const later = await h.inject(ctx.app, 'GET', '/v1/me', GARBAGE());
      expectProblem(later, 401, 'unauthorized');
      expectRateHeaders(later, 5, 4);
    });

    it('health checks do not use up the address budget', async () => {
      h.freshWindow();
      for (let i = 0; i < 12; i++) expect((await ctx.request('GET', '/healthz')).statusCode).toBe(200);
      const res = await ctx.request('GET', '/openapi.json');
      expect(res.statusCode).toBe(200);
      expectRateHeaders(res, 5, 4);
    });

    it('minting: the 4th creation or rotation of a user in a minute is 429, while other requests still work', async () => {
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

      const fourth = await mint(tokenD.token, 'e');
      expectProblem(fourth, 429, 'rate-limited');
      expect(String(fourth.headers['retry-after'])).toMatch(/^[1-9]\d*$/);
      expect(String(fourth.json().detail)).toMatch(/\b3 requests per minute\b/);
      const fourthRotation = await ctx.request('POST', `/v1/tokens/${tokenB.id}/rotate`, { token: caller.token });
      expectProblem(fourthRotation, 429, 'rate-limited');

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

      // A minute later the user may mint again.
      h.clock().advance(60_000);
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
      expectRateHeaders(minted, 5, 0);
      expectLimited(await h.me(caller.token), 5);
    });

    it('the limit is kept in Redis when configured: 3 requests through one instance and 3 through another → the 6th is 429', { skip: !redisUp }, async () => {
      const prefix = `sl-test-${randomBytes(6).toString('hex')}`;
      const env = { REDIS_URL, SIGHTLINE_REDIS_PREFIX: prefix, SIGHTLINE_RATE_LIMIT: '5' };
      const a = await h.extraApp(env);
      const b = await h.extraApp(env);
      const redis = new Redis(REDIS_URL, { lazyConnect: true });
      try {
        const caller = await ctx.make.caller();
        h.freshWindow();
        const seen: number[] = [];
        for (const app of [a, a, a, b, b]) {
          const res = await h.me(caller.token, app);
          expect(res.statusCode, res.body).toBe(200);
          expectRateHeaders(res, 5);
          seen.push(Number(res.headers['ratelimit-remaining']));
        }
        expect(seen).toEqual([4, 3, 2, 1, 0]);
        expectLimited(await h.me(caller.token, b), 5);
        expectLimited(await h.me(caller.token, a), 5);
        // The in-process limiter of the harness's own app knows nothing of these.
        expect((await h.me(caller.token)).statusCode).toBe(200);
        // The counters live under the configured prefix.
        await redis.connect();
        const keys = await redis.keys(`${prefix}:*`);
        expect(keys.length, keys.join(', ')).toBeGreaterThan(0);
        // The next window, on both instances.
        h.clock().advance(60_000);
        expect((await h.me(caller.token, b)).statusCode).toBe(200);
      } finally {
        await a.close();
        await b.close();
        if (redis.status === 'ready') {
          const keys = await redis.keys(`${prefix}:*`);
          if (keys.length > 0) await redis.del(...keys);
        }
        redis.disconnect();
      }
    });

    it('with Redis configured but unreachable the limiter fails open: requests still succeed, promptly', async () => {
      const app = await h.extraApp({ REDIS_URL: 'redis://127.0.0.1:1', SIGHTLINE_REDIS_PREFIX: `sl-test-${randomBytes(4).toString('hex')}`, SIGHTLINE_RATE_LIMIT: '5' });
      try {
        const caller = await ctx.make.caller();
        h.freshWindow();
        const started = Date.now();
        const first = await h.me(caller.token, app);
        expect(first.statusCode, first.body).toBe(200);
        expectRateHeaders(first, 5);
        expect(Date.now() - started).toBeLessThan(3_000);
        // Beyond the limit too: nothing is counted while the store is down.
        const more = await Promise.all(Array.from({ length: 6 }, () => h.me(caller.token, app)));
        for (const res of more) expect(res.statusCode, res.body).toBe(200);
        const health = await app.inject({ method: 'GET', url: '/healthz' });
        expect(health.statusCode).toBe(200);
        expect(Date.now() - started).toBeLessThan(6_000);
      } finally {
        const closing = Date.now();
        await app.close();
        expect(Date.now() - closing, 'closing the app with Redis down').toBeLessThan(5_000);
      }
    });
  },
  { clock: manualClock(Date.now()), env: { SIGHTLINE_RATE_LIMIT: '5', SIGHTLINE_TOKEN_MINT_RATE_LIMIT: '3' } },
);
