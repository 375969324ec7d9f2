import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import type { App } from '../src/deps.js';
import { REDIS_TIMEOUT_MS } from '../src/lib/rate-limit.js';
import { describeEachDialect, manualClock } from './helpers/harness.js';
import { captureLogs, expectAllowed, expectLimited, expectRateHeaders, rateLimitHelpers } from './helpers/rate-limit.js';
import { REDIS_URL, redisReachable, tcpProxy, type ProxyMode } from './helpers/services.js';

/**
 * Rate limits with REDIS_URL: one sliding window shared by every instance, and a Redis that hangs or
 * refuses connections neither fails requests nor slows them: after the first failure the limiter counts
 * in process for SIGHTLINE_REDIS_BREAKER_SECONDS, says so once in the log, then asks Redis again.
 */

/** Like PostgreSQL in test/helpers/storage.ts: used when reachable, required in CI, skipped otherwise. */
const redisUp = await redisReachable();
if (!redisUp && process.env.CI) throw new Error(`Redis is required in CI but ${REDIS_URL} is not reachable`);

const prefixes: string[] = [];
const newPrefix = () => {
  const prefix = `sl-test-${randomBytes(6).toString('hex')}`;
  prefixes.push(prefix);
  return prefix;
};

afterAll(async () => {
  if (!redisUp) return;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    for (const prefix of prefixes) {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
  } finally {
    redis.disconnect();
  }
});

describeEachDialect(
  'rate limits in Redis: SIGHTLINE_RATE_LIMIT=5',
  (ctx) => {
    const h = rateLimitHelpers(ctx);
    const twoInstances = async () => {
      const prefix = newPrefix();
      const env = { REDIS_URL, SIGHTLINE_REDIS_PREFIX: prefix, SIGHTLINE_RATE_LIMIT: '5' };
      return { prefix, a: await h.extraApp(env), b: await h.extraApp(env) };
    };

    it('one limit for every instance: 3 requests through one and 2 through another spend it; the 6th is 429 on both', { skip: !redisUp }, async () => {
      const { prefix, a, b } = await twoInstances();
      const redis = new Redis(REDIS_URL, { lazyConnect: true });
      try {
        const caller = await ctx.make.caller();
        h.freshWindow();
        const seen: number[] = [];
        for (const app of [a, a, a, b, b]) {
          const res = await h.me(caller.token, app);
          expectAllowed(res, 5, 5 - seen.length - 1);
          seen.push(Number(res.headers['ratelimit-remaining']));
        }
        expect(seen).toEqual([4, 3, 2, 1, 0]);
        expectLimited(await h.me(caller.token, b), 5, 71);
        expectLimited(await h.me(caller.token, a), 5, 71);
        // The in-process limiter of the harness's own app knows nothing of these.
        expect((await h.me(caller.token)).statusCode).toBe(200);
        // The counters live under the configured prefix.
        await redis.connect();
        const keys = await redis.keys(`${prefix}:*`);
        expect(keys.length, keys.join(', ')).toBeGreaterThan(0);
        // Retry-After later, on either instance (a second before, on the other, still 429).
        h.clock().advance(70_000);
        expectLimited(await h.me(caller.token, a), 5, 1);
        h.clock().advance(1_000);
        expectAllowed(await h.me(caller.token, b), 5, 0);
      } finally {
        await Promise.all([a.close(), b.close()]);
        redis.disconnect();
      }
    });

    it(
      'a client that spends the whole limit at the end of a minute cannot spend it again right after the boundary, on any instance',
      { skip: !redisUp },
      async () => {
        const { a, b } = await twoInstances();
        try {
          const caller = await ctx.make.caller();
          h.freshWindow(59_000);
          for (const [i, app] of [a, b, a, b, a].entries()) expectAllowed(await h.me(caller.token, app), 5, 4 - i);
          h.clock().advance(2_000); // one second into the next minute
          for (const app of [a, b, a, b, a]) expectLimited(await h.me(caller.token, app), 5, 11);
          h.clock().advance(11_000);
          expectAllowed(await h.me(caller.token, b), 5, 0);
          expectLimited(await h.me(caller.token, a), 5, 12);
        } finally {
          await Promise.all([a.close(), b.close()]);
        }
      },
    );

    it('Redis unreachable from the start: requests are answered at once and counted in process, the failure logged once', async () => {
      const logs = captureLogs();
      const app = await h.extraApp({ REDIS_URL: 'redis://127.0.0.1:1', SIGHTLINE_REDIS_PREFIX: newPrefix(), SIGHTLINE_RATE_LIMIT: '5' }, logs.logger);
      try {
        const caller = await ctx.make.caller();
        h.freshWindow();
        const started = performance.now();
        expectAllowed(await h.me(caller.token, app), 5, 4);
        expect(performance.now() - started).toBeLessThan(REDIS_TIMEOUT_MS + 300);
        const more = await Promise.all(Array.from({ length: 6 }, () => h.me(caller.token, app)));
        expect(more.map((res) => res.statusCode).sort()).toEqual([200, 200, 200, 200, 429, 429]);
        for (const res of more) if (res.statusCode === 429) expectLimited(res, 5);
        expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
        const failures = logs.matching(/^rate limits: Redis failed/);
        expect(failures).toHaveLength(1);
        expect(failures[0]!.level).toBe(50);
      } finally {
        const closing = performance.now();
        await app.close();
        expect(performance.now() - closing, 'closing the app with Redis down').toBeLessThan(1_000);
      }
    });
  },
  { clock: manualClock(Date.now()), env: { SIGHTLINE_RATE_LIMIT: '5' } },
);

