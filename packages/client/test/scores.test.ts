import { expect, it } from 'vitest';
import { Sightline } from '../src/index.js';
import { countingFetch, describeSdk, expectProblem, startProxy } from './client.test-support.js';

describeSdk((sdk) => {
  it('scores a run, a trace and a session, lists them with filters, changes and deletes one', async () => {
    const project = await sdk.client.projects.create({ name: `scores-${Date.now()}` });
    await sdk.client.runs.batch(project.id, [
      { id: 'turn', name: 'agent', kind: 'agent', startTime: '2026-11-20T10:00:00Z', sessionId: 'chat' },
      { id: 'turn-llm', parentRunId: 'turn', name: 'llm', kind: 'llm', startTime: '2026-11-20T10:00:01Z', sessionId: 'chat' },
    ]);
    const config = await sdk.client.scoreConfigs.create({ name: `helpfulness-${Date.now()}`, dataType: 'numeric', min: 0, max: 1 });
    expect(await sdk.client.scoreConfigs.get(config.id)).toEqual(config);

    const onRun = await sdk.client.scores.create(project.id, { runId: 'turn-llm' }, { configId: config.id, value: 0.75, comment: 'ok' });
    expect(onRun).toMatchObject({ target: 'run', runId: 'turn-llm', name: config.name, value: 0.75, configId: config.id, id: expect.stringMatching(/^scr_/) });
    const onTrace = await sdk.client.scores.create(project.id, { traceId: 'turn' }, { name: 'thumbs', value: true, source: 'annotation' });
    const onSession = await sdk.client.scores.create(project.id, { sessionId: 'chat' }, { name: 'tone', value: 'friendly' });
    await expectProblem(sdk.client.scores.create(project.id, { runId: 'turn' }, { configId: config.id, value: 3 }), 400, 'validation');
    await expectProblem(sdk.client.scores.create(project.id, { runId: 'nope' }, { name: 'x', value: 1 }), 404, 'not-found');

    const ids = async (filters: Parameters<typeof sdk.client.scores.list>[1]) => (await sdk.client.scores.list(project.id, filters).toArray()).map((s) => s.id);
    expect(await ids({})).toEqual([onSession.id, onTrace.id, onRun.id]);
    expect(await ids({ traceId: 'turn' })).toEqual([onTrace.id, onRun.id]);
    expect(await ids({ source: 'annotation' })).toEqual([onTrace.id]);
    const metrics = await sdk.client.scores.metrics(project.id, { groupBy: 'name' });
    expect(metrics.total).toMatchObject({ count: 3, mean: (0.75 + 1) / 2, shares: { friendly: 0.5, true: 0.5 } });
    expect(metrics.groups.map((g) => g.key).sort()).toEqual([config.name, 'thumbs', 'tone'].sort());

    // Listed runs, traces and sessions carry their own scores' summaries (typed: ScoreSummary[]).
    const listed = await sdk.client.runs.list(project.id).toArray();
    expect(listed.map((run) => [run.id, run.scores])).toEqual([
      ['turn-llm', [{ name: config.name, dataType: 'numeric', value: 0.75, count: 1 }]],
      ['turn', []],
    ]);
    expect((await sdk.client.runs.get(project.id, 'turn-llm')).scores).toEqual(listed[0]!.scores);
    const [trace] = await sdk.client.traces.list(project.id).toArray();
    expect(trace!.scores).toEqual([{ name: 'thumbs', dataType: 'boolean', value: 1, count: 1 }]);
    const [session] = await sdk.client.sessions.list(project.id).toArray();
    expect(session!.scores).toEqual([{ name: 'tone', dataType: 'categorical', value: 'friendly', count: 1 }]);

    const changed = await sdk.client.scores.update(project.id, onRun.id, { value: 1, comment: null });
    expect(changed).toMatchObject({ value: 1, comment: null });
    await sdk.client.scores.delete(project.id, onRun.id);
    await expectProblem(sdk.client.scores.get(project.id, onRun.id), 404, 'not-found');
    await sdk.client.scoreConfigs.delete(config.id);
  });

  it('sends a batch with client ids, so a retry after a dropped answer creates nothing twice; more than 1,000 go as several requests', async () => {
    const project = await sdk.client.projects.create({ name: `scores-batch-${Date.now()}` });
    await sdk.client.runs.batch(project.id, [{ id: 'r', name: 'llm', kind: 'llm', startTime: '2026-11-20T10:00:00Z' }]);
    const counting = countingFetch();
    const client = new Sightline(sdk.options({ fetch: counting.fetch }));
    const scores = Array.from({ length: 1500 }, (_, i) => ({ runId: 'r', name: 'quality', value: i % 5 }));
    const first = await client.scores.batch(project.id, scores);
    expect(first.results).toHaveLength(1500);
    expect(first.results.every((r, i) => r.status === 'created' && r.index === i && /^scr_/.test(r.id!))).toBe(true);
    expect(counting.seen.filter((s) => s.url.pathname.endsWith('/scores/batch'))).toHaveLength(2);
    expect((await client.scores.list(project.id, {}, { limit: 100 }).toArray()).length).toBe(1500);

    // The server stores a batch, then the connection drops before its answer: the retry finds them all.
    const proxy = await startProxy(sdk.server.url, ({ n }) => (n === 1 ? 'forward-then-drop' : 'forward'));
    try {
      const viaProxy = new Sightline(sdk.options({ baseUrl: proxy.url }));
      const retried = await viaProxy.scores.batch(project.id, scores.slice(0, 200));
      expect(proxy.requests).toHaveLength(2);
      expect(retried.results.map((r) => r.status)).toEqual(scores.slice(0, 200).map(() => 'existing'));
    } finally {
      await proxy.close();
    }
    expect((await client.scores.list(project.id, {}, { limit: 100 }).toArray()).length).toBe(1700);
  });
});
