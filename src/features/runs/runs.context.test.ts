import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { describeRuns, HOUR, iso, minimal, NOW, parametersOf, pointersOf, projectFor } from './runs.test-support.js';

/** The fields a run carries about its context: session, end user, provider, token details, inputs and outputs of any JSON type. */
describeRuns('context', (ctx) => {
  const at = (offset: number) => iso(NOW - HOUR + offset);

  it('filters the list and the metrics by sessionId and userId', async () => {
    const p = await projectFor(ctx);
    await p.seed([
      minimal({ id: 's1-a', sessionId: 'chat-1', userId: 'alice', startTime: at(1) }),
      minimal({ id: 's1-b', sessionId: 'chat-1', userId: 'alice', startTime: at(2) }),
      minimal({ id: 's2-a', sessionId: 'chat-2', userId: 'bob', startTime: at(3) }),
      minimal({ id: 'none', startTime: at(4) }),
    ]);
    expect(await p.ids({ sessionId: 'chat-1' })).toEqual(['s1-b', 's1-a']);
    expect(await p.ids({ userId: 'bob' })).toEqual(['s2-a']);
    expect(await p.ids({ userId: 'alice', sessionId: 'chat-2' })).toEqual([]);
    expect((await p.get('s2-a')).json()).toMatchObject({ sessionId: 'chat-2', userId: 'bob' });
    expect((await p.get('none')).json()).toMatchObject({ sessionId: null, userId: null, provider: null });
    const metrics = (await p.metrics({ from: iso(NOW - 2 * HOUR), to: iso(NOW), sessionId: 'chat-1' })).json();
    expect(metrics.total.count).toBe(2);
    // Cursors stay bound to the filter.
    const page = (await p.list({ sessionId: 'chat-1', limit: 1 })).json();
    const wrong = expectProblem(await p.list({ sessionId: 'chat-2', limit: 1, cursor: page.nextCursor }), 400, 'validation');
    expect(parametersOf(wrong)).toEqual(['cursor']);
  });

  it('keeps cache and reasoning token counts, and refuses them out of bounds', async () => {
    const p = await projectFor(ctx);
    const usage = { promptTokens: 100, completionTokens: 40, cacheReadTokens: 80, cacheCreationTokens: 5, reasoningTokens: 30 };
    const res = await p.create(minimal({ usage, provider: 'anthropic' }));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ usage: { ...usage, totalTokens: 140 }, provider: 'anthropic' });
    const plain = (await p.create(minimal({ usage: { promptTokens: 1, completionTokens: 2 } }))).json();
    expect(plain.usage).toEqual({ promptTokens: 1, completionTokens: 2, totalTokens: 3 });
    const bad = expectProblem(await p.create(minimal({ usage: { promptTokens: 1, completionTokens: 1, reasoningTokens: -1, other: 1 } })), 400, 'validation');
    expect(pointersOf(bad)).toEqual(expect.arrayContaining(['/usage/reasoningTokens']));
    for (const field of ['sessionId', 'userId', 'provider']) {
      const tooLong = expectProblem(await p.create(minimal({ [field]: 'x'.repeat(257) })), 400, 'validation');
      expect(pointersOf(tooLong), field).toEqual([`/${field}`]);
      expect(pointersOf(expectProblem(await p.create(minimal({ [field]: '' })), 400, 'validation'))).toEqual([`/${field}`]);
    }
  });

  it('stores inputs and outputs of any JSON type as sent', async () => {
    const p = await projectFor(ctx);
    const values: unknown[] = ['a prompt', 42, true, [{ role: 'user', content: 'hi' }], { nested: { x: [1, 2] } }, null];
    for (const [i, value] of values.entries()) {
      const res = await p.create(minimal({ id: `io-${i}`, inputs: value, outputs: value, status: 'succeeded', endTime: at(3_600_000) }));
      expect(res.statusCode, res.body).toBe(201);
      const got = (await p.get(`io-${i}`)).json();
      expect(got.inputs).toEqual(value);
      expect(got.outputs).toEqual(value);
    }
    expect((await p.create(minimal({ id: 'later' }))).statusCode).toBe(201);
    const patched = await p.patch('later', { status: 'succeeded', outputs: 'the answer' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().outputs).toBe('the answer');
  });
});
