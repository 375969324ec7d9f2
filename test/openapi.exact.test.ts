import { readFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { App } from '../src/deps.js';
import { describeEachDialect, expectProblem, PUBLIC_URL, testConfig, type Caller } from './helpers/harness.js';

/**
 * The API document is as exact as the server: every status a sample of real requests gets is
 * documented for its operation, every header sent with it is documented for that status, and every
 * header the document marks as always sent is there.
 */
type Header = { $ref?: string; required?: boolean };
type Operation = { parameters?: { in: string; name: string }[]; requestBody?: unknown; responses: Record<string, { headers?: Record<string, Header> }> };
type Json = Record<string, any>;

const doc = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { headers: Record<string, Header> };
};
const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));

/** Headers about the connection and the message, and helmet's security headers: the same on every response of the server. */
const GENERIC = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-security-policy',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'origin-agent-cluster',
  'referrer-policy',
  'strict-transport-security',
  'x-content-type-options',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-frame-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
]);

/** Asserts that `response` to the operation at `path` (as the document writes it) is documented: its status and its headers. */
function expectDocumented(path: string, method: string, response: LightMyRequestResponse): void {
  const where = `${method.toUpperCase()} ${path} → ${response.statusCode}`;
  const op = doc.paths[path]?.[method];
  expect(op, `${where}: no such operation`).toBeDefined();
  const documented = op!.responses[String(response.statusCode)];
  expect(documented, `${where} is not documented (${response.body.slice(0, 200)})`).toBeDefined();
  const headers = documented!.headers ?? {};
  const names = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  const sent = Object.keys(response.headers).filter((name) => !GENERIC.has(name));
  for (const name of sent) expect(names.has(name), `${where}: header ${name} is sent but not documented`).toBe(true);
  for (const [name, header] of Object.entries(headers)) {
    const component = header.$ref ? doc.components.headers[header.$ref.split('/').pop()!] : header;
    expect(component, `${where}: ${name} refers to no component`).toBeDefined();
    if (component!.required) expect(sent, `${where}: ${name} is documented as always sent`).toContain(name.toLowerCase());
  }
}

/** A concrete URL of a path template: its parameters filled in. */
function urlOf(path: string, values: Record<string, string> = {}): string {
  return path.replace(/\{([^}]+)\}/g, (_all, name: string) => values[name] ?? 'x');
}

