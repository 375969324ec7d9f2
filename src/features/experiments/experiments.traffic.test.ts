import { afterEach, expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { setFewExperimentTraces } from '../query/experiment.js';
import { describeRuns, HOUR, iso, NOW, projectFor, type Query } from '../runs/runs.test-support.js';

/**
 * Experiment traffic: the traces an experiment records results for are marked in the same transaction,
 * and the runs, traces, sessions and end-users lists, the metrics and the exports take
 * `experiment=include|exclude|only` (include, the default, changes nothing for existing callers).
 */
describeRuns('experiment traffic', (ctx) => {
  const at = (offset: number) => iso(NOW - HOUR + offset);
  afterEach(() => setFewExperimentTraces(null));

  /** Production traces p1 (with a child) and p2; experiment traces e1 (with a child) and e2; a session and a user shared by p2 and e2. */
  async function world() {
    const p = await projectFor(ctx);
    const { token } = p.caller;
    const call = (method: 'GET' | 'POST', url: string, body?: unknown) => ctx.request(method, url, { token, ...(body === undefined ? {} : { body }) });
    const run = (id: string, offset: number, session: string, user: string, extra: Record<string, unknown> = {}) => ({
      id,
      name: 'turn',
      kind: 'chain',
      status: 'succeeded',
      startTime: at(offset),
      endTime: at(offset + 100),
      sessionId: session,
      userId: user,
      ...extra,
    });
    await p.seed([
      run('p1', 0, 'chat-prod', 'ada'),
      run('p1-llm', 10, 'chat-prod', 'ada', { parentRunId: 'p1', name: 'llm', kind: 'llm' }),
      run('p2', 1000, 'chat-mixed', 'bob'),
      run('e1', 2000, 'chat-exp', 'eve'),
      run('e1-llm', 2010, 'chat-exp', 'eve', { parentRunId: 'e1', name: 'llm', kind: 'llm' }),
      run('e2', 3000, 'chat-mixed', 'bob'),
    ]);
    const dataset = ok(await call('POST', '/v1/datasets', { name: `traffic ${p.id}` }), 201);
    ok(await call('POST', `/v1/datasets/${dataset.id}/items`, { items: ['a', 'b', 'c'].map((id) => ({ id, input: { q: id } })) }), 201);
    const experiment = ok(await call('POST', '/v1/experiments', { name: 'baseline', datasetId: dataset.id, projectId: p.id }), 201);
    const record = (results: Json[]) => call('POST', `/v1/experiments/${experiment.id}/results`, { results });
    const list = async (what: string, query: Query, key: string) => {
      const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
      return (ok(await call('GET', `/v1/projects/${p.id}/${what}?${qs}&limit=100`)).items as Json[]).map((item) => item[key] as string).sort();
    };
    return { p, call, record, list, run };
  }

  it('lists production traffic alone, experiment traffic alone, or both, in every list and the metrics, with either plan', async () => {
    const { p, call, record, list, run } = await world();
    expect(await list('runs', { experiment: 'only' }, 'id')).toEqual([]);
    expect(ok(await record([{ itemId: 'a', runId: 'e1', output: 'A', latencyMs: 100 }]))).toMatchObject({ results: [{ status: 'created' }] });
    // The result names its trace; the run's is marked too.
    ok(await record([{ itemId: 'b', runId: 'e2', traceId: 'e2', output: 'B', latencyMs: 100 }]));
    // A run that joins an experiment trace after the result is experiment traffic too.
    await p.seed([run('e1-late', 2020, 'chat-exp', 'eve', { parentRunId: 'e1', name: 'llm', kind: 'llm' })]);

    for (const bound of [null, 0]) {
      // null: the few experiment traces named in the query; 0: a probe of each run's trace.
      setFewExperimentTraces(bound);
      const all = ['e1', 'e1-late', 'e1-llm', 'e2', 'p1', 'p1-llm', 'p2'];
      expect(await list('runs', {}, 'id')).toEqual(all);
      expect(await list('runs', { experiment: 'include' }, 'id')).toEqual(all);
      expect(await list('runs', { experiment: 'exclude' }, 'id')).toEqual(['p1', 'p1-llm', 'p2']);
      expect(await list('runs', { experiment: 'only' }, 'id')).toEqual(['e1', 'e1-late', 'e1-llm', 'e2']);
      expect(await list('runs', { experiment: 'only', name: 'llm' }, 'id')).toEqual(['e1-late', 'e1-llm']);
      expect(await list('runs', { experiment: 'exclude', name: 'llm' }, 'id')).toEqual(['p1-llm']);
      expect(await list('runs', { experiment: 'exclude', q: 'turn' }, 'id')).toEqual(['p1', 'p2']);

      expect(await list('traces', {}, 'traceId')).toEqual(['e1', 'e2', 'p1', 'p2']);
      expect(await list('traces', { experiment: 'exclude' }, 'traceId')).toEqual(['p1', 'p2']);
      expect(await list('traces', { experiment: 'only' }, 'traceId')).toEqual(['e1', 'e2']);
      expect(await list('traces', { experiment: 'only', name: 'llm' }, 'traceId')).toEqual(['e1']);

      expect(await list('sessions', { experiment: 'exclude' }, 'sessionId')).toEqual(['chat-mixed', 'chat-prod']);
      expect(await list('sessions', { experiment: 'only' }, 'sessionId')).toEqual(['chat-exp', 'chat-mixed']);
      expect(await list('sessions', { experiment: 'only', name: 'llm' }, 'sessionId')).toEqual(['chat-exp']);
      expect(await list('sessions', { experiment: 'exclude', name: 'llm' }, 'sessionId')).toEqual(['chat-prod']);
      expect(await list('users', { experiment: 'exclude' }, 'userId')).toEqual(['ada', 'bob']);
      expect(await list('users', { experiment: 'only' }, 'userId')).toEqual(['bob', 'eve']);

      const count = async (experiment?: string) =>
        ok(await p.metrics({ from: at(-HOUR), to: at(HOUR), ...(experiment ? { experiment } : {}) })).total.count as number;
      expect([await count(), await count('include'), await count('exclude'), await count('only')]).toEqual([7, 7, 3, 4]);

      const exported = await call('GET', `/v1/projects/${p.id}/runs/export?experiment=exclude`);
      expect(exported.statusCode, exported.body).toBe(200);
      // Records, and the cursor lines between them.
      const records = (body: string, key: string) =>
        body
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as Json)[key])
          .filter((v) => v !== undefined);
      expect(records(exported.body, 'id')).toEqual(['p2', 'p1-llm', 'p1']);
      const traces = await call('GET', `/v1/projects/${p.id}/traces/export?experiment=only`);
      expect(records(traces.body, 'traceId')).toEqual(['e2', 'e1']);
    }
  });

  it('binds a cursor to its experiment filter, and refuses a value it does not know', async () => {
    const { p, call, record } = await world();
    ok(
      await record([
        { itemId: 'a', runId: 'e1', latencyMs: 1 },
        { itemId: 'b', runId: 'e2', latencyMs: 1 },
      ]),
    );
    const first = ok(await call('GET', `/v1/projects/${p.id}/runs?experiment=exclude&limit=1`));
    expect(first.items.map((r: Json) => r.id)).toEqual(['p2']);
    const next = (experiment: string) =>
      call('GET', `/v1/projects/${p.id}/runs?experiment=${experiment}&limit=1&cursor=${encodeURIComponent(first.nextCursor)}`);
    expect(ok(await next('exclude')).items.map((r: Json) => r.id)).toEqual(['p1-llm']);
    // Another filter, another list: its cursor is refused as any foreign one is.
    expectProblem(await next('only'), 400, 'validation', 'Cursor is malformed.');
    const bad = await call('GET', `/v1/projects/${p.id}/traces?experiment=yes`);
    expectProblem(bad, 400, 'validation');
    expect(bad.json().errors).toEqual([expect.objectContaining({ parameter: 'experiment' })]);
  });

  it('keeps the mark of a run that moves to its parent’s trace after its result was recorded', async () => {
    const { p, record, list } = await world();
    // The child arrives first: its trace is provisional (its parent's id) until the parent brings the real one.
    await p.seed([{ id: 'orphan', parentRunId: 'late-parent', name: 'llm', kind: 'llm', startTime: at(4010) }]);
    ok(await record([{ itemId: 'c', runId: 'orphan', latencyMs: 5 }]));
    expect(await list('traces', { experiment: 'only' }, 'traceId')).toEqual(['late-parent']);
    await p.seed([{ id: 'late-parent', traceId: 'exp-trace', name: 'task', kind: 'chain', startTime: at(4000) }]);
    expect(await list('traces', { experiment: 'only' }, 'traceId')).toEqual(['exp-trace']);
    expect(await list('runs', { experiment: 'only' }, 'id')).toEqual(['late-parent', 'orphan']);
    expect(await list('runs', { experiment: 'exclude' }, 'id')).toEqual(['e1', 'e1-llm', 'e2', 'p1', 'p1-llm', 'p2']);
  });
});
