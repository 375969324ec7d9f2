/**
 * The monitors' counting property (docs/monitors-and-webhooks.md: a monitor's filter "uses the runs-list filter names" and
 * its metric counts "exactly the runs the runs list returns"): for random runs and a random filter, a
 * `count` monitor over a 7-day window reports as `current.count` the number of items a full walk of
 * GET …/runs gives with the same filter and `startedAfter` = now − 7 days; `error_count` likewise the
 * failed ones among them. Every engine; a manual clock, so the window is exact (runs sit on its edges).
 */
import fc from 'fast-check';
import { beforeEach, expect, it } from 'vitest';
import { describeEachDialect, manualClock, type Caller, type TestContext } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { metadataMatches } from '../../../test/helpers/run-filters.js';

const NOW = Date.parse('2026-11-20T12:00:00.000Z');
const HOUR = 3_600_000;
const WEEK = 7 * 24 * HOUR;
const clock = manualClock(NOW);
const iso = (ms: number) => new Date(ms).toISOString();

const absentOr = <T>(arb: fc.Arbitrary<T>, absentWeight = 2) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: absentWeight }, { arbitrary: arb, weight: 1 });

/** Start offsets from NOW: the window's edges (−7 d is inside, a millisecond earlier is not), and anywhere around. */
const offsetArb = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom(-WEEK, -WEEK - 1, -WEEK + 1, -1, -2 * WEEK) },
  { weight: 4, arbitrary: fc.integer({ min: -WEEK - 2 * HOUR, max: -1 }) },
);

const runArb = fc.record({
  status: fc.constantFrom('running', 'succeeded', 'failed'),
  kind: fc.constantFrom('llm', 'chain', 'tool'),
  model: fc.constantFrom(null, 'm1', 'm2'),
  tags: fc.subarray(['x', 'y', 'z']),
  meta: absentOr(fc.constantFrom<unknown>('1', 1, true, 'true', 'v', null, false), 1),
  offset: offsetArb,
  parent: absentOr(fc.nat(), 1),
});

const filterArb = fc.record({
  status: absentOr(fc.constantFrom('running', 'succeeded', 'failed')),
  kind: absentOr(fc.constantFrom('llm', 'chain', 'tool')),
  model: absentOr(fc.constantFrom('m1', 'm2')),
  tag: absentOr(fc.subarray(['x', 'y', 'z'], { minLength: 1, maxLength: 2 })),
  meta: absentOr(fc.constantFrom('1', 'true', 'v', 'null', 'false', 'nope')),
  /** 'null': root runs only; a number: the children of that run. */
  parent: absentOr(fc.oneof(fc.constant('null' as const), fc.nat())),
  trace: absentOr(fc.nat(), 4),
  limit: fc.integer({ min: 1, max: 5 }),
});

type RunSpec = { id: string; status: string; kind: string; model: string | null; tags: string[]; meta: unknown; start: number; parentRunId?: string };

function queryString(query: Record<string, string | string[] | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, v);
  }
  return params.toString();
}

