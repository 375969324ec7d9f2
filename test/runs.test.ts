import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { describeEachDialect, expectProblem, manualClock, PROBLEM_BASE, type TestContext } from './helpers/harness.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-11-21T12:00:00.000Z');
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const GENERATED_RUN_ID = /^run_[0-9a-z]{26}$/;
const RUN_FIELDS = [
  'id',
  'projectId',
  'traceId',
  'parentRunId',
  'name',
  'kind',
  'status',
  'startTime',
  'endTime',
  'latencyMs',
  'inputs',
  'outputs',
  'error',
  'model',
  'usage',
  'cost',
  'tags',
  'metadata',
  'createdAt',
].sort();

/** Shared by both dialect suites; every test starts at NOW and only ever moves it forward (tokens carry nbf). */
const clock = manualClock(NOW);

const iso = (ms: number) => new Date(ms).toISOString();
type Query = Record<string, string | number | (string | number)[] | undefined>;

function queryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

const pointersOf = (problem: Record<string, unknown>) => ((problem.errors ?? []) as { pointer?: string }[]).map((e) => e.pointer);
const parametersOf = (problem: Record<string, unknown>) => ((problem.errors ?? []) as { parameter?: string }[]).map((e) => e.parameter);

/** A fresh project of a fresh organization, with a member's token, and the runs endpoints bound to it. */
async function projectFor(ctx: TestContext) {
  const caller = await ctx.make.caller({ role: 'member' });
  const project = await ctx.make.project(caller.organizationId);
  const base = `/v1/projects/${project.id}/runs`;
  const token = caller.token;
  const api = {
    id: project.id,
    base,
    caller,
    create: (body: unknown) => ctx.request('POST', base, { token, body }),
    batch: (body: unknown) => ctx.request('POST', `${base}/batch`, { token, body }),
    patch: (id: string, body: unknown) => ctx.request('PATCH', `${base}/${encodeURIComponent(id)}`, { token, body }),
    get: (id: string) => ctx.request('GET', `${base}/${encodeURIComponent(id)}`, { token }),
    list: (query: Query = {}) => ctx.request('GET', `${base}${queryString(query)}`, { token }),
    metrics: (query: Query = {}) => ctx.request('GET', `${base}/metrics${queryString(query)}`, { token }),
    /** Follows nextCursor to the end; fails on a non-200 page. */
    async walk(query: Query = {}, limit = 100): Promise<Record<string, any>[]> {
      const items: Record<string, any>[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 1000; pages++) {
        const res = await api.list({ ...query, limit, cursor });
        if (res.statusCode !== 200) throw new Error(`list failed: ${res.statusCode} ${res.body}`);
        const page = res.json();
        items.push(...page.items);
        if (page.nextCursor === null || page.nextCursor === undefined) return items;
        cursor = page.nextCursor;
      }
      throw new Error('list never ended');
    },
    async ids(query: Query = {}): Promise<string[]> {
      return (await api.walk(query)).map((r) => r.id as string);
    },
    /** Posts a batch and asserts every run was created. */
    async seed(runs: Record<string, unknown>[]) {
      const res = await api.batch({ runs });
      expect(res.statusCode, res.body).toBe(200);
      const results = res.json().results as { status: string; problem?: unknown }[];
      expect(
        results.filter((r) => r.status !== 'created'),
        res.body,
      ).toEqual([]);
      return results;
    },
  };
  return api;
}

const minimal = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'ChatOpenAI',
  kind: 'llm',
  startTime: '2026-11-21T10:00:00.000Z',
  ...overrides,
});

