import { expect, it } from 'vitest';
import { Sightline } from '../src/index.js';
import { describeSdk, expectProblem, startProxy } from './client.test-support.js';

describeSdk((sdk) => {
  it('creates a queue, fills it by ids, filter and sample, and reviews it: claim, complete with scores, skip, until none is left', async () => {
    const project = await sdk.client.projects.create({ name: `queues-${Date.now()}` });
    await sdk.client.runs.batch(
      project.id,
      Array.from({ length: 6 }, (_, i) => ({
        id: `r${i}`,
        name: 'llm',
        kind: i < 3 ? ('llm' as const) : ('tool' as const),
        startTime: `2026-11-20T10:00:0${i}Z`,
      })),
    );
    const config = await sdk.client.scoreConfigs.create({ name: `correct-${Date.now()}`, dataType: 'boolean' });
    const queue = await sdk.client.annotationQueues.create(project.id, { name: 'Review', scoreConfigIds: [config.id] });
    expect(queue).toMatchObject({
      name: 'Review',
      target: 'run',
      scoreConfigIds: [config.id],
      counts: { pending: 0, inProgress: 0, completed: 0, skipped: 0 },
    });
    await expectProblem(sdk.client.annotationQueues.create(project.id, { name: 'Review' }), 409, 'conflict');
    await expectProblem(sdk.client.annotationQueues.create(project.id, { name: 'Other', scoreConfigIds: ['scc_nope'] }), 400, 'validation');

    expect(await sdk.client.annotationQueues.items.add(project.id, queue.id, { ids: ['r0'] })).toEqual({ added: 1, existing: 0, examined: 1 });
    expect(await sdk.client.annotationQueues.items.add(project.id, queue.id, { filter: { kind: 'llm' }, limit: 2 })).toEqual({
      added: 2,
      existing: 0,
      examined: 2,
    });
    const sampled = await sdk.client.annotationQueues.items.add(project.id, queue.id, { filter: { kind: 'tool' }, rate: 1 });
    expect(sampled).toEqual({ added: 3, existing: 0, examined: 3 });
    await expectProblem(sdk.client.annotationQueues.items.add(project.id, queue.id, { ids: ['missing'] }), 400, 'validation');
    expect((await sdk.client.annotationQueues.items.list(project.id, queue.id).toArray()).map((i) => i.targetId)).toEqual(['r3', 'r4', 'r5', 'r1', 'r2', 'r0']);

    const first = await sdk.client.annotationQueues.claim(project.id, queue.id);
    expect(first).toMatchObject({ targetId: 'r0', status: 'pending', reviewerId: expect.any(String) });
    expect(await sdk.client.annotationQueues.claim(project.id, queue.id)).toMatchObject({ id: first!.id });
    const done = await sdk.client.annotationQueues.complete(project.id, queue.id, first!.id, {
      scores: [{ configId: config.id, value: true, comment: 'right' }],
    });
    expect(done.item.status).toBe('completed');
    expect(done.scores[0]).toMatchObject({ runId: 'r0', value: true, source: 'annotation', queueId: queue.id, configId: config.id });
    await expectProblem(sdk.client.annotationQueues.skip(project.id, queue.id, first!.id), 409, 'conflict');

    let item = await sdk.client.annotationQueues.claim(project.id, queue.id);
    let skipped = 0;
    while (item) {
      expect((await sdk.client.annotationQueues.skip(project.id, queue.id, item.id)).status).toBe('skipped');
      skipped++;
      item = await sdk.client.annotationQueues.claim(project.id, queue.id);
    }
    expect(skipped).toBe(5);
    expect((await sdk.client.annotationQueues.get(project.id, queue.id)).counts).toEqual({ pending: 0, inProgress: 0, completed: 1, skipped: 5 });
    expect((await sdk.client.annotationQueues.items.list(project.id, queue.id, { status: 'completed' }).toArray()).map((i) => i.id)).toEqual([first!.id]);
    expect((await sdk.client.scores.list(project.id, { queueId: queue.id }).toArray()).map((s) => s.id)).toEqual([done.scores[0]!.id]);

    const renamed = await sdk.client.annotationQueues.update(project.id, queue.id, { name: 'Reviewed', description: 'Done' });
    expect(renamed).toMatchObject({ name: 'Reviewed', description: 'Done' });
    expect((await sdk.client.annotationQueues.list(project.id).toArray()).map((q) => q.id)).toEqual([queue.id]);
    await sdk.client.annotationQueues.delete(project.id, queue.id);
    await expectProblem(sdk.client.annotationQueues.get(project.id, queue.id), 404, 'not-found');
  });

  it('retries a claim whose answer was lost: the retry gives the same item, whose lease it renews', async () => {
    const project = await sdk.client.projects.create({ name: `queues-retry-${Date.now()}` });
    await sdk.client.runs.batch(project.id, [
      { id: 'a', name: 'llm', kind: 'llm', startTime: '2026-11-20T10:00:00Z' },
      { id: 'b', name: 'llm', kind: 'llm', startTime: '2026-11-20T10:00:01Z' },
    ]);
    const queue = await sdk.client.annotationQueues.create(project.id, { name: 'Retry' });
    await sdk.client.annotationQueues.items.add(project.id, queue.id, { ids: ['a', 'b'] });
    const proxy = await startProxy(sdk.server.url, ({ n }) => (n === 1 ? 'forward-then-drop' : 'forward'));
    try {
      const viaProxy = new Sightline(sdk.options({ baseUrl: proxy.url }));
      const item = await viaProxy.annotationQueues.claim(project.id, queue.id);
      expect(proxy.requests).toHaveLength(2);
      expect(item).toMatchObject({ targetId: 'a' });
    } finally {
      await proxy.close();
    }
    expect((await sdk.client.annotationQueues.get(project.id, queue.id)).counts).toEqual({ pending: 1, inProgress: 1, completed: 0, skipped: 0 });
  });
});
