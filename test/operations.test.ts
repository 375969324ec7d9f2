import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, loggerOptions } from '../src/app.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { openStorage, sqliteHandle } from '../src/db/index.js';
import type { App } from '../src/deps.js';
import { describeEachDialect, expectProblem, PROBLEM_BASE, testConfig, Factories } from './helpers/harness.js';
import { createTestDatabase, type TestDatabase } from './helpers/storage.js';
import { TokenService } from '../src/auth/tokens.js';
import { Keyring } from '../src/lib/keys.js';
import { systemClock } from '../src/lib/clock.js';

describeEachDialect('operational endpoints', (ctx) => {
  it('answers /healthz and /readyz without authentication', async () => {
    const health = await ctx.request('GET', '/healthz');
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await ctx.request('GET', '/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ok' });
  });

  it('publishes the signing keys as a JWKS without private parts', async () => {
    const res = await ctx.request('GET', '/.well-known/jwks.json');
    expect(res.statusCode).toBe(200);
    const { keys } = res.json() as { keys: Record<string, unknown>[] };
    expect(keys.length).toBeGreaterThanOrEqual(1);
    for (const key of keys) {
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(key.kid).toMatch(/^key_/);
      expect(key).not.toHaveProperty('d');
    }
  });

  it('serves the OpenAPI document and a human-readable reference', async () => {
    const doc = await ctx.request('GET', '/openapi.json');
    expect(doc.statusCode).toBe(200);
    expect(doc.json().openapi).toBe('3.1.0');
    const docs = await ctx.request('GET', '/docs/');
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
  });

  it('describes every problem type at its URI, and 404s unknown ones as a problem', async () => {
    const page = await ctx.request('GET', '/problems/validation');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Validation failed');
    expectProblem(await ctx.request('GET', '/problems/nope'), 404, 'not-found');
  });

  it('echoes a sane X-Request-Id, replaces an unsafe one, and puts it in problems', async () => {
    const echoed = await ctx.request('GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers['x-request-id']).toBe('abc-123');
    const replaced = await ctx.request('GET', '/v1/me', { headers: { 'x-request-id': 'bad id\u0001<script>' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const body = expectProblem(replaced, 401, 'unauthorized');
    expect(body.instance).toBe(`urn:sightline:request:${replaced.headers['x-request-id']}`);
  });

  it('answers unversioned, older and newer API paths with a 404 problem', async () => {
    const caller = await ctx.make.caller();
    for (const path of ['/v0/me', '/v2/me', '/me', '/v1', '/v1/', '/v1/unknown', '/api/v1/me']) {
      expectProblem(await ctx.request('GET', path, { token: caller.token }), 404, 'not-found');
    }
  });

  it('marks /v1 responses no-store and tells PAT callers when their token expires', async () => {
    const caller = await ctx.make.caller({ expiresInDays: 7 });
    const res = await ctx.request('GET', '/v1/me', { token: caller.token });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const expiresAt = Date.parse(String(res.headers['sightline-token-expires-at']));
    expect(Math.abs(expiresAt - (Date.now() + 7 * 86_400_000))).toBeLessThan(60_000);
    expect(res.json().token.expiresAt).toBe(new Date(expiresAt).toISOString());
  });
});

describe('errors and logs', () => {
  let database: TestDatabase;
  let app: App;
  let make: Factories;
  const lines: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    const config = testConfig({ LOG_LEVEL: 'info' });
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    app = await buildApp({ config, storage: database.storage, logger: { ...(loggerOptions(config) as object), stream } });
    // A route of the test only: not part of the API document (which needs an operationId of documented routes).
    app.get('/boom', { schema: { hide: true } }, async () => {
      throw new Error('select * from personal_access_tokens where token_hash = $1');
    });
    await app.ready();
    const keys = new Keyring(database.storage.db, systemClock);
    await keys.init();
    make = new Factories(database.storage.db, new TokenService(database.storage.db, keys, config, systemClock), systemClock);
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  it('turns an unexpected error into a bare 500 problem, logged with its request id', async () => {
    const res = await app.inject({ method: 'GET', url: '/boom', headers: { 'x-request-id': 'req-500' } });
    const body = expectProblem(res, 500, 'internal');
    expect(res.body).not.toMatch(/select|personal_access_tokens|stack|\.ts/i);
    expect(body.instance).toBe('urn:sightline:request:req-500');
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request failed');
    expect(logged).toMatchObject({ requestId: 'req-500', level: 50 });
  });

  it('never writes a token to the logs, from the header or the query string', async () => {
    const caller = await make.caller();
    lines.length = 0;
    await app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${caller.token}` } });
    await app.inject({ method: 'GET', url: `/v1/me?access_token=${caller.token}&limit=1` });
    await app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: 'Bearer not-a-jwt-but-secret' } });
    const output = lines.join('');
    expect(output).toContain('/v1/me');
    expect(output).toContain('access_token=[REDACTED]');
    expect(output).not.toContain(caller.token);
    expect(output).not.toContain(caller.token.split('.')[2]);
    expect(output).not.toContain('not-a-jwt-but-secret');
  });
});

describe('configuration', () => {
  it('uses the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      database: { kind: 'sqlite', path: './data/sightline.db' },
      publicUrl: 'http://localhost:8080',
      problemBase: 'http://localhost:8080/problems',
      patDefaultDays: 90,
      patMaxDays: 365,
      rateLimitPerMinute: 1200,
    });
  });

  it('derives the public URL from PORT and the problem base from the public URL', () => {
    expect(loadConfig({ PORT: '9000' }).publicUrl).toBe('http://localhost:9000');
    const c = loadConfig({ SIGHTLINE_PUBLIC_URL: 'https://obs.example.com/', SIGHTLINE_PROBLEM_BASE: 'https://docs.example.com/p' });
    expect(c.publicUrl).toBe('https://obs.example.com');
    expect(c.problemBase).toBe('https://docs.example.com/p');
    expect(loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.db' }).database).toEqual({ kind: 'sqlite', path: '/tmp/x.db' });
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@h/db' }).database).toEqual({ kind: 'postgres', url: 'postgresql://u@h/db' });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['SIGHTLINE_PUBLIC_URL', 'not a url'],
    ['SIGHTLINE_PUBLIC_URL', 'ftp://x'],
    ['SIGHTLINE_PAT_DEFAULT_DAYS', '0'],
    ['SIGHTLINE_PAT_MAX_DAYS', 'never'],
    ['SIGHTLINE_RATE_LIMIT', '-1'],
    ['LOG_LEVEL', 'loud'],
    ['SIGHTLINE_TRUST_PROXY', 'the load balancer'],
    ['SIGHTLINE_SQLITE_SYNCHRONOUS', 'OFF'],
    ['SIGHTLINE_OTLP_GRPC_PORT', '0'],
    ['SIGHTLINE_OTLP_GRPC_PORT', '65536'],
    ['SIGHTLINE_OTLP_GRPC_PORT', 'on'],
    ['SIGHTLINE_OTLP_GRPC_MAX_CALLS', '0'],
    ['SIGHTLINE_OTLP_GRPC_MAX_CALLS_PER_CONNECTION', 'four'],
    ['SIGHTLINE_OTLP_GRPC_MAX_CALLS_PER_CREDENTIAL', '-8'],
    ['SIGHTLINE_EXPORT_CONCURRENCY', '0'],
    ['SIGHTLINE_EXPORT_QUEUE_SECONDS', 'soon'],
    ['SIGHTLINE_OTLP_NEW_PROJECTS_PER_REQUEST', '-1'],
    ['SIGHTLINE_OTLP_NEW_PROJECTS_PER_HOUR', 'many'],
  ])('refuses %s=%s with one line naming the setting', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain(name);
    expect(message).not.toContain('\n');
  });

  it('reads which proxies to trust for the client address', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ SIGHTLINE_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ SIGHTLINE_TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ SIGHTLINE_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
  });

  it('reads the OTLP/gRPC port: 4317 unless set, a port set explicitly, or off', () => {
    expect(loadConfig({}).otlpGrpc).toEqual({ port: 4317, explicit: false });
    expect(loadConfig({ SIGHTLINE_OTLP_GRPC_PORT: '4317' }).otlpGrpc).toEqual({ port: 4317, explicit: true });
    expect(loadConfig({ SIGHTLINE_OTLP_GRPC_PORT: ' 14317 ' }).otlpGrpc).toEqual({ port: 14317, explicit: true });
    expect(loadConfig({ SIGHTLINE_OTLP_GRPC_PORT: 'off' }).otlpGrpc).toBeNull();
  });

  it('reads the OTLP/gRPC calls in progress at once: on the instance, per connection, per credential', () => {
    expect(loadConfig({}).otlpGrpcCalls).toEqual({ total: 16, perConnection: 4, perCredential: 8 });
    const env = { SIGHTLINE_OTLP_GRPC_MAX_CALLS: '64', SIGHTLINE_OTLP_GRPC_MAX_CALLS_PER_CONNECTION: '10', SIGHTLINE_OTLP_GRPC_MAX_CALLS_PER_CREDENTIAL: '32' };
    expect(loadConfig(env).otlpGrpcCalls).toEqual({ total: 64, perConnection: 10, perCredential: 32 });
  });

  it('refuses a default token lifetime above the maximum, and shrinks an unset default to fit', () => {
    expect(() => loadConfig({ SIGHTLINE_PAT_DEFAULT_DAYS: '400' })).toThrow(/SIGHTLINE_PAT_DEFAULT_DAYS/);
    expect(loadConfig({ SIGHTLINE_PAT_MAX_DAYS: '30' })).toMatchObject({ patDefaultDays: 30, patMaxDays: 30 });
  });

  it('opens SQLite in WAL mode with the configured synchronous setting (NORMAL unless SIGHTLINE_SQLITE_SYNCHRONOUS says FULL)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sightline-sync-'));
    try {
      // PRAGMA synchronous: 1 is NORMAL, 2 is FULL.
      for (const [value, expected] of [
        [undefined, 1],
        ['normal', 1],
        ['FULL', 2],
        ['full', 2],
      ] as const) {
        const config = loadConfig({ DATABASE_URL: `sqlite:${join(dir, `${value ?? 'unset'}.db`)}`, ...(value ? { SIGHTLINE_SQLITE_SYNCHRONOUS: value } : {}) });
        // The one way every process (serve, the CLI's migrate and token create, openapi) opens storage.
        const storage = await openStorage(config);
        try {
          const handle = sqliteHandle(storage.db)!;
          expect(handle.pragma('synchronous', { simple: true }), String(value)).toBe(expected);
          expect(handle.pragma('journal_mode', { simple: true })).toBe('wal');
        } finally {
          await storage.close();
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

void PROBLEM_BASE;

describeEachDialect(
  'client address behind a trusted proxy',
  (ctx) => {
    it('limits unauthenticated requests per forwarded client, not per proxy', async () => {
      const from = (ip: string) => ctx.request('GET', '/v1/me', { token: 'not-a-token', headers: { 'x-forwarded-for': ip } });
      expectProblem(await from('203.0.113.7'), 401, 'unauthorized');
      expectProblem(await from('203.0.113.7'), 401, 'unauthorized');
      const limited = expectProblem(await from('203.0.113.7'), 429, 'rate-limited');
      expect(limited.detail).toContain('client address');
      expectProblem(await from('198.51.100.9'), 401, 'unauthorized');
    });
  },
  { env: { SIGHTLINE_TRUST_PROXY: 'true', SIGHTLINE_RATE_LIMIT: '2' } },
);