const BREAKER_SECONDS = 2;
const LIMIT = 1000;

describeEachDialect(
  `rate limits when Redis fails behind a proxy: SIGHTLINE_REDIS_BREAKER_SECONDS=${BREAKER_SECONDS}`,
  (ctx) => {
    const h = rateLimitHelpers(ctx);

    /** Sequential GET /v1/me: each status and RateLimit-Remaining, and the median latency. */
    const series = async (app: App, token: string, n: number) => {
      const ms: number[] = [];
      const statuses: number[] = [];
      const remaining: number[] = [];
      for (let i = 0; i < n; i++) {
        const started = performance.now();
        const res = await h.me(token, app);
        ms.push(performance.now() - started);
        statuses.push(res.statusCode);
        remaining.push(Number(res.headers['ratelimit-remaining']));
        expectRateHeaders(res, LIMIT);
      }
      const p50 = ms.sort((x, y) => x - y)[Math.floor(n / 2)]!;
      return { statuses, remaining, p50 };
    };
    const countdown = (from: number, n: number) => Array.from({ length: n }, (_, i) => from - i);

    for (const cut of ['hang', 'refuse'] satisfies ProxyMode[]) {
      const how = cut === 'hang' ? 'hangs (connections stay open, nothing is answered)' : 'refuses connections';
      it(`Redis ${how}: requests stay as fast as before and are counted in process; after the breaker, in Redis again`, { skip: !redisUp }, async () => {
        const proxy = await tcpProxy(REDIS_URL);
        const logs = captureLogs();
        const env = {
          REDIS_URL: proxy.url,
          SIGHTLINE_REDIS_PREFIX: newPrefix(),
          SIGHTLINE_RATE_LIMIT: String(LIMIT),
          SIGHTLINE_REDIS_BREAKER_SECONDS: String(BREAKER_SECONDS),
        };
        const app = await h.extraApp(env, logs.logger);
        const other = await h.extraApp({ ...env, REDIS_URL }); // another instance, straight on Redis
        const failures = () => logs.matching(/^rate limits: Redis failed/);
        const recoveries = () => logs.matching(/^rate limits: Redis answers again/);
        try {
          const caller = await ctx.make.caller();
          h.freshWindow();
          // Redis up: counted in Redis, seen by the other instance.
          const normal = await series(app, caller.token, 25);
          expect(normal.statuses.every((s) => s === 200)).toBe(true);
          expect(normal.remaining).toEqual(countdown(LIMIT - 1, 25));
          expectAllowed(await h.me(caller.token, other), LIMIT, LIMIT - 26);

          await proxy.set(cut);
          const started = performance.now();
          // The first request finds out (at most the Redis timeout) and is counted in process.
          expectAllowed(await h.me(caller.token, app), LIMIT, LIMIT - 1);
          const openedAt = performance.now();
          expect(openedAt - started).toBeLessThan(REDIS_TIMEOUT_MS + 300);
          const down = await series(app, caller.token, 30);
          console.log(`[${ctx.dialect}] Redis ${cut}: GET /v1/me p50 ${normal.p50.toFixed(2)} ms with Redis, ${down.p50.toFixed(2)} ms without`);
          expect(down.statuses.every((s) => s === 200)).toBe(true);
          expect(down.remaining).toEqual(countdown(LIMIT - 2, 30));
          expect(down.p50).toBeLessThanOrEqual(normal.p50 + 5);
          expect(failures()).toHaveLength(1);
          expect(failures()[0]!.level).toBe(50);
          expect(recoveries()).toHaveLength(0);

          await proxy.set('pass');
          const restoredAt = performance.now();
          expect(restoredAt - openedAt, 'the test reached the restore before the breaker elapsed').toBeLessThan(BREAKER_SECONDS * 1000 - 500);
          // Redis is back, but the breaker is still open: counted in process; nothing reached Redis.
          expectAllowed(await h.me(caller.token, app), LIMIT, LIMIT - 32);
          expectAllowed(await h.me(caller.token, other), LIMIT, LIMIT - 27);

          // After the breaker (and the client's reconnection, at most a second apart): in Redis again.
          await sleep(Math.max(openedAt + BREAKER_SECONDS * 1000, restoredAt + 1_500) + 100 - performance.now());
          expectAllowed(await h.me(caller.token, app), LIMIT, LIMIT - 28);
          expectAllowed(await h.me(caller.token, other), LIMIT, LIMIT - 29);
          expect(failures()).toHaveLength(1);
          expect(recoveries()).toHaveLength(1);
        } finally {
          await Promise.all([app.close(), other.close()]);
          await proxy.close();
        }
      });
    }
  },
  { clock: manualClock(Date.now()) },
);
