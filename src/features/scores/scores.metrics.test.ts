import fc from 'fast-check';
import { expect, it } from 'vitest';
import { manualClock } from '../../lib/clock.js';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { BUCKETS } from '../query/metrics.schemas.js';
import { rollupWindow, scoreMetrics } from './scores.metrics.js';
import { scoresWorld } from './scores.test-support.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const HOUR = 3_600_000;
const clock = manualClock(T0);

/** Score metrics: counts, means and shares per bucket and group, equal to what a walk of the scores list computes. */
describeEachDialect(
  'score metrics',
  (ctx) => {
    it('counts scores, averages numbers and booleans, and shares labels, per hourly bucket and by name', async () => {
      clock.set(T0);
      const { member, call } = await scoresWorld(ctx);
      const give = async (at: number, path: string, name: string, value: unknown) => {
        clock.set(at);
        const res = await call(member.token, 'POST', path, { name, value });
        expect(res.statusCode, res.body).toBe(201);
      };
      await give(T0 + 5 * 60_000, '/runs/t1/scores', 'helpfulness', 0.5);
      await give(T0 + 10 * 60_000, '/runs/t2/scores', 'helpfulness', 1);
      await give(T0 + HOUR + 1, '/traces/t1/scores', 'thumbs', true);
      await give(T0 + HOUR + 2, '/traces/t2/scores', 'thumbs', false);
      await give(T0 + HOUR + 3, '/sessions/chat-1/scores', 'thumbs', false);
      await give(T0 + 2 * HOUR + 4, '/runs/t1/scores', 'tone', 'friendly');
      clock.set(T0 + 3 * HOUR);
      const metrics = async (query: string) => {
        const res = await call(member.token, 'GET', `/scores/metrics?from=2026-11-20T10:00:00Z&to=2026-11-20T13:00:00Z&${query}`);
        expect(res.statusCode, res.body).toBe(200);
        return res.json();
      };
      const byName = await metrics('bucket=1h&groupBy=name');
      expect(byName.total).toEqual({ count: 6, mean: (0.5 + 1 + 1 + 0 + 0) / 5, shares: { false: 2 / 4, friendly: 1 / 4, true: 1 / 4 } });
      const series = (key: string) => byName.groups.find((g: Json) => g.key === key).series;
      expect(series('helpfulness').map((b: Json) => [b.start, b.count, b.mean])).toEqual([
        ['2026-11-20T10:00:00.000Z', 2, 0.75],
        ['2026-11-20T11:00:00.000Z', 0, null],
        ['2026-11-20T12:00:00.000Z', 0, null],
      ]);
      expect(series('thumbs')[1]).toEqual({ start: '2026-11-20T11:00:00.000Z', count: 3, mean: 1 / 3, shares: { false: 2 / 3, true: 1 / 3 } });
      expect(series('tone')[2]).toMatchObject({ count: 1, mean: null, shares: { friendly: 1 } });
      expect(byName.groups.map((g: Json) => g.key)).toEqual(['thumbs', 'helpfulness', 'tone']);
      expect((await metrics('name=thumbs&target=trace')).total).toEqual({ count: 2, mean: 0.5, shares: { false: 0.5, true: 0.5 } });
      expect((await metrics('name=nothing')).groups).toEqual([
        { key: null, series: [{ start: '2026-11-20T10:00:00.000Z', count: 0, mean: null, shares: {} }] },
      ]);
      expectProblem(await call(member.token, 'GET', '/scores/metrics?bucket=2h'), 400, 'validation');
      expectProblem(await call(member.token, 'GET', '/scores/metrics?groupBy=model'), 400, 'validation');
      expectProblem(await call(member.token, 'GET', '/scores/metrics?from=2026-11-21T00:00:00Z&to=2026-11-20T00:00:00Z'), 400, 'validation');
    });

    it('equal what a full walk of the scores list computes, for any scores, changes, deletions, windows and filters, from the rollups and from a scan (property)', async () => {
      clock.set(T0);
      const { member, call, project } = await scoresWorld(ctx);
      const db = ctx.database.storage.db;
      const valueArb = fc.oneof(fc.constantFrom(0, 0.25, 1, 7), fc.boolean(), fc.constantFrom('x', 'y'));
      const scoreArb = fc.record({
        target: fc.constantFrom('runId', 'traceId', 'sessionId'),
        name: fc.constantFrom('a', 'b'),
        value: valueArb,
        source: fc.constantFrom('api', 'annotation', 'evaluator'),
        at: fc.nat(4 * HOUR),
        // What happens to it afterwards: kept, its value changed (to any type), or deleted.
        then: fc.oneof(
          fc.constant<{ kind: 'keep' }>({ kind: 'keep' }),
          fc.constant<{ kind: 'delete' }>({ kind: 'delete' }),
          valueArb.map((value) => ({ kind: 'patch' as const, value })),
        ),
      });
      const queryArb = fc.record({
        name: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
        source: fc.option(fc.constantFrom('api', 'evaluator'), { nil: undefined }),
        target: fc.option(fc.constantFrom('run', 'session'), { nil: undefined }),
        // A filter the rollups do not keep: the scan answers.
        runId: fc.option(fc.constant('t1-llm'), { nil: undefined }),
        // Minutes, so windows start and end on hours and between them.
        from: fc.nat(4 * 60).map((m) => T0 - 30 * 60_000 + m * 60_000),
        length: fc.integer({ min: 1, max: 5 * 60 }).map((m) => m * 60_000),
        bucket: fc.constantFrom(undefined, '1h', '1d', '5m'),
        groupBy: fc.constantFrom(undefined, 'name', 'source', 'target'),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(scoreArb, { maxLength: 12 }), queryArb, async (specs, q) => {
          await db.deleteFrom('scores').where('project_id', '=', project.id).execute();
          await db.deleteFrom('score_rollups').where('project_id', '=', project.id).execute();
          for (const s of specs) {
            clock.set(T0 + s.at);
            const id = { runId: 't1-llm', traceId: 't2', sessionId: 'chat-1' }[s.target];
            const res = await call(member.token, 'POST', '/scores/batch', { scores: [{ [s.target]: id, name: s.name, value: s.value, source: s.source }] });
            expect(res.json().results[0].status).toBe('created');
            const scoreId = res.json().results[0].id;
            clock.set(T0 + 5 * HOUR);
            if (s.then.kind === 'delete') expect((await call(member.token, 'DELETE', `/scores/${scoreId}`)).statusCode).toBe(204);
            if (s.then.kind === 'patch') expect((await call(member.token, 'PATCH', `/scores/${scoreId}`, { value: s.then.value })).statusCode).toBe(200);
          }
          // The rollups hold what the scores add up to, hour by hour.
          const kept = await db
            .selectFrom('score_rollups')
            .select(['hour', 'name', 'source', 'target', 'data_type', 'label', 'count', 'sum'])
            .where('project_id', '=', project.id)
            .execute();
          const recomputed = new Map<string, { count: number; sum: number }>();
          for (const s of await db.selectFrom('scores').selectAll().where('project_id', '=', project.id).execute()) {
            const key = JSON.stringify([Number(s.created_at) - (Number(s.created_at) % HOUR), s.name, s.source, s.target, s.data_type, s.label ?? '']);
            const entry = recomputed.get(key) ?? { count: 0, sum: 0 };
            recomputed.set(key, { count: entry.count + 1, sum: entry.sum + Number(s.value ?? 0) });
          }
          expect(
            new Map(
              kept.map((r) => [
                JSON.stringify([Number(r.hour), r.name, r.source, r.target, r.data_type, r.label]),
                { count: Number(r.count), sum: Number(r.sum) },
              ]),
            ),
          ).toEqual(recomputed);

          const filters = { name: q.name, source: q.source, target: q.target, runId: q.runId };
          const filterQuery = Object.entries(filters)
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => `${k}=${v}`);
          const [from, to] = [new Date(q.from).toISOString(), new Date(q.from + q.length).toISOString()];
          const walked: Json[] = [];
          let cursor: string | null = null;
          do {
            const page: { items: Json[]; nextCursor: string | null } = (
              await call(
                member.token,
                'GET',
                `/scores?${[...filterQuery, `createdAfter=${from}`, `createdBefore=${to}`, 'limit=5'].join('&')}${cursor ? `&cursor=${cursor}` : ''}`,
              )
            ).json();
            walked.push(...page.items);
            cursor = page.nextCursor;
          } while (cursor);
          const window = [
            ...filterQuery,
            `from=${from}`,
            `to=${to}`,
            ...(q.bucket ? [`bucket=${q.bucket}`] : []),
            ...(q.groupBy ? [`groupBy=${q.groupBy}`] : []),
          ];
          const res = await call(member.token, 'GET', `/scores/metrics?${window.join('&')}`);
          expect(res.statusCode, res.body).toBe(200);
          const { total } = res.json();
          const valued = walked.filter((s) => typeof s.value !== 'string').map((s) => (typeof s.value === 'boolean' ? (s.value ? 1 : 0) : (s.value as number)));
          const labelled = walked.filter((s) => typeof s.value !== 'number').map((s) => String(s.value));
          expect(total.count).toBe(walked.length);
          if (valued.length === 0) expect(total.mean).toBeNull();
          else expect(total.mean).toBeCloseTo(valued.reduce((a, b) => a + b, 0) / valued.length, 9);
          const shares = Object.fromEntries([...new Set(labelled)].sort().map((l) => [l, labelled.filter((x) => x === l).length / labelled.length]));
          expect(total.shares).toEqual(shares);

          // Every way of reading gives the same answer, bucket by bucket (these values add up exactly).
          const input = {
            filters,
            from: q.from,
            to: q.from + q.length,
            bucketMs: q.bucket ? BUCKETS[q.bucket as keyof typeof BUCKETS] : null,
            groupBy: (q.groupBy ?? null) as 'name' | 'source' | 'target' | null,
          };
          const scanned = await scoreMetrics(db, project.id, input, 'scan');
          expect(await scoreMetrics(db, project.id, input, 'rollups')).toEqual(scanned);
          const { bucket: _b, groupBy: _g, ...answered } = res.json();
          expect(answered).toEqual(scanned);
        }),
        { numRuns: 40 },
      );
    });

    it('read whole hours from the rollups and scan the shorter side of each partial hour', () => {
      const at = (t: string) => Date.parse(`2026-11-20T${t}:00.000Z`);
      const window = (from: string, to: string, bucketMs: number | null = HOUR, filters = {}) =>
        rollupWindow({ filters, from: at(from), to: at(to), bucketMs, groupBy: null });
      expect(window('10:00', '13:00')).toEqual({ from: at('10:00'), to: at('13:00'), edges: [] });
      // Ten minutes scanned after the start; ten minutes taken away after the end.
      expect(window('09:50', '12:50')).toEqual({
        from: at('10:00'),
        to: at('13:00'),
        edges: [
          { from: at('09:50'), to: at('10:00'), sign: 1 },
          { from: at('12:50'), to: at('13:00'), sign: -1 },
        ],
      });
      expect(window('10:10', '12:10', null)).toEqual({
        from: at('10:00'),
        to: at('12:00'),
        edges: [
          { from: at('10:00'), to: at('10:10'), sign: -1 },
          { from: at('12:00'), to: at('12:10'), sign: 1 },
        ],
      });
      // Within one hour, buckets finer than an hour, or a filter the rollups do not keep: the scan.
      expect(window('10:10', '10:20')).toBeNull();
      expect(window('10:00', '13:00', 300_000)).toBeNull();
      expect(window('10:00', '13:00', HOUR, { queueId: 'q' })).toBeNull();
      expect(window('10:00', '10:50')).toEqual({ from: at('10:00'), to: at('11:00'), edges: [{ from: at('10:50'), to: at('11:00'), sign: -1 }] });
      // A side with no score is the one scanned, however long: a window ending now, scores ingested in its last minutes.
      const empty = (from: string, to: string, sides: { before: boolean; after: boolean }) =>
        rollupWindow({ filters: {}, from: at(from), to: at(to), bucketMs: HOUR, groupBy: null }, sides);
      expect(empty('10:00', '12:10', { before: false, after: true })).toEqual({
        from: at('10:00'),
        to: at('13:00'),
        edges: [{ from: at('12:10'), to: at('13:00'), sign: -1 }],
      });
      expect(empty('09:10', '12:00', { before: true, after: false })).toEqual({
        from: at('09:00'),
        to: at('12:00'),
        edges: [{ from: at('09:00'), to: at('09:10'), sign: -1 }],
      });
    });
  },
  { clock },
);