describeEachDialect(
  'monitors counting property',
  (ctx: TestContext) => {
    let caller: Caller;
    beforeEach(async () => {
      clock.set(NOW);
      caller ??= await ctx.make.caller({ role: 'member' });
    });

    async function walk(projectId: string, query: string, limit: number): Promise<Json[]> {
      const items: Json[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 1000; pages++) {
        const url: string = `/v1/projects/${projectId}/runs?${query}&limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
        const res = await ctx.request('GET', url, { token: caller.token });
        expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
        const page = res.json() as { items: Json[]; nextCursor: string | null };
        items.push(...page.items);
        if (page.nextCursor === null) return items;
        cursor = page.nextCursor;
      }
      throw new Error('the runs list never ended');
    }

    it("a count monitor's current.count over 7 days equals the length of a full walk of the runs list with the same filter and startedAfter = now − 7d", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(runArb, { maxLength: 14 }), filterArb, async (specs, f) => {
          clock.set(NOW);
          const projectId = (await ctx.make.project(caller.organizationId)).id;
          const runs: RunSpec[] = specs.map((s, i) => ({
            id: `r${i}`,
            status: s.status,
            kind: s.kind,
            model: s.model,
            tags: s.tags,
            meta: s.meta,
            start: NOW + s.offset,
            ...(s.parent !== undefined && i > 0 ? { parentRunId: `r${s.parent % i}` } : {}),
          }));
          if (runs.length > 0) {
            await ctx.make.runs(projectId, runs.length, (i) => {
              const r = runs[i]!;
              return {
                id: r.id,
                name: 'ChatOpenAI',
                kind: r.kind,
                status: r.status,
                startTime: iso(r.start),
                ...(r.status === 'running' ? {} : { endTime: iso(r.start + 100) }),
                ...(r.status === 'failed' ? { error: 'boom' } : {}),
                ...(r.model === null ? {} : { model: r.model }),
                tags: r.tags,
                metadata: r.meta === undefined ? {} : { k: r.meta },
                ...(r.parentRunId === undefined ? {} : { parentRunId: r.parentRunId }),
              };
            });
          }

          const parentRunId = f.parent === undefined ? undefined : f.parent === 'null' ? 'null' : `r${f.parent % Math.max(runs.length, 1)}`;
          const traceId = f.trace === undefined ? undefined : `r${f.trace % Math.max(runs.length, 1)}`;
          const traceOf = (i: number): string => {
            const parent = runs[i]!.parentRunId;
            return parent === undefined ? `r${i}` : traceOf(Number(parent.slice(1)));
          };
          const filter: Json = {
            ...(f.status === undefined ? {} : { status: f.status }),
            ...(f.kind === undefined ? {} : { kind: f.kind }),
            ...(f.model === undefined ? {} : { model: f.model }),
            ...(f.tag === undefined ? {} : { tag: f.tag }),
            ...(f.meta === undefined ? {} : { 'metadata.k': f.meta }),
            ...(parentRunId === undefined ? {} : { parentRunId: parentRunId === 'null' ? null : parentRunId }),
            ...(traceId === undefined ? {} : { traceId }),
          };
          const query = queryString({
            status: f.status,
            kind: f.kind,
            model: f.model,
            tag: f.tag,
            'metadata.k': f.meta,
            parentRunId,
            traceId,
            startedAfter: iso(NOW - WEEK),
          });

          const walked = await walk(projectId, query, f.limit);

          // The model: what both must count.
          const expected = runs.filter(
            (r, i) =>
              r.start >= NOW - WEEK &&
              r.start < NOW &&
              (f.status === undefined || r.status === f.status) &&
              (f.kind === undefined || r.kind === f.kind) &&
              (f.model === undefined || r.model === f.model) &&
              (f.tag === undefined || f.tag.every((t) => r.tags.includes(t))) &&
              (f.meta === undefined || metadataMatches(r.meta, f.meta)) &&
              (parentRunId !== 'null' || r.parentRunId === undefined) &&
              (parentRunId === undefined || parentRunId === 'null' || r.parentRunId === parentRunId) &&
              (traceId === undefined || traceOf(i) === traceId),
          );
          expect(walked.map((r) => r.id).sort()).toEqual(expected.map((r) => r.id).sort());

          for (const metric of ['count', 'error_count'] as const) {
            const created = await ctx.request('POST', `/v1/projects/${projectId}/monitors`, {
              token: caller.token,
              body: { name: `${metric} ${JSON.stringify(filter)}`.slice(0, 200), metric, window: '7d', filter },
            });
            expect(created.statusCode, created.body.slice(0, 300)).toBe(201);
            const monitor = created.json() as Json;
            const metrics = await ctx.request('GET', `/v1/projects/${projectId}/monitors/${monitor.id}/metrics`, { token: caller.token });
            expect(metrics.statusCode, metrics.body.slice(0, 300)).toBe(200);
            const current = (metrics.json() as Json).current;
            expect(current.windowStart).toBe(iso(NOW - WEEK));
            expect(current.windowEnd).toBe(iso(NOW));
            expect(current.count, `${metric} ${JSON.stringify(filter)}`).toBe(walked.length);
            expect(current.value, `${metric} ${JSON.stringify(filter)}`).toBe(
              metric === 'count' ? walked.length : walked.filter((r) => r.status === 'failed').length,
            );
            expect(current.state).toBe(walked.length === 0 ? 'no_data' : 'ok');
          }
        }),
        { numRuns: 50 },
      );
    }, 120_000);
  },
  { clock },
);
