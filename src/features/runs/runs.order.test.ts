import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { describeRuns, HOUR, iso, NOW, parametersOf, projectFor } from './runs.test-support.js';

/**
 * `order=asc` on the runs and traces lists and their exports: oldest first by start time then id, walked
 * page by page over every path a list takes (unfiltered, filtered, a rare and a common search word, few
 * matches sorted), and cursors bound to the order they were given in.
 */
describeRuns('order', (ctx) => {
  // 12 traces of 4 runs; start times collide across traces (ties broken by id), every run says "refund",
  // three say "zebra"; runs 0 and 2 of a trace are LLM calls.
  const seeded = () =>
    Array.from({ length: 12 }, (_, t) =>
      Array.from({ length: 4 }, (_, r) => ({
        id: `run-${String((t * 7) % 12).padStart(2, '0')}-${r}`,
        traceId: `trace-${String((t * 5) % 12).padStart(2, '0')}`,
        name: r === 0 ? 'agent' : 'step',
        kind: r % 2 === 0 ? 'llm' : 'tool',
        status: 'succeeded',
        startTime: iso(NOW - HOUR + Math.floor(t / 2) * 1000 + r * 10),
        endTime: iso(NOW - HOUR + Math.floor(t / 2) * 1000 + r * 10 + 5),
        inputs: { question: `refund ${t * 4 + r < 3 ? 'zebra' : 'order'} ${t}` },
      })),
    ).flat();
  type Seeded = ReturnType<typeof seeded>[number];
  const ascending = (a: { start: string; id: string }, b: { start: string; id: string }) =>
    a.start < b.start ? -1 : a.start > b.start ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  const runsInOrder = (runs: Seeded[]) => runs.map((r) => ({ start: r.startTime, id: r.id })).sort(ascending);

  it('walks the runs list oldest first on every path, and newest first as the reverse of it', async () => {
    const p = await projectFor(ctx);
    const runs = seeded();
    await p.seed(runs);
    const cases: [Record<string, string>, (r: Seeded) => boolean][] = [
      [{}, () => true],
      [{ kind: 'llm' }, (r) => r.kind === 'llm'],
      [{ q: 'refund' }, () => true],
      [{ q: 'zebra' }, (r) => r.inputs.question.includes('zebra')],
      [{ q: 'refund', kind: 'tool' }, (r) => r.kind === 'tool'],
      [{ traceId: 'trace-05' }, (r) => r.traceId === 'trace-05'],
    ];
    for (const [filters, keep] of cases) {
      const expected = runsInOrder(runs.filter(keep)).map((r) => r.id);
      for (const limit of [5, 100]) {
        const asc: string[] = [];
        let cursor: string | undefined;
        do {
          const res = await p.list({ ...filters, order: 'asc', limit, cursor });
          expect(res.statusCode, res.body).toBe(200);
          asc.push(...res.json().items.map((r: { id: string }) => r.id));
          cursor = res.json().nextCursor ?? undefined;
        } while (cursor !== undefined);
        expect(asc, JSON.stringify(filters)).toEqual(expected);
        expect(
          (await p.walk(filters, limit)).map((r) => r.id),
          JSON.stringify(filters),
        ).toEqual([...expected].reverse());
        expect(
          (await p.walk({ ...filters, order: 'desc' }, limit)).map((r) => r.id),
          JSON.stringify(filters),
        ).toEqual([...expected].reverse());
      }
    }
  });

  it('walks the traces list oldest first by the trace’s start, then trace id', async () => {
    const p = await projectFor(ctx);
    const runs = seeded();
    await p.seed(runs);
    const traces = new Map<string, string>();
    for (const run of runs) if (!traces.has(run.traceId) || run.startTime < traces.get(run.traceId)!) traces.set(run.traceId, run.startTime);
    const expected = [...traces].map(([id, start]) => ({ id, start })).sort(ascending);
    const walk = async (query: string) => {
      const ids: string[] = [];
      let cursor = '';
      for (;;) {
        const res = await ctx.request('GET', `/v1/projects/${p.id}/traces?limit=5${query}${cursor}`, { token: p.caller.token });
        expect(res.statusCode, res.body).toBe(200);
        ids.push(...res.json().items.map((t: { traceId: string }) => t.traceId));
        if (res.json().nextCursor === null) return ids;
        cursor = `&cursor=${res.json().nextCursor}`;
      }
    };
    expect(await walk('&order=asc')).toEqual(expected.map((t) => t.id));
    expect(await walk('')).toEqual(expected.map((t) => t.id).reverse());
    // Filtered: the traces holding an LLM call named "agent" (each trace's first run).
    expect(await walk('&order=asc&name=agent&kind=llm')).toEqual(expected.map((t) => t.id));
    expect(await walk('&order=asc&q=zebra')).toEqual(['trace-00']);
  });

  it('exports oldest first when asked, resuming from its cursor lines in that order', async () => {
    const p = await projectFor(ctx);
    const runs = seeded();
    await p.seed(runs);
    const res = await ctx.request('GET', `/v1/projects/${p.id}/runs/export?order=asc`, { token: p.caller.token });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const lines = res.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id?: string; cursor?: string | null });
    expect(lines.filter((l) => 'id' in l).map((l) => l.id)).toEqual(runsInOrder(runs).map((r) => r.id));
    expect(lines.at(-1)).toEqual({ cursor: null });
  });

  it('binds a cursor to its order, and refuses an order it does not know', async () => {
    const p = await projectFor(ctx);
    await p.seed(seeded());
    const newest = (await p.list({ limit: 5 })).json().nextCursor as string;
    const oldest = (await p.list({ limit: 5, order: 'asc' })).json().nextCursor as string;
    expectProblem(await p.list({ order: 'asc', cursor: newest }), 400, 'validation', 'Cursor is malformed.');
    expectProblem(await p.list({ cursor: oldest }), 400, 'validation', 'Cursor is malformed.');
    expectProblem(await p.list({ order: 'desc', cursor: oldest }), 400, 'validation', 'Cursor is malformed.');
    // A newest-first cursor goes on with `order=desc` said or not (it binds nothing more than before lists took `order`).
    expect((await p.list({ order: 'desc', cursor: newest })).statusCode).toBe(200);
    const traceCursor = (await ctx.request('GET', `/v1/projects/${p.id}/traces?limit=2&order=asc`, { token: p.caller.token })).json().nextCursor;
    expectProblem(
      await ctx.request('GET', `/v1/projects/${p.id}/traces?limit=2&cursor=${traceCursor}`, { token: p.caller.token }),
      400,
      'validation',
      'Cursor is malformed.',
    );
    for (const bad of ['up', 'ASC', '']) {
      const problem = expectProblem(await p.list({ order: bad }), 400, 'validation');
      expect(parametersOf(problem)).toEqual(['order']);
    }
  });
});
