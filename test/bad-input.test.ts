import { connect, type AddressInfo, type Socket } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerClientError, clientErrorProblem } from '../src/lib/client-error.js';
import { newId } from '../src/lib/ids.js';
import { describeEachDialect, expectProblem, manualClock, PROBLEM_BASE, type Caller, type TestContext } from './helpers/harness.js';
import { expectUnauthorized } from './helpers/auth.js';
import { expectCleanProblem, expectValidation, type FieldFault } from './helpers/problems.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

interface Fixture {
  projectId: string;
  runId: string;
  tokenId: string;
  promptId: string;
  /** A monitor of the fixture's project. */
  monitorId: string;
}

interface Route {
  method: Method;
  route: string;
  path: (f: Fixture) => string;
  /** The route declares query parameters (lists and metrics). */
  query?: boolean;
  /** A valid body, for routes that take one. */
  body?: () => Record<string, unknown>;
  /** What the valid request answers. */
  ok: number;
  /** Wrong values per field of the body; each must be a 400 naming the field. */
  fields?: Record<string, unknown[]>;
}

const validRun = (): Record<string, unknown> => ({ name: 'ChatOpenAI', kind: 'llm', startTime: '2026-11-02T10:00:00.000Z' });
const uniqueName = () => `p-${newId('prj').slice(-12)}`;
const uniquePromptName = () => `prompt-${newId('prm').slice(-12)}`;
const validMonitor = (): Record<string, unknown> => ({ name: 'errors', metric: 'error_count', window: '1h', threshold: { op: '>', value: 0 } });
const monitorPath = (f: Fixture, suffix = '') => `/v1/projects/${f.projectId}/monitors/${f.monitorId}${suffix}`;

const MONITOR_FIELDS: Record<string, unknown[]> = {
  name: [1, null, [], '', 'x'.repeat(201)],
  description: [1, null, {}, 'x'.repeat(2001)],
  filter: [
    'x',
    [],
    1,
    null,
    { bogus: 1 },
    { startedAfter: '2026-11-01T00:00:00.000Z' },
    { status: 'bogus' },
    { kind: 1 },
    { tag: 'x' },
    { tag: [''] },
    { tag: Array.from({ length: 11 }, (_, i) => `t${i}`) },
    { parentRunId: '' },
    { parentRunId: 1 },
    { 'metadata.bad key': '1' },
    { 'metadata.k': 1 },
    { 'metadata.k': { $ne: null } },
  ],
  metric: [1, null, '', 'p99', 'COUNT', 'latency_p90'],
  window: [1, null, '', '2h', '1H', '30d'],
  threshold: [
    'x',
    1,
    [],
    {},
    { op: '!=', value: 1 },
    { op: '>' },
    { value: 1 },
    { op: '>', value: '1' },
    { op: '>', value: 1e16 },
    { op: '>', value: 1, extra: 1 },
  ],
  enabled: ['true', 1, null, {}],
  webhookUrls: [
    'x',
    {},
    [1],
    [''],
    ['ftp://example.com/'],
    ['not a url'],
    ['http://127.0.0.1/hook'],
    ['https://u:p@example.com/'],
    ['https://a.example.com/', 'https://a.example.com/'],
    Array.from({ length: 6 }, (_, i) => `https://h${i}.example.com/`),
  ],
  state: ['ok'],
  id: ['mon_x'],
  webhookSecret: ['whsec_x'],
};

/** Query strings the monitors list refuses. */
const MONITOR_LIST_JUNK: [string, string][] = [
  ['state=bogus', 'state'],
  ['state=OK', 'state'],
  ['state=', 'state'],
  ['state=ok&state=alerting', 'state'],
  ['enabled=yes', 'enabled'],
  ['enabled=1', 'enabled'],
  ['enabled=', 'enabled'],
  ['enabled=true&enabled=false', 'enabled'],
  ['status=running', 'status'],
  ['metric=count', 'metric'],
];

/** Query strings a monitor's metrics refuse (besides the runs metrics' ones). */
const MONITOR_METRICS_JUNK: [string, string][] = [
  ['bucket=5m&from=2000-01-01T00:00:00Z', 'bucket'],
  ['status=failed', 'status'],
  ['to=2026-11-02', 'to'],
  ['cursor=x', 'cursor'],
];

const RUN_FIELDS: Record<string, unknown[]> = {
  id: [1, '', 'null', 'batch', 'metrics', 'has space', 'x'.repeat(129), {}],
  traceId: [1, '', 'a/b'],
  parentRunId: [1, {}, '', '../x'],
  name: [1, '', null, [], 'x'.repeat(257)],
  kind: [1, null, 'bogus', 'LLM', ''],
  status: [1, 'bogus', 'RUNNING', 'done'],
  startTime: ['yesterday', 1, null, '2026-13-01T00:00:00Z', '2026-11-02', '2026-11-02T10:00:00'],
  endTime: ['soon', 1, {}],
  inputs: ['x', [], 1, true],
  outputs: ['x', [], 1],
  error: [1, {}, 'x'.repeat(100_001)],
  model: [1, '', {}],
  usage: [
    'x',
    [],
    { promptTokens: -1, completionTokens: 0 },
    { promptTokens: '1', completionTokens: 1 },
    { promptTokens: 1.5, completionTokens: 1 },
    { promptTokens: 1 },
    { promptTokens: 1, completionTokens: 1, extra: 1 },
  ],
  cost: [-1, 'free', {}],
  tags: ['x', [1], ['a', 'a'], [''], Array.from({ length: 51 }, (_, i) => `t${i}`)],
  metadata: ['x', [], 1, null],
};

const PATCH_RUN_FIELDS: Record<string, unknown[]> = {
  status: [1, null, 'bogus', 'RUNNING'],
  endTime: ['soon', 1, null],
  outputs: ['x', [], 1],
  error: [1, {}],
  usage: ['x', { promptTokens: -1, completionTokens: 0 }],
  cost: [-1, 'x'],
  tags: ['x', [1], ['a', 'a']],
  metadata: [[], 'x', null],
  bogus: [1],
};

