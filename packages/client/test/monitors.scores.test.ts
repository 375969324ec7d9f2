import { expect, it } from 'vitest';
import { describeSdk, expectProblem } from './client.test-support.js';

describeSdk((sdk) => {
  it('a monitor over scores: created with its score, its value the scores metrics’ mean over the window, refused without a score', async () => {
    const project = await sdk.client.projects.create({ name: `score-monitor-${Date.now()}` });
    await sdk.client.runs.batch(project.id, [{ id: 'answer', name: 'llm', kind: 'llm', startTime: new Date(Date.now() - 60_000).toISOString() }]);
    await sdk.client.scores.batch(project.id, [
      { runId: 'answer', name: 'helpfulness', value: 0.4 },
      { runId: 'answer', name: 'helpfulness', value: 0.6 },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 5)); // the window ends before now: the scores are inside it
    const monitor = await sdk.client.monitors.create(project.id, {
      name: 'helpfulness',
      metric: 'score_mean',
      score: { name: 'helpfulness' },
      window: '1h',
      threshold: { op: '<', value: 0.7 },
    });
    expect(monitor).toMatchObject({ metric: 'score_mean', score: { name: 'helpfulness' }, state: 'alerting', filter: {} });
    const metrics = await sdk.client.monitors.metrics(project.id, monitor.id);
    const { windowStart: from, windowEnd: to } = metrics.current;
    const scores = await sdk.client.scores.metrics(project.id, { name: 'helpfulness', from, to });
    expect(metrics.current).toMatchObject({ value: scores.total.mean, count: scores.total.count, state: 'alerting' });
    expect(metrics.current.value).toBeCloseTo(0.5, 12);

    const share = await sdk.client.monitors.update(project.id, monitor.id, { metric: 'score_share', score: { name: 'helpfulness', label: 'true' } });
    expect(share).toMatchObject({ metric: 'score_share', score: { name: 'helpfulness', label: 'true' }, state: 'no_data' });
    const refused = await expectProblem(sdk.client.monitors.create(project.id, { name: 'x', metric: 'score_share', window: '1h' }), 400, 'validation');
    expect(refused.errors).toEqual([{ pointer: '/score', detail: expect.any(String) }]);
  });
});
