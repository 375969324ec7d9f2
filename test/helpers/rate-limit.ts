import { randomBytes } from 'node:crypto';
import type { FastifyServerOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { App } from '../../src/deps.js';
import { expectProblem, manualClock, testConfig, type TestContext } from './harness.js';

/** Assertions and moves shared by the rate-limit suites (in process, and with Redis). */

export const WINDOW_MS = 60_000;

type ManualClock = ReturnType<typeof manualClock>;

export const garbageToken = () =>
  `Bearer ${randomBytes(12).toString('base64url')}.${randomBytes(20).toString('base64url')}.${randomBytes(32).toString('base64url')}`;

/**
 * RateLimit-* headers as documented: whole numbers, Remaining within the limit, Reset at least 1 s and
 * at most two windows (a request is weighed through the minute it was made in and the next one).
 */
export function expectRateHeaders(res: LightMyRequestResponse, limit: number, remaining?: number, reset?: number): void {
  const summary = `${res.statusCode} ${JSON.stringify(res.headers)}`;
  expect(res.headers['ratelimit-limit'], summary).toBe(String(limit));
  expect(String(res.headers['ratelimit-remaining']), summary).toMatch(/^\d+$/);
  expect(String(res.headers['ratelimit-reset']), summary).toMatch(/^\d+$/);
  const left = Number(res.headers['ratelimit-remaining']);
  const resetIn = Number(res.headers['ratelimit-reset']);
  expect(left, summary).toBeLessThanOrEqual(limit);
  expect(resetIn, summary).toBeGreaterThanOrEqual(1);
  expect(resetIn, summary).toBeLessThanOrEqual((2 * WINDOW_MS) / 1000);
  if (remaining !== undefined) expect(left, summary).toBe(remaining);
  if (reset !== undefined) expect(resetIn, summary).toBe(reset);
}

export function expectNoRateHeaders(res: LightMyRequestResponse): void {
  for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after']) expect(res.headers[name], name).toBeUndefined();
}

/** The 429 problem: type rate-limited, its detail, Retry-After in whole seconds (= RateLimit-Reset), nothing left. */
export function expectLimited(res: LightMyRequestResponse, limit: number, retryAfter?: number): void {
  const body = expectProblem(res, 429, 'rate-limited');
  expect(body.title).toBe('Too many requests');
  expect(String(body.detail)).toMatch(new RegExp(`^Rate limit of ${limit} requests per minute for .+ exceeded; retry in ${res.headers['retry-after']} s\\.$`));
  expect(String(res.headers['retry-after']), res.body).toMatch(/^[1-9]\d*$/);
  if (retryAfter !== undefined) expect(Number(res.headers['retry-after']), res.body).toBe(retryAfter);
  expect(res.headers['ratelimit-remaining']).toBe('0');
  expect(res.headers['ratelimit-limit']).toBe(String(limit));
  expect(res.headers['ratelimit-reset']).toBe(res.headers['retry-after']);
}

/** A 200 whose headers say `remaining` (and, when given, `reset`). */
export function expectAllowed(res: LightMyRequestResponse, limit: number, remaining: number, reset?: number): void {
  expect(res.statusCode, res.body).toBe(200);
  expectRateHeaders(res, limit, remaining, reset);
}

/** Pino output kept as parsed lines, for asserting what was logged. */
export function captureLogs() {
  const lines: { level: number; msg: string; err?: { message: string } }[] = [];
  const logger: FastifyServerOptions['logger'] = { level: 'info', stream: { write: (line: string) => void lines.push(JSON.parse(line)) } };
  return { logger, matching: (pattern: RegExp) => lines.filter((line) => pattern.test(line.msg)) };
}

export function rateLimitHelpers(ctx: TestContext) {
  const clock = () => ctx.clock as ManualClock;
  /**
   * Moves the manual clock to `offset` ms into the window after next: nothing counted before weighs on
   * the test (the window before it saw no request).
   */
  const freshWindow = (offset = 1_000) => clock().set(Math.floor(clock().now() / WINDOW_MS) * WINDOW_MS + 2 * WINDOW_MS + offset);
  const inject = (app: App, method: 'GET' | 'POST', url: string, authorization?: string, body?: unknown) =>
    app.inject({
      method,
      url,
      headers: { ...(authorization ? { authorization } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
  const me = (token: string, app: App = ctx.app) => inject(app, 'GET', '/v1/me', `Bearer ${token}`);
  /** Another instance on the same database and clock (with its own settings and, optionally, a logger). */
  const extraApp = async (env: Record<string, string>, logger?: FastifyServerOptions['logger']): Promise<App> => {
    const app = await buildApp({ config: testConfig(env), storage: ctx.database.storage, clock: ctx.clock, ...(logger ? { logger } : {}) });
    await app.ready();
    return app;
  };
  return { clock, freshWindow, inject, me, extraApp };
}