/** Every /v1 route. */
const ROUTES: Route[] = [
  { method: 'GET', route: '/v1/me', path: () => '/v1/me', ok: 200 },
  { method: 'GET', route: '/v1/tokens', path: () => '/v1/tokens', query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/tokens',
    path: () => '/v1/tokens',
    body: () => ({ name: 'ci' }),
    ok: 201,
    fields: { name: [1, null, [], {}, '', ' ', 'x'.repeat(101)], expiresInDays: ['30', 1.5, 0, -1, null, 100_000, true], bogus: [1] },
  },
  { method: 'DELETE', route: '/v1/tokens/{token_id}', path: (f) => `/v1/tokens/${f.tokenId}`, ok: 204 },
  { method: 'GET', route: '/v1/projects', path: () => '/v1/projects', query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/projects',
    path: () => '/v1/projects',
    body: () => ({ name: uniqueName() }),
    ok: 201,
    fields: {
      name: [1, null, [], {}, '', ' lead', 'trail ', 'tab\there', 'x'.repeat(101)],
      description: [1, null, {}, 'x'.repeat(2001)],
      organizationId: ['org_x'],
    },
  },
  { method: 'GET', route: '/v1/projects/{project_id}', path: (f) => `/v1/projects/${f.projectId}`, ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}',
    path: (f) => `/v1/projects/${f.projectId}`,
    body: () => ({ description: 'changed' }),
    ok: 200,
    fields: { name: [1, null, '', ' lead'], description: [1, null, 'x'.repeat(2001)], id: ['prj_x'] },
  },
  { method: 'DELETE', route: '/v1/projects/{project_id}', path: (f) => `/v1/projects/${f.projectId}`, ok: 204 },
  { method: 'GET', route: '/v1/projects/{project_id}/runs', path: (f) => `/v1/projects/${f.projectId}/runs`, query: true, ok: 200 },
  { method: 'POST', route: '/v1/projects/{project_id}/runs', path: (f) => `/v1/projects/${f.projectId}/runs`, body: validRun, ok: 201, fields: RUN_FIELDS },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/runs/batch',
    path: (f) => `/v1/projects/${f.projectId}/runs/batch`,
    body: () => ({ runs: [validRun()] }),
    ok: 200,
    fields: { runs: ['x', [], {}, null, 1, Array.from({ length: 1001 }, validRun)], bogus: [1] },
  },
  { method: 'GET', route: '/v1/projects/{project_id}/runs/metrics', path: (f) => `/v1/projects/${f.projectId}/runs/metrics`, query: true, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/runs/{run_id}', path: (f) => `/v1/projects/${f.projectId}/runs/${f.runId}`, ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}/runs/{run_id}',
    path: (f) => `/v1/projects/${f.projectId}/runs/${f.runId}`,
    body: () => ({ metadata: { step: 1 } }),
    ok: 200,
    fields: PATCH_RUN_FIELDS,
  },
  { method: 'GET', route: '/v1/prompts', path: () => '/v1/prompts', query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/prompts',
    path: () => '/v1/prompts',
    body: () => ({ name: uniquePromptName(), template: 'Hi {{name}}' }),
    ok: 201,
    fields: {
      name: [1, null, [], '', 'Upper', 'has space', 'prm_x', '-x', 'x'.repeat(101)],
      description: [1, null, {}, 'x'.repeat(2001)],
      template: [1, null, {}, [], [{ role: 'wizard', content: 'x' }], [{ role: 'user' }], [{ role: 'user', content: 1 }], 'x'.repeat(100_001)],
      config: ['x', [], 1, null],
      message: [1, null, 'x'.repeat(2001)],
      latestVersion: [2],
      id: ['prm_x'],
    },
  },
  { method: 'GET', route: '/v1/prompts/{prompt_id}', path: (f) => `/v1/prompts/${f.promptId}`, ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/prompts/{prompt_id}',
    path: (f) => `/v1/prompts/${f.promptId}`,
    body: () => ({ description: 'changed' }),
    ok: 200,
    fields: { description: [1, null, {}, 'x'.repeat(2001)], name: ['renamed'], latestVersion: [9], labels: [{}] },
  },
  { method: 'DELETE', route: '/v1/prompts/{prompt_id}', path: (f) => `/v1/prompts/${f.promptId}`, ok: 204 },
  { method: 'GET', route: '/v1/prompts/{prompt_id}/versions', path: (f) => `/v1/prompts/${f.promptId}/versions`, query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/prompts/{prompt_id}/versions',
    path: (f) => `/v1/prompts/${f.promptId}/versions`,
    body: () => ({ template: 'Hello {{name}}' }),
    ok: 201,
    fields: { template: [1, null, {}, []], config: ['x', [], null], message: [1, {}], version: [5], bogus: [1] },
  },
  { method: 'GET', route: '/v1/prompts/{prompt_id}/versions/{version}', path: (f) => `/v1/prompts/${f.promptId}/versions/1`, ok: 200 },
  {
    method: 'PUT',
    route: '/v1/prompts/{prompt_id}/labels/{label}',
    path: (f) => `/v1/prompts/${f.promptId}/labels/production`,
    body: () => ({ version: 1 }),
    ok: 200,
    fields: { version: [0, -1, 1.5, '1', null, {}, 99], bogus: [1] },
  },
  { method: 'DELETE', route: '/v1/prompts/{prompt_id}/labels/{label}', path: (f) => `/v1/prompts/${f.promptId}/labels/staging`, ok: 204 },
  { method: 'GET', route: '/v1/prompts/{prompt_id}/label-history', path: (f) => `/v1/prompts/${f.promptId}/label-history`, query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/prompts/{prompt_id}/render',
    path: (f) => `/v1/prompts/${f.promptId}/render`,
    body: () => ({ variables: { name: 'x' } }),
    ok: 200,
    fields: { variables: ['x', null, [], { name: null }, { name: {} }, { name: 'x', other: 1 }], version: [0, 'x'], label: ['123', 'Upper', 1], bogus: [1] },
  },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors', path: (f) => `/v1/projects/${f.projectId}/monitors`, query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/monitors',
    path: (f) => `/v1/projects/${f.projectId}/monitors`,
    body: validMonitor,
    ok: 201,
    fields: MONITOR_FIELDS,
  },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors/{monitor_id}', path: (f) => monitorPath(f), ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}/monitors/{monitor_id}',
    path: (f) => monitorPath(f),
    body: () => ({ description: 'changed' }),
    ok: 200,
    fields: {
      name: [1, null, ''],
      metric: ['p99', null],
      window: ['2h', null],
      threshold: ['x', {}, { op: '!=', value: 1 }],
      enabled: ['no', 0, null],
      filter: ['x', null, { bogus: 1 }, { 'metadata.k': 1 }],
      webhookUrls: ['x', null, ['javascript:alert(1)'], ['http://169.254.169.254/latest/meta-data/']],
      state: ['ok'],
      projectId: ['prj_x'],
      lastEvaluatedAt: ['2026-11-02T10:00:00.000Z'],
    },
  },
  { method: 'DELETE', route: '/v1/projects/{project_id}/monitors/{monitor_id}', path: (f) => monitorPath(f), ok: 204 },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors/{monitor_id}/metrics', path: (f) => monitorPath(f, '/metrics'), query: true, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors/{monitor_id}/events', path: (f) => monitorPath(f, '/events'), query: true, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors/{monitor_id}/deliveries', path: (f) => monitorPath(f, '/deliveries'), query: true, ok: 200 },
  { method: 'POST', route: '/v1/projects/{project_id}/monitors/{monitor_id}/rotate-secret', path: (f) => monitorPath(f, '/rotate-secret'), ok: 200 },
];

const BODY_ROUTES = ROUTES.filter((r) => r.body);
const ID_ROUTES = ROUTES.filter((r) => r.route.includes('{'));
const QUERY_ROUTES = ROUTES.filter((r) => r.query);
const PLAIN_ROUTES = ROUTES.filter((r) => !r.query);

const MALFORMED_JSON = [
  '{',
  '{"name":',
  "{'name':'x'}",
  '{"name":"x",}',
  'nul',
  '{"a":1}}',
  '{"a":1} {"b":2}',
  '\u0000',
  '{"name":"x"\u0000}',
  'undefined',
  'NaN',
  '{"a":01}',
  ' ',
];
const NOT_OBJECTS = ['[]', '[{}]', '"string"', '42', '-1.5e300', 'null', 'true', 'false'];
/** Keys JSON.parse keeps as own data properties: where a body takes no such field, it is an unknown field. */
const PROTO_POLLUTION: [string, string][] = [
  ['{"__proto__":{"admin":true}}', '/__proto__'],
  ['{"constructor":{"prototype":{"admin":true}}}', '/constructor'],
];

/** Path segments no id looks like. Raw, as they appear in the URL. */
const JUNK_SEGMENTS = [
  'x'.repeat(201),
  'x'.repeat(600),
  'x'.repeat(5000),
  '%00',
  'prj_%00',
  '%00%00%00',
  '..%2F..%2Fetc%2Fpasswd',
  '..',
  '%2e%2e',
  '%2F',
  '%E2%98%83',
  encodeURIComponent('проект'),
  encodeURIComponent('🚀🚀'),
  '%F0%9F',
  '%zz',
  '%',
  '%C0%AF',
  '%FF%FE',
  encodeURIComponent("' OR 1=1 --"),
  encodeURIComponent('"; DROP TABLE runs; --'),
  '%20',
  '%0d%0aX-Injected:%201',
  'null',
  '__proto__',
  encodeURIComponent('{"$ne":null}'),
];

/** Query strings every list route refuses: [query, parameter the fault must name]. */
const LIST_JUNK: [string, string][] = [
  ['bogus=1', 'bogus'],
  ['constructor=1', 'constructor'],
  ['limit=abc', 'limit'],
  ['limit=', 'limit'],
  ['limit=1.5', 'limit'],
  ['limit=1e2', 'limit'],
  ['limit=0x10', 'limit'],
  ['limit=%205', 'limit'],
  ['limit=1&limit=2', 'limit'],
  ['cursor=a&cursor=b', 'cursor'],
  ['cursor=', 'cursor'],
  ['cursor=not-a-cursor', 'cursor'],
  ['cursor=%00', 'cursor'],
];

/** Query strings the runs list and the metrics refuse (the shared filter grammar). */
const FILTER_JUNK: [string, string][] = [
  ['startedAfter=yesterday', 'startedAfter'],
  ['startedBefore=2026-13-45T00:00:00Z', 'startedBefore'],
  ['startedAfter=2026-11-02', 'startedAfter'],
  ['status=bogus', 'status'],
  ['status=RUNNING', 'status'],
  ['kind=bogus', 'kind'],
  ['status=running&status=failed', 'status'],
  ['name=a&name=b', 'name'],
  ['metadata.bad%20key=1', 'metadata.bad key'],
  ['metadata.=1', 'metadata.'],
  [`metadata.${'k'.repeat(65)}=1`, `metadata.${'k'.repeat(65)}`],
  ['metadata.a.b=1', 'metadata.a.b'],
  ['metadata.a=1&metadata.a=2', 'metadata.a'],
  ['tag=', 'tag'],
  [Array.from({ length: 11 }, (_, i) => `tag=t${i}`).join('&'), 'tag'],
  ['parentRunId=', 'parentRunId'],
  [`traceId=${'x'.repeat(129)}`, 'traceId'],
  ['name=', 'name'],
];

const METRICS_JUNK: [string, string][] = [
  ['from=garbage', 'from'],
  ['to=garbage', 'to'],
  ['from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z', 'from'],
  ['bucket=2m', 'bucket'],
  ['bucket=1M', 'bucket'],
  ['bucket=1w', 'bucket'],
  ['bucket=1m&bucket=1h', 'bucket'],
  ['groupBy=user', 'groupBy'],
  ['groupBy=STATUS', 'groupBy'],
  ['groupBy=status&groupBy=kind', 'groupBy'],
  ['from=0001-01-01T00:00:00Z&bucket=1m', 'bucket'],
  ['limit=10', 'limit'],
];

const PROMPT_LIST_JUNK: [string, string][] = [
  ['name=', 'name'],
  [`name=${'x'.repeat(101)}`, 'name'],
  ['name=a&name=b', 'name'],
  ['label=', 'label'],
  ['label=123', 'label'],
  ['label=Production', 'label'],
  ['label=a&label=b', 'label'],
  ['status=running', 'status'],
];

const PROJECT_LIST_JUNK: [string, string][] = [
  ['name=', 'name'],
  [`name=${'x'.repeat(101)}`, 'name'],
  ['name=a&name=b', 'name'],
  ['status=running', 'status'],
];

