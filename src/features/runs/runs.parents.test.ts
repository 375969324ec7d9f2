import { expect, it } from 'vitest';
import { describeRuns, HOUR, iso, minimal, NOW, projectFor } from './runs.test-support.js';

/**
 * Children before parents: exporters send a run when it ends, before its parent ends. A run whose
 * parent has not arrived is stored, and joins its parent's trace once the parent is in.
 */
describeRuns('parents', (ctx) => {
  const at = (offset: number) => iso(NOW - HOUR + offset);

  it('stores a child before its parent (single API), and the parent hands its trace down on arrival', async () => {
    const p = await projectFor(ctx);
    const leaf = await p.create(minimal({ id: 'leaf', parentRunId: 'middle', startTime: at(2000) }));
    expect(leaf.statusCode, leaf.body).toBe(201);
    expect(leaf.json()).toMatchObject({ id: 'leaf', parentRunId: 'middle', traceId: 'middle' });
    const middle = await p.create(minimal({ id: 'middle', parentRunId: 'top', startTime: at(1000) }));
    expect(middle.statusCode, middle.body).toBe(201);
    // Still waiting: the trace-to-be is now the missing top's id, for the middle run and the leaf.
    expect(middle.json().traceId).toBe('top');
    expect((await p.get('leaf')).json().traceId).toBe('top');
    expect(await p.ids({ parentRunId: 'null' })).toEqual([]);

    const top = await p.create(minimal({ id: 'top', traceId: 'trace-top', startTime: at(0) }));
    expect(top.statusCode, top.body).toBe(201);
    for (const id of ['leaf', 'middle', 'top']) expect((await p.get(id)).json().traceId, id).toBe('trace-top');
    expect((await p.ids({ traceId: 'trace-top' })).sort()).toEqual(['leaf', 'middle', 'top']);
    expect(await p.ids({ parentRunId: 'null' })).toEqual(['top']);
    expect(await p.ids({ parentRunId: 'middle' })).toEqual(['leaf']);
    // The list sends the same records as GET.
    const listed = await p.walk({ traceId: 'trace-top' });
    for (const run of listed) expect(run).toEqual((await p.get(run.id as string)).json());
  });

  it('stores children before parents across batches, with explicit traces and without', async () => {
    const p = await projectFor(ctx);
    await p.seed([
      minimal({ id: 'span-c', parentRunId: 'span-b', traceId: 't-1', startTime: at(30) }),
      minimal({ id: 'implicit', parentRunId: 'span-a', startTime: at(40) }),
    ]);
    expect((await p.get('span-c')).json().traceId).toBe('t-1');
    await p.seed([minimal({ id: 'span-b', parentRunId: 'span-a', traceId: 't-1', startTime: at(20) })]);
    await p.seed([minimal({ id: 'span-a', traceId: 't-1', startTime: at(10) })]);
    expect((await p.ids({ traceId: 't-1' })).sort()).toEqual(['implicit', 'span-a', 'span-b', 'span-c']);
    expect(await p.ids({ parentRunId: 'null' })).toEqual(['span-a']);
  });

  it('counts a trace once its root is in: root-only metrics and the roots filter agree', async () => {
    const p = await projectFor(ctx);
    const children = Array.from({ length: 20 }, (_, i) =>
      minimal({ id: `child-${i}`, parentRunId: `root-${i % 4}`, status: 'succeeded', startTime: at(i * 1000), endTime: at(i * 1000 + 10) }),
    );
    await p.seed(children);
    const range = { from: iso(NOW - 2 * HOUR), to: iso(NOW) };
    const before = (await p.metrics({ ...range, parentRunId: 'null' })).json();
    expect(before.total.count).toBe(0);
    await p.seed(Array.from({ length: 4 }, (_, i) => minimal({ id: `root-${i}`, kind: 'chain', startTime: at(i) })));
    const after = (await p.metrics({ ...range, parentRunId: 'null' })).json();
    expect(after.total.count).toBe(4);
    expect((await p.metrics(range)).json().total.count).toBe(24);
    for (let i = 0; i < 4; i++) expect((await p.ids({ traceId: `root-${i}` })).length).toBe(6);
  });

  it('links every child when its parent arrives in a concurrent request', async () => {
    const p = await projectFor(ctx);
    for (let round = 0; round < 5; round++) {
      const children = Array.from({ length: 30 }, (_, i) => minimal({ id: `r${round}-c${i}`, parentRunId: `r${round}-root`, startTime: at(i) }));
      const [a, b] = await Promise.all([p.batch({ runs: children }), p.create(minimal({ id: `r${round}-root`, traceId: `trace-${round}`, startTime: at(0) }))]);
      expect(a.statusCode).toBe(200);
      expect(b.statusCode).toBe(201);
      expect((await p.ids({ traceId: `trace-${round}` })).length, `round ${round}`).toBe(31);
    }
  });

  it('keeps a repeated child existing, and a parent sent twice adds nothing', async () => {
    const p = await projectFor(ctx);
    const child = minimal({ id: 'again-child', parentRunId: 'again-root', traceId: 'again' });
    const root = minimal({ id: 'again-root', traceId: 'again' });
    expect((await p.batch({ runs: [child] })).json().results[0].status).toBe('created');
    expect((await p.batch({ runs: [child, root] })).json().results.map((r: { status: string }) => r.status)).toEqual(['existing', 'created']);
    expect((await p.batch({ runs: [root, child] })).json().results.map((r: { status: string }) => r.status)).toEqual(['existing', 'existing']);
    expect((await p.ids()).sort()).toEqual(['again-child', 'again-root']);
  });
});
