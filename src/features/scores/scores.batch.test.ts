import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { scoresWorld } from './scores.test-support.js';

/** The scores batch: one result per item, each on its own, idempotent with client ids. */
describeEachDialect('scores batch', (ctx) => {
  it('stores the good scores and rejects each bad one with its own problem', async () => {
    const { member, call, config } = await scoresWorld(ctx);
    await config({ name: 'helpfulness', dataType: 'numeric', min: 0, max: 1 });
    const res = await call(member.token, 'POST', '/scores/batch', {
      scores: [
        { runId: 't1', name: 'helpfulness', value: 0.7 },
        { traceId: 't2', name: 'thumbs', value: true },
        { sessionId: 'chat-1', name: 'tone', value: 'friendly' },
        { runId: 'missing', name: 'thumbs', value: true },
        { runId: 't1', name: 'helpfulness', value: 7 },
        { runId: 't1', traceId: 't1', name: 'x', value: 1 },
        { name: 'x', value: 1 },
        { runId: 't1', name: 'x', value: 1, extra: true },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const results = res.json().results as Json[];
    expect(results.map((r) => [r.index, r.status])).toEqual([
      [0, 'created'],
      [1, 'created'],
      [2, 'created'],
      [3, 'rejected'],
      [4, 'rejected'],
      [5, 'rejected'],
      [6, 'rejected'],
      [7, 'rejected'],
    ]);
    expect(results[3]!.problem).toMatchObject({ status: 404, detail: 'Run missing does not exist.' });
    expect(results[4]!.problem).toMatchObject({ status: 400, errors: [{ pointer: '/scores/4/value', detail: expect.stringContaining('up to 1') }] });
    expect(results[5]!.problem).toMatchObject({
      status: 400,
      errors: [{ pointer: '/scores/5', detail: 'A score names exactly one of runId, traceId and sessionId.' }],
    });
    expect(results[6]!.problem).toMatchObject({ status: 400, errors: [{ pointer: '/scores/6' }] });
    expect(results[7]!.problem).toMatchObject({ status: 400, errors: [{ pointer: '/scores/7/extra' }] });
    const listed = (await call(member.token, 'GET', '/scores')).json().items as Json[];
    expect(listed.map((s) => [s.target, s.name]).sort()).toEqual([
      ['run', 'helpfulness'],
      ['session', 'tone'],
      ['trace', 'thumbs'],
    ]);
  });

  it('creates nothing twice: a retried batch answers existing, a changed score 409, the same id twice in one call shares its fate', async () => {
    const { member, call } = await scoresWorld(ctx);
    const scores = Array.from({ length: 30 }, (_, i) => ({ id: `s-${i}`, runId: i % 2 ? 't1' : 't2', name: 'quality', value: i / 30 }));
    const first = await call(member.token, 'POST', '/scores/batch', { scores });
    expect(first.json().results.every((r: Json) => r.status === 'created')).toBe(true);
    const retry = await call(member.token, 'POST', '/scores/batch', { scores: [...scores].reverse() });
    expect(retry.json().results.map((r: Json) => r.status)).toEqual(scores.map(() => 'existing'));
    const mixed = await call(member.token, 'POST', '/scores/batch', {
      scores: [
        { ...scores[0], value: 0.99 },
        { id: 'new', runId: 't1', name: 'quality', value: 1 },
        { id: 'new', runId: 't1', name: 'quality', value: 1 },
        { id: 'new', runId: 't1', name: 'quality', value: 0 },
      ],
    });
    expect(mixed.json().results.map((r: Json) => [r.id, r.status, (r.problem as Json | undefined)?.status ?? null])).toEqual([
      ['s-0', 'rejected', 409],
      ['new', 'created', null],
      ['new', 'existing', null],
      ['new', 'rejected', 409],
    ]);
    expect((await call(member.token, 'GET', '/scores?limit=100')).json().items).toHaveLength(31);
  });

  it('refuses an empty batch, one over 1,000 and a body that is not {scores: [...]}', async () => {
    const { member, call } = await scoresWorld(ctx);
    expectProblem(await call(member.token, 'POST', '/scores/batch', { scores: [] }), 400, 'validation');
    const many = Array.from({ length: 1001 }, () => ({ runId: 't1', name: 'x', value: 1 }));
    expectProblem(await call(member.token, 'POST', '/scores/batch', { scores: many }), 400, 'validation');
    expectProblem(await call(member.token, 'POST', '/scores/batch', [{ runId: 't1', name: 'x', value: 1 }]), 400, 'validation');
  });
});