describeEachDialect('bad input: every route answers a clean 4xx problem', (ctx: TestContext) => {
  let owner: Caller;
  let f: Fixture;

  /** A fixture nobody deletes or ends: DELETE and PATCH tests use throwaway ones. */
  beforeAll(async () => {
    owner = await ctx.make.caller({ role: 'owner' });
    const project = await ctx.make.project(owner.organizationId);
    const [runId] = await ctx.make.runs(project.id, 3);
    const spare = await ctx.request('POST', '/v1/tokens', { token: owner.token, body: { name: 'spare' } });
    const prompt = await ctx.request('POST', '/v1/prompts', { token: owner.token, body: { name: uniquePromptName(), template: 'Hi {{name}}' } });
    expect(prompt.statusCode, prompt.body).toBe(201);
    const monitor = await ctx.request('POST', `/v1/projects/${project.id}/monitors`, { token: owner.token, body: validMonitor() });
    expect(monitor.statusCode, monitor.body).toBe(201);
    f = { projectId: project.id, runId: runId!, tokenId: spare.json().id, promptId: prompt.json().id, monitorId: monitor.json().id };
  });

  /** Ids that name nothing: for requests that must be refused before any lookup. */
  const nowhere = (): Fixture => ({ projectId: newId('prj'), runId: newId('run'), tokenId: newId('tok'), promptId: newId('prm'), monitorId: newId('mon') });

  const send = (route: Route, options: { path?: string; payload?: string; contentType?: string; body?: unknown; ids?: Fixture } = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${owner.token}` };
    if (options.contentType !== undefined) headers['content-type'] = options.contentType;
    const payload = options.payload ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
    if (payload !== undefined && options.contentType === undefined) headers['content-type'] = 'application/json';
    return ctx.app.inject({ method: route.method, url: options.path ?? route.path(options.ids ?? f), headers, ...(payload !== undefined ? { payload } : {}) });
  };

  describe('control: the valid request of each route succeeds', () => {
    for (const r of ROUTES) {
      it(`${r.method} ${r.route} → ${r.ok}`, async () => {
        // DELETE uses throwaway resources so the shared fixture survives.
        let ids = f;
        if (r.method === 'DELETE') {
          const project = await ctx.make.project(owner.organizationId);
          const token = await ctx.request('POST', '/v1/tokens', { token: owner.token, body: { name: 'throwaway' } });
          const prompt = await ctx.request('POST', '/v1/prompts', { token: owner.token, body: { name: uniquePromptName(), template: 'x' } });
          const promptId = prompt.json().id as string;
          expect((await ctx.request('PUT', `/v1/prompts/${promptId}/labels/staging`, { token: owner.token, body: { version: 1 } })).statusCode).toBe(200);
          const monitor = await ctx.request('POST', `/v1/projects/${project.id}/monitors`, { token: owner.token, body: validMonitor() });
          expect(monitor.statusCode, monitor.body).toBe(201);
          ids = { ...f, projectId: project.id, tokenId: token.json().id, promptId, monitorId: monitor.json().id };
        }
        const res = await send(r, { ids, ...(r.body ? { body: r.body() } : {}) });
        expect(res.statusCode, res.body).toBe(r.ok);
      });
    }
  });

  describe('bodies', () => {
    for (const r of BODY_ROUTES) {
      it(`${r.method} ${r.route}: malformed JSON → 400 validation`, async () => {
        for (const payload of MALFORMED_JSON) {
          const res = await send(r, { payload });
          expectValidation(res);
        }
        expectValidation(await send(r, { payload: '' }));
      });

      it(`${r.method} ${r.route}: a JSON array, string, number, boolean or null instead of an object → 400 validation`, async () => {
        for (const payload of NOT_OBJECTS) {
          const res = await send(r, { payload });
          expectValidation(res);
        }
      });

      it(`${r.method} ${r.route}: prototype-pollution keys at the top level → 400 naming them as unknown fields`, async () => {
        for (const [payload, pointer] of PROTO_POLLUTION) {
          const faults = expectValidation(await send(r, { payload }), { pointers: [pointer] });
          expect(faults.find((f) => f.pointer === pointer)?.detail).toBe(`Unknown field '${pointer.slice(1)}'.`);
        }
        // Nothing leaked onto Object.prototype in this process.
        expect(({} as Record<string, unknown>).admin).toBeUndefined();
      });

      it(`${r.method} ${r.route}: each field with a wrong type or value → 400 naming it`, async () => {
        for (const [field, values] of Object.entries(r.fields ?? {})) {
          for (const value of values) {
            const body = { ...r.body!(), [field]: value };
            const res = await send(r, { body });
            const errors = expectValidation(res);
            const pointers = errors.map((e) => e.pointer ?? '');
            expect(
              pointers.some((p) => p === `/${field}` || p.startsWith(`/${field}/`)),
              `${field}=${JSON.stringify(value).slice(0, 80)}: ${res.body.slice(0, 400)}`,
            ).toBe(true);
          }
        }
      });

      it(`${r.method} ${r.route}: a body over 10 MB → 413 payload-too-large`, async () => {
        const base = r.body!();
        const huge = JSON.stringify({ ...base, padding: 'x'.repeat(10 * 1024 * 1024 + 1) });
        const res = await send(r, { payload: huge });
        expectProblem(res, 413, 'payload-too-large');
        expectCleanProblem(res);
      });

      it(`${r.method} ${r.route}: a body that is not JSON → 415 unsupported-media-type`, async () => {
        const json = JSON.stringify(r.body!());
        for (const [contentType, payload] of [
          ['text/plain', json],
          ['text/plain; charset=utf-8', json],
          ['application/x-www-form-urlencoded', 'name=x&kind=llm'],
          ['multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--xyz--\r\n'],
          ['application/xml', '<run><name>x</name></run>'],
          ['application/octet-stream', json],
          ['image/png', '\u0089PNG'],
          ['text/html', '<b>x</b>'],
        ] as const) {
          const res = await send(r, { payload, contentType });
          expectProblem(res, 415, 'unsupported-media-type');
          expectCleanProblem(res);
        }
      });

      it(`${r.method} ${r.route}: a body without a Content-Type → 415 unsupported-media-type`, async () => {
        const res = await ctx.app.inject({
          method: r.method,
          url: r.path(f),
          headers: { authorization: `Bearer ${owner.token}` },
          payload: JSON.stringify(r.body!()),
        });
        expectProblem(res, 415, 'unsupported-media-type');
        expectCleanProblem(res);
      });

      it(`${r.method} ${r.route}: JSON with a charset parameter is accepted`, async () => {
        const res = await send(r, { payload: JSON.stringify(r.body!()), contentType: 'application/json; charset=utf-8' });
        expect(res.statusCode, res.body).toBe(r.ok);
      });
    }

    it('a body with several faults lists each of them', async () => {
      const cases: [Route, Record<string, unknown>, string[]][] = [
        [ROUTES.find((r) => r.method === 'POST' && r.route === '/v1/projects')!, { name: 1, description: 2, extra: 3 }, ['/name', '/description', '/extra']],
        [ROUTES.find((r) => r.method === 'POST' && r.route === '/v1/tokens')!, { name: '', expiresInDays: 'x', foo: 1 }, ['/name', '/expiresInDays', '/foo']],
        [
          ROUTES.find((r) => r.method === 'POST' && r.route.endsWith('/runs'))!,
          { name: 1, kind: 'x', startTime: 'y', status: 'z', cost: -1, bogus: 1 },
          ['/name', '/kind', '/startTime', '/status', '/cost', '/bogus'],
        ],
        [ROUTES.find((r) => r.method === 'POST' && r.route.endsWith('/runs'))!, { kind: 'llm' }, ['/name', '/startTime']],
        [ROUTES.find((r) => r.method === 'PATCH' && r.route.endsWith('{run_id}'))!, { status: 'x', cost: -1, tags: 'a' }, ['/status', '/cost', '/tags']],
        [ROUTES.find((r) => r.method === 'PATCH' && r.route === '/v1/projects/{project_id}')!, { name: '', description: 5 }, ['/name', '/description']],
        [
          ROUTES.find((r) => r.method === 'POST' && r.route.endsWith('/monitors'))!,
          { name: 1, metric: 'p99', window: '2h', enabled: 'yes', bogus: 1 },
          ['/name', '/metric', '/window', '/enabled', '/bogus'],
        ],
        [ROUTES.find((r) => r.method === 'POST' && r.route.endsWith('/monitors'))!, { metric: 'count' }, ['/name', '/window']],
        [
          ROUTES.find((r) => r.method === 'PATCH' && r.route.endsWith('{monitor_id}'))!,
          { webhookUrls: ['ftp://x', 'https://ok.example.com/', 'http://10.0.0.1/', 'https://u:p@example.com/'] },
          ['/webhookUrls/0', '/webhookUrls/2', '/webhookUrls/3'],
        ],
      ];
      for (const [route, body, pointers] of cases) {
        const errors = expectValidation(await send(route, { body }), { pointers });
        expect(errors.length, JSON.stringify(errors)).toBeGreaterThanOrEqual(pointers.length);
      }
    });

    it('rules the schema cannot say are faults with pointers too (run create)', async () => {
      const route = ROUTES.find((r) => r.method === 'POST' && r.route.endsWith('/runs'))!;
      expectValidation(await send(route, { body: { ...validRun(), status: 'succeeded' } }), { pointers: ['/endTime'] });
      expectValidation(await send(route, { body: { ...validRun(), endTime: '2026-11-02T11:00:00.000Z' } }), { pointers: ['/endTime'] });
      expectValidation(await send(route, { body: { ...validRun(), status: 'failed', endTime: '2026-11-02T09:00:00.000Z' } }), { pointers: ['/endTime'] });
      expectValidation(await send(route, { body: { ...validRun(), error: 'boom' } }), { pointers: ['/error'] });
      expectValidation(await send(route, { body: { ...validRun(), id: 'same', parentRunId: 'same' } }), { pointers: ['/parentRunId'] });
      expectValidation(await send(route, { body: { ...validRun(), parentRunId: 'does-not-exist' } }), { pointers: ['/parentRunId'] });
      expectValidation(await send(route, { body: { ...validRun(), startTime: '2026-12-31T23:59:60Z' } }), { pointers: ['/startTime'] });
    });

    it('PATCH with an empty object → 400', async () => {
      for (const r of ROUTES.filter((x) => x.method === 'PATCH')) expectValidation(await send(r, { body: {} }));
    });

    it('a batch whose runs are not objects is not a batch envelope → 400 naming each', async () => {
      const route = ROUTES.find((r) => r.route.endsWith('/batch'))!;
      expectValidation(await send(route, { body: { runs: [1, 'a', null, [], validRun()] } }), { pointers: ['/runs/0', '/runs/1', '/runs/2', '/runs/3'] });
    });

    it('a batch rejects each bad run with its own problem and keeps the good ones', async () => {
      const route = ROUTES.find((r) => r.route.endsWith('/batch'))!;
      const res = await send(route, { body: { runs: [{ ...validRun(), kind: 'bogus' }, validRun(), { name: 1 }, {}, { ...validRun(), status: 'failed' }] } });
      expect(res.statusCode, res.body).toBe(200);
      const results = (res.json() as { results: { index: number; status: string; problem?: { type: string; status: number; errors?: FieldFault[] } }[] })
        .results;
      expect(results.map((r) => r.status)).toEqual(['rejected', 'created', 'rejected', 'rejected', 'rejected']);
      for (const r of results.filter((x) => x.status === 'rejected')) {
        expect(r.problem!.type).toMatch(/\/problems\/validation$/);
        expect(r.problem!.status).toBe(400);
        expect(r.problem!.errors!.length).toBeGreaterThan(0);
        for (const e of r.problem!.errors!) expect(e.pointer!.startsWith(`/runs/${r.index}/`), JSON.stringify(e)).toBe(true);
      }
      expect(results[0]!.problem!.errors!.map((e) => e.pointer)).toEqual(['/runs/0/kind']);
      expect(results[2]!.problem!.errors!.map((e) => e.pointer)).toEqual(expect.arrayContaining(['/runs/2/name', '/runs/2/kind', '/runs/2/startTime']));
      expect(results[4]!.problem!.errors!.map((e) => e.pointer)).toEqual(['/runs/4/endTime']);
    });

    it('deeply nested JSON values are refused (400) or stored, never a 5xx', async () => {
      const create = ROUTES.find((r) => r.method === 'POST' && r.route.endsWith('/runs'))!;
      const batch = ROUTES.find((r) => r.route.endsWith('/batch'))!;
      const patch = ROUTES.find((r) => r.method === 'PATCH' && r.route.endsWith('{run_id}'))!;
      const failures: string[] = [];
      for (const depth of [100, 1_000, 3_000, 10_000, 100_000]) {
        const nested = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
        const run = `{"name":"deep","kind":"llm","startTime":"2026-11-02T10:00:00.000Z","inputs":${nested}}`;
        const [runId] = await ctx.make.runs(f.projectId, 1);
        for (const [name, route, payload, ids] of [
          ['POST …/runs inputs', create, run, f],
          ['POST …/runs/batch inputs', batch, `{"runs":[${run}]}`, f],
          ['PATCH …/runs/{run_id} metadata', patch, `{"metadata":${nested}}`, { ...f, runId: runId! }],
          ['POST …/runs top-level array', create, `${'['.repeat(depth)}${']'.repeat(depth)}`, f],
        ] as const) {
          const res = await send(route, { payload, ids });
          if (res.statusCode >= 500) failures.push(`${name}, depth ${depth}: ${res.statusCode} ${res.body.slice(0, 120)}`);
          else if (res.statusCode >= 400) expectCleanProblem(res);
        }
      }
      expect(failures).toEqual([]);
    });
  });

  describe('path segments', () => {
    for (const r of ID_ROUTES) {
      it(`${r.method} ${r.route}: junk ids → 400 or 404 problem, never 5xx`, async () => {
        for (const junk of JUNK_SEGMENTS) {
          for (const ids of [
            { ...f, projectId: junk },
            { ...f, runId: junk },
            { ...f, tokenId: junk },
            { ...f, promptId: junk },
            { ...f, monitorId: junk },
          ]) {
            const url = r.path(ids);
            if (url === r.path(f)) continue;
            const res = await send(r, { path: url, ...(r.body ? { body: r.body() } : {}) });
            let decoded = junk;
            try {
              decoded = decodeURIComponent(junk);
            } catch {
              /* keep raw */
            }
            const body = expectCleanProblem(res, [junk, decoded, url]);
            expect([400, 404], `${r.method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`).toContain(res.statusCode);
            if (res.statusCode === 400) expect((body.errors as FieldFault[]).length).toBeGreaterThan(0);
            expect(res.headers['x-injected']).toBeUndefined();
          }
        }
        // The fixture is untouched.
        expect((await ctx.request('GET', `/v1/projects/${f.projectId}/runs/${f.runId}`, { token: owner.token })).statusCode).toBe(200);
      });
    }

    it('unknown routes under /v1 are 404 problems', async () => {
      for (const [method, url] of [
        ['GET', '/v1/nope'],
        ['GET', '/v1/projects/x/nope'],
        ['PUT', '/v1/nope'],
        ['DELETE', '/v1/projects/x/runs/y/nope'],
        ['GET', '/v1/'],
        ['GET', '/v1//projects'],
      ] as const) {
        const res = await ctx.request(method, url, { token: owner.token });
        expectProblem(res, 404, 'not-found');
        expectCleanProblem(res, [url]);
      }
    });

    it('a known path asked with a method it does not answer is a 405 problem with Allow, with or without a token', async () => {
      // The methods answered at a concrete path: those of every route whose template matches it
      // (GET …/runs/batch is the GET of …/runs/{run_id}).
      const templateOf = (route: string) => new RegExp(`^${route.replace(/\{[a-z_]+\}/g, '[^/]+')}$`);
      const methodsAt = (url: string) =>
        new Set(ROUTES.filter((r) => templateOf(r.route).test(url)).flatMap((r) => (r.method === 'GET' ? ['GET', 'HEAD'] : [r.method])));
      for (const route of new Set(ROUTES.map((r) => r.route))) {
        const url = ROUTES.find((r) => r.route === route)!.path(f);
        const methods = methodsAt(url);
        const allow = [...methods].sort().join(', ');
        for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
          if (methods.has(method)) continue;
          for (const token of [owner.token, undefined]) {
            const res = await ctx.request(method, url, token ? { token } : {});
            const body = expectProblem(res, 405, 'method-not-allowed');
            expect(res.headers.allow, `${method} ${route}`).toBe(allow);
            expect(body.detail).toBe(`${method} is not allowed on ${url}; it answers ${allow}.`);
            expectCleanProblem(res);
          }
        }
      }
      for (const [method, url, allow] of [
        ['PUT', '/v1/projects', 'GET, HEAD, POST'],
        ['DELETE', '/v1/projects', 'GET, HEAD, POST'],
        ['POST', '/v1/me', 'GET, HEAD'],
        ['POST', '/healthz', 'GET, HEAD'],
      ] as const) {
        const res = await ctx.request(method, url, { token: owner.token });
        expectProblem(res, 405, 'method-not-allowed');
        expect(res.headers.allow).toBe(allow);
      }
    });
  });

  describe('query strings', () => {
    for (const r of QUERY_ROUTES) {
      const junk = [
        ...LIST_JUNK.filter(([, p]) => !(r.route.endsWith('/metrics') && (p === 'limit' || p === 'cursor'))),
        ...(r.route === '/v1/projects' ? PROJECT_LIST_JUNK : []),
        ...(r.route === '/v1/prompts' ? PROMPT_LIST_JUNK : []),
        ...(r.route.includes('/runs') ? FILTER_JUNK : []),
        ...(r.route.endsWith('/metrics') ? METRICS_JUNK : []),
        ...(r.route === '/v1/projects/{project_id}/monitors' ? MONITOR_LIST_JUNK : []),
        ...(r.route === '/v1/projects/{project_id}/monitors/{monitor_id}/metrics' ? MONITOR_METRICS_JUNK : []),
      ];
      it(`${r.method} ${r.route}: ${junk.length} junk queries → 400 naming the parameter`, async () => {
        for (const [query, parameter] of junk) {
          const res = await send(r, { path: `${r.path(f)}?${query}` });
          expectValidation(res, { parameters: [parameter] }, [query, parameter]);
        }
      });

      if (!r.route.endsWith('/metrics')) {
        it(`${r.method} ${r.route}: an out-of-range limit is clamped`, async () => {
          for (const [limit, used] of [
            ['0', 1],
            ['-5', 1],
            ['1000', 100],
            ['100', 100],
            ['99999999999999999999', 100],
            ['-99999999999999999999', 1],
          ] as const) {
            const res = await send(r, { path: `${r.path(f)}?limit=${limit}` });
            expect(res.statusCode, res.body).toBe(200);
            expect(res.json().limit).toBe(used);
          }
        });
      }
    }

    it('several faulty parameters are all listed', async () => {
      const runs = ROUTES.find((r) => r.route === '/v1/projects/{project_id}/runs')!;
      expectValidation(await send(runs, { path: `${runs.path(f)}?limit=abc&status=bogus&kind=bogus&bogus=1` }), {
        parameters: ['limit', 'status', 'kind', 'bogus'],
      });
      const metrics = ROUTES.find((r) => r.route.endsWith('/metrics'))!;
      expectValidation(await send(metrics, { path: `${metrics.path(f)}?bucket=2m&groupBy=user&status=x` }), { parameters: ['bucket', 'groupBy', 'status'] });
    });

    it('__proto__ as a query parameter is dropped or refused, never a 5xx', async () => {
      for (const r of QUERY_ROUTES) {
        for (const query of ['__proto__=1', '__proto__[admin]=1', 'constructor[prototype][admin]=1', 'hasOwnProperty=1']) {
          const res = await send(r, { path: `${r.path(f)}?${query}` });
          expect([200, 400], `${r.route}?${query}: ${res.body.slice(0, 200)}`).toContain(res.statusCode);
          if (res.statusCode === 400) expectValidation(res);
        }
      }
      expect(({} as Record<string, unknown>).admin).toBeUndefined();
    });

    it('routes without query parameters refuse an unknown one too (400), as the lists do', async () => {
      // Ids that name nothing: the refusal must come before any lookup, so nothing is changed either way.
      const ignored: string[] = [];
      for (const r of PLAIN_ROUTES) {
        const res = await send(r, { path: `${r.path(nowhere())}?bogus=1`, ...(r.body ? { body: r.body() } : {}) });
        if (res.statusCode >= 500) expectCleanProblem(res);
        if (res.statusCode !== 400) ignored.push(`${r.method} ${r.route}?bogus=1 → ${res.statusCode}`);
        else expectValidation(res, { parameters: ['bogus'] });
      }
      expect(ignored, 'routes that silently ignore an unknown query parameter').toEqual([]);
    });
  });

  describe('the NUL character (U+0000)', () => {
    it('in a path id, a query value or a body string: a clean 4xx problem or accepted, never a 5xx', async () => {
      const project = await ctx.make.project(owner.organizationId);
      const [runId] = await ctx.make.runs(project.id, 1);
      const g: Fixture = { ...f, projectId: project.id, runId: runId! };
      const failures: string[] = [];
      const check = (label: string, res: Awaited<ReturnType<typeof send>>) => {
        if (res.statusCode >= 500 || res.statusCode < 200) failures.push(`${label} → ${res.statusCode} ${res.body.slice(0, 120)}`);
        else if (res.statusCode >= 400) expectCleanProblem(res, ['\u0000']);
      };
      for (const r of ID_ROUTES) {
        for (const key of ['projectId', 'runId', 'tokenId', 'monitorId'] as const) {
          const url = r.path({ ...g, [key]: `${{ projectId: 'prj', runId: 'run', tokenId: 'tok', monitorId: 'mon' }[key]}_%00` });
          if (url === r.path(g)) continue;
          check(`${r.method} ${url}`, await send(r, { path: url, ...(r.body ? { body: r.body() } : {}) }));
        }
      }
      for (const r of QUERY_ROUTES) {
        const params =
          r.route === '/v1/projects'
            ? ['name']
            : r.route.includes('/runs')
              ? ['name', 'model', 'tag', 'traceId', 'parentRunId', 'metadata.k', 'status']
              : r.route === '/v1/projects/{project_id}/monitors'
                ? ['state', 'enabled', 'cursor']
                : r.route.endsWith('/metrics')
                  ? ['from', 'to', 'bucket']
                  : ['cursor'];
        for (const param of params) {
          const url = `${r.path(g)}?${param}=a%00b`;
          check(`${r.method} ${url}`, await send(r, { path: url }));
        }
      }
      const bodies: [Route, Record<string, unknown>][] = [];
      const route = (method: Method, suffix: string) => ROUTES.find((r) => r.method === method && r.route.endsWith(suffix))!;
      bodies.push([route('POST', '/v1/tokens'), { name: 'a\u0000b' }]);
      bodies.push([route('POST', '/v1/projects'), { name: 'a\u0000b' }]);
      bodies.push([route('POST', '/v1/projects'), { name: uniqueName(), description: 'a\u0000b' }]);
      bodies.push([route('PATCH', '/v1/projects/{project_id}'), { description: 'a\u0000b' }]);
      for (const patch of [
        { name: 'a\u0000b' },
        { model: 'a\u0000b' },
        { tags: ['a\u0000b'] },
        { inputs: { q: 'a\u0000b' } },
        { inputs: { 'a\u0000b': 1 } },
        { id: 'a\u0000b' },
        { traceId: 'a\u0000b' },
        { status: 'failed', endTime: '2026-11-02T10:00:01.000Z', error: 'a\u0000b' },
      ]) {
        bodies.push([route('POST', '/runs'), { ...validRun(), ...patch }]);
        bodies.push([route('POST', '/batch'), { runs: [{ ...validRun(), ...patch }] }]);
      }
      for (const patch of [{ outputs: { a: 'a\u0000b' } }, { tags: ['a\u0000b'] }, { status: 'failed', error: 'a\u0000b' }]) {
        bodies.push([route('PATCH', '{run_id}'), patch]);
      }
      bodies.push([route('PATCH', '{monitor_id}'), { description: 'a\u0000b' }]);
      for (const patch of [
        { name: 'a\u0000b' },
        { description: 'a\u0000b' },
        { filter: { model: 'a\u0000b' } },
        { filter: { tag: ['a\u0000b'] } },
        { filter: { 'metadata.k': 'a\u0000b' } },
        { filter: { parentRunId: 'a\u0000b' } },
        { webhookUrls: ['https://a\u0000b.example.com/'] },
        { webhookUrls: ['https://example.com/a\u0000b'] },
      ]) {
        bodies.push([route('POST', '/monitors'), { ...validMonitor(), ...patch }]);
        bodies.push([route('PATCH', '{monitor_id}'), patch]);
      }
      for (const [r, body] of bodies) check(`${r.method} ${r.route} ${JSON.stringify(body)}`, await send(r, { body, ids: g }));
      expect(failures).toEqual([]);
    });

    it('a stored run whose metadata holds U+0000 does not break the metadata filters of its project', async () => {
      const project = await ctx.make.project(owner.organizationId);
      const list = ROUTES.find((r) => r.route === '/v1/projects/{project_id}/runs')!;
      const metrics = ROUTES.find((r) => r.route.endsWith('/metrics'))!;
      const g: Fixture = { ...f, projectId: project.id };
      const created = await send(
        ROUTES.find((r) => r.method === 'POST' && r.route.endsWith('/runs'))!,
        {
          ids: g,
          body: { ...validRun(), metadata: { user: 'a\u0000b', attempt: 2 } },
        },
      );
      expect([201, 400], created.body).toContain(created.statusCode);
      await ctx.make.runs(project.id, 1, () => ({ metadata: { attempt: 2 } }));
      const expected = created.statusCode === 201 ? 2 : 1;
      const res = await send(list, { ids: g, path: `${list.path(g)}?metadata.attempt=2` });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(res.json().items).toHaveLength(expected);
      const m = await send(metrics, { ids: g, path: `${metrics.path(g)}?metadata.attempt=2&from=2026-11-01T00:00:00Z&to=2026-11-03T00:00:00Z` });
      expect(m.statusCode, m.body.slice(0, 300)).toBe(200);
      expect(m.json().total.count).toBe(expected);
    });
  });

  describe('properties', () => {
    const runsRoute = ROUTES.find((r) => r.method === 'POST' && r.route.endsWith('/runs'))!;
    const allowed = [200, 201, 400, 409];

    it('random JSON values as a run-create body: 200, 201, 400 or 409, never 5xx', async () => {
      const g: Fixture = { ...f, projectId: (await ctx.make.project(owner.organizationId)).id };
      await fc.assert(
        fc.asyncProperty(fc.jsonValue(), async (value) => {
          const res = await send(runsRoute, { payload: JSON.stringify(value), ids: g });
          expect(allowed, `${res.statusCode} for ${JSON.stringify(value).slice(0, 200)}: ${res.body.slice(0, 300)}`).toContain(res.statusCode);
          if (res.statusCode >= 400) expectCleanProblem(res);
        }),
        { numRuns: 150 },
      );
    });

    it('a valid run with random values in random fields: 200, 201, 400 or 409, never 5xx', async () => {
      const anyValue = fc.oneof(
        fc.jsonValue(),
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'llm', 'failed', '2026-11-02T10:00:00.000Z'),
      );
      const overrides = fc.dictionary(fc.constantFrom(...Object.keys(RUN_FIELDS), 'bogus'), anyValue, { maxKeys: 4 });
      const g: Fixture = { ...f, projectId: (await ctx.make.project(owner.organizationId)).id };
      await fc.assert(
        fc.asyncProperty(overrides, async (o) => {
          const res = await send(runsRoute, { body: { ...validRun(), ...o }, ids: g });
          expect(allowed, `${res.statusCode} for ${JSON.stringify(o).slice(0, 300)}: ${res.body.slice(0, 300)}`).toContain(res.statusCode);
          if (res.statusCode >= 400) expectCleanProblem(res);
        }),
        { numRuns: 150 },
      );
    });

    it('a valid monitor with random values in random fields (and in its filter): 201 or 400, never 5xx', async () => {
      const monitors = ROUTES.find((r) => r.method === 'POST' && r.route.endsWith('/monitors'))!;
      const anyValue = fc.oneof(fc.jsonValue(), fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('\u0000', '\ud800', 'count', '1h', null, [], {}));
      const filterKey = fc.constantFrom(
        'status',
        'kind',
        'name',
        'tag',
        'model',
        'traceId',
        'parentRunId',
        'metadata.k',
        'metadata.__proto__',
        '__proto__',
        'startedAfter',
        'bogus',
      );
      const overrides = fc.record({
        fields: fc.dictionary(fc.constantFrom(...Object.keys(MONITOR_FIELDS)), anyValue, { maxKeys: 3 }),
        filter: fc.option(fc.dictionary(filterKey, anyValue, { maxKeys: 3 }), { nil: undefined }),
      });
      const g: Fixture = { ...f, projectId: (await ctx.make.project(owner.organizationId)).id };
      await fc.assert(
        fc.asyncProperty(overrides, async ({ fields, filter }) => {
          const body = { ...validMonitor(), ...(filter === undefined ? {} : { filter }), ...fields };
          const res = await send(monitors, { body, ids: g });
          expect([201, 400], `${res.statusCode} for ${JSON.stringify(body).slice(0, 300)}: ${res.body.slice(0, 300)}`).toContain(res.statusCode);
          if (res.statusCode >= 400) expectCleanProblem(res);
          else {
            // Accepted: it reads back, and its metrics answer.
            const id = res.json().id as string;
            expect(
              (
                await send(
                  ROUTES.find((r) => r.method === 'GET' && r.route.endsWith('{monitor_id}'))!,
                  { ids: { ...g, monitorId: id } },
                )
              ).statusCode,
            ).toBe(200);
            const metrics = await send(
              ROUTES.find((r) => r.route.endsWith('{monitor_id}/metrics'))!,
              { ids: { ...g, monitorId: id } },
            );
            expect(metrics.statusCode, metrics.body.slice(0, 300)).toBe(200);
          }
        }),
        { numRuns: 100 },
      );
    });

    it('random strings as run-list filter values: 200 or 400, never 5xx', async () => {
      const runs = ROUTES.find((r) => r.route === '/v1/projects/{project_id}/runs')!;
      const param = fc.constantFrom('name', 'model', 'tag', 'traceId', 'parentRunId', 'status', 'startedAfter', 'metadata.key', 'cursor', 'limit');
      const project = await ctx.make.project(owner.organizationId);
      await ctx.make.runs(project.id, 3, (i) => ({ metadata: { key: `v${i}` }, tags: ['t'], model: 'gpt' }));
      const g: Fixture = { ...f, projectId: project.id };
      await fc.assert(
        fc.asyncProperty(param, fc.string({ unit: 'binary', maxLength: 40 }), async (name, value) => {
          const res = await send(runs, { path: `${runs.path(g)}?${encodeURIComponent(name)}=${encodeURIComponent(value)}` });
          expect([200, 400], `${res.statusCode} for ${name}=${JSON.stringify(value)}: ${res.body.slice(0, 300)}`).toContain(res.statusCode);
          if (res.statusCode >= 400) expectCleanProblem(res, [value]);
        }),
        { numRuns: 150 },
      );
    });
  });
});

// ---- credentials and headers refused before any parsing --------------------------------------

interface RawResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection (it was not reset, and the client did not give up). */
  closedByServer: boolean;
  json(): unknown;
}

/**
 * Sends bytes exactly as given over a new TCP connection (what `inject` cannot: duplicate headers,
 * headers over Node's 16 KB limit, malformed HTTP, a request that never completes) and resolves with
 * the response once the server closes the connection.
 */
function rawExchange(port: number, request: string, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within ${timeoutMs} ms; received ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 300))}`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(
        new Error(`${(error as NodeJS.ErrnoException).code ?? error.message} after ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 300))}`),
      );
    });
    socket.on('end', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = text.slice(0, split === -1 ? text.length : split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const body = split === -1 ? '' : text.slice(split + 4);
      socket.destroy();
      resolve({
        statusCode: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine ?? '')?.[1] ?? 0),
        headers,
        body,
        closedByServer: true,
        json: () => JSON.parse(body) as unknown,
      });
    });
    socket.write(request);
  });
}

