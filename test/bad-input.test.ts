import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect, expectProblem, type Caller, type TestContext } from './helpers/harness.js';
import { missingIds } from './helpers/ids.js';
import { expectCleanProblem, expectValidation, type FieldFault } from './helpers/problems.js';

import {
  type Method,
  type Fixture,
  type Route,
  validRun,
  uniqueName,
  uniquePromptName,
  validMonitor,
  MONITOR_FIELDS,
  MONITOR_LIST_JUNK,
  MONITOR_METRICS_JUNK,
  RUN_FIELDS,
  ROUTES,
  BODY_ROUTES,
  ID_ROUTES,
  QUERY_ROUTES,
  PLAIN_ROUTES,
  MALFORMED_JSON,
  NOT_OBJECTS,
  PROTO_POLLUTION,
  JUNK_SEGMENTS,
  LIST_JUNK,
  EXPERIMENT_JUNK,
  FILTER_JUNK,
  METRICS_JUNK,
  VALUES_JUNK,
  PROMPT_LIST_JUNK,
  PROJECT_LIST_JUNK,
  MODEL_LIST_JUNK,
  validModelPrice,
  validView,
  validDataset,
  validScore,
  validScoreConfig,
  validInvitation,
  withQuery,
  validModelConnection,
  FIXTURE_SESSION,
  validEvaluatorRule,
} from './bad-input/routes.js';

