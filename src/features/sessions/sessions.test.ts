import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { describeRuns, HOUR, iso, NOW, projectFor } from '../runs/runs.test-support.js';

/** GET …/sessions, …/sessions/{id}, …/users and …/users/{id}: conversations and end users with their totals and traces. */
describeRuns('sessions and end users', (ctx) => {
  const at = (offset: number) => iso(NOW - HOUR + offset);
  const get = (p: { caller: { token: string }; id: string }, path: string) => ctx.request('GET', `/v1/projects/${p.id}${path}`, { token: p.caller.token });

  const seed = async () => {
    const p = await projectFor(ctx);
    await p.seed([
      { id: 'a1', name: 'turn', kind: 'agent', status: 'succeeded', startTime: at(0), endTime: at(1000), sessionId: 'chat-a', userId: 'ada', inputs: 'Hi' },
      {
        id: 'a1-llm',
        parentRunId: 'a1',
        name: 'llm',
        kind: 'llm',
        status: 'succeeded',
        startTime: at(10),
        endTime: at(900),
        usage: { promptTokens: 10, completionTokens: 5, reasoningTokens: 2 },
        cost: 0.01,
        sessionId: 'chat-a',
        userId: 'ada',
      },
      {
        id: 'a2',
        name: 'turn',
        kind: 'agent',
        status: 'failed',
        startTime: at(5000),
        endTime: at(5500),
        error: 'boom',
        sessionId: 'chat-a',
        userId: 'ada',
        inputs: 'And then?',
      },
      { id: 'b1', name: 'turn', kind: 'agent', startTime: at(2000), sessionId: 'chat-b', userId: 'bob' },
      {
        id: 'b2',
        name: 'turn',
        kind: 'llm',
        status: 'succeeded',
        startTime: at(3000),
        endTime: at(9000),
        sessionId: 'chat-c',
        userId: 'ada',
        // No cost of its own: computed from the built-in price ($0.15 / $0.60 per million tokens).
        model: 'gpt-4o-mini',
        usage: { promptTokens: 1_000_000, completionTokens: 500_000 },
      },
    ]);
    return p;
  };

  it('lists sessions, newest activity first, with totals, trace counts and their user', async () => {
    const p = await seed();
    const res = await get(p, '/sessions');
    expect(res.statusCode, res.body).toBe(200);
    const { items } = res.json();
    expect(items.map((s: { sessionId: string }) => s.sessionId)).toEqual(['chat-c', 'chat-a', 'chat-b']);
    expect(items[1]).toEqual({
      sessionId: 'chat-a',
      projectId: p.id,
      startTime: at(0),
      endTime: at(5500),
      runCount: 3,
      errorCount: 1,
      runningCount: 0,
      usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15, cacheReadTokens: 0, cacheCreationTokens: 0, reasoningTokens: 2, estimatedTokens: 0 },
      cost: 0.01,
      computedCost: 0,
      estimatedCost: 0,
      traceCount: 2,
      userId: 'ada',
      scores: [],
    });
    expect(items[2]).toMatchObject({ sessionId: 'chat-b', runningCount: 1, endTime: at(2000) });
    // Where a cost came from: chat-c's was computed from prices, chat-a's sent by the client.
    expect(items[0]).toMatchObject({ sessionId: 'chat-c', cost: 0.45, computedCost: 0.45 });
    const users = (await get(p, '/users')).json().items;
    expect(users.find((u: { userId: string }) => u.userId === 'ada')).toMatchObject({ cost: 0.46, computedCost: 0.45 });
  });

  it('serves a session as its traces in order, the conversation as it happened', async () => {
    const p = await seed();
    const res = await get(p, '/sessions/chat-a');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.session).toMatchObject({ sessionId: 'chat-a', traceCount: 2 });
    expect(body.truncated).toBe(false);
    expect(body.traces.map((t: { traceId: string; input: string }) => [t.traceId, t.input])).toEqual([
      ['a1', 'Hi'],
      ['a2', 'And then?'],
    ]);
    expectProblem(await get(p, '/sessions/nope'), 404, 'not-found');
  });

  it('lists end users and serves one with their traces and how many sessions they had', async () => {
    const p = await seed();
    const users = (await get(p, '/users')).json().items;
    expect(users.map((u: { userId: string }) => u.userId)).toEqual(['ada', 'bob']);
    expect(users[0]).toMatchObject({ userId: 'ada', runCount: 4, traceCount: 3, sessionCount: 2, errorCount: 1, endTime: at(9000) });
    const ada = (await get(p, '/users/ada')).json();
    expect(ada.user).toMatchObject({ userId: 'ada', sessionCount: 2 });
    expect(ada.traces.map((t: { traceId: string }) => t.traceId)).toEqual(['a1', 'b2', 'a2']);
    expectProblem(await get(p, '/users/nobody'), 404, 'not-found');
  });

  it('keeps other organizations out, and pages with cursors bound to the list', async () => {
    const p = await seed();
    const stranger = await ctx.make.caller({ role: 'owner' });
    for (const path of ['/sessions', '/sessions/chat-a', '/users', '/users/ada']) {
      expectProblem(await ctx.request('GET', `/v1/projects/${p.id}${path}`, { token: stranger.token }), 404, 'not-found');
    }
    const first = (await get(p, '/sessions?limit=2')).json();
    expect(first.items).toHaveLength(2);
    const second = (await get(p, `/sessions?limit=2&cursor=${first.nextCursor}`)).json();
    expect(second.items.map((s: { sessionId: string }) => s.sessionId)).toEqual(['chat-b']);
    expectProblem(await get(p, `/users?limit=2&cursor=${first.nextCursor}`), 400, 'validation');
  });

  it('count every run of their traces, whichever run names them and in whatever order the runs arrive (a root naming them after its children, or before)', async () => {
    const usage = { promptTokens: 100, completionTokens: 15 };
    const children = (trace: string) => [
      { id: `${trace}-llm`, parentRunId: trace, name: 'llm', kind: 'llm', status: 'succeeded', startTime: at(10), endTime: at(500), usage, cost: 0.0000286 },
      { id: `${trace}-tool`, parentRunId: trace, name: 'tool', kind: 'tool', status: 'failed', startTime: at(600), endTime: at(700), error: 'x' },
    ];
    const root = (trace: string, end: number) => ({
      id: trace,
      name: 'turn',
      kind: 'agent',
      status: 'succeeded',
      startTime: at(0),
      endTime: at(end),
      sessionId: 'conv',
      userId: 'eve',
    });
    const p = await projectFor(ctx);
    // The root last, as exporters send a span when it ends; then a second trace, its root first.
    await p.seed(children('t1'));
    await p.seed([root('t1', 800)]);
    await p.seed([root('t2', 2000)]);
    await p.seed(children('t2'));
    const session = await get(p, '/sessions/conv');
    expect(session.statusCode, session.body).toBe(200);
    const totals = {
      startTime: at(0),
      endTime: at(2000),
      runCount: 6,
      errorCount: 2,
      runningCount: 0,
      usage: { promptTokens: 200, completionTokens: 30, totalTokens: 230, cacheReadTokens: 0, cacheCreationTokens: 0, reasoningTokens: 0, estimatedTokens: 0 },
      cost: 0.0000572,
      traceCount: 2,
    };
    expect(session.json().session).toMatchObject({ sessionId: 'conv', userId: 'eve', ...totals });
    // The session's totals are its traces' sums.
    const traces = session.json().traces as { runCount: number; usage: { totalTokens: number } }[];
    expect(traces.map((t) => [t.runCount, t.usage.totalTokens])).toEqual([
      [3, 115],
      [3, 115],
    ]);
    const user = await get(p, '/users/eve');
    expect(user.statusCode, user.body).toBe(200);
    expect(user.json().user).toMatchObject({ userId: 'eve', sessionCount: 1, ...totals });
    const listed = await get(p, '/sessions');
    expect(listed.json().items).toEqual([expect.objectContaining({ sessionId: 'conv', ...totals })]);
    // Filters match any run of their traces, not only the runs that name them (here the roots alone).
    for (const [path, key, found] of [
      ['/sessions?kind=tool', 'sessionId', ['conv']],
      ['/sessions?status=failed&kind=tool', 'sessionId', ['conv']],
      ['/users?kind=llm', 'userId', ['eve']],
      ['/sessions?kind=retriever', 'sessionId', []],
    ] as const) {
      const res = await get(p, path);
      expect(res.statusCode, res.body).toBe(200);
      expect(
        (res.json().items as Record<string, unknown>[]).map((item) => item[key]),
        path,
      ).toEqual(found);
    }
  });
});
