import { performance } from 'node:perf_hooks';
import type { FastifyReply } from 'fastify';
import { RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Clock } from './clock.js';
import { Problem } from './problems.js';
import { WindowCounts } from './window-counts.js';

const WINDOW_MS = 60_000;

/** How long Redis may take to answer before it counts as failed (it answers in well under a millisecond). */
export const REDIS_TIMEOUT_MS = 200;

/** rate-limiter-flexible's atomic, expiring counters in Redis, shared by every instance. */
type Counters = Pick<RateLimiterAbstract, 'penalty' | 'reward' | 'get'>;

// The library's limiters are fixed windows (opened by a key's first hit), so a client can spend the
// limit at the end of one window and again at the start of the next. It has no sliding window or token
// bucket, and its stores only count; so this composes a sliding-window counter from counts per key and
// minute (`decide`): a request is allowed while the previous minute's count, weighted by the share of it
// the last 60 s still cover, plus this minute's count stays within the limit. In Redis, one counter per
// key and minute that lives two minutes, so the previous one is there to weigh (`points` plays no part:
// penalty, reward and get only count); in process, `WindowCounts`, which keeps both counts of a key in
// one entry.
const COUNTER = { points: 1, duration: (2 * WINDOW_MS) / 1000 };

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until more of the limit is available again (on a refusal: until a request is allowed). */
  resetSeconds: number;
}

export type RedisChange = { state: 'down'; error: unknown } | { state: 'up' };

export interface RateLimiterOptions {
  /** Places requests in windows; tests pass a clock they move. */
  clock: Clock;
  /** Counters shared by every instance; without it each process counts for itself. */
  redis?: { url: string; prefix: string; breakerSeconds: number } | null;
  /** Told once when Redis fails (counting moves into the process) and once when it answers again. */
  onRedisChange?: (change: RedisChange) => void;
}

type Route = 'redis' | 'trial' | 'memory';

/**
 * After a Redis failure (an error, or no answer within REDIS_TIMEOUT_MS), Redis is not asked for
 * `ms`, so that no request waits for a Redis that is down; then one request tries it again while the
 * others keep counting in process. Timed with the real clock, as the Redis client's own timeouts and
 * reconnections are.
 */
class Breaker {
  private down = false;
  private trying = false;
  private retryAt = 0;

  constructor(
    private readonly ms: number,
    private readonly onChange: (change: RedisChange) => void,
  ) {}

  route(): Route {
    if (!this.down) return 'redis';
    if (this.trying || performance.now() < this.retryAt) return 'memory';
    this.trying = true;
    return 'trial';
  }

  succeeded(route: Route): void {
    if (route !== 'trial') return;
    this.down = false;
    this.trying = false;
    this.onChange({ state: 'up' });
  }

  failed(route: Route, error: unknown): void {
    // A request that was already waiting on Redis when the breaker opened changes nothing.
    if (route === 'redis' && this.down) return;
    this.retryAt = performance.now() + this.ms;
    this.trying = false;
    if (this.down) return;
    this.down = true;
    this.onChange({ state: 'down', error });
  }
}

interface Shared {
  counters: Counters;
  breaker: Breaker;
  close(): Promise<void>;
}

/**
 * Sliding one-minute windows per key, counted in Redis when configured (and then shared by every
 * instance), in process otherwise. When Redis fails the request is counted in process instead, and
 * so are the requests of the next `breakerSeconds`: an outage of Redis neither takes the API down nor
 * slows it, and limits still hold per instance.
 */
export class RateLimiter {
  /** In process: without Redis, and while it is out. */
  private readonly memory = new WindowCounts();

  private constructor(
    private readonly clock: Clock,
    private readonly shared: Shared | null,
  ) {}

  /** Builds the limiter; the Redis client is loaded and connected only when a Redis URL is given. */
  static async create(options: RateLimiterOptions): Promise<RateLimiter> {
    const { redis } = options;
    if (!redis) return new RateLimiter(options.clock, null);
    const { Redis } = await import('ioredis');
    const client = new Redis(redis.url, {
      // Fail at once while disconnected, and soon when connected but silent; socketTimeout drops such
      // a connection, so that the next one starts clean.
      enableOfflineQueue: false,
      commandTimeout: REDIS_TIMEOUT_MS,
      socketTimeout: REDIS_TIMEOUT_MS,
      connectTimeout: 1_000,
      maxRetriesPerRequest: 0,
      // A timed-out increment was counted in process instead: never replay it on the next connection.
      autoResendUnfulfilledCommands: false,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
      lazyConnect: true,
    });
    client.on('error', () => {}); // failures surface through the commands; never crash the process
    // Start connected, or knowing that Redis is down (the client keeps reconnecting either way): else the
    // first requests would find the connection still opening and be counted in process for nothing.
    await client.connect().catch(() => {});
    const counters = new RateLimiterRedis({ ...COUNTER, storeClient: client, keyPrefix: `${redis.prefix}:rl`, rejectIfRedisNotReady: true });
    const breaker = new Breaker(redis.breakerSeconds * 1000, options.onRedisChange ?? (() => {}));
    const close = async () => {
      await client.quit().catch(() => client.disconnect());
    };
    return new RateLimiter(options.clock, { counters, breaker, close });
  }

