// What the token suites (tokens*.test.ts) share: the record shapes, the calls bound to a context, a second app.
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { buildApp } from '../../app.js';
import type { App } from '../../deps.js';
import { describeEachDialect, manualClock, testConfig, type TestContext } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';

export const DAY = 86_400_000;
export const RECORD_KEYS = ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'projectIds', 'revokedAt', 'scopes'];
export const NEW_TOKEN_KEYS = [...RECORD_KEYS, 'token'].sort();
export const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export type ManualClock = ReturnType<typeof manualClock>;
export interface TokenRecord {
  id: string;
  name: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  scopes: string[] | null;
  projectIds: string[] | null;
}
export interface NewToken extends TokenRecord {
  token: string;
}

export const iso = (ms: number) => new Date(ms).toISOString();
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** What the service does to a JWT expiry: whole seconds (the JWT's `exp`), rounded down. */
export const toSecond = (ms: number) => Math.floor(ms / 1000) * 1000;

export function helpers(ctx: TestContext) {
  const clock = () => ctx.clock as ManualClock;

  const inject = (app: App, method: 'GET' | 'POST' | 'DELETE', url: string, token: string, body?: unknown) =>
    app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });

  const me = (token: string, app: App = ctx.app) => inject(app, 'GET', '/v1/me', token);

  const mint = async (token: string, body: Json = { name: 'minted' }, app: App = ctx.app): Promise<NewToken> => {
    const res = await inject(app, 'POST', '/v1/tokens', token, body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as NewToken;
  };

  const rotate = (token: string, id: string, app: App = ctx.app) => inject(app, 'POST', `/v1/tokens/${id}/rotate`, token);

  const rotateOk = async (token: string, id: string, app: App = ctx.app): Promise<NewToken> => {
    const res = await rotate(token, id, app);
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as NewToken;
  };

  const revoke = (token: string, id: string) => ctx.request('DELETE', `/v1/tokens/${id}`, { token });

  /** Every token on the caller's list, following the cursor. */
  const list = async (token: string): Promise<{ items: TokenRecord[]; bodies: string[] }> => {
    const items: TokenRecord[] = [];
    const bodies: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await ctx.request('GET', `/v1/tokens?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
      expect(res.statusCode, res.body).toBe(200);
      bodies.push(res.body);
      const page = res.json() as { items: TokenRecord[]; nextCursor: string | null; limit: number };
      expect(Object.keys(page).sort()).toEqual(['items', 'limit', 'nextCursor']);
      items.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return { items, bodies };
  };

  const record = async (token: string, id: string): Promise<TokenRecord> => {
    const found = (await list(token)).items.find((t) => t.id === id);
    expect(found, `token ${id} on the list`).toBeDefined();
    return found!;
  };

  /** Polls until `ok` holds or ~2 s pass (for fire-and-forget writes); returns the last value. */
  const eventually = async <T>(probe: () => Promise<T>, ok: (value: T) => boolean, ms = 2000): Promise<T> => {
    const until = Date.now() + ms;
    for (;;) {
      const value = await probe();
      if (ok(value) || Date.now() > until) return value;
      await sleep(25);
    }
  };

  /** Moves the manual clock forward to the next whole second plus `fraction` ms. */
  const atFraction = (fraction: number) => clock().set(Math.floor(clock().now() / 1000) * 1000 + 1000 + fraction);

  const extraApp = async (env: Record<string, string>): Promise<App> => {
    const app = await buildApp({ config: testConfig(env), storage: ctx.database.storage, clock: ctx.clock });
    await app.ready();
    return app;
  };

  return { clock, me, mint, rotate, rotateOk, revoke, list, record, eventually, atFraction, extraApp };
}

export const expectOk = (res: LightMyRequestResponse, tokenId: string) => {
  expect(res.statusCode, res.body).toBe(200);
  expect((res.json() as { token: { id: string } }).token.id).toBe(tokenId);
};

/** A token suite on each engine, under its own manual clock, with the calls bound to its context. */
export function describeTokens(name: string, body: (ctx: TestContext, h: ReturnType<typeof helpers>) => void): void {
  describeEachDialect(name, (ctx) => body(ctx, helpers(ctx)), { clock: manualClock(Date.now()) });
}
