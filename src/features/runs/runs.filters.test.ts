import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { describeRuns, minimal, parametersOf, projectFor } from './runs.test-support.js';

/** Name prefixes, metadata inequality and existence, and the sessions and end-users lists filtered like runs. */
describeRuns('filters', (ctx) => {
  const at = (minute: number) => `2026-11-21T10:${String(minute).padStart(2, '0')}:00.000Z`;

  it('matches a name exactly, or ending in * by its start (characters, not bytes; no pattern syntax)', async () => {
    const p = await projectFor(ctx);
    const names = ['ChatOpenAI', 'ChatAnthropic', 'Chat', 'chatlower', 'Agent', 'Ünïcode chat', 'Ü', '50%_off', '50x_off'];
    await p.seed(names.map((name, i) => minimal({ id: `n-${i}`, name, startTime: at(i) })));
    const named = async (name: string) => (await p.walk({ name }, 2)).map((r) => r.name).sort();
    expect(await named('Chat')).toEqual(['Chat']);
    expect(await named('Chat*')).toEqual(['Chat', 'ChatAnthropic', 'ChatOpenAI']);
    expect(await named('ChatO*')).toEqual(['ChatOpenAI']);
    expect(await named('Ü*')).toEqual(['Ü', 'Ünïcode chat']);
    expect(await named('Ünï*')).toEqual(['Ünïcode chat']);
    // % and _ are themselves, not wildcards.
    expect(await named('50%*')).toEqual(['50%_off']);
    expect(await named('*')).toEqual([...names].sort());
    // The metrics count the same runs.
    const metrics = (await p.metrics({ name: 'Chat*', from: at(0), to: at(30) })).json() as Json;
    expect((metrics.total as Json).count).toBe(3);
  });

  it('selects runs without a metadata value (the key absent included) and runs that have a key (null included)', async () => {
    const p = await projectFor(ctx);
    await p.seed([
      minimal({ id: 'm-prod', startTime: at(1), metadata: { env: 'prod', attempt: 1 } }),
      minimal({ id: 'm-dev', startTime: at(2), metadata: { env: 'dev', attempt: 2 } }),
      minimal({ id: 'm-none', startTime: at(3), metadata: {} }),
      minimal({ id: 'm-null', startTime: at(4), metadata: { env: null } }),
      minimal({ id: 'm-num', startTime: at(5), metadata: { env: 1 } }),
    ]);
    const ids = async (query: Record<string, string | string[]>) => (await p.ids(query)).sort();
    expect(await ids({ 'metadata.env!': 'prod' })).toEqual(['m-dev', 'm-none', 'm-null', 'm-num']);
    expect(await ids({ 'metadata.env!': '1' })).toEqual(['m-dev', 'm-none', 'm-null', 'm-prod']);
    expect(await ids({ 'metadata.env!': 'null' })).toEqual(['m-dev', 'm-none', 'm-num', 'm-prod']);
    expect(await ids({ hasMetadata: 'env' })).toEqual(['m-dev', 'm-null', 'm-num', 'm-prod']);
    expect(await ids({ hasMetadata: ['env', 'attempt'] })).toEqual(['m-dev', 'm-prod']);
    expect(await ids({ hasMetadata: 'env', 'metadata.env!': 'dev', 'metadata.attempt': '1' })).toEqual(['m-prod']);
    // Traces match when a run does.
    const traces = await ctx.request('GET', `/v1/projects/${p.id}/traces?hasMetadata=attempt`, { token: p.caller.token });
    expect(
      traces
        .json()
        .items.map((t: Json) => t.traceId)
        .sort(),
    ).toEqual(['m-dev', 'm-prod']);

    expectProblem(await p.list({ hasMetadata: 'bad key' }), 400, 'validation');
    expect(parametersOf((await p.list({ hasMetadata: 'bad key' })).json())).toEqual(['hasMetadata']);
    expectProblem(await p.list({ 'metadata.env!!': 'x' }), 400, 'validation');
  });

  it('filters sessions and end users by their runs (q, name, status, metadata), with cursors bound to the filters', async () => {
    const p = await projectFor(ctx);
    await p.seed([
      minimal({ id: 's1-a', sessionId: 's1', userId: 'u1', startTime: at(1), inputs: { text: 'refund my order' } }),
      minimal({ id: 's1-b', sessionId: 's1', userId: 'u1', startTime: at(2), status: 'failed', endTime: at(3), error: 'timeout' }),
      minimal({ id: 's2-a', sessionId: 's2', userId: 'u2', startTime: at(4), inputs: { text: 'weather in Paris' } }),
      minimal({ id: 's3-a', sessionId: 's3', userId: 'u1', startTime: at(5), inputs: { text: 'another refund' }, name: 'Agent' }),
    ]);
    const list = async (what: 'sessions' | 'users', query: string) => {
      const res = await ctx.request('GET', `/v1/projects/${p.id}/${what}?${query}`, { token: p.caller.token });
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    const sessionIds = async (query: string) => (await list('sessions', query)).items.map((s: Json) => s.sessionId);
    expect(await sessionIds('q=refund')).toEqual(['s3', 's1']);
    expect(await sessionIds('status=failed')).toEqual(['s1']);
    expect(await sessionIds('q=refund&name=Chat*')).toEqual(['s1']);
    expect(await sessionIds('userId=u2')).toEqual(['s2']);
    expect((await list('users', 'q=refund')).items.map((u: Json) => u.userId)).toEqual(['u1']);
    // The totals stay those of the whole session, not of the runs that matched.
    expect((await list('sessions', 'q=refund')).items.find((s: Json) => s.sessionId === 's1').runCount).toBe(2);

    const first = await list('sessions', 'q=refund&limit=1');
    expect(first.items.map((s: Json) => s.sessionId)).toEqual(['s3']);
    expect((await list('sessions', `q=refund&limit=1&cursor=${first.nextCursor}`)).items.map((s: Json) => s.sessionId)).toEqual(['s1']);
    const rebound = await ctx.request('GET', `/v1/projects/${p.id}/sessions?q=weather&cursor=${first.nextCursor}`, { token: p.caller.token });
    expectProblem(rebound, 400, 'validation');
  });
});
