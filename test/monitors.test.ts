/**
 * Monitors (README, Monitors): CRUD, every metric and operator against hand-computed values, "fewer than" on
 * a silent project, pause/resume, events, the monitor metrics endpoint. Every engine; a manual clock so
 * windows are exact. Webhooks and several evaluators have their own suites.
 */
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect, expectProblem, manualClock, type Caller, type TestContext } from './helpers/harness.js';

type Json = Record<string, any>;

const NOW = Date.parse('2026-11-20T12:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 3_600_000;
const clock = manualClock(NOW);
const MONITOR_KEYS = [
  'createdAt',
  'description',
  'enabled',
  'filter',
  'id',
  'lastEvaluatedAt',
  'metric',
  'name',
  'projectId',
  'state',
  'threshold',
  'updatedAt',
  'webhookUrls',
  'window',
];

function ok(res: LightMyRequestResponse, status = 200): Json {
  expect(res.statusCode, res.body.slice(0, 500)).toBe(status);
  return res.json() as Json;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Seeded runs in the hour before NOW (all inside a 1h window): latencies 100..1000 by 100 for ten
 * succeeded llm runs of model m1, plus two failed llm runs (latency 2000, 3000) of model m2, plus one
 * running chain (no latency). Tokens and cost on the llm runs.
 */
const SEED = [
  ...Array.from({ length: 10 }, (_, i) => ({
    kind: 'llm',
    status: 'succeeded',
    latency: (i + 1) * 100,
    model: 'm1',
    tokens: 10 * (i + 1),
    cost: 0.25,
    tags: ['prod'],
  })),
  { kind: 'llm', status: 'failed', latency: 2000, model: 'm2', tokens: 5, cost: 0.5, tags: ['prod'] },
  { kind: 'llm', status: 'failed', latency: 3000, model: 'm2', tokens: 7, cost: 0.5, tags: [] },
  { kind: 'chain', status: 'running', latency: null, model: null, tokens: null, cost: null, tags: ['prod'] },
];

function seedRun(i: number, projectStart = NOW - 50 * MINUTE): Json {
  const s = SEED[i]!;
  const start = projectStart + i * MINUTE;
  return {
    name: s.kind === 'llm' ? 'ChatOpenAI' : 'Pipeline',
    kind: s.kind,
    status: s.status,
    startTime: iso(start),
    ...(s.latency === null ? {} : { endTime: iso(start + s.latency) }),
    ...(s.status === 'failed' ? { error: 'boom' } : {}),
    model: s.model,
    ...(s.tokens === null ? {} : { usage: { promptTokens: s.tokens, completionTokens: 0 } }),
    cost: s.cost,
    tags: s.tags,
    metadata: { env: i % 2 === 0 ? 'even' : 'odd' },
  };
}

function helpers(ctx: TestContext) {
  const base = (projectId: string) => `/v1/projects/${projectId}/monitors`;
  const create = (caller: Caller, projectId: string, body: Json) => ctx.request('POST', base(projectId), { token: caller.token, body });
  async function monitor(caller: Caller, projectId: string, body: Json): Promise<Json> {
    return ok(await create(caller, projectId, { name: 'm', window: '1h', ...body }), 201);
  }
  const get = (caller: Caller, url: string) => ctx.request('GET', url, { token: caller.token });
  const patch = (caller: Caller, projectId: string, id: string, body: Json) => ctx.request('PATCH', `${base(projectId)}/${id}`, { token: caller.token, body });
  return { base, create, monitor, get, patch };
}

describeEachDialect(
  'monitors',
  (ctx) => {
    const h = helpers(ctx);
    let owner: Caller;
    let projectId: string;

    beforeAll(async () => {
      clock.set(NOW);
      owner = await ctx.make.caller({ role: 'owner' });
      projectId = (await ctx.make.project(owner.organizationId)).id;
      await ctx.make.runs(projectId, SEED.length, (i) => seedRun(i));
    });

    describe('create, get, list, patch, delete', () => {
      it('creates a monitor (201): the documented record plus the webhook secret shown once, evaluated at once', async () => {
        clock.set(NOW);
        const body = await h.monitor(owner, projectId, {
          name: 'Errors',
          description: 'd',
          metric: 'error_count',
          threshold: { op: '>', value: 1 },
          filter: { kind: 'llm' },
        });
        expect(Object.keys(body).sort()).toEqual([...MONITOR_KEYS, 'webhookSecret'].sort());
        expect(body.webhookSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
        expect(body).toMatchObject({
          projectId,
          name: 'Errors',
          description: 'd',
          metric: 'error_count',
          window: '1h',
          threshold: { op: '>', value: 1 },
          enabled: true,
          state: 'alerting',
          filter: { kind: 'llm' },
          webhookUrls: [],
        });
        expect(body.lastEvaluatedAt).toBe(iso(NOW));
        const got = ok(await h.get(owner, `${h.base(projectId)}/${body.id}`));
        expect(Object.keys(got).sort()).toEqual(MONITOR_KEYS);
        expect(got).toEqual(Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'webhookSecret')));
      });

      it('stores the secret sealed, never in clear', async () => {
        const body = await h.monitor(owner, projectId, { metric: 'count' });
        const row = await ctx.database.storage.db.selectFrom('monitors').select('webhook_secret').where('id', '=', body.id).executeTakeFirstOrThrow();
        expect(row.webhook_secret).not.toContain(body.webhookSecret);
        expect(row.webhook_secret).not.toContain(body.webhookSecret.slice(6));
      });

      it('rotates the secret: a new one, shown once', async () => {
        const body = await h.monitor(owner, projectId, { metric: 'count' });
        const rotated = ok(await ctx.request('POST', `${h.base(projectId)}/${body.id}/rotate-secret`, { token: owner.token }));
        expect(rotated.webhookSecret).toMatch(/^whsec_/);
        expect(rotated.webhookSecret).not.toBe(body.webhookSecret);
        const got = ok(await h.get(owner, `${h.base(projectId)}/${body.id}`));
        expect(got.webhookSecret).toBeUndefined();
      });

      it('lists newest first, filtered by state and enabled', async () => {
        const project = (await ctx.make.project(owner.organizationId)).id;
        await ctx.make.runs(project, 3, (i) => ({
          startTime: iso(NOW - 10 * MINUTE + i * 1000),
          status: 'succeeded',
          endTime: iso(NOW - 10 * MINUTE + i * 1000 + 5),
        }));
        const a = await h.monitor(owner, project, { name: 'a', metric: 'count', threshold: { op: '>', value: 1 } }); // alerting
        clock.advance(1);
        const b = await h.monitor(owner, project, { name: 'b', metric: 'count', threshold: { op: '>', value: 10 } }); // ok
        clock.advance(1);
        const c = await h.monitor(owner, project, { name: 'c', metric: 'count', enabled: false }); // paused: no_data
        clock.set(NOW);
        const all = ok(await h.get(owner, h.base(project)));
        expect(all.items.map((m: Json) => m.name)).toEqual(['c', 'b', 'a']);
        expect(all.nextCursor).toBeNull();
        expect(ok(await h.get(owner, `${h.base(project)}?state=alerting`)).items.map((m: Json) => m.id)).toEqual([a.id]);
        expect(ok(await h.get(owner, `${h.base(project)}?state=ok`)).items.map((m: Json) => m.id)).toEqual([b.id]);
        expect(ok(await h.get(owner, `${h.base(project)}?state=no_data`)).items.map((m: Json) => m.id)).toEqual([c.id]);
        expect(ok(await h.get(owner, `${h.base(project)}?enabled=false`)).items.map((m: Json) => m.id)).toEqual([c.id]);
        expect(ok(await h.get(owner, `${h.base(project)}?enabled=true`)).items.map((m: Json) => m.id)).toEqual([b.id, a.id]);
        expectProblem(await h.get(owner, `${h.base(project)}?enabled=yes`), 400, 'validation');
        expectProblem(await h.get(owner, `${h.base(project)}?state=firing`), 400, 'validation');
      });

      it('patches fields; a changed definition is re-evaluated at once', async () => {
        const m = await h.monitor(owner, projectId, { metric: 'count', threshold: { op: '>', value: 100 } });
        expect(m.state).toBe('ok');
        const patched = ok(await h.patch(owner, projectId, m.id, { threshold: { op: '>', value: 5 }, name: 'renamed' }));
        expect(patched).toMatchObject({ name: 'renamed', threshold: { op: '>', value: 5 }, state: 'alerting' });
        const cleared = ok(await h.patch(owner, projectId, m.id, { threshold: null }));
        expect(cleared).toMatchObject({ threshold: null, state: 'ok' });
      });

      it('deletes (admin+) with its events; then 404', async () => {
        const m = await h.monitor(owner, projectId, { metric: 'count', threshold: { op: '>', value: 1 } });
        const res = await ctx.request('DELETE', `${h.base(projectId)}/${m.id}`, { token: owner.token });
        expect(res.statusCode).toBe(204);
        expectProblem(await h.get(owner, `${h.base(projectId)}/${m.id}`), 404, 'not-found');
        expectProblem(await ctx.request('DELETE', `${h.base(projectId)}/${m.id}`, { token: owner.token }), 404, 'not-found');
        const events = await ctx.database.storage.db.selectFrom('monitor_events').select('id').where('monitor_id', '=', m.id).execute();
        expect(events).toEqual([]);
      });

      it('refuses bad bodies with every fault named', async () => {
        const res = await h.create(owner, projectId, {
          name: '',
          metric: 'p99',
          window: '2h',
          threshold: { op: '!=', value: 'x' },
          filter: { startedAfter: iso(NOW), bogus: 1 },
          webhookUrls: ['ftp://x'],
        });
        const body = expectProblem(res, 400, 'validation');
        const pointers = (body.errors as { pointer: string }[]).map((e) => e.pointer);
        for (const p of ['/name', '/metric', '/window', '/threshold/op', '/threshold/value', '/filter'])
          expect(
            pointers.some((x) => x.startsWith(p)),
            `${p} in ${pointers}`,
          ).toBe(true);
        expectProblem(await h.create(owner, projectId, { name: 'x', metric: 'count', window: '1h', extra: true }), 400, 'validation');
        expectProblem(await h.patch(owner, projectId, 'mon_nope', {}), 400, 'validation');
      });

      it('roles: viewers read but cannot create; members cannot delete', async () => {
        const viewer = await ctx.make.caller({ role: 'viewer', organizationId: owner.organizationId });
        const member = await ctx.make.caller({ role: 'member', organizationId: owner.organizationId });
        expectProblem(await h.create(viewer, projectId, { name: 'v', metric: 'count', window: '1h' }), 403, 'forbidden');
        const m = await h.monitor(member, projectId, { metric: 'count' });
        ok(await h.get(viewer, `${h.base(projectId)}/${m.id}`));
        expectProblem(await h.patch(viewer, projectId, m.id, { name: 'x' }), 403, 'forbidden');
        expectProblem(await ctx.request('DELETE', `${h.base(projectId)}/${m.id}`, { token: member.token }), 403, 'forbidden');
      });

      it("another organization's monitor is a 404", async () => {
        const stranger = await ctx.make.caller();
        const m = await h.monitor(owner, projectId, { metric: 'count' });
        expectProblem(await h.get(stranger, `${h.base(projectId)}/${m.id}`), 404, 'not-found');
        const strangerProject = (await ctx.make.project(stranger.organizationId)).id;
        expectProblem(await h.get(stranger, `${h.base(strangerProject)}/${m.id}`), 404, 'not-found');
      });
    });

    describe('every metric and operator against hand-computed values', () => {
      // Over the seeded hour: 13 runs; 2 failed; latencies (ended runs) 100..1000, 2000, 3000 (12 values);
      // tokens 10+20+…+100 + 5 + 7 = 562; cost 10*0.25 + 0.5 + 0.5 = 3.5.
      // Nearest rank over 12 sorted latencies: p50 rank 6 → 600; p95 rank ceil(11.4)=12 → 3000; p99 rank 12 → 3000.
      const expected: Record<string, number> = {
        count: 13,
        error_count: 2,
        error_rate: 2 / 13,
        latency_p50: 600,
        latency_p95: 3000,
        latency_p99: 3000,
        total_tokens: 562,
        cost: 3.5,
      };
      for (const [metric, value] of Object.entries(expected)) {
        it(`${metric} = ${value}`, async () => {
          clock.set(NOW);
          const m = await h.monitor(owner, projectId, { metric });
          const metrics = ok(await h.get(owner, `${h.base(projectId)}/${m.id}/metrics`));
          expect(metrics.current.count).toBe(13);
          expect(metrics.current.value).toBeCloseTo(value, 9);
          expect(metrics.current.state).toBe('ok');
          for (const [op, threshold, state] of [
            ['>', value, 'ok'],
            ['>=', value, 'alerting'],
            ['<', value, 'ok'],
            ['<=', value, 'alerting'],
            ['>', value - 0.001, 'alerting'],
            ['<', value + 0.001, 'alerting'],
          ] as const) {
            const patched = ok(await h.patch(owner, projectId, m.id, { threshold: { op, value: threshold } }));
            expect(patched.state, `${metric} ${op} ${threshold}`).toBe(state);
          }
        });
      }

      it('filters with the list grammar: kind, model, tags, metadata, status, roots', async () => {
        const cases: [Json, number][] = [
          [{ kind: 'chain' }, 1],
          [{ model: 'm2' }, 2],
          [{ status: 'failed' }, 2],
          [{ tag: ['prod'] }, 12],
          [{ 'metadata.env': 'even' }, 7],
          [{ parentRunId: null }, 13],
          [{ kind: 'llm', tag: ['prod'], status: 'failed' }, 1],
        ];
        for (const [filter, count] of cases) {
          const m = await h.monitor(owner, projectId, { metric: 'count', filter });
          const metrics = ok(await h.get(owner, `${h.base(projectId)}/${m.id}/metrics`));
          expect(metrics.current.count, JSON.stringify(filter)).toBe(count);
          // …the same number a full walk of the list gives for that filter.
          const query = Object.entries(filter)
            .flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => `${k}=${x}`) : [`${k}=${v === null ? 'null' : v}`]))
            .join('&');
          const list = ok(await h.get(owner, `/v1/projects/${projectId}/runs?limit=100&startedAfter=${iso(NOW - HOUR)}&${query}`));
          expect(list.items.length, JSON.stringify(filter)).toBe(count);
        }
      });

      it('error_rate and latency metrics over no runs are null (no_data); additive ones are 0', async () => {
        const empty = (await ctx.make.project(owner.organizationId)).id;
        for (const metric of ['error_rate', 'latency_p50', 'latency_p95', 'latency_p99']) {
          const m = await h.monitor(owner, empty, { metric, threshold: { op: '<', value: 1 } });
          expect(m.state).toBe('no_data');
          expect(ok(await h.get(owner, `${h.base(empty)}/${m.id}/metrics`)).current).toMatchObject({ value: null, count: 0, state: 'no_data' });
        }
        for (const metric of ['count', 'error_count', 'total_tokens', 'cost']) {
          const m = await h.monitor(owner, empty, { metric });
          expect(ok(await h.get(owner, `${h.base(empty)}/${m.id}/metrics`)).current).toMatchObject({ value: 0, count: 0, state: 'no_data' });
        }
      });
    });

    describe('states over time', () => {
      it('a "fewer than" monitor on a silent project alerts; a run brings it back to ok', async () => {
        clock.set(NOW);
        const silent = (await ctx.make.project(owner.organizationId)).id;
        const m = await h.monitor(owner, silent, { metric: 'count', window: '5m', threshold: { op: '<', value: 1 } });
        expect(m.state).toBe('alerting');
        await ctx.make.runs(silent, 1, () => ({ startTime: iso(NOW - MINUTE) }));
        clock.advance(61_000); // the next scheduled evaluation is due
        expect(await ctx.app.monitoring.evaluateDue()).toContain(m.id);
        expect(ok(await h.get(owner, `${h.base(silent)}/${m.id}`)).state).toBe('ok');
        clock.advance(5 * MINUTE); // the run leaves the window
        expect(ok(await h.get(owner, `${h.base(silent)}/${m.id}`)).state).toBe('alerting'); // evaluated on read
        const events = ok(await h.get(owner, `${h.base(silent)}/${m.id}/events`)).items as Json[];
        expect(events.map((e) => [e.from, e.to, e.value, e.count, e.reason])).toEqual([
          ['ok', 'alerting', 0, 0, 'evaluated'],
          ['alerting', 'ok', 1, 1, 'evaluated'],
          ['no_data', 'alerting', 0, 0, 'evaluated'],
        ]);
        expect(events[0]!.threshold).toEqual({ op: '<', value: 1 });
        clock.set(NOW);
      });

      it('pausing gives no_data at once (an event "paused"); resuming re-evaluates ("resumed")', async () => {
        clock.set(NOW);
        const m = await h.monitor(owner, projectId, { metric: 'error_count', threshold: { op: '>=', value: 1 } });
        expect(m.state).toBe('alerting');
        const paused = ok(await h.patch(owner, projectId, m.id, { enabled: false }));
        expect(paused).toMatchObject({ enabled: false, state: 'no_data' });
        clock.advance(2 * MINUTE);
        expect(await ctx.app.monitoring.evaluateDue()).not.toContain(m.id);
        expect(ok(await h.get(owner, `${h.base(projectId)}/${m.id}`)).state).toBe('no_data');
        expect(ok(await h.get(owner, `${h.base(projectId)}/${m.id}/metrics`)).current.state).toBe('no_data');
        const resumed = ok(await h.patch(owner, projectId, m.id, { enabled: true }));
        expect(resumed).toMatchObject({ enabled: true, state: 'alerting' });
        const events = ok(await h.get(owner, `${h.base(projectId)}/${m.id}/events`)).items as Json[];
        expect(events.map((e) => [e.from, e.to, e.reason])).toEqual([
          ['no_data', 'alerting', 'resumed'],
          ['alerting', 'no_data', 'paused'],
          ['no_data', 'alerting', 'evaluated'],
        ]);
        clock.set(NOW);
      });

      it('a monitor is evaluated once per interval, not on every pass', async () => {
        clock.set(NOW);
        const m = await h.monitor(owner, projectId, { metric: 'count' });
        expect(await ctx.app.monitoring.evaluateDue()).not.toContain(m.id);
        clock.advance(59_000);
        expect(await ctx.app.monitoring.evaluateDue()).not.toContain(m.id);
        clock.advance(1_000);
        expect(await ctx.app.monitoring.evaluateDue()).toContain(m.id);
        expect(await ctx.app.monitoring.evaluateDue()).not.toContain(m.id);
        clock.set(NOW);
      });
    });

    describe('GET …/monitors/{id}/metrics', () => {
      it('defaults to the last 24 windows, UTC-aligned, empty buckets filled; counts equal the list', async () => {
        clock.set(NOW + 30 * MINUTE); // 12:30: the hour buckets are 13:00 the day before … 12:00 today
        const m = await h.monitor(owner, projectId, { metric: 'count' });
        const body = ok(await h.get(owner, `${h.base(projectId)}/${m.id}/metrics`));
        expect(Object.keys(body).sort()).toEqual(['bucket', 'current', 'from', 'metric', 'monitorId', 'series', 'to']);
        expect(body).toMatchObject({ monitorId: m.id, metric: 'count', bucket: '1h', from: iso(NOW - 23 * HOUR), to: iso(NOW + 30 * MINUTE) });
        expect(body.series).toHaveLength(24);
        expect(body.series[0]).toEqual({ start: iso(NOW - 23 * HOUR), value: 0, count: 0 });
        // Seeded runs start 11:10 … 11:22: all in the 11:00 bucket.
        expect(body.series[22]).toEqual({ start: iso(NOW - HOUR), value: 13, count: 13 });
        expect(body.series[23]).toEqual({ start: iso(NOW), value: 0, count: 0 });
        // The latest window (11:30 … 12:30) holds none of them.
        expect(body.current).toEqual({ value: 0, count: 0, state: 'no_data', windowStart: iso(NOW - 30 * MINUTE), windowEnd: iso(NOW + 30 * MINUTE) });
        clock.set(NOW);
      });

      it('takes from, to and bucket; a percentile per bucket; bad ranges are 400s', async () => {
        const m = await h.monitor(owner, projectId, { metric: 'latency_p50', filter: { kind: 'llm' } });
        const body = ok(await h.get(owner, `${h.base(projectId)}/${m.id}/metrics?from=${iso(NOW - 50 * MINUTE)}&to=${iso(NOW - 35 * MINUTE)}&bucket=5m`));
        // llm runs start at 11:10 + i min (i = 0..11): buckets 11:10 (i 0..4), 11:15 (5..9), 11:20 (10, 11).
        expect(body.series).toEqual([
          { start: iso(NOW - 50 * MINUTE), value: 300, count: 5 },
          { start: iso(NOW - 45 * MINUTE), value: 800, count: 5 },
          { start: iso(NOW - 40 * MINUTE), value: 2000, count: 2 },
        ]);
        expectProblem(await h.get(owner, `${h.base(projectId)}/${m.id}/metrics?from=${iso(NOW)}&to=${iso(NOW)}`), 400, 'validation');
        expectProblem(await h.get(owner, `${h.base(projectId)}/${m.id}/metrics?bucket=2h`), 400, 'validation');
        expectProblem(await h.get(owner, `${h.base(projectId)}/${m.id}/metrics?from=2000-01-01T00:00:00.000Z&bucket=1m`), 400, 'validation');
        expectProblem(await h.get(owner, `${h.base(projectId)}/${m.id}/metrics?from=yesterday`), 400, 'validation');
      });
    });
  },
  { clock },
);