  /**
   * Counts one request of `key` against `limit` per minute; a refused request is not counted. Decided at
   * once (no promise) when counted in process; a promise when Redis is asked.
   */
  check(key: string, limit: number): RateDecision | Promise<RateDecision> {
    const now = this.clock.now();
    const window = Math.floor(now / WINDOW_MS);
    const shared = this.shared;
    if (shared !== null) {
      const route = shared.breaker.route();
      if (route !== 'memory') return this.checkShared(shared, route, key, limit, now, window);
    }
    return this.checkHere(key, limit, now, window);
  }

  private checkHere(key: string, limit: number, now: number, window: number): RateDecision {
    const { count, previous } = this.memory.hit(key, window);
    const decision = decide(now, window, limit, count, previous);
    if (!decision.allowed) this.memory.unhit(key, window);
    return decision;
  }

  /** In Redis; in process instead when it fails (the breaker is told). */
  private async checkShared(shared: Shared, route: Route, key: string, limit: number, now: number, window: number): Promise<RateDecision> {
    const current = `${key}:${window}`;
    try {
      const [hit, before] = await Promise.all([shared.counters.penalty(current), shared.counters.get(`${key}:${window - 1}`)]);
      shared.breaker.succeeded(route);
      const decision = decide(now, window, limit, hit.consumedPoints, before?.consumedPoints ?? 0);
      if (!decision.allowed) await shared.counters.reward(current).catch(() => {});
      return decision;
    } catch (error) {
      shared.breaker.failed(route, error);
      return this.checkHere(key, limit, now, window);
    }
  }

  async close(): Promise<void> {
    await this.shared?.close();
  }
}

/**
 * The verdict on a request that made `count` in its window, with `previous` in the window before: allowed
 * while the previous window's count, weighted by the share of it the last 60 s still cover, plus this
 * window's stays within the limit.
 */
function decide(now: number, window: number, limit: number, count: number, previous: number): RateDecision {
  const elapsed = now - window * WINDOW_MS;
  const fading = (previous * (WINDOW_MS - elapsed)) / WINDOW_MS;
  const allowed = fading + count <= limit;
  // A client that keeps knocking while refused gets its limit back as soon as one that waits.
  const counted = allowed ? count : count - 1;
  const remaining = Math.max(0, Math.floor(limit - fading - counted));
  const resetMs = msUntilCountFallsTo(limit - remaining - 1, previous, counted, elapsed);
  return { allowed, limit, remaining, resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)) };
}

/**
 * Milliseconds until the weighted count falls to `target` without new requests: first the previous
 * window's share fades through this one; if this window's own count is above the target, it fades
 * through the next.
 */
function msUntilCountFallsTo(target: number, previous: number, current: number, elapsed: number): number {
  if (current <= target) return previous === 0 ? 0 : Math.max(0, WINDOW_MS - (WINDOW_MS * (target - current)) / previous - elapsed);
  return WINDOW_MS - elapsed + WINDOW_MS - (WINDOW_MS * Math.max(0, target)) / current;
}

/**
 * Sets the RateLimit-* headers (every response; `reply` null: a caller with no HTTP response, the OTLP/gRPC
 * receiver) and throws the 429 problem when the limit is spent.
 */
export function enforce(decision: RateDecision, reply: Pick<FastifyReply, 'header'> | null, what = 'this credential'): void {
  reply?.header('ratelimit-limit', String(decision.limit));
  reply?.header('ratelimit-remaining', String(decision.remaining));
  reply?.header('ratelimit-reset', String(decision.resetSeconds));
  if (!decision.allowed) {
    throw new Problem('rate-limited', {
      detail: `Rate limit of ${decision.limit} requests per minute for ${what} exceeded; retry in ${decision.resetSeconds} s.`,
      headers: { 'retry-after': String(decision.resetSeconds) },
    });
  }
}