/** An HTTP/1.1 request with the given header lines, as raw text; the server closes after answering. */
const rawRequest = (headerLines: string[], options: { method?: string; path?: string; body?: string } = {}) =>
  `${options.method ?? 'GET'} ${options.path ?? '/v1/me'} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
  headerLines.map((line) => `${line}\r\n`).join('') +
  (options.body !== undefined ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(options.body)}\r\n` : '') +
  `Connection: close\r\n\r\n${options.body ?? ''}`;

/** The raw response where the problem helpers expect an inject response. */
const asInjected = (res: RawResponse) => res as unknown as LightMyRequestResponse;

const DUPLICATE = (n: number) => `The request carries ${n} Authorization headers; send exactly one.`;
const TOO_LONG = 'The Authorization header is longer than any credential this service issues (over 4096 characters).';

/** A raw-socket problem: the documented shape, `Connection: close`, and a request id that is also its `instance`. */
function expectRawProblem(res: RawResponse, status: number, slug: string, detail: string): void {
  expectProblem(asInjected(res), status, slug, detail);
  expectCleanProblem(asInjected(res));
  expect(res.headers.connection).toBe('close');
  expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect((res.json() as { instance?: string }).instance).toBe(`urn:sightline:request:${res.headers['x-request-id']}`);
  expect(res.closedByServer).toBe(true);
}