describeEachDialect('the API document is as exact as the server', (ctx) => {
  let owner: Caller;
  const send = (method: string, url: string, headers: Record<string, string> = {}, payload?: string, app: App = ctx.app) =>
    app.inject({ method: method.toUpperCase() as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });
  const bearer = () => ({ authorization: `Bearer ${owner.token}` });

  it('every operation: an unknown query parameter is a 400, and the 400 is documented with its headers', async () => {
    owner = await ctx.make.caller();
    const v1 = operations.filter(({ path }) => path.startsWith('/v1/'));
    expect(v1.length).toBeGreaterThan(40);
    for (const { path, method } of v1) {
      const res = await send(method, `${urlOf(path)}?unknownParameter=1`, { ...bearer(), 'content-type': 'application/json' }, '{}');
      expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(400);
      expectProblem(res, 400, 'validation');
      expectDocumented(path, method, res);
    }
  });

  it('every /v1 operation: no credential is a documented 401; a body that is not JSON, on every method that carries one, a documented 415', async () => {
    for (const { path, method } of operations.filter(({ path }) => path.startsWith('/v1/'))) {
      const res = await send(method, urlOf(path));
      expectProblem(res, 401, 'unauthorized');
      expectDocumented(path, method, res);
      if (method === 'get') continue;
      const text = await send(method, urlOf(path), { ...bearer(), 'content-type': 'text/plain' }, 'hello');
      expectProblem(text, 415, 'unsupported-media-type');
      expectDocumented(path, method, text);
    }
  });

  it('successes, conflicts, refusals and not-found answers, with and without an Origin, are documented with the headers they carry', async () => {
    const viewer = await ctx.make.caller({ role: 'viewer', organizationId: owner.organizationId });
    const project = await ctx.make.project(owner.organizationId);
    const dashboard = { origin: PUBLIC_URL };
    const json = { ...bearer(), 'content-type': 'application/json' };
    const cases: [string, string, Promise<LightMyRequestResponse>][] = [
      ['/healthz', 'get', send('get', '/healthz')],
      ['/readyz', 'get', send('get', '/readyz')],
      ['/.well-known/jwks.json', 'get', send('get', '/.well-known/jwks.json')],
      ['/v1/me', 'get', send('get', '/v1/me', bearer())],
      ['/v1/me', 'get', send('get', '/v1/me', { ...bearer(), ...dashboard })],
      ['/v1/me', 'get', send('get', '/v1/me', dashboard)],
      ['/v1/organization', 'get', send('get', '/v1/organization?page=2', { ...bearer(), ...dashboard })],
      ['/v1/projects', 'post', send('post', '/v1/projects', json, JSON.stringify({ name: `p-${Date.now()}` }))],
      ['/v1/projects', 'post', send('post', '/v1/projects', json, JSON.stringify({ name: project.name }))],
      ['/v1/projects', 'post', send('post', '/v1/projects', { authorization: `Bearer ${viewer.token}`, 'content-type': 'application/json' }, '{"name":"v"}')],
      ['/v1/projects/{project_id}', 'get', send('get', `/v1/projects/${project.id}`, bearer())],
      ['/v1/projects/{project_id}', 'get', send('get', '/v1/projects/prj_missing', bearer())],
      ['/v1/projects', 'get', send('get', '/v1/projects?cursor=!', bearer())],
      ['/v1/projects', 'post', send('post', '/v1/projects', json, 'x'.repeat(11 * 1024 * 1024))],
    ];
    const statuses = new Set<number>();
    for (const [path, method, pending] of cases) {
      const res = await pending;
      statuses.add(res.statusCode);
      expectDocumented(path, method, res);
    }
    expect([...statuses].sort()).toEqual([200, 201, 400, 401, 403, 404, 409, 413]);
    const deleted = await send('delete', `/v1/projects/${project.id}`, bearer());
    expect(deleted.statusCode).toBe(204);
    expectDocumented('/v1/projects/{project_id}', 'delete', deleted);
  });

  it('a prompt read with its ETag: 200 and 304, both documented with the ETag', async () => {
    const created = await send(
      'post',
      '/v1/prompts',
      { ...bearer(), 'content-type': 'application/json' },
      JSON.stringify({ name: `p${Date.now()}`, template: 'Hi' }),
    );
    expect(created.statusCode, created.body).toBe(201);
    const { id } = created.json() as Json;
    for (const [path, url] of [
      ['/v1/prompts/{prompt_id}', `/v1/prompts/${id}`],
      ['/v1/prompts/{prompt_id}/versions/{version}', `/v1/prompts/${id}/versions/1`],
    ] as const) {
      const first = await send('get', url, bearer());
      expect(first.statusCode).toBe(200);
      expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      expectDocumented(path, 'get', first);
      const again = await send('get', url, { ...bearer(), 'if-none-match': String(first.headers.etag) });
      expect(again.statusCode).toBe(304);
      expectDocumented(path, 'get', again);
    }
  });

  it('the rate limits: a documented 429 with Retry-After, per credential on /v1 and per address on the JWKS', async () => {
    const app = await buildApp({ config: testConfig({ SIGHTLINE_RATE_LIMIT: '1' }), storage: ctx.database.storage, clock: ctx.clock });
    try {
      await app.ready();
      for (const [path, headers] of [
        ['/v1/me', bearer()],
        ['/.well-known/jwks.json', {}],
      ] as const) {
        expect((await send('get', path, headers, undefined, app)).statusCode).toBe(200);
        const refused = await send('get', path, headers, undefined, app);
        expectProblem(refused, 429, 'rate-limited');
        expect(refused.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
        expectDocumented(path, 'get', refused);
      }
    } finally {
      await app.close();
    }
  });

  it('word for word as before: the longest token lifetime and "version or label, not both" are the routes\' own problems', async () => {
    const json = { ...bearer(), 'content-type': 'application/json' };
    const long = await send('post', '/v1/tokens', json, JSON.stringify({ name: 'long', expiresInDays: 366 }));
    expect(expectProblem(long, 400, 'validation', 'Must be between 1 and 365 days.').errors).toEqual([
      { pointer: '/expiresInDays', detail: 'Must be between 1 and 365 days.' },
    ]);
    const both = await send('post', '/v1/prompts', json, JSON.stringify({ name: `b${Date.now()}`, template: 'Hi' }));
    const render = await send(
      'post',
      `/v1/prompts/${(both.json() as Json).id}/render`,
      json,
      JSON.stringify({ version: 1, label: 'production', variables: {} }),
    );
    expect(expectProblem(render, 400, 'validation', 'Give version or label, not both.').errors).toEqual([
      { pointer: '/label', detail: 'Give version or label, not both.' },
    ]);
  });
});