describeEachDialect(
  'runs',
  (ctx) => {
    beforeEach(() => clock.set(NOW));

    describe('create', () => {
      it('answers 201 with the full record, defaults filled in, and GET returns the same', async () => {
        const p = await projectFor(ctx);
        const input = {
          name: 'ChatOpenAI',
          kind: 'llm',
          status: 'succeeded',
          startTime: '2026-11-21T10:00:00.000Z',
          endTime: '2026-11-21T10:00:01.250Z',
          inputs: { messages: [{ role: 'user', content: 'Hi — ünïcode ✓' }], temperature: 0.2 },
          outputs: { text: 'Hello', finish: null },
          model: 'gpt-4o',
          usage: { promptTokens: 10, completionTokens: 5 },
          cost: 0.0012,
          tags: ['prod', 'v2'],
          metadata: { userId: 'u_1', attempt: 2, flag: true, nested: { list: [1, 'two', null] } },
        };
        const res = await p.create(input);
        expect(res.statusCode, res.body).toBe(201);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        const run = res.json();
        expect(run.id).toMatch(GENERATED_RUN_ID);
        expect(Object.keys(run).sort()).toEqual(RUN_FIELDS);
        expect(run).toEqual({
          id: run.id,
          projectId: p.id,
          traceId: run.id,
          parentRunId: null,
          name: 'ChatOpenAI',
          kind: 'llm',
          status: 'succeeded',
          startTime: '2026-11-21T10:00:00.000Z',
          endTime: '2026-11-21T10:00:01.250Z',
          latencyMs: 1250,
          inputs: input.inputs,
          outputs: input.outputs,
          error: null,
          model: 'gpt-4o',
          usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
          cost: 0.0012,
          tags: ['prod', 'v2'],
          metadata: input.metadata,
          createdAt: iso(NOW),
        });
        const got = await p.get(run.id);
        expect(got.statusCode).toBe(200);
        expect(got.json()).toEqual(run);
      });

      it('fills the defaults of a minimal running run', async () => {
        const p = await projectFor(ctx);
        const res = await p.create({ name: 'Agent', kind: 'chain', startTime: '2026-11-21T10:00:00Z' });
        expect(res.statusCode, res.body).toBe(201);
        const run = res.json();
        expect(run).toEqual({
          id: expect.stringMatching(GENERATED_RUN_ID),
          projectId: p.id,
          traceId: run.id,
          parentRunId: null,
          name: 'Agent',
          kind: 'chain',
          status: 'running',
          startTime: '2026-11-21T10:00:00.000Z',
          endTime: null,
          latencyMs: null,
          inputs: {},
          outputs: null,
          error: null,
          model: null,
          usage: null,
          cost: null,
          tags: [],
          metadata: {},
          createdAt: iso(NOW),
        });
      });

      it('keeps an explicit totalTokens and stores a failed run with its error', async () => {
        const p = await projectFor(ctx);
        const res = await p.create(
          minimal({
            status: 'failed',
            endTime: '2026-11-21T10:00:00.000Z',
            error: 'RateLimitError: slow down',
            usage: { promptTokens: 1, completionTokens: 2, totalTokens: 100 },
          }),
        );
        expect(res.statusCode, res.body).toBe(201);
        expect(res.json()).toMatchObject({
          status: 'failed',
          latencyMs: 0,
          error: 'RateLimitError: slow down',
          usage: { promptTokens: 1, completionTokens: 2, totalTokens: 100 },
        });
      });

      it('normalises timestamps with an offset (and sub-millisecond digits) to UTC with milliseconds', async () => {
        const p = await projectFor(ctx);
        const res = await p.create(minimal({ status: 'succeeded', startTime: '2026-11-21T12:15:30.5+02:00', endTime: '2026-11-21T05:15:31.123456-05:00' }));
        expect(res.statusCode, res.body).toBe(201);
        const run = res.json();
        expect(run.startTime).toBe('2026-11-21T10:15:30.500Z');
        expect(run.endTime).toBe('2026-11-21T10:15:31.123Z');
        expect(run.latencyMs).toBe(623);
        for (const field of ['startTime', 'endTime', 'createdAt']) expect(run[field]).toMatch(ISO_MS);
        expect((await p.get(run.id)).json()).toEqual(run);
      });

      it('is idempotent on a client id: same content → 200 with the stored run, other content → 409', async () => {
        const p = await projectFor(ctx);
        const input = minimal({ id: 'my-app:run.0001', tags: ['a'], metadata: { k: 'v' }, inputs: { q: 'x' } });
        const first = await p.create(input);
        expect(first.statusCode, first.body).toBe(201);
        expect(first.json()).toMatchObject({ id: 'my-app:run.0001', traceId: 'my-app:run.0001', createdAt: iso(NOW) });

        clock.advance(60_000);
        const again = await p.create(input);
        expect(again.statusCode, again.body).toBe(200);
        expect(again.json()).toEqual(first.json()); // the stored run, createdAt included

        // Same fields in another key order are the same content.
        const reordered = Object.fromEntries(Object.entries(input).reverse());
        const third = await p.create(reordered);
        expect(third.statusCode, third.body).toBe(200);

        const changed = await p.create({ ...input, inputs: { q: 'y' } });
        expectProblem(changed, 409, 'conflict');
        expect((await p.get('my-app:run.0001')).json()).toEqual(first.json());
        expect(await p.ids()).toEqual(['my-app:run.0001']);
      });

      it('lets a child inherit the trace of its parent, down several levels', async () => {
        const p = await projectFor(ctx);
        expect((await p.create(minimal({ id: 'root-1', kind: 'chain' }))).statusCode).toBe(201);
        const child = await p.create(minimal({ id: 'child-1', parentRunId: 'root-1' }));
        expect(child.statusCode, child.body).toBe(201);
        expect(child.json()).toMatchObject({ id: 'child-1', parentRunId: 'root-1', traceId: 'root-1' });
        const grandchild = await p.create(minimal({ parentRunId: 'child-1' }));
        expect(grandchild.statusCode, grandchild.body).toBe(201);
        expect(grandchild.json()).toMatchObject({ parentRunId: 'child-1', traceId: 'root-1' });

        // A root with an explicit trace id passes it on; a child naming the same trace is fine.
        expect((await p.create(minimal({ id: 'root-2', traceId: 'trace-2' }))).json()).toMatchObject({ traceId: 'trace-2' });
        expect((await p.create(minimal({ parentRunId: 'root-2' }))).json()).toMatchObject({ traceId: 'trace-2' });
        const explicit = await p.create(minimal({ parentRunId: 'root-2', traceId: 'trace-2' }));
        expect(explicit.statusCode, explicit.body).toBe(201);
        expect(explicit.json().traceId).toBe('trace-2');
      });

      it('refuses a parent that does not exist in the project (400 at /parentRunId)', async () => {
        const p = await projectFor(ctx);
        const missing = expectProblem(await p.create(minimal({ parentRunId: 'nope' })), 400, 'validation');
        expect(pointersOf(missing)).toEqual(['/parentRunId']);

        // A run of another project of the same organization is not a parent here.
        const other = await ctx.make.project(p.caller.organizationId);
        const elsewhere = await ctx.request('POST', `/v1/projects/${other.id}/runs`, { token: p.caller.token, body: minimal({ id: 'foreign-parent' }) });
        expect(elsewhere.statusCode).toBe(201);
        const foreign = expectProblem(await p.create(minimal({ parentRunId: 'foreign-parent' })), 400, 'validation');
        expect(pointersOf(foreign)).toEqual(['/parentRunId']);

        const self = expectProblem(await p.create(minimal({ id: 'self', parentRunId: 'self' })), 400, 'validation');
        expect(pointersOf(self)).toEqual(['/parentRunId']);
        expect(await p.ids()).toEqual([]);
      });

      it("refuses an explicit traceId that contradicts the parent's (400 at /traceId)", async () => {
        const p = await projectFor(ctx);
        expect((await p.create(minimal({ id: 'parent' }))).statusCode).toBe(201);
        const res = expectProblem(await p.create(minimal({ parentRunId: 'parent', traceId: 'another-trace' })), 400, 'validation');
        expect(pointersOf(res)).toEqual(['/traceId']);
        expect(await p.ids()).toEqual(['parent']);
      });

      it('enforces the state rules on status, endTime and error', async () => {
        const p = await projectFor(ctx);
        const cases: [Record<string, unknown>, string[]][] = [
          [{ status: 'succeeded' }, ['/endTime']],
          [{ status: 'failed', error: 'x' }, ['/endTime']],
          [{ status: 'running', endTime: '2026-11-21T10:00:01.000Z' }, ['/endTime']],
          [{ endTime: '2026-11-21T10:00:01.000Z' }, ['/endTime']],
          [{ status: 'succeeded', endTime: '2026-11-21T09:59:59.999Z' }, ['/endTime']],
          [{ status: 'succeeded', endTime: '2026-11-21T10:00:01.000Z', error: 'boom' }, ['/error']],
          [{ error: 'boom' }, ['/error']],
        ];
        for (const [overrides, pointers] of cases) {
          const body = expectProblem(await p.create(minimal(overrides)), 400, 'validation');
          expect(pointersOf(body), JSON.stringify(overrides)).toEqual(pointers);
        }
        expect(await p.ids()).toEqual([]);
      });

      it('refuses ids that are words of the API or not URL-safe, and lists every schema fault', async () => {
        const p = await projectFor(ctx);
        for (const id of ['null', 'metrics', 'batch', 'a/b', '', 'x'.repeat(129), '-leading']) {
          const body = expectProblem(await p.create(minimal({ id })), 400, 'validation');
          expect(pointersOf(body), id).toEqual(['/id']);
        }
        for (const parentRunId of ['null', 'metrics']) {
          expect(new Set(pointersOf(expectProblem(await p.create(minimal({ parentRunId })), 400, 'validation')))).toEqual(new Set(['/parentRunId']));
        }
        // Words are refused only as the whole id.
        expect((await p.create(minimal({ id: 'metrics-1' }))).statusCode).toBe(201);
        expect((await p.get('metrics-1')).json()).toMatchObject({ id: 'metrics-1' });

        const many = expectProblem(
          await p.create({ kind: 'robot', startTime: 'yesterday', usage: { promptTokens: -1, completionTokens: 1 }, extra: 1 }),
          400,
          'validation',
        );
        expect(pointersOf(many)).toEqual(expect.arrayContaining(['/extra', '/kind', '/name', '/startTime', '/usage/promptTokens']));
        for (const pointer of pointersOf(many)) expect(['/extra', '/kind', '/name', '/startTime', '/usage/promptTokens', '/usage']).toContain(pointer);
      });

      it('refuses token counts and costs beyond what the engines store (400, never a 500)', async () => {
        const p = await projectFor(ctx);
        const tokens = expectProblem(await p.create(minimal({ usage: { promptTokens: 1e20, completionTokens: 1 } })), 400, 'validation');
        expect(pointersOf(tokens)).toContain('/usage/promptTokens');
        const total = expectProblem(await p.create(minimal({ usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 ** 63 } })), 400, 'validation');
        expect(pointersOf(total)).toContain('/usage/totalTokens');
        expect(pointersOf(expectProblem(await p.create(minimal({ cost: 1.7e308 })), 400, 'validation'))).toContain('/cost');
        const batch = (await p.batch({ runs: [minimal({ cost: 1e300 }), minimal({ cost: 1e300 })] })).json();
        expect(batch.results.map((r: { status: string }) => r.status)).toEqual(['rejected', 'rejected']);
        expect((await p.create(minimal({ id: 'bounded', usage: { promptTokens: 1_000_000, completionTokens: 1 }, cost: 12.5 }))).statusCode).toBe(201);
        expect(pointersOf(expectProblem(await p.patch('bounded', { usage: { promptTokens: 2 ** 60, completionTokens: 0 } }), 400, 'validation'))).toContain(
          '/usage/promptTokens',
        );
        expect(pointersOf(expectProblem(await p.patch('bounded', { cost: 1e300 }), 400, 'validation'))).toContain('/cost');
        const metrics = await p.metrics({ from: '2026-11-21T00:00:00.000Z', to: '2026-11-22T00:00:00.000Z' });
        expect(metrics.statusCode, metrics.body).toBe(200);
        expect(metrics.json().total).toMatchObject({ count: 1, totalTokens: 1_000_001, cost: 12.5 });
      });

      it('refuses inputs, outputs and metadata nested deeper than 100 levels (400 at the field, never a 500)', async () => {
        const p = await projectFor(ctx);
        const nestText = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
        const send = (method: 'POST' | 'PATCH', url: string, payload: string) =>
          ctx.request(method, url, { token: p.caller.token, payload, headers: { 'content-type': 'application/json' } });
        const run = (extra: string) => `{"name":"deep","kind":"llm","startTime":"2026-11-21T10:00:00.000Z"${extra}}`;
        const ok = await send('POST', p.base, run(`,"id":"deep-ok","inputs":${nestText(100)},"metadata":${nestText(100)}`));
        expect(ok.statusCode, ok.body).toBe(201);
        expect((await p.get('deep-ok')).json().inputs).toEqual(JSON.parse(nestText(100)));
        for (const depth of [101, 5_000, 50_000]) {
          for (const field of ['inputs', 'outputs', 'metadata']) {
            const res = await send('POST', p.base, run(`,"${field}":${nestText(depth)}`));
            expect(pointersOf(expectProblem(res, 400, 'validation')), `${field} ${depth}`).toEqual([`/${field}`]);
          }
          const batch = await send('POST', `${p.base}/batch`, `{"runs":[${run('')},${run(`,"inputs":${nestText(depth)}`)}]}`);
          expect(batch.statusCode, batch.body).toBe(200);
          expect(batch.json().results[0].status).toBe('created');
          expect(pointersOf(batch.json().results[1].problem)).toEqual(['/runs/1/inputs']);
          expect((await p.create(minimal({ id: `deep-${depth}` }))).statusCode).toBe(201);
          for (const field of ['outputs', 'metadata']) {
            const res = await send('PATCH', `${p.base}/deep-${depth}`, `{"${field}":${nestText(depth)}}`);
            expect(pointersOf(expectProblem(res, 400, 'validation'))).toEqual([`/${field}`]);
          }
        }
      });

      it('refuses metadata the engines cannot parse (U+0000, unpaired surrogates), but not such inputs', async () => {
        const p = await projectFor(ctx);
        for (const metadata of [{ user: 'a\u0000b' }, { 'a\u0000b': 1 }, { deep: [{ s: 'x\ud800y' }] }, { s: '\udc00' }]) {
          expect(pointersOf(expectProblem(await p.create(minimal({ metadata })), 400, 'validation'))).toEqual(['/metadata']);
        }
        expect((await p.create(minimal({ id: 'emoji', metadata: { s: 'ok \ud83d\ude00' } }))).statusCode).toBe(201);
        expect(pointersOf(expectProblem(await p.patch('emoji', { metadata: { user: 'a\u0000b' } }), 400, 'validation'))).toEqual(['/metadata']);
        const inputs = await p.create(minimal({ inputs: { q: 'a\u0000b', s: 'x\ud800y' } }));
        expect(inputs.statusCode, inputs.body).toBe(201);
        expect(inputs.json().inputs).toEqual({ q: 'a\u0000b', s: 'x\ud800y' });
        expect(await p.ids({ 'metadata.s': 'ok \ud83d\ude00' })).toEqual(['emoji']);
        // No text parameter accepts NUL (PostgreSQL cannot compare it): the filter is refused, not ignored.
        expect(expectProblem(await p.list({ 'metadata.user': 'a\u0000b' }), 400, 'validation').errors).toEqual([
          { parameter: 'metadata.user', detail: 'Must not contain the NUL character (U+0000).' },
        ]);
      });

      it('stores __proto__ and constructor keys in inputs, outputs and metadata as data, exactly as sent', async () => {
        const p = await projectFor(ctx);
        // JSON.parse keeps both as own properties: the bodies below carry them as the client's JSON does.
        const inputs = JSON.parse('{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}},"q":"hi"}');
        const metadata = JSON.parse('{"__proto__":"m","constructor":"c"}');
        const created = await p.create(minimal({ id: 'proto', inputs, metadata }));
        expect(created.statusCode, created.body).toBe(201);
        for (const res of [created, await p.get('proto')]) {
          expect(res.body).toContain('"inputs":{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}},"q":"hi"}');
          expect(Object.keys(res.json().metadata)).toEqual(['__proto__', 'constructor']);
        }
        const batch = await p.batch({ runs: [minimal({ id: 'proto-batch', status: 'running', outputs: null, metadata })] });
        expect(batch.json().results[0].status, batch.body).toBe('created');
        const patched = await p.patch('proto-batch', { status: 'succeeded', outputs: JSON.parse('{"__proto__":[1,2]}') });
        expect(patched.statusCode, patched.body).toBe(200);
        expect(patched.body).toContain('"outputs":{"__proto__":[1,2]}');
        expect(await p.ids({ 'metadata.__proto__': 'm' })).toEqual(['proto-batch', 'proto']);
        expect(({} as Record<string, unknown>).admin).toBeUndefined();
      });

      it('answers 404 for an unknown project or run, and 403 for a viewer creating a run', async () => {
        const p = await projectFor(ctx);
        expectProblem(await ctx.request('POST', '/v1/projects/prj_nope/runs', { token: p.caller.token, body: minimal() }), 404, 'not-found');
        expectProblem(await p.get('no-such-run'), 404, 'not-found');
        const viewer = await ctx.make.caller({ role: 'viewer', organizationId: p.caller.organizationId });
        const denied = expectProblem(
          await ctx.request('POST', p.base, { token: viewer.token, body: minimal() }),
          403,
          'forbidden',
          'Your role (viewer) does not allow runs:write.',
        );
        expect(denied.title).toBe('Forbidden');
        expect(await p.ids()).toEqual([]);
      });
    });

    describe('batch', () => {
      it('answers one result per run, in order, storing the valid ones and rejecting the bad ones on their own', async () => {
        const p = await projectFor(ctx);
        const res = await p.batch({
          runs: [
            minimal({ id: 'b-0' }),
            minimal({ kind: undefined, name: '' }),
            minimal({ startTime: '2026-11-21T10:00:01.000Z' }),
            minimal({ id: 'b-3', status: 'succeeded' }),
            minimal({ id: 'b-4', parentRunId: 'b-0' }),
            minimal({ id: 'b-5', parentRunId: 'missing' }),
          ],
        });
        expect(res.statusCode, res.body).toBe(200);
        const { results } = res.json();
        expect(results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3, 4, 5]);
        expect(results.map((r: { status: string }) => r.status)).toEqual(['created', 'rejected', 'created', 'rejected', 'created', 'rejected']);
        expect(results[0]).toEqual({ index: 0, id: 'b-0', status: 'created' });
        expect(results[2].id).toMatch(GENERATED_RUN_ID);
        expect(results[2]).not.toHaveProperty('problem');
        expect(results[1].id).toBeNull();
        expect(results[3].id).toBe('b-3');
        for (const index of [1, 3, 5]) {
          const problem = results[index].problem;
          expect(problem).toMatchObject({ type: `${PROBLEM_BASE}/validation`, title: 'Validation failed', status: 400 });
          expect(typeof problem.detail).toBe('string');
          expect(problem.errors.length).toBeGreaterThan(0);
          for (const pointer of pointersOf(problem)) expect(pointer).toMatch(new RegExp(`^/runs/${index}/`));
        }
        expect(pointersOf(results[1].problem).sort()).toEqual(['/runs/1/kind', '/runs/1/name']);
        expect(pointersOf(results[3].problem)).toEqual(['/runs/3/endTime']);
        expect(pointersOf(results[5].problem)).toEqual(['/runs/5/parentRunId']);

        expect((await p.get('b-4')).json()).toMatchObject({ parentRunId: 'b-0', traceId: 'b-0' });
        expect((await p.get(results[2].id)).statusCode).toBe(200);
        expectProblem(await p.get('b-3'), 404, 'not-found');
        expect((await p.ids()).sort()).toEqual(['b-0', 'b-4', results[2].id].sort());
      });

      it('creates nothing twice when a batch is retried', async () => {
        const p = await projectFor(ctx);
        const runs = Array.from({ length: 30 }, (_, i) =>
          minimal({ id: `retry-${i}`, startTime: iso(NOW - HOUR + i * 1000), tags: ['t', `n${i % 3}`], ...(i > 0 ? { parentRunId: `retry-${i - 1}` } : {}) }),
        );
        const first = await p.batch({ runs });
        expect(first.json().results.every((r: { status: string }) => r.status === 'created')).toBe(true);
        const second = await p.batch({ runs });
        expect(second.statusCode).toBe(200);
        expect(second.json().results).toEqual(runs.map((r, index) => ({ index, id: r.id, status: 'existing' })));
        // A retry that changed one run: the others are existing, the changed one a conflict.
        const changed = runs.map((r, i) => (i === 7 ? { ...r, name: 'Changed' } : r));
        const third = (await p.batch({ runs: changed })).json().results;
        expect(third.filter((r: { status: string }) => r.status === 'existing')).toHaveLength(29);
        expect(third[7]).toMatchObject({ index: 7, id: 'retry-7', status: 'rejected', problem: { type: `${PROBLEM_BASE}/conflict`, status: 409 } });

        const items = await p.walk({}, 7);
        expect(items).toHaveLength(30);
        expect(new Set(items.map((r) => r.id)).size).toBe(30);
        expect(await p.ids({ tag: 't' })).toHaveLength(30);
        expect(await p.ids({ tag: 'n1' })).toHaveLength(10);
        expect(items.every((r) => r.traceId === 'retry-0' && r.name === 'ChatOpenAI')).toBe(true);
      });

      it('accepts parents later in the same batch, and children inherit the trace', async () => {
        const p = await projectFor(ctx);
        const res = await p.batch({
          runs: [
            minimal({ id: 'grandchild', parentRunId: 'child' }),
            minimal({ id: 'child', parentRunId: 'root', kind: 'tool' }),
            minimal({ id: 'root', kind: 'chain', traceId: 'trace-z' }),
            minimal({ id: 'sibling', parentRunId: 'root', traceId: 'trace-z' }),
          ],
        });
        expect(res.json().results.map((r: { status: string }) => r.status)).toEqual(['created', 'created', 'created', 'created']);
        for (const id of ['grandchild', 'child', 'root', 'sibling']) expect((await p.get(id)).json().traceId).toBe('trace-z');
        expect((await p.ids({ traceId: 'trace-z' })).sort()).toEqual(['child', 'grandchild', 'root', 'sibling']);
      });

      it('rejects the descendants of a rejected run, and cycles', async () => {
        const p = await projectFor(ctx);
        expect((await p.create(minimal({ id: 'stored-root' }))).statusCode).toBe(201);
        const res = await p.batch({
          runs: [
            minimal({ id: 'c1', parentRunId: 'p1' }), // parent invalid
            minimal({ id: 'p1', status: 'succeeded' }),
            minimal({ id: 'g1', parentRunId: 'c1' }), // grandparent invalid
            minimal({ id: 'p2', parentRunId: 'stored-root', traceId: 'wrong' }), // contradicts its parent's trace
            minimal({ id: 'c2', parentRunId: 'p2' }),
            minimal({ id: 'x', parentRunId: 'y' }),
            minimal({ id: 'y', parentRunId: 'x' }),
            minimal({ id: 'ok', parentRunId: 'stored-root' }),
          ],
        });
        expect(res.statusCode).toBe(200);
        const results = res.json().results;
        expect(results.map((r: { status: string }) => r.status)).toEqual([
          'rejected',
          'rejected',
          'rejected',
          'rejected',
          'rejected',
          'rejected',
          'rejected',
          'created',
        ]);
        expect(pointersOf(results[0].problem)).toEqual(['/runs/0/parentRunId']);
        expect(pointersOf(results[1].problem)).toEqual(['/runs/1/endTime']);
        expect(pointersOf(results[2].problem)).toEqual(['/runs/2/parentRunId']);
        expect(pointersOf(results[3].problem)).toEqual(['/runs/3/traceId']);
        expect(pointersOf(results[4].problem)).toEqual(['/runs/4/parentRunId']);
        expect(pointersOf(results[5].problem)).toEqual(['/runs/5/parentRunId']);
        expect(pointersOf(results[6].problem)).toEqual(['/runs/6/parentRunId']);
        expect((await p.ids()).sort()).toEqual(['ok', 'stored-root']);
        expect((await p.get('ok')).json().traceId).toBe('stored-root');
      });

      it('answers a duplicate id within one batch by its first occurrence', async () => {
        const p = await projectFor(ctx);
        const same = minimal({ id: 'dup', tags: ['a'] });
        const res = await p.batch({ runs: [same, { ...same }, { ...same, name: 'Other' }] });
        const results = res.json().results;
        expect(results.slice(0, 2)).toEqual([
          { index: 0, id: 'dup', status: 'created' },
          { index: 1, id: 'dup', status: 'existing' },
        ]);
        expect(results[2]).toMatchObject({ index: 2, id: 'dup', status: 'rejected', problem: { type: `${PROBLEM_BASE}/conflict`, status: 409 } });
        expect(await p.ids()).toEqual(['dup']);
        expect(await p.ids({ tag: 'a' })).toEqual(['dup']);
      });

      it('never reports a duplicate of a rejected run as existing', async () => {
        const p = await projectFor(ctx);
        const orphan = minimal({ id: 'orphan', parentRunId: 'missing-parent' });
        const res = await p.batch({ runs: [orphan, { ...orphan }] });
        expect(res.statusCode).toBe(200);
        const results = res.json().results;
        expect(results.map((r: { status: string }) => r.status)).toEqual(['rejected', 'rejected']);
        expect(pointersOf(results[0].problem)).toEqual(['/runs/0/parentRunId']);
        expect(pointersOf(results[1].problem)).toEqual(['/runs/1/parentRunId']);
        expectProblem(await p.get('orphan'), 404, 'not-found');
      });

      it('refuses 0 and 1001 runs, and bodies that are not {runs: [...]}', async () => {
        const p = await projectFor(ctx);
        expect(pointersOf(expectProblem(await p.batch({ runs: [] }), 400, 'validation'))).toEqual(['/runs']);
        const tooMany = Array.from({ length: 1001 }, (_, i) => minimal({ id: `many-${i}` }));
        expect(pointersOf(expectProblem(await p.batch({ runs: tooMany }), 400, 'validation'))).toEqual(['/runs']);
        const bodies: unknown[] = [[minimal()], { runs: {} }, { runs: minimal() }, { runs: [minimal()], extra: true }, {}, { runs: null }, 'runs'];
        for (const body of bodies) expectProblem(await p.batch(body), 400, 'validation');
        // 1000 is fine.
        const max = await p.batch({ runs: tooMany.slice(0, 1000) });
        expect(max.statusCode).toBe(200);
        expect(max.json().results).toHaveLength(1000);
        expect(await p.walk({}, 100)).toHaveLength(1000);
      });

      it('stores every run once when identical batches race', async () => {
        const p = await projectFor(ctx);
        const runs = Array.from({ length: 60 }, (_, i) =>
          minimal({ id: `race-${i}`, startTime: iso(NOW - i * 1000), tags: ['race'], ...(i % 3 === 1 ? { parentRunId: `race-${i - 1}` } : {}) }),
        );
        for (let round = 0; round < 3; round++) {
          const responses = await Promise.all([p.batch({ runs }), p.batch({ runs }), p.batch({ runs })]);
          for (const res of responses) expect(res.statusCode, res.body).toBe(200);
          for (let i = 0; i < runs.length; i++) {
            const statuses = responses.map((res) => res.json().results[i].status);
            expect(
              statuses.every((s: string) => s === 'created' || s === 'existing'),
              statuses.join(),
            ).toBe(true);
            expect(statuses.filter((s: string) => s === 'created')).toHaveLength(round === 0 ? 1 : 0);
          }
        }
        const items = await p.walk();
        expect(items).toHaveLength(60);
        expect(new Set(items.map((r) => r.id)).size).toBe(60);
        expect(await p.ids({ tag: 'race' })).toHaveLength(60);
      });

      it('stores every run once when overlapping batches race in opposite orders', async () => {
        const p = await projectFor(ctx);
        const runs = Array.from({ length: 80 }, (_, i) => minimal({ id: `cross-${String(i).padStart(3, '0')}`, startTime: iso(NOW - i * 1000), tags: ['x'] }));
        const responses: LightMyRequestResponse[] = await Promise.all([
          p.batch({ runs }),
          p.batch({ runs: [...runs].reverse() }),
          p.batch({ runs: runs.slice(20, 60) }),
        ]);
        for (const res of responses) expect(res.statusCode, res.body).toBe(200);
        const created = new Map<string, number>();
        for (const res of responses) {
          for (const r of res.json().results as { id: string; status: string }[]) {
            expect(['created', 'existing']).toContain(r.status);
            if (r.status === 'created') created.set(r.id, (created.get(r.id) ?? 0) + 1);
          }
        }
        expect(created.size).toBe(80);
        expect([...created.values()].every((n) => n === 1)).toBe(true);
        expect(await p.walk()).toHaveLength(80);
        expect(await p.ids({ tag: 'x' })).toHaveLength(80);
      });
    });

    describe('patch', () => {
      it('ends a running run, defaulting endTime to now and computing the latency', async () => {
        const p = await projectFor(ctx);
        const created = (await p.create(minimal({ id: 'to-end', startTime: iso(NOW - 5000) }))).json();
        clock.advance(250);
        const res = await p.patch('to-end', { status: 'succeeded', outputs: { text: 'done' } });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toEqual({ ...created, status: 'succeeded', endTime: iso(NOW + 250), latencyMs: 5250, outputs: { text: 'done' } });
        expect((await p.get('to-end')).json()).toEqual(res.json());

        expect((await p.create(minimal({ id: 'to-fail', startTime: '2026-11-21T10:00:00.000Z' }))).statusCode).toBe(201);
        const failed = await p.patch('to-fail', { status: 'failed', endTime: '2026-11-21T12:00:02.5+02:00', error: 'Timeout' });
        expect(failed.statusCode, failed.body).toBe(200);
        expect(failed.json()).toMatchObject({ status: 'failed', endTime: '2026-11-21T10:00:02.500Z', latencyMs: 2500, error: 'Timeout' });
      });

      it('amends outputs, usage, cost, tags and metadata of a running run, replacing them', async () => {
        const p = await projectFor(ctx);
        const created = (await p.create(minimal({ id: 'amend', tags: ['a'], metadata: { keep: 'no', n: 1 } }))).json();
        const res = await p.patch('amend', {
          outputs: { partial: 'Hel' },
          usage: { promptTokens: 3, completionTokens: 4 },
          cost: 0.5,
          tags: ['b', 'c'],
          metadata: { step: 2 },
        });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toEqual({
          ...created,
          outputs: { partial: 'Hel' },
          usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 },
          cost: 0.5,
          tags: ['b', 'c'],
          metadata: { step: 2 },
        });
        expect(res.json()).toMatchObject({ status: 'running', endTime: null, latencyMs: null });

        const again = await p.patch('amend', { usage: { promptTokens: 3, completionTokens: 4, totalTokens: 10 }, outputs: null, cost: null });
        expect(again.json()).toMatchObject({ usage: { promptTokens: 3, completionTokens: 4, totalTokens: 10 }, outputs: null, cost: null, tags: ['b', 'c'] });
        const cleared = await p.patch('amend', { usage: null });
        expect(cleared.json().usage).toBeNull();
        expect((await p.get('amend')).json()).toEqual(cleared.json());
      });

      it('replaces tags so that the tag filter follows them', async () => {
        const p = await projectFor(ctx);
        await p.seed([minimal({ id: 'tagged', tags: ['a', 'b'] }), minimal({ id: 'other', tags: ['a'] })]);
        expect(await p.ids({ tag: 'b' })).toEqual(['tagged']);
        const res = await p.patch('tagged', { tags: ['b', 'c'] });
        expect(res.json().tags).toEqual(['b', 'c']);
        expect(await p.ids({ tag: 'a' })).toEqual(['other']);
        expect(await p.ids({ tag: 'c' })).toEqual(['tagged']);
        expect(await p.ids({ tag: ['b', 'c'] })).toEqual(['tagged']);
        await p.patch('tagged', { tags: [] });
        expect(await p.ids({ tag: 'b' })).toEqual([]);
        expect(await p.ids({ tag: 'c' })).toEqual([]);
      });

      it('lets exactly one of several concurrent ends win', async () => {
        const p = await projectFor(ctx);
        expect((await p.create(minimal({ id: 'contested' }))).statusCode).toBe(201);
        const responses = await Promise.all([
          p.patch('contested', { status: 'succeeded', outputs: { by: 1 } }),
          p.patch('contested', { status: 'failed', error: 'by 2' }),
          p.patch('contested', { status: 'succeeded', outputs: { by: 3 } }),
        ]);
        const codes = responses.map((r) => r.statusCode).sort();
        expect(codes).toEqual([200, 409, 409]);
        for (const r of responses) if (r.statusCode === 409) expectProblem(r, 409, 'conflict');
        const winner = responses.find((r) => r.statusCode === 200)!.json();
        expect((await p.get('contested')).json()).toEqual(winner);
      });

      it('answers 409 for any change to a finished run, leaving it as it was', async () => {
        const p = await projectFor(ctx);
        await p.seed([minimal({ id: 'born-done', status: 'succeeded', endTime: '2026-11-21T10:00:01.000Z' })]);
        expect((await p.create(minimal({ id: 'ended' }))).statusCode).toBe(201);
        expect((await p.patch('ended', { status: 'failed', error: 'x' })).statusCode).toBe(200);
        for (const id of ['born-done', 'ended']) {
          const before = (await p.get(id)).json();
          for (const body of [{ outputs: { a: 1 } }, { tags: ['z'] }, { status: 'succeeded' }, { status: 'running' }, { metadata: {} }, { cost: 1 }]) {
            expectProblem(await p.patch(id, body), 409, 'conflict');
          }
          expect((await p.get(id)).json()).toEqual(before);
        }
      });

      it('refuses bad patches with 400, and unknown runs with 404', async () => {
        const p = await projectFor(ctx);
        expect((await p.create(minimal({ id: 'victim' }))).statusCode).toBe(201);
        const before = (await p.get('victim')).json();
        const cases: [unknown, string[]][] = [
          [{ endTime: '2026-11-21T10:00:01.000Z' }, ['/endTime']],
          [{ status: 'running', endTime: '2026-11-21T10:00:01.000Z' }, ['/endTime']],
          [{ status: 'succeeded', error: 'boom' }, ['/error']],
          [{ error: 'boom' }, ['/error']],
          [{ status: 'succeeded', endTime: '2026-11-21T09:59:59.000Z' }, ['/endTime']],
          [{ status: 'done' }, ['/status']],
          [{ name: 'rename' }, ['/name']],
        ];
        for (const [body, pointers] of cases) {
          const problem = expectProblem(await p.patch('victim', body), 400, 'validation');
          expect(pointersOf(problem), JSON.stringify(body)).toEqual(pointers);
        }
        expectProblem(await p.patch('victim', {}), 400, 'validation');
        expect((await p.get('victim')).json()).toEqual(before);
        expectProblem(await p.patch('no-such-run', { status: 'succeeded' }), 404, 'not-found');
        expectProblem(
          await ctx.request('PATCH', `/v1/projects/prj_nope/runs/victim`, { token: p.caller.token, body: { status: 'succeeded' } }),
          404,
          'not-found',
        );
      });
    });

    describe('list filters', () => {
      const T0 = Date.parse('2026-11-10T00:00:00.000Z');
      const seedRuns = [
        {
          id: 'f1',
          name: 'ChatOpenAI',
          kind: 'llm',
          status: 'succeeded',
          startTime: iso(T0 + 1000),
          endTime: iso(T0 + 1500),
          model: 'gpt-4o',
          tags: ['prod', 'eu'],
          metadata: { env: 'prod', attempt: 2, flag: true },
        },
        {
          id: 'f2',
          name: 'ChatOpenAI',
          kind: 'llm',
          status: 'failed',
          startTime: iso(T0 + 2000),
          endTime: iso(T0 + 2100),
          error: 'boom',
          model: 'gpt-4o-mini',
          tags: ['prod'],
          metadata: { env: 'dev', attempt: '2' },
        },
        { id: 'f3', name: 'Agent', kind: 'chain', startTime: iso(T0 + 3000), tags: ['eu'], metadata: { attempt: 3, flag: false, tiny: 1e-7, big: 1e21 } },
        {
          id: 'f4',
          name: 'search',
          kind: 'tool',
          status: 'succeeded',
          startTime: iso(T0 + 4000),
          endTime: iso(T0 + 4200),
          parentRunId: 'f3',
          metadata: { flag: 'true', none: null },
        },
        {
          id: 'f5',
          name: 'retrieve',
          kind: 'retriever',
          status: 'succeeded',
          startTime: iso(T0 + 4000),
          endTime: iso(T0 + 4300),
          parentRunId: 'f3',
          tags: ['prod', 'eu', 'extra'],
          metadata: { env: 'prod ' },
        },
        {
          id: 'f6',
          name: 'ChatOpenAI',
          kind: 'llm',
          startTime: iso(T0 + 5000),
          parentRunId: 'f4',
          model: 'gpt-4o',
          metadata: { attempt: 2.5, nested: { env: 'prod' } },
        },
      ];
      let p: Awaited<ReturnType<typeof projectFor>>;
      beforeEach(async () => {
        if (p) return;
        p = await projectFor(ctx);
        await p.seed(seedRuns);
      });

      it('lists newest first by startTime then id, through every page', async () => {
        const res = await p.list();
        expect(res.statusCode).toBe(200);
        expect(res.json()).toMatchObject({ nextCursor: null, limit: 25 });
        expect(res.json().items.map((r: { id: string }) => r.id)).toEqual(['f6', 'f5', 'f4', 'f3', 'f2', 'f1']);
        expect((await p.walk({}, 1)).map((r) => r.id)).toEqual(['f6', 'f5', 'f4', 'f3', 'f2', 'f1']);
        expect((await p.walk({ kind: 'llm' }, 1)).map((r) => r.id)).toEqual(['f6', 'f2', 'f1']);
      });

      it.each([
        ['status=failed', { status: 'failed' }, ['f2']],
        ['status=running', { status: 'running' }, ['f6', 'f3']],
        ['status=succeeded', { status: 'succeeded' }, ['f5', 'f4', 'f1']],
        ['kind=llm', { kind: 'llm' }, ['f6', 'f2', 'f1']],
        ['kind=tool', { kind: 'tool' }, ['f4']],
        ['kind=agent', { kind: 'agent' }, []],
        ['name (exact)', { name: 'ChatOpenAI' }, ['f6', 'f2', 'f1']],
        ['name (case matters)', { name: 'chatopenai' }, []],
        ['name (no substring)', { name: 'Chat' }, []],
        ['one tag', { tag: 'prod' }, ['f5', 'f2', 'f1']],
        ['two tags, all must match', { tag: ['prod', 'eu'] }, ['f5', 'f1']],
        ['three tags', { tag: ['eu', 'extra', 'prod'] }, ['f5']],
        ['a tag nobody has', { tag: ['prod', 'nope'] }, []],
        ['model (exact)', { model: 'gpt-4o' }, ['f6', 'f1']],
        ['traceId', { traceId: 'f3' }, ['f6', 'f5', 'f4', 'f3']],
        ['traceId of a lone root', { traceId: 'f1' }, ['f1']],
        ['parentRunId', { parentRunId: 'f3' }, ['f5', 'f4']],
        ['parentRunId=null (roots)', { parentRunId: 'null' }, ['f3', 'f2', 'f1']],
        ['startedAfter is inclusive', { startedAfter: iso(T0 + 3000) }, ['f6', 'f5', 'f4', 'f3']],
        ['startedBefore is exclusive', { startedBefore: iso(T0 + 3000) }, ['f2', 'f1']],
        ['a time window', { startedAfter: iso(T0 + 2000), startedBefore: iso(T0 + 4000) }, ['f3', 'f2']],
        ['startedAfter with an offset', { startedAfter: '2026-11-10T01:00:04.000+01:00' }, ['f6', 'f5', 'f4']],
        ['metadata string', { 'metadata.env': 'prod' }, ['f1']],
        ['metadata string with a space', { 'metadata.env': 'prod ' }, ['f5']],
        ['metadata number matches the number and its text', { 'metadata.attempt': '2' }, ['f2', 'f1']],
        ['metadata decimal', { 'metadata.attempt': '2.5' }, ['f6']],
        ['metadata boolean matches true and "true"', { 'metadata.flag': 'true' }, ['f4', 'f1']],
        ['metadata false', { 'metadata.flag': 'false' }, ['f3']],
        ['metadata null', { 'metadata.none': 'null' }, ['f4']],
        ['metadata key nobody has', { 'metadata.missing': 'null' }, []],
        ['metadata is top-level only', { 'metadata.nested': 'prod' }, []],
        ['metadata number in exponent notation', { 'metadata.tiny': '1e-7' }, ['f3']],
        ['metadata number in decimal notation', { 'metadata.tiny': '0.0000001' }, ['f3']],
        ['metadata large number', { 'metadata.big': '1e21' }, ['f3']],
        ['metadata.__proto__ like any other key', { 'metadata.__proto__': 'x' }, []],
        ['two metadata keys', { 'metadata.env': 'prod', 'metadata.attempt': '2' }, ['f1']],
        ['combined', { kind: 'llm', status: 'running', traceId: 'f3' }, ['f6']],
        ['combined with tags and metadata', { tag: 'prod', 'metadata.attempt': '2', model: 'gpt-4o' }, ['f1']],
        ['combined, nothing left', { kind: 'llm', parentRunId: 'null', status: 'running' }, []],
      ] as [string, Query, string[]][])('filters by %s', async (_label, query, expected) => {
        expect(await p.ids(query)).toEqual(expected);
        // Small pages walk to the same result.
        expect((await p.walk(query, 1)).map((r) => r.id)).toEqual(expected);
      });

      it('refuses unknown and malformed query parameters with 400', async () => {
        const cases: [Query, string][] = [
          [{ foo: '1' }, 'foo'],
          [{ 'metadata.a.b': '1' }, 'metadata.a.b'],
          [{ 'metadata.': '1' }, 'metadata.'],
          [{ status: 'done' }, 'status'],
          [{ kind: 'LLM' }, 'kind'],
          [{ startedAfter: 'yesterday' }, 'startedAfter'],
          [{ startedBefore: '2026-11-10' }, 'startedBefore'],
          [{ status: ['failed', 'running'] }, 'status'],
          [{ 'metadata.env': ['a', 'b'] }, 'metadata.env'],
          [{ name: '' }, 'name'],
        ];
        for (const [query, parameter] of cases) {
          const problem = expectProblem(await p.list(query), 400, 'validation');
          expect(parametersOf(problem), JSON.stringify(query)).toContain(parameter);
        }
      });

      it('refuses __proto__ as an unknown query parameter instead of dropping it', async () => {
        // Computed key: an own property named __proto__, not a prototype.
        const query: Query = { ['__proto__']: 'x' };
        expect(parametersOf(expectProblem(await p.list(query), 400, 'validation'))).toContain('__proto__');
        expect(parametersOf(expectProblem(await p.metrics(query), 400, 'validation'))).toContain('__proto__');
      });
    });

    describe('metrics', () => {
      const M0 = Date.parse('2026-11-20T10:00:00.000Z');
      const MIN = 60_000;
      const ended = (id: string, kind: string, name: string, status: string, at: number, latency: number, extra: Record<string, unknown> = {}) => ({
        id,
        kind,
        name,
        status,
        startTime: iso(at),
        endTime: iso(at + latency),
        ...(status === 'failed' ? { error: 'boom' } : {}),
        ...extra,
      });
      const seedRuns = [
        ended('m1', 'llm', 'ChatOpenAI', 'succeeded', M0 + 5 * MIN, 120, {
          model: 'gpt-4o',
          usage: { promptTokens: 10, completionTokens: 5 },
          cost: 0.25,
          tags: ['t'],
        }),
        ended('m2', 'llm', 'ChatOpenAI', 'failed', M0 + 10 * MIN, 40, { model: 'gpt-4o', usage: { promptTokens: 20, completionTokens: 0 }, cost: 0.5 }),
        ended('m3', 'chain', 'Agent', 'succeeded', M0 + 20 * MIN, 300),
        ended('m4', 'llm', 'ChatOpenAI', 'succeeded', M0 + 2 * HOUR, 80, {
          model: 'gpt-4o-mini',
          usage: { promptTokens: 1, completionTokens: 2, totalTokens: 100 },
          cost: 1.25,
          tags: ['t'],
        }),
        ended('m5', 'tool', 'search', 'failed', M0 + 2 * HOUR + 30 * MIN, 1000),
        ended('m6', 'llm', 'ChatOpenAI', 'succeeded', M0 + 2 * HOUR + 40 * MIN, 60, {
          model: 'gpt-4o',
          usage: { promptTokens: 5, completionTokens: 5 },
          cost: 0,
        }),
        ended('m7', 'tool', 'search', 'succeeded', M0 + 3 * HOUR - 1, 500),
        { id: 'm8', kind: 'chain', name: 'Agent', startTime: iso(M0 + 2 * HOUR + 50 * MIN) },
        // Just outside [10:00, 13:00).
        ended('o1', 'llm', 'ChatOpenAI', 'succeeded', M0 - 1, 5, { model: 'gpt-4o', usage: { promptTokens: 1000, completionTokens: 0 }, cost: 9 }),
        ended('o2', 'tool', 'search', 'failed', M0 + 3 * HOUR, 7),
      ];
      const range = { from: iso(M0), to: iso(M0 + 3 * HOUR) };
      const zero = { count: 0, errorCount: 0, latencyP50: null, latencyP95: null, totalTokens: 0, cost: 0 };
      const total = { count: 8, errorCount: 2, latencyP50: 120, latencyP95: 1000, totalTokens: 145, cost: 2 };
      let p: Awaited<ReturnType<typeof projectFor>>;
      beforeEach(async () => {
        if (p) return;
        p = await projectFor(ctx);
        await p.seed(seedRuns);
      });
      const byKey = (groups: { key: string | null; series: unknown[] }[]) => Object.fromEntries(groups.map((g) => [String(g.key), g.series]));

      it('counts and aggregates over [from, to) against hand-computed values', async () => {
        const res = await p.metrics(range);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toEqual({
          from: range.from,
          to: range.to,
          bucket: null,
          groupBy: null,
          groups: [{ key: null, series: [{ start: range.from, ...total }] }],
          total,
        });
      });

      it('splits the range into UTC-aligned hourly buckets, empty ones filled with zeros', async () => {
        const res = await p.metrics({ ...range, bucket: '1h' });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toEqual({
          from: range.from,
          to: range.to,
          bucket: '1h',
          groupBy: null,
          groups: [
            {
              key: null,
              series: [
                { start: iso(M0), count: 3, errorCount: 1, latencyP50: 120, latencyP95: 300, totalTokens: 35, cost: 0.75 },
                { start: iso(M0 + HOUR), ...zero },
                { start: iso(M0 + 2 * HOUR), count: 5, errorCount: 1, latencyP50: 80, latencyP95: 1000, totalTokens: 110, cost: 1.25 },
              ],
            },
          ],
          total,
        });

        // A range that does not start on the hour still gets buckets aligned to the hour.
        const unaligned = (await p.metrics({ from: iso(M0 + 30 * MIN), to: iso(M0 + 2 * HOUR + 30 * MIN), bucket: '1h' })).json();
        expect(unaligned.groups[0].series.map((s: { start: string; count: number }) => [s.start, s.count])).toEqual([
          [iso(M0), 0],
          [iso(M0 + HOUR), 0],
          [iso(M0 + 2 * HOUR), 1],
        ]);
        expect(unaligned.total).toEqual({ count: 1, errorCount: 0, latencyP50: 80, latencyP95: 80, totalTokens: 100, cost: 1.25 });

        const daily = (await p.metrics({ from: iso(M0 - DAY), to: iso(M0 + DAY), bucket: '1d' })).json();
        expect(daily.groups[0].series.map((s: { start: string; count: number }) => [s.start, s.count])).toEqual([
          ['2026-11-19T00:00:00.000Z', 0],
          ['2026-11-20T00:00:00.000Z', 10],
          ['2026-11-21T00:00:00.000Z', 0],
        ]);
      });

      it('groups by status, kind, model and name', async () => {
        const status = (await p.metrics({ ...range, groupBy: 'status' })).json();
        expect(status.groupBy).toBe('status');
        expect(byKey(status.groups)).toEqual({
          succeeded: [{ start: range.from, count: 5, errorCount: 0, latencyP50: 120, latencyP95: 500, totalTokens: 125, cost: 1.5 }],
          failed: [{ start: range.from, count: 2, errorCount: 2, latencyP50: 40, latencyP95: 1000, totalTokens: 20, cost: 0.5 }],
          running: [{ start: range.from, ...zero, count: 1 }],
        });
        expect(status.total).toEqual(total);

        const model = (await p.metrics({ ...range, groupBy: 'model' })).json();
        expect(model.groups.map((g: { key: string | null }) => g.key)).toContain(null);
        expect(byKey(model.groups)).toEqual({
          'gpt-4o': [{ start: range.from, count: 3, errorCount: 1, latencyP50: 60, latencyP95: 120, totalTokens: 45, cost: 0.75 }],
          'gpt-4o-mini': [{ start: range.from, count: 1, errorCount: 0, latencyP50: 80, latencyP95: 80, totalTokens: 100, cost: 1.25 }],
          null: [{ start: range.from, count: 4, errorCount: 1, latencyP50: 500, latencyP95: 1000, totalTokens: 0, cost: 0 }],
        });

        const llm = { count: 4, errorCount: 1, latencyP50: 60, latencyP95: 120, totalTokens: 145, cost: 2 };
        const chain = { count: 2, errorCount: 0, latencyP50: 300, latencyP95: 300, totalTokens: 0, cost: 0 };
        const tool = { count: 2, errorCount: 1, latencyP50: 500, latencyP95: 1000, totalTokens: 0, cost: 0 };
        expect(byKey((await p.metrics({ ...range, groupBy: 'kind' })).json().groups)).toEqual({
          llm: [{ start: range.from, ...llm }],
          chain: [{ start: range.from, ...chain }],
          tool: [{ start: range.from, ...tool }],
        });
        expect(byKey((await p.metrics({ ...range, groupBy: 'name' })).json().groups)).toEqual({
          ChatOpenAI: [{ start: range.from, ...llm }],
          Agent: [{ start: range.from, ...chain }],
          search: [{ start: range.from, ...tool }],
        });

        // Grouped and bucketed: every group has every bucket.
        const both = (await p.metrics({ ...range, groupBy: 'model', bucket: '1h' })).json();
        const series = byKey(both.groups) as Record<string, Record<string, unknown>[]>;
        expect(Object.keys(series).sort()).toEqual(['gpt-4o', 'gpt-4o-mini', 'null']);
        for (const s of Object.values(series)) expect(s.map((x) => x.start)).toEqual([iso(M0), iso(M0 + HOUR), iso(M0 + 2 * HOUR)]);
        expect(series.null).toEqual([
          { start: iso(M0), count: 1, errorCount: 0, latencyP50: 300, latencyP95: 300, totalTokens: 0, cost: 0 },
          { start: iso(M0 + HOUR), ...zero },
          { start: iso(M0 + 2 * HOUR), count: 3, errorCount: 1, latencyP50: 500, latencyP95: 1000, totalTokens: 0, cost: 0 },
        ]);
        expect(series['gpt-4o-mini']).toEqual([
          { start: iso(M0), ...zero },
          { start: iso(M0 + HOUR), ...zero },
          { start: iso(M0 + 2 * HOUR), count: 1, errorCount: 0, latencyP50: 80, latencyP95: 80, totalTokens: 100, cost: 1.25 },
        ]);
        expect(both.total).toEqual(total);
      });

      it('applies the list filters', async () => {
        expect((await p.metrics({ ...range, status: 'failed' })).json().total).toEqual({
          count: 2,
          errorCount: 2,
          latencyP50: 40,
          latencyP95: 1000,
          totalTokens: 20,
          cost: 0.5,
        });
        expect((await p.metrics({ ...range, tag: 't' })).json().total).toEqual({
          count: 2,
          errorCount: 0,
          latencyP50: 80,
          latencyP95: 120,
          totalTokens: 115,
          cost: 1.5,
        });
        expect((await p.metrics({ ...range, model: 'nope' })).json()).toEqual({
          from: range.from,
          to: range.to,
          bucket: null,
          groupBy: null,
          groups: [{ key: null, series: [{ start: range.from, ...zero }] }],
          total: zero,
        });
        expect((await p.metrics({ from: iso(M0 - HOUR), to: iso(M0 + 4 * HOUR), kind: 'tool', startedAfter: iso(M0 + 3 * HOUR) })).json().total.count).toBe(1);
        expect((await p.metrics({ ...range, 'metadata.__proto__': 'x' })).json().total.count).toBe(0);
      });

      it('aligns buckets by flooring, also before 1970', async () => {
        const q = await projectFor(ctx);
        await q.seed([
          { id: 'old', name: 'n', kind: 'llm', status: 'succeeded', startTime: '1969-12-31T12:00:00.000Z', endTime: '1969-12-31T12:00:01.000Z' },
          { id: 'epoch', name: 'n', kind: 'llm', startTime: '1970-01-01T00:00:00.000Z' },
        ]);
        const res = await q.metrics({ from: '1969-12-30T00:00:00.000Z', to: '1970-01-02T00:00:00.000Z', bucket: '1d' });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().groups[0].series.map((s: { start: string; count: number; latencyP50: number | null }) => [s.start, s.count, s.latencyP50])).toEqual([
          ['1969-12-30T00:00:00.000Z', 0, null],
          ['1969-12-31T00:00:00.000Z', 1, 1000],
          ['1970-01-01T00:00:00.000Z', 1, null],
        ]);
      });

      it('uses the last 24 hours relative to the clock by default', async () => {
        const q = await projectFor(ctx);
        await q.seed([
          minimal({ id: 'in-1h', startTime: iso(NOW - HOUR) }),
          minimal({ id: 'at-from', startTime: iso(NOW - DAY) }),
          minimal({ id: 'before-from', startTime: iso(NOW - DAY - 1) }),
          minimal({ id: 'at-now', startTime: iso(NOW) }),
          minimal({ id: 'just-before-now', startTime: iso(NOW - 1) }),
        ]);
        const res = await q.metrics();
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toMatchObject({ from: iso(NOW - DAY), to: iso(NOW), bucket: null, groupBy: null, total: { count: 3 } });
        clock.advance(HOUR);
        expect((await q.metrics()).json()).toMatchObject({ from: iso(NOW - DAY + HOUR), to: iso(NOW + HOUR), total: { count: 3 } });
        // Only `to` given: from defaults to 24 hours before it.
        expect((await q.metrics({ to: iso(NOW - DAY + 1) })).json()).toMatchObject({ from: iso(NOW - 2 * DAY + 1), total: { count: 2 } });
      });

      it('refuses empty or inverted ranges, too many buckets and unknown parameters', async () => {
        expect(parametersOf(expectProblem(await p.metrics({ from: range.from, to: range.from }), 400, 'validation'))).toEqual(['from']);
        expect(parametersOf(expectProblem(await p.metrics({ from: range.to, to: range.from }), 400, 'validation'))).toEqual(['from']);
        expect(
          parametersOf(expectProblem(await p.metrics({ from: '2025-11-20T00:00:00.000Z', to: '2026-11-20T00:00:00.000Z', bucket: '1m' }), 400, 'validation')),
        ).toEqual(['bucket']);
        const cases: [Query, string][] = [
          [{ bucket: '2h' }, 'bucket'],
          [{ groupBy: 'tag' }, 'groupBy'],
          [{ from: 'yesterday' }, 'from'],
          [{ limit: 5 }, 'limit'],
          [{ cursor: 'abc' }, 'cursor'],
          [{ foo: 'bar' }, 'foo'],
        ];
        for (const [query, parameter] of cases) {
          expect(parametersOf(expectProblem(await p.metrics(query), 400, 'validation')), JSON.stringify(query)).toContain(parameter);
        }
        // A year in days is fine.
        expect((await p.metrics({ from: '2025-11-20T00:00:00.000Z', to: '2026-11-20T00:00:00.000Z', bucket: '1d' })).json().groups[0].series).toHaveLength(365);
      });
    });

    describe('counting property', () => {
      const P0 = Date.parse('2026-10-01T00:00:00.000Z');
      const absentOr = <T>(arb: fc.Arbitrary<T>, absentWeight = 3) =>
        fc.oneof({ arbitrary: fc.constant(undefined), weight: absentWeight }, { arbitrary: arb, weight: 1 });
      const runArb = fc.record({
        status: fc.constantFrom('running', 'succeeded', 'failed'),
        kind: fc.constantFrom('llm', 'chain', 'tool'),
        name: fc.constantFrom('a', 'b'),
        model: fc.constantFrom(null, 'm1', 'm2'),
        tags: fc.subarray(['x', 'y', 'z']),
        meta: absentOr(fc.constantFrom<unknown>('1', 1, true, 'true', 'v', 2.5, null, false), 1),
        hour: fc.integer({ min: 0, max: 9 }),
        latency: fc.integer({ min: 0, max: 5000 }),
        parent: absentOr(fc.nat(), 1),
      });
      const filterArb = fc.record({
        status: absentOr(fc.constantFrom('running', 'succeeded', 'failed')),
        kind: absentOr(fc.constantFrom('llm', 'chain', 'tool')),
        name: absentOr(fc.constantFrom('a', 'b')),
        model: absentOr(fc.constantFrom('m1', 'm2')),
        tags: absentOr(fc.subarray(['x', 'y', 'z'], { minLength: 1, maxLength: 2 })),
        parent: absentOr(fc.oneof(fc.constant('null'), fc.nat())),
        trace: absentOr(fc.nat(), 5),
        after: absentOr(fc.integer({ min: 0, max: 10 })),
        before: absentOr(fc.integer({ min: 0, max: 10 })),
        meta: absentOr(fc.constantFrom('1', 'true', 'v', '2.5', 'null', 'false', 'nope')),
        limit: fc.integer({ min: 1, max: 5 }),
      });

      const metadataMatches = (stored: unknown, wanted: string) => {
        if (stored === undefined) return false;
        if (typeof stored === 'string') return stored === wanted;
        try {
          return JSON.stringify(stored) === JSON.stringify(JSON.parse(wanted));
        } catch {
          return false;
        }
      };

      it('metrics total.count equals the length of a full walk of the list with the same filter', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(runArb, { maxLength: 14 }), filterArb, async (specs, f) => {
            const p = await projectFor(ctx);
            const runs = specs.map((s, i) => {
              // Even hours put runs on the same instant, so ties broken by id are exercised too.
              const start = P0 + s.hour * HOUR + (s.hour % 2 === 0 ? 0 : i);
              return {
                id: `r${i}`,
                name: s.name,
                kind: s.kind,
                status: s.status,
                startTime: iso(start),
                ...(s.status === 'running' ? {} : { endTime: iso(start + s.latency) }),
                ...(s.model === null ? {} : { model: s.model }),
                tags: s.tags,
                metadata: s.meta === undefined ? {} : { k: s.meta },
                ...(s.parent !== undefined && i > 0 ? { parentRunId: `r${s.parent % i}` } : {}),
              };
            });
            if (runs.length > 0) await p.seed(runs);
            const traceOf = (i: number): string => {
              const parent = runs[i]!.parentRunId;
              return parent === undefined ? `r${i}` : traceOf(Number(parent.slice(1)));
            };

            const query: Query = {
              status: f.status,
              kind: f.kind,
              name: f.name,
              model: f.model,
              tag: f.tags,
              parentRunId: f.parent === undefined ? undefined : f.parent === 'null' ? 'null' : `r${f.parent % Math.max(runs.length, 1)}`,
              traceId: f.trace === undefined ? undefined : `r${f.trace % Math.max(runs.length, 1)}`,
              startedAfter: f.after === undefined ? undefined : iso(P0 + f.after * HOUR),
              startedBefore: f.before === undefined ? undefined : iso(P0 + f.before * HOUR),
              'metadata.k': f.meta,
            };
            const expected = runs
              .map((r, i) => ({ r, i, start: Date.parse(r.startTime) }))
              .filter(({ r, i, start }) => {
                if (query.status !== undefined && r.status !== query.status) return false;
                if (query.kind !== undefined && r.kind !== query.kind) return false;
                if (query.name !== undefined && r.name !== query.name) return false;
                if (query.model !== undefined && r.model !== query.model) return false;
                if (f.tags && !f.tags.every((t) => r.tags.includes(t))) return false;
                if (query.parentRunId === 'null' && r.parentRunId !== undefined) return false;
                if (query.parentRunId !== undefined && query.parentRunId !== 'null' && r.parentRunId !== query.parentRunId) return false;
                if (query.traceId !== undefined && traceOf(i) !== query.traceId) return false;
                if (f.after !== undefined && start < P0 + f.after * HOUR) return false;
                if (f.before !== undefined && start >= P0 + f.before * HOUR) return false;
                if (f.meta !== undefined && !metadataMatches((r.metadata as { k?: unknown }).k, f.meta)) return false;
                return true;
              })
              .sort((a, b) => b.start - a.start || (a.r.id < b.r.id ? 1 : -1))
              .map(({ r }) => r.id);

            const walked = await p.walk(query, f.limit);
            const ids = walked.map((r) => r.id as string);
            expect(ids).toEqual(expected);

            const metrics = await p.metrics({ ...query, from: iso(P0), to: iso(P0 + 10 * HOUR) });
            expect(metrics.statusCode, metrics.body).toBe(200);
            const body = metrics.json();
            expect(body.total.count).toBe(walked.length);
            expect(body.total.errorCount).toBe(walked.filter((r) => r.status === 'failed').length);
            expect(body.total.totalTokens).toBe(0);

            const bucketed = (await p.metrics({ ...query, from: iso(P0), to: iso(P0 + 10 * HOUR), bucket: '1h', groupBy: 'status' })).json();
            const bucketSum = bucketed.groups
              .flatMap((g: { series: { count: number }[] }) => g.series)
              .reduce((n: number, s: { count: number }) => n + s.count, 0);
            expect(bucketSum).toBe(walked.length);
            expect(bucketed.total.count).toBe(walked.length);
          }),
          { numRuns: 20 },
        );
      });
    });
  },
  { clock },
);
