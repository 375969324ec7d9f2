// What the runs suites (runs.*.test.ts) share: the clock, a project with its runs endpoints bound, a minimal run.
import { beforeEach, describe, expect } from 'vitest';
import { describeEachDialect, manualClock, type TestContext } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { createProcessDatabase } from '../../../test/helpers/storage.js';
import { parseDatabaseUrl } from '../../config.js';
import type { Dialect } from '../../db/dialect.js';
import { openStorage, type Storage } from '../../db/index.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const NOW = Date.parse('2026-11-21T12:00:00.000Z');
export const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const GENERATED_RUN_ID = /^run_[0-9a-z]{26}$/;
export const RUN_FIELDS = [
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
  'provider',
  'sessionId',
  'userId',
  'costSource',
  'price',
  'scores',
].sort();

/** Shared by both engines' suites of a file; every test starts at NOW and only ever moves it forward (tokens carry nbf). */
export const clock = manualClock(NOW);

export const iso = (ms: number) => new Date(ms).toISOString();
export type Query = Record<string, string | number | (string | number)[] | undefined>;

function queryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

export const pointersOf = (problem: Record<string, unknown>) => ((problem.errors ?? []) as { pointer?: string }[]).map((e) => e.pointer);
export const parametersOf = (problem: Record<string, unknown>) => ((problem.errors ?? []) as { parameter?: string }[]).map((e) => e.parameter);

/** A fresh project of a fresh organization, with a member's token, and the runs endpoints bound to it. */
export async function projectFor(ctx: TestContext) {
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
    async walk(query: Query = {}, limit = 100): Promise<Json[]> {
      const items: Json[] = [];
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

export const minimal = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'ChatOpenAI',
  kind: 'llm',
  startTime: '2026-11-21T10:00:00.000Z',
  ...overrides,
});

/** The runs suite of one part (create, batch, …) on each engine, the clock at NOW before every test. */
export function describeRuns(part: string, body: (ctx: TestContext) => void): void {
  describeEachDialect(
    'runs',
    (ctx) => {
      beforeEach(() => clock.set(NOW));
      describe(part, () => body(ctx));
    },
    { clock },
  );
}

/** Storage on an empty database of its own (closed and removed by `cleanups`), for a migration's suite to migrate as it needs. */
export async function emptyStorage(dialect: Dialect, cleanups: (() => Promise<void>)[]): Promise<Storage> {
  const database = await createProcessDatabase(dialect, 'sl_migration');
  cleanups.push(database.drop);
  const storage = await openStorage({ database: parseDatabaseUrl(database.url), sqliteSynchronous: 'NORMAL' });
  cleanups.push(() => storage.close());
  return storage;
}
