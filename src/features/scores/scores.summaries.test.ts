import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { scoresWorld } from './scores.test-support.js';

/** Code-point order (UTF-8 byte order): what both engines sort names and labels by. */
const byCodePoints = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** What the summaries of these scores are, computed from the scores themselves (the list's records). */
function summarize(scores: Json[]): Json[] {
  const groups = new Map<string, Json[]>();
  for (const score of scores) {
    const key = JSON.stringify([score.name, score.dataType]);
    groups.set(key, [...(groups.get(key) ?? []), score]);
  }
  return [...groups.values()]
    .map((group) => {
      const { name, dataType } = group[0]!;
      if (dataType === 'categorical') {
        const counts = new Map<string, number>();
        for (const s of group) counts.set(s.value, (counts.get(s.value) ?? 0) + 1);
        const [label] = [...counts].sort(([a, m], [b, n]) => n - m || byCodePoints(a, b))[0]!;
        return { name, dataType, value: label, count: group.length };
      }
      const sum = group.reduce((total, s) => total + (s.value === true ? 1 : s.value === false ? 0 : s.value), 0);
      return { name, dataType, value: sum / group.length, count: group.length };
    })
    .sort((a, b) => byCodePoints(a.name, b.name) || byCodePoints(a.dataType, b.dataType))
    .slice(0, 50);
}

/** Summaries compared with floating-point means read as close (the engine adds in its own order). */
function expectSummaries(actual: Json[], expected: Json[], where: string) {
  expect(
    actual.map((s) => ({ ...s, value: typeof s.value === 'number' ? Math.round(s.value * 1e9) / 1e9 : s.value })),
    where,
  ).toEqual(expected.map((s) => ({ ...s, value: typeof s.value === 'number' ? Math.round(s.value * 1e9) / 1e9 : s.value })));
}

describeEachDialect('score summaries on list items', (ctx) => {
  it('equal, on every run, trace and session listed, what a walk of GET …/scores computes for that target (property)', async () => {
    const { member, call, project } = await scoresWorld(ctx);
    const walk = async (path: string): Promise<Json[]> => {
      const items: Json[] = [];
      let cursor: string | null = null;
      do {
        const res = await call(member.token, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.statusCode, res.body).toBe(200);
        items.push(...res.json().items);
        cursor = res.json().nextCursor;
      } while (cursor);
      return items;
    };
    const scoreArb = fc.record({
      target: fc.constantFrom('run', 'trace', 'session'),
      which: fc.nat(2),
      // Names and labels whose byte order is not their UTF-16 order, and a tie or two.
      name: fc.constantFrom('a', 'B', 'b', 'é', '\u{1F600}x', '\uFF5Ey'),
      value: fc.oneof(fc.constantFrom(0, 0.25, 1, -3.5, 1e6), fc.boolean(), fc.constantFrom('x', 'Y', 'é', '\uFF5E', '\u{1F600}')),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(scoreArb, { maxLength: 14 }), async (specs) => {
        await ctx.database.storage.db.deleteFrom('scores').where('project_id', '=', project.id).execute();
        if (specs.length > 0) {
          const res = await call(member.token, 'POST', '/scores/batch', {
            scores: specs.map((s) => ({
              [`${s.target}Id`]: s.target === 'run' ? ['t1', 't1-llm', 't2'][s.which] : s.target === 'trace' ? ['t1', 't2'][s.which % 2] : 'chat-1',
              name: s.name,
              value: s.value,
            })),
          });
          expect(res.json().results.every((r: Json) => r.status === 'created')).toBe(true);
        }
        for (const run of await walk('/runs')) expectSummaries(run.scores, summarize(await walk(`/scores?runId=${run.id}`)), `run ${run.id}`);
        for (const trace of await walk('/traces'))
          expectSummaries(trace.scores, summarize(await walk(`/scores?target=trace&traceId=${trace.traceId}`)), `trace ${trace.traceId}`);
        for (const session of await walk('/sessions'))
          expectSummaries(session.scores, summarize(await walk(`/scores?sessionId=${session.sessionId}`)), `session ${session.sessionId}`);
      }),
      { numRuns: 15 },
    );
  });

  it('gives at most 50, the first by name, and [] to items without scores; the gets and the NDJSON exports carry them too', async () => {
    const { member, call } = await scoresWorld(ctx);
    const names = Array.from({ length: 55 }, (_, i) => `m${String(54 - i).padStart(2, '0')}`);
    const res = await call(member.token, 'POST', '/scores/batch', {
      scores: [
        ...names.map((name, i) => ({ runId: 't2', name, value: i })),
        { runId: 't2', name: 'm00', value: 1 },
        { traceId: 't1', name: 'verdict', value: 'good' },
        { traceId: 't1', name: 'verdict', value: 'bad' },
        { traceId: 't1', name: 'verdict', value: 'bad' },
        { traceId: 't1', name: 'thumbs', value: true },
        { traceId: 't1', name: 'thumbs', value: false },
        { traceId: 't1', name: 'thumbs', value: true },
        { traceId: 't1', name: 'thumbs', value: true },
        { sessionId: 'chat-1', name: 'resolved', value: 'yes' },
        { sessionId: 'chat-1', name: 'resolved', value: 'no' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);

    const runs = (await call(member.token, 'GET', '/runs')).json().items as Json[];
    const t2 = runs.find((r) => r.id === 't2')!;
    expect(t2.scores).toHaveLength(50);
    expect(t2.scores.map((s: Json) => s.name)).toEqual([...names].sort().slice(0, 50));
    // m00: the value 54 and the value 1.
    expect(t2.scores[0]).toEqual({ name: 'm00', dataType: 'numeric', value: 27.5, count: 2 });
    // A trace's scores are not its runs'.
    expect(runs.find((r) => r.id === 't1')!.scores).toEqual([]);
    expect(runs.find((r) => r.id === 't1-llm')!.scores).toEqual([]);

    const run = (await call(member.token, 'GET', '/runs/t2')).json();
    expect(run.scores).toEqual(t2.scores);
    expect((await call(member.token, 'GET', '/runs/t1')).json().scores).toEqual([]);

    const t1Scores = [
      { name: 'thumbs', dataType: 'boolean', value: 0.75, count: 4 },
      { name: 'verdict', dataType: 'categorical', value: 'bad', count: 3 },
    ];
    const traces = (await call(member.token, 'GET', '/traces')).json().items as Json[];
    expect(traces.map((t) => [t.traceId, t.scores])).toEqual([
      ['t2', []],
      ['t1', t1Scores],
    ]);
    expect((await call(member.token, 'GET', '/traces/t1')).json().trace.scores).toEqual(t1Scores);
    // A tie between labels goes to the first in code-point order.
    const sessionScores = [{ name: 'resolved', dataType: 'categorical', value: 'no', count: 2 }];
    expect((await call(member.token, 'GET', '/sessions')).json().items[0].scores).toEqual(sessionScores);
    const session = (await call(member.token, 'GET', '/sessions/chat-1')).json();
    expect(session.session.scores).toEqual(sessionScores);
    expect(session.traces.map((t: Json) => t.scores)).toEqual([t1Scores, []]);

    const ndjson = async (what: string) =>
      (await call(member.token, 'GET', `/${what}/export`)).body
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Json)
        .filter((record) => !('cursor' in record));
    expect((await ndjson('runs')).map((r) => r.scores)).toEqual(runs.map((r) => r.scores));
    expect((await ndjson('traces')).map((t) => t.scores)).toEqual(traces.map((t) => t.scores));
    const csv = (await call(member.token, 'GET', '/traces/export?format=csv')).body;
    expect(csv.split('\r\n')[0]!.endsWith(',scores,rootScores')).toBe(true);
  });
});
