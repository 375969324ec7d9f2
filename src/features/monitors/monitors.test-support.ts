// What the monitors route suites (monitors*.test.ts) share: a manual clock, seeded runs, the calls bound to a context.
import { beforeAll, describe } from 'vitest';
import { describeEachDialect, manualClock, type Caller, type TestContext } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';

export const NOW = Date.parse('2026-11-20T12:00:00.000Z');
export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const clock = manualClock(NOW);
export const MONITOR_KEYS = [
  'createdAt',
  'description',
  'enabled',
  'filter',
  'id',
  'lastEvaluatedAt',
  'metric',
  'name',
  'projectId',
  'score',
  'state',
  'threshold',
  'updatedAt',
  'webhookUrls',
  'window',
];

export const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Seeded runs in the hour before NOW (all inside a 1h window): latencies 100..1000 by 100 for ten
 * succeeded llm runs of model m1, plus two failed llm runs (latency 2000, 3000) of model m2, plus one
 * running chain (no latency). Tokens and cost on the llm runs.
 */
export const SEED = [
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

export function seedRun(i: number, projectStart = NOW - 50 * MINUTE): Json {
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

export function helpers(ctx: TestContext) {
  const base = (projectId: string) => `/v1/projects/${projectId}/monitors`;
  const create = (caller: Caller, projectId: string, body: Json) => ctx.request('POST', base(projectId), { token: caller.token, body });
  async function monitor(caller: Caller, projectId: string, body: Json): Promise<Json> {
    return ok(await create(caller, projectId, { name: 'm', window: '1h', ...body }), 201);
  }
  const get = (caller: Caller, url: string) => ctx.request('GET', url, { token: caller.token });
  const patch = (caller: Caller, projectId: string, id: string, body: Json) => ctx.request('PATCH', `${base(projectId)}/${id}`, { token: caller.token, body });
  return { base, create, monitor, get, patch };
}

export type MonitorHelpers = ReturnType<typeof helpers>;

/** What the tests of a monitors suite share, filled in before they run: an owner, and their project holding the SEED runs. */
export interface Seeded {
  owner: Caller;
  projectId: string;
}

/** The monitors suite of one part on each engine, under the manual clock, with a seeded project. */
export function describeMonitors(part: string, body: (ctx: TestContext, h: MonitorHelpers, s: Seeded) => void): void {
  describeEachDialect(
    'monitors',
    (ctx) => {
      const s = {} as Seeded;
      beforeAll(async () => {
        clock.set(NOW);
        s.owner = await ctx.make.caller({ role: 'owner' });
        s.projectId = (await ctx.make.project(s.owner.organizationId)).id;
        await ctx.make.runs(s.projectId, SEED.length, (i) => seedRun(i));
      });
      describe(part, () => body(ctx, helpers(ctx), s));
    },
    { clock },
  );
}
