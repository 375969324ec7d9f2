import fc from 'fast-check';
import { expect, it } from 'vitest';
import { manualClock } from '../../lib/clock.js';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
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

    it('equal what a full walk of the scores list computes, for any scores and filters (property)', async () => {
      clock.set(T0);
      const { member, call, project } = await scoresWorld(ctx);
      const scoreArb = fc.record({
        target: fc.constantFrom('runId', 'traceId', 'sessionId'),
        name: fc.constantFrom('a', 'b'),
        value: fc.oneof(fc.constantFrom(0, 0.25, 1, 7), fc.boolean(), fc.constantFrom('x', 'y')),
        source: fc.constantFrom('api', 'annotation', 'evaluator'),
        at: fc.nat(3 * HOUR),
      });
      const filterArb = fc.record({
        name: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
        source: fc.option(fc.constantFrom('api', 'evaluator'), { nil: undefined }),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(scoreArb, { maxLength: 12 }), filterArb, async (specs, filter) => {
          await ctx.database.storage.db.deleteFrom('scores').where('project_id', '=', project.id).execute();
          for (const s of specs) {
            clock.set(T0 + s.at);
            const id = { runId: 't1-llm', traceId: 't2', sessionId: 'chat-1' }[s.target];
            const res = await call(member.token, 'POST', '/scores/batch', { scores: [{ [s.target]: id, name: s.name, value: s.value, source: s.source }] });
            expect(res.json().results[0].status).toBe('created');
          }
          const query = [filter.name ? `name=${filter.name}` : '', filter.source ? `source=${filter.source}` : ''].filter(Boolean).join('&');
          const range = 'from=2026-11-20T10:00:00Z&to=2026-11-20T12:00:00Z';
          const walked: Json[] = [];
          let cursor: string | null = null;
          do {
            const page: { items: Json[]; nextCursor: string | null } = (
              await call(
                member.token,
                'GET',
                `/scores?${query}&createdAfter=2026-11-20T10:00:00Z&createdBefore=2026-11-20T12:00:00Z&limit=5${cursor ? `&cursor=${cursor}` : ''}`,
              )
            ).json();
            walked.push(...page.items);
            cursor = page.nextCursor;
          } while (cursor);
          const { total } = (await call(member.token, 'GET', `/scores/metrics?${query}&${range}`)).json();
          const valued = walked.filter((s) => typeof s.value !== 'string').map((s) => (typeof s.value === 'boolean' ? (s.value ? 1 : 0) : (s.value as number)));
          const labelled = walked.filter((s) => typeof s.value !== 'number').map((s) => String(s.value));
          expect(total.count).toBe(walked.length);
          if (valued.length === 0) expect(total.mean).toBeNull();
          else expect(total.mean).toBeCloseTo(valued.reduce((a, b) => a + b, 0) / valued.length, 9);
          const shares = Object.fromEntries([...new Set(labelled)].sort().map((l) => [l, labelled.filter((x) => x === l).length / labelled.length]));
          expect(total.shares).toEqual(shares);
        }),
        { numRuns: 20 },
      );
    });
  },
  { clock },
);