describeEachDialect('bad input: credentials and headers refused before any parsing', (ctx: TestContext) => {
  let owner: Caller;
  let port: number;

  beforeAll(async () => {
    owner = await ctx.make.caller({ role: 'owner' });
    // Node's own request timeout, shortened so that the 408 test does not wait a minute.
    ctx.app.server.headersTimeout = 1500;
    // Read when the server starts listening; Node's types know it only as a constructor option.
    (ctx.app.server as typeof ctx.app.server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = 100;
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    port = (ctx.app.server.address() as AddressInfo).port;
  });

  describe('two or more Authorization headers', () => {
    it('control: one Authorization header over the same raw connection is answered 200', async () => {
      const res = await rawExchange(port, rawRequest([`Authorization: Bearer ${owner.token}`]));
      expect(res.statusCode, res.body).toBe(200);
      expect((res.json() as { token: { kind: string } }).token.kind).toBe('personal_access_token');
    });

    const cases: [string, (token: string) => string[]][] = [
      ['the same valid token twice', (t) => [`Authorization: Bearer ${t}`, `Authorization: Bearer ${t}`]],
      ['a valid token, then garbage', (t) => [`Authorization: Bearer ${t}`, 'Authorization: Bearer not-a-token']],
      ['garbage, then a valid token', (t) => ['Authorization: Bearer not-a-token', `Authorization: Bearer ${t}`]],
      ['a valid token, then an empty header', (t) => [`Authorization: Bearer ${t}`, 'Authorization:']],
      ['Basic credentials, then a bearer token', (t) => ['Authorization: Basic dXNlcjpwYXNz', `Authorization: Bearer ${t}`]],
      ['names in different case', (t) => [`authorization: Bearer ${t}`, `AUTHORIZATION: Bearer ${t}`]],
      ['three headers', (t) => [`Authorization: Bearer ${t}`, `Authorization: Bearer ${t}`, `Authorization: Bearer ${t}`]],
    ];
    for (const [name, headers] of cases) {
      it(`${name}: 400 validation naming Authorization, the token not echoed`, async () => {
        const lines = headers(owner.token);
        const res = await rawExchange(port, rawRequest(lines));
        const errors = expectValidation(asInjected(res), { parameters: ['Authorization'] });
        expect(errors).toEqual([{ parameter: 'Authorization', detail: DUPLICATE(lines.length) }]);
        expect(res.body).not.toContain(owner.token);
      });
    }

    it('refuses before the route runs: a POST with two headers creates nothing', async () => {
      const name = uniqueName();
      const lines = [`Authorization: Bearer ${owner.token}`, `Authorization: Bearer ${owner.token}`];
      const res = await rawExchange(port, rawRequest(lines, { method: 'POST', path: '/v1/projects', body: JSON.stringify({ name }) }));
      expect(expectValidation(asInjected(res), { parameters: ['Authorization'] })).toEqual([{ parameter: 'Authorization', detail: DUPLICATE(2) }]);
      const list = await ctx.request('GET', `/v1/projects?name=${name}`, { token: owner.token });
      expect(list.json().items).toEqual([]);
    });

    it('refuses two headers even beside a session cookie (the cookie is not a fallback)', async () => {
      const { cookie } = await ctx.make.session({ userId: owner.userId, organizationId: owner.organizationId });
      const res = await rawExchange(port, rawRequest([`Cookie: ${cookie}`, 'Authorization: Bearer a', 'Authorization: Bearer b']));
      expect(expectValidation(asInjected(res), { parameters: ['Authorization'] })).toEqual([{ parameter: 'Authorization', detail: DUPLICATE(2) }]);
      expect((await rawExchange(port, rawRequest([`Cookie: ${cookie}`]))).statusCode).toBe(200);
    });
  });

  describe('Authorization headers longer than any token we mint', () => {
    it('over 4096 characters: 401 invalid_token before any parsing, whatever the scheme', async () => {
      for (const header of [
        `Bearer ${'a'.repeat(4090)}`,
        `Bearer ${owner.token}${'A'.repeat(4096)}`,
        `Basic ${'a'.repeat(5000)}`,
        `Bearer ${'eyJh'.repeat(2000)}.e.e`,
      ]) {
        const res = await ctx.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: header } });
        const body = expectUnauthorized(res, 'invalid_token', header.slice(7));
        expect(body.detail).toBe(TOO_LONG);
      }
    });

    it('up to 4096 characters the usual checks answer (the boundary)', async () => {
      const at = `Bearer ${'a'.repeat(4096 - 7)}`;
      expect(at).toHaveLength(4096);
      const body = expectUnauthorized(await ctx.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: at } }), 'invalid_token');
      expect(body.detail).toBe('The bearer token is malformed.');
      const over = expectUnauthorized(await ctx.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `${at}a` } }), 'invalid_token');
      expect(over.detail).toBe(TOO_LONG);
    });

    it('a 15 KB token still within the header limit: the same 401 over a real connection (not 431)', async () => {
      const token = 'a'.repeat(15 * 1024);
      const res = await rawExchange(port, rawRequest([`Authorization: Bearer ${token}`]));
      const body = expectUnauthorized(asInjected(res), 'invalid_token', token);
      expect(body.detail).toBe(TOO_LONG);
    });
  });

  describe('requests the HTTP parser refuses (answered on the raw socket)', () => {
    const TOO_LARGE = 'The request line and headers exceed 16 KB. A personal access token is well under 1 KB: check what the client sends.';

    it('a 100 KB token: 431 header-fields-too-large, Connection: close, the token not echoed', async () => {
      const token = 'a'.repeat(100 * 1024);
      const res = await rawExchange(port, rawRequest([`Authorization: Bearer ${token}`]));
      expectRawProblem(res, 431, 'header-fields-too-large', TOO_LARGE);
      expect(res.body).not.toContain('a'.repeat(64));
    });

    it('other ways over 16 KB: a 20 KB token, forty 500-byte headers, a 20 KB URL, a 1 MB header: 431', async () => {
      const pad = 'x'.repeat(500);
      for (const request of [
        rawRequest([`Authorization: Bearer ${'a'.repeat(20 * 1024)}`]),
        rawRequest(Array.from({ length: 40 }, (_, i) => `X-Pad-${i}: ${pad}`)),
        rawRequest([`Authorization: Bearer ${owner.token}`], { path: `/v1/projects?name=${'n'.repeat(20 * 1024)}` }),
        rawRequest([`X-Big: ${'b'.repeat(1024 * 1024)}`]),
      ]) {
        expectRawProblem(await rawExchange(port, request), 431, 'header-fields-too-large', TOO_LARGE);
      }
    });

    it('malformed HTTP: 400 validation "The HTTP request is malformed."', async () => {
      for (const request of [
        'NOT HTTP AT ALL\r\n\r\n',
        'GET /v1/me HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n',
        'GET /v1/me HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
      ]) {
        expectRawProblem(await rawExchange(port, request), 400, 'validation', 'The HTTP request is malformed.');
      }
    });

    it("headers that do not arrive within Node's request timeout: 408 request-timeout", async () => {
      const started = Date.now();
      const res = await rawExchange(port, `GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${owner.token}\r\n`);
      expectRawProblem(res, 408, 'request-timeout', 'The request did not arrive in time. Send it again on a new connection.');
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    });

    it('the server keeps serving afterwards', async () => {
      expect((await rawExchange(port, rawRequest([`Authorization: Bearer ${owner.token}`]))).statusCode).toBe(200);
    });
  });

  describe('properties', () => {
    const value = fc.stringMatching(/^[!-~]([ -~]{0,40}[!-~])?$/);

    it('any number of Authorization headers with any values: one is judged (200 or 401), more than one is a 400 naming Authorization', async () => {
      const header = fc.oneof(
        fc.constant('valid'),
        value.map((v) => `Bearer ${v}`),
        value,
        fc.constant(''),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(header, { minLength: 1, maxLength: 4 }), async (values) => {
          const lines = values.map((v) => `Authorization: ${v === 'valid' ? `Bearer ${owner.token}` : v}`.trimEnd());
          const res = await rawExchange(port, rawRequest(lines));
          if (values.length > 1) {
            expect(expectValidation(asInjected(res), { parameters: ['Authorization'] })).toEqual([
              { parameter: 'Authorization', detail: DUPLICATE(values.length) },
            ]);
          } else if (values[0] === 'valid') {
            expect(res.statusCode, res.body).toBe(200);
          } else {
            expectUnauthorized(asInjected(res), values[0] === '' ? 'missing_token' : 'invalid_token');
          }
        }),
        { numRuns: 60 },
      );
    });

    it('an Authorization header of any length up to the header limit is a 401 invalid_token; over 4096 characters with the length detail', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 15_000 }),
          fc.constantFrom('Bearer ', 'bearer ', 'Basic ', ''),
          fc.constantFrom('a', '.', 'eyJh', '-_'),
          async (length, scheme, unit) => {
            const header = `${scheme}${unit.repeat(Math.ceil(length / unit.length))}`;
            const res = await ctx.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: header } });
            const body = expectUnauthorized(res, 'invalid_token');
            if (header.length > 4096) expect(body.detail).toBe(TOO_LONG);
            else expect(body.detail).not.toBe(TOO_LONG);
          },
        ),
        { numRuns: 100 },
      );
    });
  });
});

