import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { describeRuns, HOUR, iso, NOW, parametersOf, projectFor } from '../runs/runs.test-support.js';

interface ListedTrace {
  traceId: string;
  runningCount: number;
  errorCount: number;
  latencyMs: number;
  usage: { totalTokens: number };
  cost: number;
}

/** GET …/traces/metrics: traces counted by their start, with whole-trace totals, equal to what a walk of the traces list gives. */
describeRuns('trace metrics', (ctx) => {
  const FROM = NOW - 6 * HOUR;
  // 9 traces over six hours: a root and two children each (an LLM call with tokens and cost, a tool),
  // every third trace's tool failed, the last trace's root still running; users alternate.
  const seeded = () =>
    Array.from({ length: 9 }, (_, t) => {
      const start = FROM + t * 40 * 60_000 + 1000;
      const running = t === 8;
      const traceId = `trace-${t}`;
      return [
        {
          id: `${traceId}-root`,
          traceId,
          name: 'agent',
          kind: 'agent',
          status: running ? 'running' : 'succeeded',
          startTime: iso(start),
          ...(running ? {} : { endTime: iso(start + 1000 * (t + 1)) }),
          userId: t % 2 === 0 ? 'ada' : 'bob',
          inputs: { question: t === 4 ? 'where is the zebra' : 'refund please' },
        },
        {
          id: `${traceId}-llm`,
          traceId,
          parentRunId: `${traceId}-root`,
          name: 'chat',
          kind: 'llm',
          status: 'succeeded',
          startTime: iso(start + 10),
          endTime: iso(start + 500),
          model: 'gpt-4o',
          usage: { promptTokens: 100 * (t + 1), completionTokens: 10 },
          cost: 0.001 * (t + 1),
        },
        {
          id: `${traceId}-tool`,
          traceId,
          parentRunId: `${traceId}-root`,
          name: 'lookup',
          kind: 'tool',
          status: t % 3 === 0 ? 'failed' : 'succeeded',
          startTime: iso(start + 600),
          endTime: iso(start + 900),
          ...(t % 3 === 0 ? { error: 'timeout' } : {}),
        },
      ];
    }).flat();

  const nearestRank = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted.length === 0 ? null : sorted[Math.ceil((p / 100) * sorted.length) - 1];
  };

  it('counts the traces a walk of the list gives, with their whole runs’ tokens and cost, per bucket and in total', async () => {
    const p = await projectFor(ctx);
    await p.seed(seeded());
    const get = (path: string) => ctx.request('GET', `/v1/projects/${p.id}/traces${path}`, { token: p.caller.token });
    const window = `startedAfter=${iso(FROM)}&startedBefore=${iso(NOW)}`;
    for (const filters of ['', 'status=failed', 'kind=llm', 'userId=ada', 'q=zebra', 'experiment=exclude', 'status=running']) {
      const listed: ListedTrace[] = [];
      for (let cursor = ''; ;) {
        const res = await get(`?limit=100&${window}${filters ? `&${filters}` : ''}${cursor}`);
        expect(res.statusCode, res.body).toBe(200);
        listed.push(...res.json().items);
        if (res.json().nextCursor === null) break;
        cursor = `&cursor=${res.json().nextCursor}`;
      }
      const ended = listed.filter((t) => t.runningCount === 0).map((t) => t.latencyMs);
      const expected = {
        count: listed.length,
        errorCount: listed.filter((t) => t.errorCount > 0).length,
        latencyP50: nearestRank(ended, 50),
        latencyP95: nearestRank(ended, 95),
        totalTokens: listed.reduce((n, t) => n + t.usage.totalTokens, 0),
      };
      const res = await get(`/metrics?from=${iso(FROM)}&to=${iso(NOW)}&bucket=1h${filters ? `&${filters}` : ''}`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body, filters).toMatchObject({ from: iso(FROM), to: iso(NOW), bucket: '1h', groupBy: null, total: expected });
      expect(body.total.cost).toBeCloseTo(
        listed.reduce((n, t) => n + t.cost, 0),
        9,
      );
      // Six hourly buckets, empty ones included, adding up to the total.
      const series = body.groups[0].series as { start: string; count: number; errorCount: number; totalTokens: number }[];
      expect(series.map((b) => b.start)).toEqual(Array.from({ length: 6 }, (_, i) => iso(FROM + i * HOUR)));
      expect(series.reduce((n, b) => n + b.count, 0)).toBe(expected.count);
      expect(series.reduce((n, b) => n + b.errorCount, 0)).toBe(expected.errorCount);
      expect(series.reduce((n, b) => n + b.totalTokens, 0)).toBe(expected.totalTokens);
    }
  });

  it('gives the seeded numbers: 9 traces, 3 with a failed run, 8 ended, tokens of the model calls', async () => {
    const p = await projectFor(ctx);
    await p.seed(seeded());
    const res = await ctx.request('GET', `/v1/projects/${p.id}/traces/metrics?from=${iso(FROM)}&to=${iso(NOW)}`, { token: p.caller.token });
    expect(res.statusCode, res.body).toBe(200);
    const total = res.json().total;
    // Latencies of the ended traces: 1 s … 8 s (each trace's root ends last): nearest-rank p50 of eight is the 4th.
    expect(total).toMatchObject({ count: 9, errorCount: 3, latencyP50: 4000, latencyP95: 8000, totalTokens: 4500 + 90 });
    expect(total.cost).toBeCloseTo(0.045, 9);
    expect(res.json().groups).toHaveLength(1);
    expect(res.json().groups[0].series).toHaveLength(1);
  });

  it('answers an empty window with zeros, and refuses a window it cannot serve or a filter the list refuses', async () => {
    const p = await projectFor(ctx);
    const get = (query: string) => ctx.request('GET', `/v1/projects/${p.id}/traces/metrics${query}`, { token: p.caller.token });
    const empty = await get('');
    expect(empty.statusCode, empty.body).toBe(200);
    expect(empty.json().total).toEqual({ count: 0, errorCount: 0, latencyP50: null, latencyP95: null, totalTokens: 0, cost: 0 });
    expect(parametersOf(expectProblem(await get(`?from=${iso(NOW)}&to=${iso(NOW - HOUR)}`), 400, 'validation'))).toContain('from');
    expect(parametersOf(expectProblem(await get('?parentRunId=null'), 400, 'validation'))).toEqual(['parentRunId']);
    expect(parametersOf(expectProblem(await get('?groupBy=model'), 400, 'validation'))).toEqual(['groupBy']);
    expectProblem(await ctx.request('GET', `/v1/projects/prj_unknown/traces/metrics`, { token: p.caller.token }), 404, 'not-found');
  });
});
