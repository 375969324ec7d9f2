import fc from 'fast-check';
import { expect, it } from 'vitest';
import { metadataMatches } from '../../../test/helpers/run-filters.js';
import { describeRuns, HOUR, iso, projectFor, type Query } from './runs.test-support.js';

/** The list and the metrics agree, for any runs and any filter, whatever order parents and children arrive in. */
describeRuns('counting property', (ctx) => {
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
    session: absentOr(fc.constantFrom('s1', 's2'), 1),
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
    session: absentOr(fc.constantFrom('s1', 's2')),
    limit: fc.integer({ min: 1, max: 5 }),
  });
  // How the runs arrive: parents first, children first (one call), or children in an earlier call than their parents.
  const orderArb = fc.constantFrom('parents-first', 'children-first', 'children-earlier-call');

  it('metrics total.count equals the length of a full walk of the list with the same filter', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(runArb, { maxLength: 14 }), filterArb, orderArb, async (specs, f, order) => {
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
            ...(s.session === undefined ? {} : { sessionId: s.session }),
          };
        });
        if (order === 'parents-first' && runs.length > 0) await p.seed(runs);
        if (order === 'children-first' && runs.length > 0) await p.seed([...runs].reverse());
        if (order === 'children-earlier-call') {
          const half = Math.ceil(runs.length / 2);
          for (const part of [runs.slice(half).reverse(), runs.slice(0, half).reverse()]) if (part.length > 0) await p.seed(part);
        }
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
          sessionId: f.session,
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
            if (f.session !== undefined && r.sessionId !== f.session) return false;
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
        const bucketSum = bucketed.groups.flatMap((g: { series: { count: number }[] }) => g.series).reduce((n: number, s: { count: number }) => n + s.count, 0);
        expect(bucketSum).toBe(walked.length);
        expect(bucketed.total.count).toBe(walked.length);
      }),
      { numRuns: 20 },
    );
  });
});