describeEachDialect(
  'bad input: refused credentials count against the client address',
  (ctx: TestContext) => {
    it('two Authorization headers and an overlong one use up the address budget like a bad token: then 429', async () => {
      await ctx.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (ctx.app.server.address() as AddressInfo).port;
      const duplicate = rawRequest(['Authorization: Bearer a', 'Authorization: Bearer b']);
      for (let i = 1; i <= 2; i++) {
        const res = await rawExchange(port, duplicate);
        expect(expectValidation(asInjected(res), { parameters: ['Authorization'] })).toEqual([{ parameter: 'Authorization', detail: DUPLICATE(2) }]);
        expect(res.headers['ratelimit-remaining']).toBe(String(3 - i));
      }
      expectUnauthorized(await ctx.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${'a'.repeat(5000)}` } }), 'invalid_token');
      const limited = await rawExchange(port, duplicate);
      expectProblem(asInjected(limited), 429, 'rate-limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    });
  },
  // A fixed clock: the three requests cannot straddle two rate-limit windows.
  { clock: manualClock(Date.parse('2026-11-02T10:00:30.000Z')), env: { SIGHTLINE_RATE_LIMIT: '3' } },
);

describe('answerClientError: never writes into a response that has started', () => {
  const log = { info: () => {} };
  /** The parts of a socket the handler looks at, recording what it does. */
  const fakeSocket = (state: { headersSent?: boolean; writableEnded?: boolean; writable?: boolean }) => {
    const calls: string[] = [];
    const socket = {
      destroyed: false,
      writable: state.writable ?? true,
      writableEnded: state.writableEnded ?? false,
      _httpMessage: state.headersSent === undefined ? null : { headersSent: state.headersSent },
      end: (data: string) => calls.push(`end ${data.split('\r\n')[0]}`),
      destroy: () => calls.push('destroy'),
      once: () => socket,
    };
    return { socket: socket as unknown as Socket, calls };
  };
  const error = (code: string) => Object.assign(new Error(code), { code });

  it('a response already being written on the connection: closed, nothing written', () => {
    const { socket, calls } = fakeSocket({ headersSent: true });
    answerClientError(error('HPE_INVALID_METHOD'), socket, PROBLEM_BASE, log);
    expect(calls).toEqual(['destroy']);
  });

  it('a request in flight whose response has not started, or none: the problem is written and the connection ended', () => {
    for (const state of [{ headersSent: false }, {}]) {
      const { socket, calls } = fakeSocket(state);
      answerClientError(error('HPE_HEADER_OVERFLOW'), socket, PROBLEM_BASE, log);
      expect(calls).toEqual(['end HTTP/1.1 431 Request Header Fields Too Large']);
    }
  });

  it('a connection already answered (the parser reports every further chunk) or reset: left alone', () => {
    const answered = fakeSocket({ writableEnded: true, writable: false });
    answerClientError(error('HPE_HEADER_OVERFLOW'), answered.socket, PROBLEM_BASE, log);
    expect(answered.calls).toEqual([]);
    const reset = fakeSocket({});
    answerClientError(error('ECONNRESET'), reset.socket, PROBLEM_BASE, log);
    expect(reset.calls).toEqual([]);
  });

  it('maps the parser errors to problems: 431, 408, and 400 for the rest', () => {
    expect(clientErrorProblem('HPE_HEADER_OVERFLOW')).toMatchObject({ status: 431, slug: 'header-fields-too-large' });
    expect(clientErrorProblem('ERR_HTTP_REQUEST_TIMEOUT')).toMatchObject({ status: 408, slug: 'request-timeout' });
    for (const code of ['HPE_INVALID_METHOD', 'HPE_UNEXPECTED_CONTENT_LENGTH', undefined]) {
      expect(clientErrorProblem(code)).toMatchObject({ status: 400, slug: 'validation', detail: 'The HTTP request is malformed.' });
    }
  });
});

/**
 * Bodies are stored as sent or refused (README, Using the API): bytes that are not UTF-8, numbers that do not fit a
 * double, text that no engine stores as sent, nesting and counts that would exhaust the heap. Each is a
 * 4xx naming the place, and nothing is stored.
 */
describeEachDialect('bad input: bodies are stored exactly as sent, or refused naming the place', (ctx: TestContext) => {
  let owner: Caller;
  let projectId: string;
  const runsUrl = () => `/v1/projects/${projectId}/runs`;
  const post = (url: string, payload: string | Buffer) =>
    ctx.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' }, payload });
  const storedNames = async () => {
    const res = await ctx.request('GET', `${runsUrl()}?limit=100`, { token: owner.token });
    return (res.json().items as { name: string }[]).map((r) => r.name);
  };
  const run = (fields: string) => `{"name":"ok","kind":"llm","startTime":"2026-11-01T00:00:00Z"${fields}}`;

  beforeAll(async () => {
    owner = await ctx.make.caller({ role: 'owner' });
    projectId = (await ctx.make.project(owner.organizationId)).id;
  });

  it('a body that is not UTF-8 is a 400 naming the byte, never stored with U+FFFD', async () => {
    for (const bad of [Buffer.from([0xff]), Buffer.from([0xc3, 0x28]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xf0, 0x9f, 0x98])]) {
      const payload = Buffer.concat([Buffer.from('{"name":"x'), bad, Buffer.from('y","kind":"llm","startTime":"2026-11-01T00:00:00Z"}')]);
      expect(expectValidation(await post(runsUrl(), payload), { pointers: [''] })).toEqual([
        { pointer: '', detail: 'The body is not valid UTF-8 (at byte 10).' },
      ]);
    }
    const promptBody = Buffer.concat([Buffer.from('{"name":"utf","template":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    expect(expectValidation(await post('/v1/prompts', promptBody))).toEqual([{ pointer: '', detail: 'The body is not valid UTF-8 (at byte 29).' }]);
    // Well-formed multi-byte text is fine, and comes back byte for byte.
    const ok = await post(runsUrl(), Buffer.from(run(',"id":"utf8-ok","inputs":{"q":"café 🙂 日本"}').replace('"ok"', '"ünï"')));
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json()).toMatchObject({ name: 'ünï', inputs: { q: 'café 🙂 日本' } });
    expect(await storedNames()).toEqual(['ünï']);
  });

  it('a number that does not fit a double is a 400 at its pointer, never stored as null', async () => {
    for (const literal of ['1e309', '-1e400', `1${'0'.repeat(400)}`, '1.8e308']) {
      expect(expectValidation(await post(runsUrl(), run(`,"inputs":{"a":[1,{"n":${literal}}]}`)))).toEqual([
        { pointer: '/inputs/a/1/n', detail: 'The number is out of range (it does not fit a 64-bit floating-point number).' },
      ]);
    }
    const batch = await post(`${runsUrl()}/batch`, `{"runs":[${run('')},${run(',"metadata":{"x":1e999}')}]}`);
    expect(expectValidation(batch)).toEqual([
      { pointer: '/runs/1/metadata/x', detail: 'The number is out of range (it does not fit a 64-bit floating-point number).' },
    ]);
    const monitor = await post(`/v1/projects/${projectId}/monitors`, '{"name":"m","metric":"count","window":"1h","threshold":{"op":">","value":1e309}}');
    expect(expectValidation(monitor, { pointers: ['/threshold/value'] })).toHaveLength(1);
    // The largest finite double and the smallest denormal are numbers like any other.
    const edge = await post(runsUrl(), run(',"id":"edge-numbers","inputs":{"max":1.7976931348623157e308,"min":5e-324}'));
    expect(edge.statusCode, edge.body).toBe(201);
    expect(edge.json().inputs).toEqual({ max: Number.MAX_VALUE, min: Number.MIN_VALUE });
    expect(await storedNames()).not.toContain('x');
  });

  it('an unpaired surrogate in a text field is a 400 naming it; in free-form JSON it is kept exactly', async () => {
    const lone = 'Must not contain an unpaired UTF-16 surrogate (a lone \\ud800-\\udfff escape).';
    const before = await storedNames();
    expect(expectValidation(await post(runsUrl(), '{"name":"a\\ud800b","kind":"llm","startTime":"2026-11-01T00:00:00Z"}'))).toEqual([
      { pointer: '/name', detail: lone },
    ]);
    expect(expectValidation(await post(runsUrl(), run(',"tags":["ok","\\udc00"]')))).toEqual([{ pointer: '/tags', detail: lone }]);
    expect(expectValidation(await post(runsUrl(), run(',"model":"gpt\\udbff"')))).toEqual([{ pointer: '/model', detail: lone }]);
    const batch = await post(`${runsUrl()}/batch`, `{"runs":[${run(',"id":"pair-ok"')},{"name":"\\ud83d","kind":"llm","startTime":"2026-11-01T00:00:00Z"}]}`);
    expect(batch.statusCode, batch.body).toBe(200);
    expect(batch.json().results.map((r: { status: string }) => r.status)).toEqual(['created', 'rejected']);
    expect(batch.json().results[1].problem.errors).toEqual([{ pointer: '/runs/1/name', detail: lone }]);
    expect(expectValidation(await post('/v1/projects', '{"name":"p\\ud800"}'))).toEqual([{ pointer: '/name', detail: lone }]);
    // A pair is a character like any other; inputs keep even a lone half exactly as sent.
    const kept = await post(runsUrl(), run(',"id":"kept","inputs":{"cut":"trunc\\ud83d","emoji":"\\ud83d\\ude00"}').replace('"ok"', '"\\ud83d\\ude00"'));
    expect(kept.statusCode, kept.body).toBe(201);
    const read = await ctx.request('GET', `${runsUrl()}/kept`, { token: owner.token });
    expect(read.json()).toMatchObject({ name: '\ud83d\ude00', inputs: { cut: 'trunc\ud83d', emoji: '\ud83d\ude00' } });
    expect((await storedNames()).length).toBe(before.length + 2);
  });

  it('a prompt config nested 5,000 levels deep is a 400 at /config, not a 500', async () => {
    const nest = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    for (const depth of [101, 5_000]) {
      const res = await post('/v1/prompts', `{"name":"deep-${depth}","template":"hi","config":${nest(depth)}}`);
      expect(expectValidation(res)).toEqual([{ pointer: '/config', detail: 'Must not nest more than 100 levels deep.' }]);
    }
    const created = await post('/v1/prompts', `{"name":"deep-ok","template":"hi","config":${nest(99)}}`);
    expect(created.statusCode, created.body).toBe(201);
    const version = await post('/v1/prompts/deep-ok/versions', `{"template":"hi","config":${nest(5_000)}}`);
    expect(expectValidation(version)).toEqual([{ pointer: '/config', detail: 'Must not nest more than 100 levels deep.' }]);
  });

  it('a body of more objects and arrays, or values, than the heap can hold safely is a 413 problem', async () => {
    const arrays = `{"runs":[${run(`,"inputs":{"a":[${Array.from({ length: 100_001 }, () => '[]').join(',')}]}`)}]}`;
    const manyArrays = await post(`${runsUrl()}/batch`, arrays);
    expect(expectProblem(manyArrays, 413, 'payload-too-large').detail).toBe(
      'The body holds more than 100,000 objects and arrays; send less at once (for example fewer runs per batch).',
    );
    const keys = run(`,"inputs":{${Array.from({ length: 250_001 }, (_, i) => `"k${i}":1`).join(',')}}`);
    expect(expectProblem(await post(runsUrl(), keys), 413, 'payload-too-large').detail).toBe(
      'The body holds more than 250,000 values; send less at once (for example fewer runs per batch).',
    );
    // Commas and brackets inside strings are text, not values.
    const text = run(`,"id":"brackets-in-text","inputs":{"code":${JSON.stringify('[{},'.repeat(300_000))}}`);
    const accepted = await post(runsUrl(), text);
    expect(accepted.statusCode, accepted.body.slice(0, 300)).toBe(201);
  });

  describe('properties', () => {
    it('any string as a run name is stored and read back exactly, or refused with a 400 at /name', async () => {
      const g = (await ctx.make.project(owner.organizationId)).id;
      let i = 0;
      await fc.assert(
        fc.asyncProperty(fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }), async (name) => {
          const id = `name-${i++}`;
          const res = await post(`/v1/projects/${g}/runs`, JSON.stringify({ id, name, kind: 'tool', startTime: '2026-11-01T00:00:00Z' }));
          if (res.statusCode === 400) {
            expect(expectValidation(res).map((e) => e.pointer)).toEqual(['/name']);
            return;
          }
          expect(res.statusCode, res.body).toBe(201);
          expect(res.json().name).toBe(name);
          const read = await ctx.request('GET', `/v1/projects/${g}/runs/${id}`, { token: owner.token });
          expect(read.json().name).toBe(name);
          const listed = await ctx.request('GET', `/v1/projects/${g}/runs?name=${encodeURIComponent(name)}&kind=tool`, { token: owner.token });
          expect(listed.json().items.map((r: { id: string }) => r.id)).toContain(id);
        }),
        { numRuns: 120 },
      );
    });

    it('any JSON value as run inputs is stored and read back exactly (deep-equal), or refused with a 400', async () => {
      const g = (await ctx.make.project(owner.organizationId)).id;
      let i = 0;
      const inputs = fc.dictionary(fc.string({ unit: 'binary', maxLength: 8 }), fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' }), { maxKeys: 5 });
      await fc.assert(
        fc.asyncProperty(inputs, async (value) => {
          const id = `inputs-${i++}`;
          const res = await post(`/v1/projects/${g}/runs`, JSON.stringify({ id, name: 'p', kind: 'tool', startTime: '2026-11-01T00:00:00Z', inputs: value }));
          if (res.statusCode === 400) {
            expect(expectValidation(res).every((e) => e.pointer?.startsWith('/inputs'))).toBe(true);
            return;
          }
          expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
          const read = await ctx.request('GET', `/v1/projects/${g}/runs/${id}`, { token: owner.token });
          expect(read.json().inputs).toStrictEqual(JSON.parse(JSON.stringify(value)));
        }),
        { numRuns: 120 },
      );
    });
  });
});