describeEachDialect('bad input: every route answers a clean 4xx problem', (ctx: TestContext) => {
  let owner: Caller;
  let f: Fixture;

  /** The resources a fixture names, made in a project (a fresh set for each DELETE, so the shared fixture survives). */
  async function resourcesIn(projectId: string): Promise<Omit<Fixture, 'projectId' | 'runId' | 'sessionId'>> {
    const token = await ctx.request('POST', '/v1/tokens', { token: owner.token, body: { name: 'spare' } });
    const prompt = await ctx.request('POST', '/v1/prompts', { token: owner.token, body: { name: uniquePromptName(), template: 'Hi {{name}}' } });
    expect(prompt.statusCode, prompt.body).toBe(201);
    const promptId = prompt.json().id as string;
    expect((await ctx.request('PUT', `/v1/prompts/${promptId}/labels/staging`, { token: owner.token, body: { version: 1 } })).statusCode).toBe(200);
    const monitor = await ctx.request('POST', `/v1/projects/${projectId}/monitors`, { token: owner.token, body: validMonitor() });
    expect(monitor.statusCode, monitor.body).toBe(201);
    const price = await ctx.request('POST', '/v1/models', { token: owner.token, body: validModelPrice() });
    expect(price.statusCode, price.body).toBe(201);
    const view = await ctx.request('POST', `/v1/projects/${projectId}/views`, { token: owner.token, body: validView() });
    expect(view.statusCode, view.body).toBe(201);
    const [scored] = await ctx.make.runs(projectId, 1);
    const score = await ctx.request('POST', `/v1/projects/${projectId}/runs/${scored}/scores`, { token: owner.token, body: validScore() });
    expect(score.statusCode, score.body).toBe(201);
    const config = await ctx.request('POST', '/v1/score-configs', { token: owner.token, body: validScoreConfig() });
    const dataset = await datasetFixture();
    expect(config.statusCode, config.body).toBe(201);
    const queue = await ctx.request('POST', `/v1/projects/${projectId}/annotation-queues`, { token: owner.token, body: { name: uniqueName() } });
    expect(queue.statusCode, queue.body).toBe(201);
    const evaluator = await ctx.request('POST', `/v1/projects/${projectId}/evaluators`, { token: owner.token, body: validEvaluatorRule() });
    expect(evaluator.statusCode, evaluator.body).toBe(201);
    const member = await ctx.make.caller({ role: 'member', organizationId: owner.organizationId });
    const invitation = await ctx.request('POST', '/v1/organization/invitations', { token: owner.token, body: validInvitation() });
    expect(invitation.statusCode, invitation.body).toBe(201);
    const connection = await ctx.request('POST', '/v1/model-connections', { token: owner.token, body: validModelConnection() });
    expect(connection.statusCode, connection.body).toBe(201);
    return {
      tokenId: token.json().id,
      promptId,
      monitorId: monitor.json().id,
      modelId: price.json().id,
      viewId: view.json().id,
      scoreId: score.json().id,
      scoreConfigId: config.json().id,
      ...dataset,
      ...(await queueItemFixture(projectId, queue.json().id, scored!)),
      ...(await experimentsFixture(projectId, dataset.datasetId)),
      evaluatorId: evaluator.json().id,
      memberUserId: member.userId,
      invitationId: invitation.json().id,
      modelConnectionId: connection.json().id,
    };
  }

  /** An item of the queue (the run), claimed by the owner: what completing or skipping it needs. */
  async function queueItemFixture(projectId: string, queueId: string, runId: string): Promise<{ queueId: string; annotationItemId: string }> {
    const queuePath = `/v1/projects/${projectId}/annotation-queues/${queueId}`;
    expect((await ctx.request('POST', `${queuePath}/items`, { token: owner.token, body: { ids: [runId] } })).statusCode).toBe(200);
    const claimed = await ctx.request('POST', `${queuePath}/claim`, { token: owner.token });
    expect(claimed.statusCode, claimed.body).toBe(200);
    return { queueId, annotationItemId: claimed.json().id };
  }

  /** The ids a valid request of the route is sent with: throwaway resources for what it deletes or uses up. */
  async function idsFor(r: Route): Promise<Fixture> {
    if (r.method === 'DELETE') {
      const project = await ctx.make.project(owner.organizationId);
      return { ...f, projectId: project.id, ...(await resourcesIn(project.id)) };
    }
    if (!r.consumes) return f;
    if (r.route.startsWith('/v1/tokens/')) {
      const token = await ctx.request('POST', '/v1/tokens', { token: owner.token, body: { name: 'rotated' } });
      expect(token.statusCode, token.body).toBe(201);
      return { ...f, tokenId: token.json().id };
    }
    const queue = await ctx.request('POST', `/v1/projects/${f.projectId}/annotation-queues`, { token: owner.token, body: { name: uniqueName() } });
    expect(queue.statusCode, queue.body).toBe(201);
    return { ...f, ...(await queueItemFixture(f.projectId, queue.json().id, f.runId)) };
  }

  /** A fixture nobody deletes or ends: DELETE and PATCH tests use throwaway ones. */
  beforeAll(async () => {
    owner = await ctx.make.caller({ role: 'owner' });
    const project = await ctx.make.project(owner.organizationId);
    const [runId] = await ctx.make.runs(project.id, 3, () => ({ sessionId: FIXTURE_SESSION }));
    f = { projectId: project.id, runId: runId!, sessionId: FIXTURE_SESSION, ...(await resourcesIn(project.id)) };
  });

  /** A new dataset with one item (`itemId`). */
  async function datasetFixture(): Promise<{ datasetId: string; itemId: string }> {
    const dataset = await ctx.request('POST', '/v1/datasets', { token: owner.token, body: validDataset() });
    expect(dataset.statusCode, dataset.body).toBe(201);
    const added = await ctx.request('POST', `/v1/datasets/${dataset.json().id}/items`, { token: owner.token, body: { items: [{ input: 'Hi' }] } });
    expect(added.statusCode, added.body).toBe(201);
    return { datasetId: dataset.json().id, itemId: added.json().items[0].id };
  }

  /** Two experiments over the dataset's version 1, their runs in the project. */
  async function experimentsFixture(projectId: string, datasetId: string): Promise<{ experimentId: string; otherExperimentId: string }> {
    const [experimentId, otherExperimentId] = await Promise.all(
      [1, 2].map(async () => {
        const res = await ctx.request('POST', '/v1/experiments', { token: owner.token, body: { name: uniqueName(), datasetId, projectId } });
        expect(res.statusCode, res.body).toBe(201);
        return res.json().id as string;
      }),
    );
    return { experimentId: experimentId!, otherExperimentId: otherExperimentId! };
  }

  /** Ids that name nothing: for requests that must be refused before any lookup. */
  const nowhere = (): Fixture => missingIds();

  const send = (route: Route, options: { path?: string; payload?: string; contentType?: string; body?: unknown; ids?: Fixture; token?: string } = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${options.token ?? owner.token}`, ...route.headers?.(options.ids ?? f) };
    if (options.contentType !== undefined) headers['content-type'] = options.contentType;
    const payload = options.payload ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
    if (payload !== undefined && options.contentType === undefined) headers['content-type'] = 'application/json';
    return ctx.app.inject({ method: route.method, url: options.path ?? route.path(options.ids ?? f), headers, ...(payload !== undefined ? { payload } : {}) });
  };

  describe('control: the valid request of each route succeeds', () => {
    for (const r of ROUTES) {
      it(`${r.method} ${r.route} → ${r.ok}`, async () => {
        // DELETE (and what uses up its item) uses throwaway resources so the shared fixture survives.
        const ids = await idsFor(r);
        const res = await send(r, { ids, ...(r.body ? { body: r.body(ids) } : {}) });
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

      it(`${r.method} ${r.route}: prototype-pollution keys at the top level → 400 naming them as unknown fields (or ignored where the format says so)`, async () => {
        for (const [payload, pointer] of PROTO_POLLUTION) {
          if (r.ignoresUnknownFields) {
            // Beside a valid body (the route may require fields of its own): ignored, and the request succeeds.
            const beside = `${payload.slice(0, -1)},${JSON.stringify(r.body!(f)).slice(1)}`;
            expect((await send(r, { payload: beside })).statusCode).toBe(r.ok);
            continue;
          }
          const faults = expectValidation(await send(r, { payload }), { pointers: [pointer] });
          expect(faults.find((f) => f.pointer === pointer)?.detail).toBe(`Unknown field '${pointer.slice(1)}'.`);
        }
        // Nothing leaked onto Object.prototype in this process.
        expect(({} as Record<string, unknown>).admin).toBeUndefined();
      });

      it(`${r.method} ${r.route}: each field with a wrong type or value → 400 naming it`, async () => {
        for (const [field, values] of Object.entries(r.fields ?? {})) {
          for (const value of values) {
            const body = { ...r.body!(f), [field]: value };
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
        const base = r.body!(f);
        const huge = JSON.stringify({ ...base, padding: 'x'.repeat(10 * 1024 * 1024 + 1) });
        const res = await send(r, { payload: huge });
        expectProblem(res, 413, 'payload-too-large');
        expectCleanProblem(res);
      });

      it(`${r.method} ${r.route}: a body that is not JSON → 415 unsupported-media-type`, async () => {
        const json = JSON.stringify(r.body!(f));
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
          payload: JSON.stringify(r.body!(f)),
        });
        expectProblem(res, 415, 'unsupported-media-type');
        expectCleanProblem(res);
      });

      it(`${r.method} ${r.route}: JSON with a charset parameter is accepted`, async () => {
        const ids = await idsFor(r);
        const res = await send(r, { ids, payload: JSON.stringify(r.body!(ids)), contentType: 'application/json; charset=utf-8' });
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
            { ...f, modelId: junk },
            { ...f, viewId: junk },
            { ...f, datasetId: junk },
            { ...f, itemId: junk },
            { ...f, queueId: junk },
            { ...f, annotationItemId: junk },
            { ...f, experimentId: junk },
            { ...f, evaluatorId: junk },
            { ...f, memberUserId: junk },
            { ...f, invitationId: junk },
          ]) {
            const url = r.path(ids);
            if (url === r.path(f)) continue;
            const res = await send(r, { path: url, ...(r.body ? { body: r.body(f) } : {}) });
            let decoded = junk;
            try {
              decoded = decodeURIComponent(junk);
            } catch {
              /* keep raw */
            }
            const body = expectCleanProblem(res, [junk, decoded, url]);
            // `..` may resolve to another route (`/v1/projects/../traces` is `/v1/traces`), whose answer to a method it does not take is a 405.
            expect([400, 404, 405], `${r.method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`).toContain(res.statusCode);
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

    it('an unknown path is a 404, and a known path asked with another method a 405, whatever the body and its type', async () => {
      // What an exporter sends when its generic endpoint already ends in /v1/traces.
      for (const type of ['application/x-protobuf', 'application/json', 'text/plain', 'application/octet-stream'])
        for (const token of [owner.token, undefined]) {
          const headers = { 'content-type': type };
          const wrong = await ctx.request('POST', '/v1/traces/v1/traces', { token, headers, payload: '\u0000{not json' });
          expectProblem(wrong, 404, 'not-found');
          const method = await ctx.request('PUT', '/v1/traces', { token, headers, payload: '\u0000{not json' });
          expectProblem(method, 405, 'method-not-allowed');
          expect(method.headers.allow).toBe('POST');
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
        // The path alone (the comparison's carries its `ids`): what routes match and the problem names.
        const path = url.split('?')[0]!;
        const methods = methodsAt(path);
        const allow = [...methods].sort().join(', ');
        for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
          if (methods.has(method)) continue;
          for (const token of [owner.token, undefined]) {
            const res = await ctx.request(method, url, token ? { token } : {});
            const body = expectProblem(res, 405, 'method-not-allowed');
            expect(res.headers.allow, `${method} ${route}`).toBe(allow);
            expect(body.detail).toBe(`${method} is not allowed on ${path}; it answers ${allow}.`);
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
        ...(/^\/v1\/projects\/\{project_id\}\/(runs|traces|sessions|users)(\/export|\/metrics)?$/.test(r.route) ? EXPERIMENT_JUNK : []),
        ...(r.route.endsWith('/metrics') ? METRICS_JUNK : []),
        ...(r.route.endsWith('/values') ? VALUES_JUNK : []),
        ...(r.route === '/v1/projects/{project_id}/monitors' ? MONITOR_LIST_JUNK : []),
        ...(r.route === '/v1/models' || r.route === '/v1/models/builtin' ? MODEL_LIST_JUNK : []),
        ...(r.route === '/v1/projects/{project_id}/monitors/{monitor_id}/metrics' ? MONITOR_METRICS_JUNK : []),
      ];
      it(`${r.method} ${r.route}: ${junk.length} junk queries → 400 naming the parameter`, async () => {
        for (const [query, parameter] of junk) {
          const res = await send(r, { path: withQuery(r.path(f), query) });
          expectValidation(res, { parameters: [parameter] }, [query, parameter]);
        }
      });

      if (!r.route.endsWith('/metrics') && !r.route.endsWith('/export')) {
        it(`${r.method} ${r.route}: an out-of-range limit is clamped`, async () => {
          for (const [limit, used] of [
            ['0', 1],
            ['-5', 1],
            ['1000', 100],
            ['100', 100],
            ['99999999999999999999', 100],
            ['-99999999999999999999', 1],
          ] as const) {
            const res = await send(r, { path: withQuery(r.path(f), `limit=${limit}`) });
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
          const res = await send(r, { path: withQuery(r.path(f), query) });
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
        const res = await send(r, { path: `${r.path(nowhere())}?bogus=1`, ...(r.body ? { body: r.body(f) } : {}) });
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
        for (const key of [
          'projectId',
          'runId',
          'sessionId',
          'tokenId',
          'monitorId',
          'modelId',
          'viewId',
          'scoreId',
          'scoreConfigId',
          'datasetId',
          'itemId',
          'memberUserId',
          'invitationId',
          'experimentId',
        ] as const) {
          const url = r.path({
            ...g,
            [key]: `${{ projectId: 'prj', runId: 'run', sessionId: 'ses', tokenId: 'tok', monitorId: 'mon', modelId: 'mdl', viewId: 'vew', scoreId: 'scr', scoreConfigId: 'scc', datasetId: 'ds', itemId: 'dsi', memberUserId: 'usr', invitationId: 'inv', experimentId: 'exp' }[key]}_%00`,
          });
          if (url === r.path(g)) continue;
          check(`${r.method} ${url}`, await send(r, { path: url, ...(r.body ? { body: r.body(f) } : {}) }));
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
          const url = withQuery(r.path(g), `${param}=a%00b`);
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

  /**
   * OWASP API1 and API5 for scoped tokens (docs/tokens-and-access.md, Scoped tokens), on every route: the
   * owner's token narrowed to `runs:write` reaches the routes that need it and no other (403 naming the
   * scope; its own tokens wider than it stay out of its hands); narrowed to another project, it gets the
   * very 404 of a missing project for this one's routes (and its ingestion by name), and a 403 for
   * organization-wide routes. The owner's unnarrowed token is the control: every valid request succeeds.
   */
  describe('scoped tokens on every route', () => {
    const doc = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')) as {
      paths: Record<string, Record<string, { 'x-required-scope'?: string }>>;
    };
    const scopeOf = (r: Route) => doc.paths[r.route]?.[r.method.toLowerCase()]?.['x-required-scope'];
    /** Routes on the caller's own tokens: a narrowed token may not rotate or revoke a wider one (the fixture's is the owner's, unnarrowed). */
    const WIDER_TOKEN = new Set(['POST /v1/tokens/{token_id}/rotate', 'DELETE /v1/tokens/{token_id}']);
    /**
     * A route that stores into a project it names otherwise than in the path (Langfuse's ingestion: the header, the
     * Basic credential's user). The OTLP routes name a project only for the spans they carry; their valid requests
     * here carry none (tokens.scoped.test.ts sends spans to another project).
     */
    const ROUTED = new Set(['POST /api/public/ingestion']);
    let ingestOnly: string;
    let elsewhere: string;
    beforeAll(async () => {
      const minted = await ctx.request('POST', '/v1/tokens', { token: owner.token, body: { name: 'ingest', scopes: ['runs:write'] } });
      expect(minted.statusCode, minted.body).toBe(201);
      expect(minted.json()).toMatchObject({ scopes: ['runs:write'], projectIds: null });
      ingestOnly = minted.json().token;
      const other = await ctx.make.project(owner.organizationId);
      const narrowed = await ctx.request('POST', '/v1/tokens', { token: owner.token, body: { name: 'elsewhere', projectIds: [other.id] } });
      expect(narrowed.statusCode, narrowed.body).toBe(201);
      expect(narrowed.json()).toMatchObject({ scopes: null, projectIds: [other.id] });
      elsewhere = narrowed.json().token;
    });

    it('every route documents the scope it needs (x-required-scope)', () => {
      expect(ROUTES.filter((r) => scopeOf(r) === undefined).map((r) => `${r.method} ${r.route}`)).toEqual([]);
    });

    for (const r of ROUTES) {
      const key = `${r.method} ${r.route}`;
      it(`${key}: an ingest-only token gets what its scope allows, else 403`, async () => {
        const scope = scopeOf(r)!;
        const ids = await idsFor(r);
        const res = await send(r, { ids, token: ingestOnly, ...(r.body ? { body: r.body(ids) } : {}) });
        if (WIDER_TOKEN.has(key)) {
          expectProblem(res, 403, 'forbidden', `This token may not ${r.method === 'DELETE' ? 'revoke' : 'rotate'} a token that may do more than it.`);
        } else if (scope === 'runs:write' || scope === 'self') {
          expect(res.statusCode, res.body.slice(0, 300)).toBe(r.ok);
        } else {
          expectProblem(res, 403, 'forbidden', `This token is limited to runs:write; it does not allow ${scope}.`);
        }
      });

      it(`${key}: a token narrowed to another project gets 404 for this one's, 403 organization-wide`, async () => {
        const scope = scopeOf(r)!;
        const ids = await idsFor(r);
        const res = await send(r, { ids, token: elsewhere, ...(r.body ? { body: r.body(ids) } : {}) });
        if (r.route.includes('{project_id}')) {
          expectProblem(res, 404, 'not-found', `Project ${ids.projectId} does not exist.`);
        } else if (ROUTED.has(key)) {
          expect(res.statusCode, res.body.slice(0, 300)).toBe(404);
          expect(res.json().detail).toBe(`Project ${ids.projectId} is not one of this token's projects.`);
        } else if (WIDER_TOKEN.has(key)) {
          expectProblem(res, 403, 'forbidden', `This token may not ${r.method === 'DELETE' ? 'revoke' : 'rotate'} a token that may do more than it.`);
        } else if (scope === 'self' || ['GET /v1/projects', 'POST /v1/traces', 'POST /api/public/otel/v1/traces'].includes(key)) {
          expect(res.statusCode, res.body.slice(0, 300)).toBe(r.ok);
        } else {
          expectProblem(res, 403, 'forbidden', 'This token is limited to one project: it reaches their routes, not organization-wide ones.');
        }
      });
    }
  });
});
