import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { planList, setFewContextRuns } from '../query/score-plan.js';
import { describeRuns, HOUR, iso, NOW, projectFor } from '../runs/runs.test-support.js';

/** GET …/traces and …/traces/{traceId}: one item per trace with its totals and previews, and its run tree. */
describeRuns('traces', (ctx) => {
  const at = (offset: number) => iso(NOW - HOUR + offset);
  const list = (p: { id: string; caller: { token: string } }, query = '') =>
    ctx.request('GET', `/v1/projects/${p.id}/traces${query}`, { token: p.caller.token });
  const get = (p: { id: string; caller: { token: string } }, traceId: string) =>
    ctx.request('GET', `/v1/projects/${p.id}/traces/${encodeURIComponent(traceId)}`, { token: p.caller.token });

  const conversation = () => [
    {
      id: 'turn-1',
      name: 'support-agent',
      kind: 'agent',
      status: 'succeeded',
      startTime: at(0),
      endTime: at(3000),
      inputs: { messages: [{ role: 'user', parts: [{ type: 'text', content: 'Where is my order?' }] }] },
      outputs: 'It ships tomorrow.',
      sessionId: 'chat-1',
      userId: 'ada',
      tags: ['prod'],
    },
    {
      id: 'turn-1-llm',
      parentRunId: 'turn-1',
      name: 'chat gpt-4o',
      kind: 'llm',
      status: 'succeeded',
      startTime: at(100),
      endTime: at(1100),
      model: 'gpt-4o',
      usage: { promptTokens: 100, completionTokens: 20, cacheReadTokens: 60 },
      cost: 0.002,
    },
    {
      id: 'turn-1-tool',
      parentRunId: 'turn-1-llm',
      name: 'lookup',
      kind: 'tool',
      status: 'failed',
      startTime: at(200),
      endTime: at(300),
      error: 'timeout',
    },
    { id: 'turn-2', name: 'support-agent', kind: 'agent', startTime: at(10_000), sessionId: 'chat-1', inputs: { question: 'And the invoice?' } },
  ];

  it('starts a list filtered by a user or a session with few runs from their runs, and walks it for one with many: the same traces either way', async () => {
    const p = await projectFor(ctx);
    await p.seed(conversation());
    const db = ctx.database.storage.db;
    const ids = async (query: string) => {
      const res = await list(p, query);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().items.map((t: { traceId: string }) => t.traceId);
    };
    expect((await planList(db, p.id, { userId: 'ada' })).few).toBe(true);
    expect((await planList(db, p.id, { sessionId: 'chat-1' })).few).toBe(true);
    expect((await planList(db, p.id, { userId: 'nobody' })).few).toBe(true);
    expect(await ids('?userId=ada')).toEqual(['turn-1']);
    expect(await ids('?sessionId=chat-1')).toEqual(['turn-2', 'turn-1']);
    expect(await ids('?userId=nobody')).toEqual([]);
    setFewContextRuns(0);
    try {
      expect((await planList(db, p.id, { userId: 'ada' })).few).toBe(false);
      expect((await planList(db, p.id, { sessionId: 'chat-1' })).few).toBe(false);
      expect(await ids('?userId=ada')).toEqual(['turn-1']);
      expect(await ids('?sessionId=chat-1')).toEqual(['turn-2', 'turn-1']);
      expect(await ids('?sessionId=chat-1&limit=1')).toEqual(['turn-2']);
    } finally {
      setFewContextRuns(null);
    }
    const first = (await list(p, '?sessionId=chat-1&limit=1')).json();
    expect(first.items.map((t: { traceId: string }) => t.traceId)).toEqual(['turn-2']);
    expect(await ids(`?sessionId=chat-1&limit=1&cursor=${first.nextCursor}`)).toEqual(['turn-1']);
  });

  it('lists one item per trace, newest first, with totals over its runs and previews of its root', async () => {
    const p = await projectFor(ctx);
    await p.seed(conversation().reverse());
    const res = await list(p);
    expect(res.statusCode, res.body).toBe(200);
    const { items, nextCursor } = res.json();
    expect(nextCursor).toBeNull();
    expect(items.map((t: { traceId: string }) => t.traceId)).toEqual(['turn-2', 'turn-1']);
    expect(items[1]).toEqual({
      traceId: 'turn-1',
      projectId: p.id,
      rootRunId: 'turn-1',
      name: 'support-agent',
      status: 'failed',
      startTime: at(0),
      endTime: at(3000),
      latencyMs: 3000,
      runCount: 3,
      errorCount: 1,
      runningCount: 0,
      usage: { promptTokens: 100, completionTokens: 20, totalTokens: 120, cacheReadTokens: 60, cacheCreationTokens: 0, reasoningTokens: 0, estimatedTokens: 0 },
      cost: 0.002,
      computedCost: 0,
      estimatedCost: 0,
      sessionId: 'chat-1',
      userId: 'ada',
      tags: ['prod'],
      input: 'Where is my order?',
      output: 'It ships tomorrow.',
      scores: [],
      rootScores: [],
    });
    expect(items[0]).toMatchObject({ status: 'running', runCount: 1, input: 'And the invoice?', output: null, latencyMs: 0 });
  });

  it("carries the trace's own scores and its root run's (not its other runs'), on the list, a trace and the export", async () => {
    const p = await projectFor(ctx);
    await p.seed(conversation());
    const score = (path: string, body: Record<string, unknown>) => ctx.request('POST', `/v1/projects/${p.id}${path}`, { token: p.caller.token, body });
    for (const [path, body] of [
      ['/traces/turn-1/scores', { name: 'thumbs', value: true }],
      ['/runs/turn-1/scores', { name: 'correctness', value: 0.5 }],
      ['/runs/turn-1/scores', { name: 'correctness', value: 1 }],
      ['/runs/turn-1/scores', { name: 'tone', value: 'friendly' }],
      ['/runs/turn-1-llm/scores', { name: 'child-only', value: 1 }],
    ] as const) {
      const res = await score(path, body);
      expect(res.statusCode, res.body).toBe(201);
    }
    const res = await list(p);
    expect(res.statusCode, res.body).toBe(200);
    const scored = (res.json().items as Record<string, unknown>[]).map((t) => [t.traceId, t.scores, t.rootScores]);
    expect(scored).toEqual([
      ['turn-2', [], []],
      [
        'turn-1',
        [{ name: 'thumbs', dataType: 'boolean', value: 1, count: 1 }],
        [
          { name: 'correctness', dataType: 'numeric', value: 0.75, count: 2 },
          { name: 'tone', dataType: 'categorical', value: 'friendly', count: 1 },
        ],
      ],
    ]);
    // Filtered (the list's other path to its rows), the trace itself, and its export say the same.
    expect((await list(p, '?model=gpt-4o')).json().items[0].rootScores).toEqual(scored[1]![2]);
    expect((await get(p, 'turn-1')).json().trace.rootScores).toEqual(scored[1]![2]);
    const exported = await ctx.request('GET', `/v1/projects/${p.id}/traces/export`, { token: p.caller.token });
    expect(exported.statusCode).toBe(200);
    const lines = exported.body
      .trimEnd()
      .split('\n')
      .map((line: string) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((l) => l.traceId === 'turn-1').map((l) => [l.scores, l.rootScores])).toEqual([[scored[1]![1], scored[1]![2]]]);
    const csv = await ctx.request('GET', `/v1/projects/${p.id}/traces/export?format=csv`, { token: p.caller.token });
    expect(csv.body.split('\r\n')[0]).toMatch(/,scores,rootScores$/);
    // A trace whose root has not arrived has none.
    await p.seed([{ id: 'orphan', traceId: 'orphaned', parentRunId: 'missing-root', name: 'step', kind: 'tool', startTime: at(20_000) }]);
    expect((await list(p)).json().items[0]).toMatchObject({ traceId: 'orphaned', rootRunId: null, scores: [], rootScores: [] });
  });

  it('filters: a trace matches when one of its runs matches every run filter; the time range bounds its start', async () => {
    const p = await projectFor(ctx);
    await p.seed(conversation());
    const ids = async (query: string) => ((await list(p, query)).json().items as { traceId: string }[]).map((t) => t.traceId);
    expect(await ids('?status=failed')).toEqual(['turn-1']);
    expect(await ids('?kind=tool&status=failed')).toEqual(['turn-1']);
    expect(await ids('?kind=agent&status=failed')).toEqual([]);
    expect(await ids('?model=gpt-4o')).toEqual(['turn-1']);
    expect(await ids('?sessionId=chat-1')).toEqual(['turn-2', 'turn-1']);
    expect(await ids(`?startedAfter=${encodeURIComponent(at(5000))}`)).toEqual(['turn-2']);
    expect(await ids(`?startedBefore=${encodeURIComponent(at(5000))}`)).toEqual(['turn-1']);
    // Cursors stay bound to their filter.
    const page = (await list(p, '?sessionId=chat-1&limit=1')).json();
    expect(page.items).toHaveLength(1);
    expectProblem(await list(p, `?sessionId=chat-2&limit=1&cursor=${page.nextCursor}`), 400, 'validation');
    expect((await list(p, `?sessionId=chat-1&limit=1&cursor=${page.nextCursor}`)).json().items[0].traceId).toBe('turn-1');
  });

  it('serves the first runs of the outline in tree order with runLimit, saying there are more', async () => {
    const p = await projectFor(ctx);
    await p.seed(conversation());
    const first = (await ctx.request('GET', `/v1/projects/${p.id}/traces/turn-1?runLimit=2`, { token: p.caller.token })).json();
    expect(first.truncated).toBe(true);
    expect(first.trace).toMatchObject({ traceId: 'turn-1', runCount: 3 });
    expect(first.runs.map((r: { id: string; depth: number }) => [r.id, r.depth])).toEqual([
      ['turn-1', 0],
      ['turn-1-llm', 1],
    ]);
    const whole = (await ctx.request('GET', `/v1/projects/${p.id}/traces/turn-1?runLimit=3`, { token: p.caller.token })).json();
    expect(whole.truncated).toBe(false);
    expect(whole).toEqual((await get(p, 'turn-1')).json());
    expectProblem(await ctx.request('GET', `/v1/projects/${p.id}/traces/turn-1?runLimit=0`, { token: p.caller.token }), 400, 'validation');
  });

  it('serves a trace with its runs in tree order, and a trace whose root has not arrived', async () => {
    const p = await projectFor(ctx);
    await p.seed(conversation());
    const res = await get(p, 'turn-1');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.truncated).toBe(false);
    expect(body.trace).toMatchObject({ traceId: 'turn-1', runCount: 3 });
    expect(body.runs.map((r: { id: string; depth: number }) => [r.id, r.depth])).toEqual([
      ['turn-1', 0],
      ['turn-1-llm', 1],
      ['turn-1-tool', 2],
    ]);
    expect(body.runs[2]).toEqual({
      id: 'turn-1-tool',
      parentRunId: 'turn-1-llm',
      depth: 2,
      name: 'lookup',
      kind: 'tool',
      status: 'failed',
      startTime: at(200),
      endTime: at(300),
      latencyMs: 100,
      model: null,
      totalTokens: null,
      cost: null,
    });
    // Numbers come back as they were sent, whatever way the engine hands the outline over.
    expect(body.runs[1]).toMatchObject({ id: 'turn-1-llm', model: 'gpt-4o', totalTokens: 120, cost: 0.002, latencyMs: 1000, endTime: at(1100) });
    await p.seed([
      {
        id: 'exact',
        traceId: 'exact',
        name: 'n',
        kind: 'llm',
        status: 'succeeded',
        startTime: at(0),
        endTime: at(1),
        cost: 0.1 + 0.2,
        usage: { promptTokens: 999_999_999_999, completionTokens: 1 },
      },
    ]);
    expect((await get(p, 'exact')).json().runs).toMatchObject([{ cost: 0.30000000000000004, totalTokens: 1_000_000_000_000, latencyMs: 1 }]);
    await p.seed([{ id: 'early-child', traceId: 'late-trace', parentRunId: 'late-root', name: 'step', kind: 'tool', startTime: at(50) }]);
    const waiting = (await get(p, 'late-trace')).json();
    expect(waiting.trace).toMatchObject({ rootRunId: null, name: 'step', runCount: 1 });
    expect(waiting.runs).toMatchObject([{ id: 'early-child', depth: 0, parentRunId: 'late-root' }]);
    await p.seed([{ id: 'late-root', traceId: 'late-trace', name: 'root', kind: 'chain', startTime: at(0) }]);
    const joined = (await get(p, 'late-trace')).json();
    expect(joined.trace).toMatchObject({ rootRunId: 'late-root', name: 'root', runCount: 2, startTime: at(0) });
    expect(joined.runs.map((r: { id: string }) => r.id)).toEqual(['late-root', 'early-child']);
  });

  it('answers 404 for a trace of no run, or of another organization, and lets a viewer read', async () => {
    const p = await projectFor(ctx);
    await p.seed(conversation());
    expectProblem(await get(p, 'no-such-trace'), 404, 'not-found');
    const stranger = await ctx.make.caller({ role: 'owner' });
    expectProblem(await ctx.request('GET', `/v1/projects/${p.id}/traces/turn-1`, { token: stranger.token }), 404, 'not-found');
    expectProblem(await ctx.request('GET', `/v1/projects/${p.id}/traces`, { token: stranger.token }), 404, 'not-found');
    const viewer = await ctx.make.caller({ role: 'viewer', organizationId: p.caller.organizationId });
    expect((await ctx.request('GET', `/v1/projects/${p.id}/traces/turn-1`, { token: viewer.token })).statusCode).toBe(200);
    expect(expectProblem(await get(p, 'bad/id'), 400, 'validation').errors).toMatchObject([{ parameter: 'trace_id' }]);
  });

  it('serves a trace of 25,000 runs, every run once, parents before children', async () => {
    const p = await projectFor(ctx);
    const total = 25_000;
    for (let b = 0; b < total / 1000; b++) {
      const runs = Array.from({ length: 1000 }, (_, k) => {
        const i = b * 1000 + k;
        return {
          id: `big-${i}`,
          traceId: 'big',
          name: `step ${i}`,
          kind: 'chain',
          startTime: at(i),
          ...(i > 0 ? { parentRunId: `big-${Math.floor((i - 1) / 10)}` } : {}),
        };
      });
      await p.seed(runs.reverse());
    }
    const started = Date.now();
    const res = await get(p, 'big');
    const ms = Date.now() - started;
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.trace.runCount).toBe(total);
    expect(body.runs).toHaveLength(total);
    const position = new Map<string, number>(body.runs.map((r: { id: string }, i: number) => [r.id, i]));
    expect(position.size).toBe(total);
    for (const r of body.runs as { id: string; parentRunId: string | null }[])
      if (r.parentRunId) expect(position.get(r.parentRunId)!).toBeLessThan(position.get(r.id)!);
    console.log(`[${ctx.dialect}] a ${total}-run trace served in ${ms} ms`);
  }, 120_000);
});
