import { expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { expectProblem, PROBLEM_BASE } from '../../../test/helpers/harness.js';
import { describeRuns, GENERATED_RUN_ID, HOUR, iso, minimal, NOW, pointersOf, projectFor } from './runs.test-support.js';

/** POST /v1/projects/{id}/runs/batch: one result per run, parents in any order, idempotent retries, races. */
describeRuns('batch', (ctx) => {
  it('answers one result per run, in order, storing the valid ones and rejecting the bad ones on their own', async () => {
    const p = await projectFor(ctx);
    const res = await p.batch({
      runs: [
        minimal({ id: 'b-0' }),
        minimal({ kind: undefined, name: '' }),
        minimal({ startTime: '2026-11-21T10:00:01.000Z' }),
        minimal({ id: 'b-3', status: 'succeeded' }),
        minimal({ id: 'b-4', parentRunId: 'b-0' }),
        minimal({ id: 'b-5', parentRunId: 'missing' }),
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const { results } = res.json();
    expect(results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(results.map((r: { status: string }) => r.status)).toEqual(['created', 'rejected', 'created', 'rejected', 'created', 'created']);
    expect(results[0]).toEqual({ index: 0, id: 'b-0', status: 'created' });
    expect(results[2].id).toMatch(GENERATED_RUN_ID);
    expect(results[2]).not.toHaveProperty('problem');
    expect(results[1].id).toBeNull();
    expect(results[3].id).toBe('b-3');
    for (const index of [1, 3]) {
      const problem = results[index].problem;
      expect(problem).toMatchObject({ type: `${PROBLEM_BASE}/validation`, title: 'Validation failed', status: 400 });
      expect(typeof problem.detail).toBe('string');
      expect(problem.errors.length).toBeGreaterThan(0);
      for (const pointer of pointersOf(problem)) expect(pointer).toMatch(new RegExp(`^/runs/${index}/`));
    }
    expect(pointersOf(results[1].problem).sort()).toEqual(['/runs/1/kind', '/runs/1/name']);
    expect(pointersOf(results[3].problem)).toEqual(['/runs/3/endTime']);

    expect((await p.get('b-4')).json()).toMatchObject({ parentRunId: 'b-0', traceId: 'b-0' });
    expect((await p.get(results[2].id)).statusCode).toBe(200);
    expectProblem(await p.get('b-3'), 404, 'not-found');
    // A parent that has not arrived yet: stored all the same, in the parent's trace-to-be.
    expect((await p.get('b-5')).json()).toMatchObject({ parentRunId: 'missing', traceId: 'missing' });
    expect((await p.ids()).sort()).toEqual(['b-0', 'b-4', 'b-5', results[2].id].sort());
  });

  it('creates nothing twice when a batch is retried', async () => {
    const p = await projectFor(ctx);
    const runs = Array.from({ length: 30 }, (_, i) =>
      minimal({ id: `retry-${i}`, startTime: iso(NOW - HOUR + i * 1000), tags: ['t', `n${i % 3}`], ...(i > 0 ? { parentRunId: `retry-${i - 1}` } : {}) }),
    );
    const first = await p.batch({ runs });
    expect(first.json().results.every((r: { status: string }) => r.status === 'created')).toBe(true);
    const second = await p.batch({ runs });
    expect(second.statusCode).toBe(200);
    expect(second.json().results).toEqual(runs.map((r, index) => ({ index, id: r.id, status: 'existing' })));
    // A retry that changed one run: the others are existing, the changed one a conflict.
    const changed = runs.map((r, i) => (i === 7 ? { ...r, name: 'Changed' } : r));
    const third = (await p.batch({ runs: changed })).json().results;
    expect(third.filter((r: { status: string }) => r.status === 'existing')).toHaveLength(29);
    expect(third[7]).toMatchObject({ index: 7, id: 'retry-7', status: 'rejected', problem: { type: `${PROBLEM_BASE}/conflict`, status: 409 } });

    const items = await p.walk({}, 7);
    expect(items).toHaveLength(30);
    expect(new Set(items.map((r) => r.id)).size).toBe(30);
    expect(await p.ids({ tag: 't' })).toHaveLength(30);
    expect(await p.ids({ tag: 'n1' })).toHaveLength(10);
    expect(items.every((r) => r.traceId === 'retry-0' && r.name === 'ChatOpenAI')).toBe(true);
  });

  it('accepts parents later in the same batch, and children inherit the trace', async () => {
    const p = await projectFor(ctx);
    const res = await p.batch({
      runs: [
        minimal({ id: 'grandchild', parentRunId: 'child' }),
        minimal({ id: 'child', parentRunId: 'root', kind: 'tool' }),
        minimal({ id: 'root', kind: 'chain', traceId: 'trace-z' }),
        minimal({ id: 'sibling', parentRunId: 'root', traceId: 'trace-z' }),
      ],
    });
    expect(res.json().results.map((r: { status: string }) => r.status)).toEqual(['created', 'created', 'created', 'created']);
    for (const id of ['grandchild', 'child', 'root', 'sibling']) expect((await p.get(id)).json().traceId).toBe('trace-z');
    expect((await p.ids({ traceId: 'trace-z' })).sort()).toEqual(['child', 'grandchild', 'root', 'sibling']);
  });

  it('stores the children of a refused run to wait for it, and refuses cycles and contradicting traces', async () => {
    const p = await projectFor(ctx);
    expect((await p.create(minimal({ id: 'stored-root' }))).statusCode).toBe(201);
    const res = await p.batch({
      runs: [
        minimal({ id: 'c1', parentRunId: 'p1' }), // parent invalid: c1 waits for it
        minimal({ id: 'p1', status: 'succeeded' }),
        minimal({ id: 'g1', parentRunId: 'c1' }),
        minimal({ id: 'p2', parentRunId: 'stored-root', traceId: 'wrong' }), // contradicts its parent's trace
        minimal({ id: 'c2', parentRunId: 'p2' }),
        minimal({ id: 'x', parentRunId: 'y' }),
        minimal({ id: 'y', parentRunId: 'x' }),
        minimal({ id: 'ok', parentRunId: 'stored-root' }),
        minimal({ id: 'below-cycle', parentRunId: 'x' }),
      ],
    });
    expect(res.statusCode).toBe(200);
    const results = res.json().results;
    const statuses = ['created', 'rejected', 'created', 'rejected', 'created', 'rejected', 'rejected', 'created', 'created'];
    expect(results.map((r: { status: string }) => r.status)).toEqual(statuses);
    expect(pointersOf(results[1].problem)).toEqual(['/runs/1/endTime']);
    expect(pointersOf(results[3].problem)).toEqual(['/runs/3/traceId']);
    expect(pointersOf(results[5].problem)).toEqual(['/runs/5/parentRunId']);
    expect(results[5].problem.errors[0].detail).toBe('Parent runs form a cycle.');
    expect(pointersOf(results[6].problem)).toEqual(['/runs/6/parentRunId']);
    expect((await p.ids()).sort()).toEqual(['below-cycle', 'c1', 'c2', 'g1', 'ok', 'stored-root']);
    expect((await p.get('ok')).json().traceId).toBe('stored-root');
    expect((await p.get('g1')).json()).toMatchObject({ parentRunId: 'c1', traceId: 'p1' });

    // The parent, sent again corrected, hands its trace down to the runs that waited for it.
    expect((await p.create(minimal({ id: 'p1', traceId: 'trace-p1' }))).statusCode).toBe(201);
    for (const id of ['c1', 'g1']) expect((await p.get(id)).json().traceId, id).toBe('trace-p1');
    expect((await p.ids({ traceId: 'trace-p1' })).sort()).toEqual(['c1', 'g1', 'p1']);
  });

  it('answers a duplicate id within one batch by its first occurrence', async () => {
    const p = await projectFor(ctx);
    const same = minimal({ id: 'dup', tags: ['a'] });
    const res = await p.batch({ runs: [same, { ...same }, { ...same, name: 'Other' }] });
    const results = res.json().results;
    expect(results.slice(0, 2)).toEqual([
      { index: 0, id: 'dup', status: 'created' },
      { index: 1, id: 'dup', status: 'existing' },
    ]);
    expect(results[2]).toMatchObject({ index: 2, id: 'dup', status: 'rejected', problem: { type: `${PROBLEM_BASE}/conflict`, status: 409 } });
    expect(await p.ids()).toEqual(['dup']);
    expect(await p.ids({ tag: 'a' })).toEqual(['dup']);
  });

  it('never reports a duplicate of a rejected run as existing', async () => {
    const p = await projectFor(ctx);
    const orphan = minimal({ id: 'orphan', parentRunId: 'self-parent', traceId: 'other' });
    const res = await p.batch({ runs: [minimal({ id: 'self-parent', traceId: 'mine' }), orphan, { ...orphan }] });
    expect(res.statusCode).toBe(200);
    const results = res.json().results;
    expect(results.map((r: { status: string }) => r.status)).toEqual(['created', 'rejected', 'rejected']);
    expect(pointersOf(results[1].problem)).toEqual(['/runs/1/traceId']);
    expect(pointersOf(results[2].problem)).toEqual(['/runs/2/traceId']);
    expectProblem(await p.get('orphan'), 404, 'not-found');
  });

  it('refuses 0 and 1001 runs, and bodies that are not {runs: [...]}', async () => {
    const p = await projectFor(ctx);
    expect(pointersOf(expectProblem(await p.batch({ runs: [] }), 400, 'validation'))).toEqual(['/runs']);
    const tooMany = Array.from({ length: 1001 }, (_, i) => minimal({ id: `many-${i}` }));
    expect(pointersOf(expectProblem(await p.batch({ runs: tooMany }), 400, 'validation'))).toEqual(['/runs']);
    const bodies: unknown[] = [[minimal()], { runs: {} }, { runs: minimal() }, { runs: [minimal()], extra: true }, {}, { runs: null }, 'runs'];
    for (const body of bodies) expectProblem(await p.batch(body), 400, 'validation');
    // 1000 is fine.
    const max = await p.batch({ runs: tooMany.slice(0, 1000) });
    expect(max.statusCode).toBe(200);
    expect(max.json().results).toHaveLength(1000);
    expect(await p.walk({}, 100)).toHaveLength(1000);
  });

  it('stores every run once when identical batches race', async () => {
    const p = await projectFor(ctx);
    const runs = Array.from({ length: 60 }, (_, i) =>
      minimal({ id: `race-${i}`, startTime: iso(NOW - i * 1000), tags: ['race'], ...(i % 3 === 1 ? { parentRunId: `race-${i - 1}` } : {}) }),
    );
    for (let round = 0; round < 3; round++) {
      const responses = await Promise.all([p.batch({ runs }), p.batch({ runs }), p.batch({ runs })]);
      for (const res of responses) expect(res.statusCode, res.body).toBe(200);
      for (let i = 0; i < runs.length; i++) {
        const statuses = responses.map((res) => res.json().results[i].status);
        expect(
          statuses.every((s: string) => s === 'created' || s === 'existing'),
          statuses.join(),
        ).toBe(true);
        expect(statuses.filter((s: string) => s === 'created')).toHaveLength(round === 0 ? 1 : 0);
      }
    }
    const items = await p.walk();
    expect(items).toHaveLength(60);
    expect(new Set(items.map((r) => r.id)).size).toBe(60);
    expect(await p.ids({ tag: 'race' })).toHaveLength(60);
  });

  it('stores every run once when overlapping batches race in opposite orders', async () => {
    const p = await projectFor(ctx);
    const runs = Array.from({ length: 80 }, (_, i) => minimal({ id: `cross-${String(i).padStart(3, '0')}`, startTime: iso(NOW - i * 1000), tags: ['x'] }));
    const responses: LightMyRequestResponse[] = await Promise.all([
      p.batch({ runs }),
      p.batch({ runs: [...runs].reverse() }),
      p.batch({ runs: runs.slice(20, 60) }),
    ]);
    for (const res of responses) expect(res.statusCode, res.body).toBe(200);
    const created = new Map<string, number>();
    for (const res of responses) {
      for (const r of res.json().results as { id: string; status: string }[]) {
        expect(['created', 'existing']).toContain(r.status);
        if (r.status === 'created') created.set(r.id, (created.get(r.id) ?? 0) + 1);
      }
    }
    expect(created.size).toBe(80);
    expect([...created.values()].every((n) => n === 1)).toBe(true);
    expect(await p.walk()).toHaveLength(80);
    expect(await p.ids({ tag: 'x' })).toHaveLength(80);
  });
});
