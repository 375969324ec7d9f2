import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { forceScorePlan } from '../query/score-plan.js';
import { scoresWorld } from './scores.test-support.js';

/**
 * The lists filtered by score: a run matches when it, its trace or its session has a score of that name
 * that matches; traces and sessions match when one of their runs does (as for every run filter).
 */
describeEachDialect('lists filtered by score', (ctx) => {
  it('filters runs, traces and sessions by equality, bounds and existence, with cursors bound to the filter', async () => {
    const { member, call } = await scoresWorld(ctx);
    const give = async (path: string, name: string, value: unknown) => {
      const res = await call(member.token, 'POST', path, { name, value });
      expect(res.statusCode, res.body).toBe(201);
    };
    await give('/runs/t1-llm/scores', 'helpfulness', 0.9);
    await give('/runs/t2/scores', 'helpfulness', 0.3);
    await give('/traces/t2/scores', 'thumbs', false);
    await give('/runs/t1/scores', 'tone', 'friendly');
    const ids = async (list: string, query: string, key = 'id') => {
      const res = await call(member.token, 'GET', `/${list}?${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().items.map((item: Json) => item[key]);
    };
    expect(await ids('runs', 'score.helpfulness>=0.5')).toEqual(['t1-llm']);
    expect(await ids('runs', 'score.helpfulness<=0.5')).toEqual(['t2']);
    expect(await ids('runs', 'score.helpfulness=0.3')).toEqual(['t2']);
    expect(await ids('runs', `hasScore=helpfulness`)).toEqual(['t2', 't1-llm']);
    // A trace's score covers its runs; a boolean is its label.
    expect(await ids('runs', 'score.thumbs=false')).toEqual(['t2']);
    expect(await ids('runs', 'score.thumbs=true')).toEqual([]);
    expect(await ids('runs', 'score.tone=friendly')).toEqual(['t1']);
    expect(await ids('runs', 'score.tone=friendly&score.helpfulness>=0.5')).toEqual([]);
    expect(await ids('traces', 'score.helpfulness>=0.5', 'traceId')).toEqual(['t1']);
    expect(await ids('traces', 'hasScore=thumbs', 'traceId')).toEqual(['t2']);
    expect(await ids('sessions', 'score.tone=friendly', 'sessionId')).toEqual(['chat-1']);
    expect(await ids('sessions', 'score.tone=rude', 'sessionId')).toEqual([]);

    // A session's score covers every run of the session.
    await give('/sessions/chat-1/scores', 'resolved', true);
    expect((await ids('runs', 'score.resolved=true')).sort()).toEqual(['t1', 't1-llm', 't2']);

    const bad = expectProblem(await call(member.token, 'GET', '/runs?score.helpfulness>=high'), 400, 'validation');
    expect(bad.errors).toEqual([{ parameter: 'score.helpfulness>', detail: 'A score bound is a number; "high" is not.' }]);
    expectProblem(await call(member.token, 'GET', `/runs?score.${'x'.repeat(101)}=1`), 400, 'validation');
    // Ten score filters at most, of both kinds together; several are all required (one starts the read, the others are probed).
    const ten = [...Array.from({ length: 5 }, (_, i) => `score.n${i}>=0`), ...Array.from({ length: 5 }, (_, i) => `hasScore=h${i}`)].join('&');
    expect(await ids('runs', ten)).toEqual([]);
    expect((await ids('runs', 'score.resolved=true&hasScore=helpfulness&score.helpfulness>=0.5')).sort()).toEqual(['t1-llm']);
    for (const list of ['runs', 'traces', 'sessions']) {
      const many = expectProblem(await call(member.token, 'GET', `/${list}?${ten}&score.n9=1`), 400, 'validation');
      expect(many.errors).toEqual([
        { parameter: 'score', detail: 'At most 10 score filters (score.<name> and hasScore together) in one request; this one has 11.' },
      ]);
    }
    // The cursor of one score filter is refused with another.
    const page = (await call(member.token, 'GET', '/runs?hasScore=helpfulness&limit=1')).json();
    expect(page.nextCursor).toEqual(expect.any(String));
    expectProblem(await call(member.token, 'GET', `/runs?hasScore=tone&limit=1&cursor=${page.nextCursor}`), 400, 'validation');
    expect((await call(member.token, 'GET', `/runs?hasScore=helpfulness&limit=1&cursor=${page.nextCursor}`)).json().items).toHaveLength(1);
  });

  it('gives what a full walk computes, for any scores and any filter (property)', async () => {
    const { member, call, project } = await scoresWorld(ctx);
    const runIds = ['t1', 't1-llm', 't2'];
    const traceOf: Record<string, string> = { t1: 't1', 't1-llm': 't1', t2: 't2' };
    const sessionOf = Object.fromEntries((await call(member.token, 'GET', '/runs?limit=100')).json().items.map((r: Json) => [r.id, r.sessionId])) as Record<
      string,
      string | null
    >;
    expect(Object.keys(sessionOf).sort()).toEqual([...runIds].sort());
    const scoreArb = fc.record({
      target: fc.constantFrom('run', 'trace', 'session'),
      which: fc.nat(2),
      name: fc.constantFrom('a', 'b'),
      value: fc.oneof(fc.constantFrom(0, 0.5, 1), fc.boolean(), fc.constantFrom('x', 'y')),
    });
    const filterArb = fc.record({
      name: fc.constantFrom('a', 'b'),
      op: fc.constantFrom('=', '>=', '<=', 'any'),
      value: fc.constantFrom('0', '0.5', '1', 'true', 'false', 'x'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(scoreArb, { maxLength: 8 }), filterArb, async (specs, filter) => {
        await ctx.database.storage.db.deleteFrom('scores').where('project_id', '=', project.id).execute();
        const stored = specs.map((s) => ({
          ...s,
          targetId: s.target === 'run' ? runIds[s.which]! : s.target === 'trace' ? ['t1', 't2'][s.which % 2]! : 'chat-1',
        }));
        if (stored.length > 0) {
          const res = await call(member.token, 'POST', '/scores/batch', {
            scores: stored.map((s) => ({ [`${s.target}Id`]: s.targetId, name: s.name, value: s.value })),
          });
          expect(res.json().results.every((r: Json) => r.status === 'created')).toBe(true);
        }
        const numeric = filter.op === '>=' || filter.op === '<=';
        if (numeric && !/^[0-9.]+$/.test(filter.value)) return;
        const matches = (v: unknown) => {
          if (filter.op === 'any') return true;
          if (filter.op === '=') return typeof v === 'number' ? v === Number(filter.value) && /^[0-9.]+$/.test(filter.value) : String(v) === filter.value;
          const n = typeof v === 'boolean' ? (v ? 1 : 0) : typeof v === 'number' ? v : null;
          return n !== null && (filter.op === '>=' ? n >= Number(filter.value) : n <= Number(filter.value));
        };
        const expected = runIds.filter((run) =>
          stored.some(
            (s) =>
              s.name === filter.name &&
              matches(s.value) &&
              ((s.target === 'run' && s.targetId === run) || (s.target === 'trace' && s.targetId === traceOf[run]) || s.target === 'session'),
          ),
        );
        const query =
          filter.op === 'any' ? `hasScore=${filter.name}` : `score.${filter.name}${filter.op === '=' ? '' : filter.op[0]}=${encodeURIComponent(filter.value)}`;
        // Whichever way the list finds the runs: from the scores (few), probing each run (many), or as decided.
        for (const plan of [null, 'few', 'many'] as const) {
          forceScorePlan(plan);
          try {
            const res = await call(member.token, 'GET', `/runs?${query}&limit=100`);
            expect(res.statusCode, res.body).toBe(200);
            expect(
              res
                .json()
                .items.map((r: Json) => r.id)
                .sort(),
              `${query} (${plan ?? 'planned'})`,
            ).toEqual([...expected].sort());
            // Two at once, and a page of one with its cursor: the same runs, newest first.
            const both = (await call(member.token, 'GET', `/runs?${query}&hasScore=${filter.name}&limit=100`)).json().items.map((r: Json) => r.id);
            const first = (await call(member.token, 'GET', `/runs?${query}&limit=1`)).json();
            const rest = first.nextCursor ? (await call(member.token, 'GET', `/runs?${query}&limit=100&cursor=${first.nextCursor}`)).json().items : [];
            expect([...first.items, ...rest].map((r: Json) => r.id)).toEqual(both);
            // Traces and sessions: those with a matching run, planned the same way.
            const traces = (await call(member.token, 'GET', `/traces?${query}&limit=100`)).json().items.map((t: Json) => t.traceId);
            expect(traces.sort(), `traces ${query} (${plan ?? 'planned'})`).toEqual([...new Set(expected.map((run) => traceOf[run]))].sort());
            const sessions = (await call(member.token, 'GET', `/sessions?${query}&limit=100`)).json().items.map((t: Json) => t.sessionId);
            expect(sessions.sort(), `sessions ${query} (${plan ?? 'planned'})`).toEqual(
              [...new Set(expected.map((run) => sessionOf[run]).filter((id) => id !== null))].sort(),
            );
          } finally {
            forceScorePlan(null);
          }
        }
      }),
      { numRuns: 25 },
    );
  });
});
