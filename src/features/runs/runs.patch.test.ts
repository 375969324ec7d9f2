import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { clock, describeRuns, iso, minimal, NOW, pointersOf, projectFor } from './runs.test-support.js';

/** PATCH /v1/projects/{id}/runs/{runId}: ending and amending a running run; a finished run does not change. */
describeRuns('patch', (ctx) => {
  it('ends a running run, defaulting endTime to now and computing the latency', async () => {
    const p = await projectFor(ctx);
    const created = (await p.create(minimal({ id: 'to-end', kind: 'chain', startTime: iso(NOW - 5000) }))).json();
    clock.advance(250);
    const res = await p.patch('to-end', { status: 'succeeded', outputs: { text: 'done' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ...created, status: 'succeeded', endTime: iso(NOW + 250), latencyMs: 5250, outputs: { text: 'done' } });
    expect((await p.get('to-end')).json()).toEqual(res.json());

    expect((await p.create(minimal({ id: 'to-fail', startTime: '2026-11-21T10:00:00.000Z' }))).statusCode).toBe(201);
    const failed = await p.patch('to-fail', { status: 'failed', endTime: '2026-11-21T12:00:02.5+02:00', error: 'Timeout' });
    expect(failed.statusCode, failed.body).toBe(200);
    expect(failed.json()).toMatchObject({ status: 'failed', endTime: '2026-11-21T10:00:02.500Z', latencyMs: 2500, error: 'Timeout' });
  });

  it('amends outputs, usage, cost, tags and metadata of a running run, replacing them', async () => {
    const p = await projectFor(ctx);
    const created = (await p.create(minimal({ id: 'amend', tags: ['a'], metadata: { keep: 'no', n: 1 } }))).json();
    const res = await p.patch('amend', {
      outputs: { partial: 'Hel' },
      usage: { promptTokens: 3, completionTokens: 4 },
      cost: 0.5,
      tags: ['b', 'c'],
      metadata: { step: 2 },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      ...created,
      outputs: { partial: 'Hel' },
      usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 },
      cost: 0.5,
      costSource: 'client',
      tags: ['b', 'c'],
      metadata: { step: 2 },
    });
    expect(res.json()).toMatchObject({ status: 'running', endTime: null, latencyMs: null });

    const again = await p.patch('amend', { usage: { promptTokens: 3, completionTokens: 4, totalTokens: 10 }, outputs: null, cost: null });
    expect(again.json()).toMatchObject({
      usage: { promptTokens: 3, completionTokens: 4, totalTokens: 10 },
      outputs: null,
      cost: null,
      costSource: null,
      tags: ['b', 'c'],
    });
    const cleared = await p.patch('amend', { usage: null });
    expect(cleared.json().usage).toBeNull();
    expect((await p.get('amend')).json()).toEqual(cleared.json());
  });

  it('replaces tags so that the tag filter follows them', async () => {
    const p = await projectFor(ctx);
    await p.seed([minimal({ id: 'tagged', tags: ['a', 'b'] }), minimal({ id: 'other', tags: ['a'] })]);
    expect(await p.ids({ tag: 'b' })).toEqual(['tagged']);
    const res = await p.patch('tagged', { tags: ['b', 'c'] });
    expect(res.json().tags).toEqual(['b', 'c']);
    expect(await p.ids({ tag: 'a' })).toEqual(['other']);
    expect(await p.ids({ tag: 'c' })).toEqual(['tagged']);
    expect(await p.ids({ tag: ['b', 'c'] })).toEqual(['tagged']);
    await p.patch('tagged', { tags: [] });
    expect(await p.ids({ tag: 'b' })).toEqual([]);
    expect(await p.ids({ tag: 'c' })).toEqual([]);
  });

  it('lets exactly one of several concurrent ends win', async () => {
    const p = await projectFor(ctx);
    expect((await p.create(minimal({ id: 'contested' }))).statusCode).toBe(201);
    const responses = await Promise.all([
      p.patch('contested', { status: 'succeeded', outputs: { by: 1 } }),
      p.patch('contested', { status: 'failed', error: 'by 2' }),
      p.patch('contested', { status: 'succeeded', outputs: { by: 3 } }),
    ]);
    const codes = responses.map((r) => r.statusCode).sort();
    expect(codes).toEqual([200, 409, 409]);
    for (const r of responses) if (r.statusCode === 409) expectProblem(r, 409, 'conflict');
    const winner = responses.find((r) => r.statusCode === 200)!.json();
    expect((await p.get('contested')).json()).toEqual(winner);
  });

  it('answers 409 for any change to a finished run, leaving it as it was', async () => {
    const p = await projectFor(ctx);
    await p.seed([minimal({ id: 'born-done', status: 'succeeded', endTime: '2026-11-21T10:00:01.000Z' })]);
    expect((await p.create(minimal({ id: 'ended' }))).statusCode).toBe(201);
    expect((await p.patch('ended', { status: 'failed', error: 'x' })).statusCode).toBe(200);
    for (const id of ['born-done', 'ended']) {
      const before = (await p.get(id)).json();
      for (const body of [{ outputs: { a: 1 } }, { tags: ['z'] }, { status: 'succeeded' }, { status: 'running' }, { metadata: {} }, { cost: 1 }]) {
        expectProblem(await p.patch(id, body), 409, 'conflict');
      }
      expect((await p.get(id)).json()).toEqual(before);
    }
  });

  it('refuses bad patches with 400, and unknown runs with 404', async () => {
    const p = await projectFor(ctx);
    expect((await p.create(minimal({ id: 'victim' }))).statusCode).toBe(201);
    const before = (await p.get('victim')).json();
    const cases: [unknown, string[]][] = [
      [{ endTime: '2026-11-21T10:00:01.000Z' }, ['/endTime']],
      [{ status: 'running', endTime: '2026-11-21T10:00:01.000Z' }, ['/endTime']],
      [{ status: 'succeeded', error: 'boom' }, ['/error']],
      [{ error: 'boom' }, ['/error']],
      [{ status: 'succeeded', endTime: '2026-11-21T09:59:59.000Z' }, ['/endTime']],
      [{ status: 'done' }, ['/status']],
      [{ name: 'rename' }, ['/name']],
    ];
    for (const [body, pointers] of cases) {
      const problem = expectProblem(await p.patch('victim', body), 400, 'validation');
      expect(pointersOf(problem), JSON.stringify(body)).toEqual(pointers);
    }
    expectProblem(await p.patch('victim', {}), 400, 'validation');
    expect((await p.get('victim')).json()).toEqual(before);
    expectProblem(await p.patch('no-such-run', { status: 'succeeded' }), 404, 'not-found');
    expectProblem(await ctx.request('PATCH', `/v1/projects/prj_nope/runs/victim`, { token: p.caller.token, body: { status: 'succeeded' } }), 404, 'not-found');
  });
});
