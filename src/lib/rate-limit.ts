import type { Redis } from 'ioredis';
import type { FastifyReply } from 'fastify';
import type { Clock } from './clock.js';
import { Problem } from './problems.js';

/** One counter hit: the count in the current window and when that window ends. */
export interface WindowCount {
  count: number;
  resetAt: number;
}

/** Where counters live: in process, or in Redis so that every instance shares them. */
export interface RateLimitStore {
  hit(key: string, windowStart: number, windowMs: number): Promise<WindowCount>;
  close(): Promise<void>;
}

export class MemoryStore implements RateLimitStore {
  private readonly counters = new Map<string, WindowCount>();

  async hit(key: string, windowStart: number, windowMs: number): Promise<WindowCount> {
    const resetAt = windowStart + windowMs;
    const current = this.counters.get(key);
    if (current && current.resetAt === resetAt) {
      current.count += 1;
      return { ...current };
    }
    if (this.counters.size >= 100_000) {
      for (const [k, v] of this.counters) if (v.resetAt <= windowStart) this.counters.delete(k);
      if (this.counters.size >= 100_000) this.counters.clear();
    }
    const fresh = { count: 1, resetAt };
    this.counters.set(key, fresh);
    return { ...fresh };
  }

  async close(): Promise<void> {
    this.counters.clear();
  }
}

// INCR and set the expiry on the first hit, atomically.
const HIT_SCRIPT = `local c = redis.call('INCR', KEYS[1]) if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return c`;

export class RedisStore implements RateLimitStore {
  private constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** Connects to Redis; the client library is loaded only when a Redis URL is configured. */
  static async connect(url: string, prefix: string): Promise<RedisStore> {
    const { Redis: RedisClient } = await import('ioredis');
    const redis = new RedisClient(url, { enableOfflineQueue: true, maxRetriesPerRequest: 1, commandTimeout: 500 });
    redis.on('error', () => {}); // reported through failed hits; never crash the process
    return new RedisStore(redis, prefix);
  }

  async hit(key: string, windowStart: number, windowMs: number): Promise<WindowCount> {
    const count = (await this.redis.eval(HIT_SCRIPT, 1, `${this.prefix}:rl:${key}:${windowStart}`, String(windowMs + 1000))) as number;
    return { count, resetAt: windowStart + windowMs };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * Fixed one-minute windows per key. When the shared store fails the request is allowed (and the
 * failure logged): an outage of Redis must not take the API down with it.
 */
export class RateLimiter {
  private lastFailureLog = 0;

  constructor(
    private readonly store: RateLimitStore,
    private readonly clock: Clock,
    private readonly onStoreError: (error: unknown) => void = () => {},
  ) {}

  async check(key: string, limit: number, windowMs = 60_000): Promise<RateDecision> {
    const now = this.clock.now();
    const windowStart = Math.floor(now / windowMs) * windowMs;
    try {
      const { count, resetAt } = await this.store.hit(key, windowStart, windowMs);
      return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)) };
    } catch (error) {
      if (now - this.lastFailureLog > 60_000) {
        this.lastFailureLog = now;
        this.onStoreError(error);
      }
      return { allowed: true, limit, remaining: limit, resetSeconds: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)) };
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/** Sets the RateLimit-* headers (every response) and throws the 429 problem when the limit is spent. */
export function enforce(decision: RateDecision, reply: FastifyReply, what = 'this credential'): void {
  reply.header('ratelimit-limit', String(decision.limit));
  reply.header('ratelimit-remaining', String(decision.remaining));
  reply.header('ratelimit-reset', String(decision.resetSeconds));
  if (!decision.allowed) {
    throw new Problem('rate-limited', {
      detail: `Rate limit of ${decision.limit} requests per minute for ${what} exceeded; retry in ${decision.resetSeconds} s.`,
      headers: { 'retry-after': String(decision.resetSeconds) },
    });
  }
}
