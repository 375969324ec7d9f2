/**
 * Monitors over scores (docs/monitors-and-webhooks.md, Monitors over scores; docs/design/quality-loop.md, Metrics): `score_mean` and
 * `score_share` go through the same states, events and signed webhooks as the run metrics; their value
 * is the scores metrics' mean or share over the window; `score` and the filter are checked against the
 * metric. Every engine; a manual clock (a score's createdAt is the server's clock when it is sent).
 */
import { expect, it } from 'vitest';
import { expectProblem, type TestContext } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { begin, clock, describeDeliveries, HOUR, iso, MINUTE, SECOND, verifySignature, type Deliveries, type WebhookHelpers } from './webhooks.test-support.js';

/** A project with one run to hang scores on, and a way to give it scores now (the clock's now). */
async function scoredProject(ctx: TestContext, s: Deliveries) {
  const projectId = await s.silentProject();
  const [runId] = await ctx.make.runs(projectId, 1, () => ({ startTime: iso(clock.now() - 2 * HOUR) }));
  const give = async (name: string, values: (number | boolean | string)[], extra: Json = {}) => {
    const res = await ctx.request('POST', `/v1/projects/${projectId}/scores/batch`, {
      token: s.owner.token,
      body: { scores: values.map((value) => ({ runId, name, value, ...extra })) },
    });
    const body = ok(res);
    expect((body.results as Json[]).every((r) => r.status === 'created')).toBe(true);
    clock.advance(SECOND); // a window ends before its `to`: the scores are in the next evaluation's window
  };
  return { projectId, give };
}

/** The next scheduled evaluation of the monitor, then its state. */
async function reevaluate(ctx: TestContext, h: WebhookHelpers, s: Deliveries, projectId: string, id: string): Promise<Json> {
  clock.advance(61 * SECOND);
  expect(await ctx.app.monitoring.evaluateDue()).toContain(id);
  return ok(await h.get(s.owner, `${h.base(projectId)}/${id}`));
}

/** The deliveries made now, each checked for a valid signature with the monitor's secret; their payloads. */
async function delivered(ctx: TestContext, s: Deliveries, path: string, secret: string): Promise<Json[]> {
  const before = s.receiver.at(path).length;
  await ctx.app.monitoring.deliverDue();
  return s.receiver
    .at(path)
    .slice(before)
    .map((request) => {
      expect(verifySignature(request.headers['sightline-signature'], request.body, secret).valid).toBe(true);
      return JSON.parse(request.body) as Json;
    });
}

describeDeliveries('score metrics', (ctx, h, s) => {
  it('"mean helpfulness over the last hour below 0.7" alerts, recovers and goes back to no data, each change a signed webhook', async () => {
    begin();
    const { projectId, give } = await scoredProject(ctx, s);
    await give('correctness', [0.1]); // another name: not watched
    const m = await h.alerting(s.owner, projectId, [s.receiver.url('/mean')], {
      name: 'helpfulness',
      metric: 'score_mean',
      score: { name: 'helpfulness' },
      window: '1h',
      threshold: { op: '<', value: 0.7 },
    });
    expect(m).toMatchObject({ metric: 'score_mean', score: { name: 'helpfulness' }, state: 'no_data', filter: {} });
    expect(await delivered(ctx, s, '/mean', m.webhookSecret)).toEqual([]); // no scores: no value, no change

    await give('helpfulness', [0.5, 0.6, 0.7]);
    expect(await reevaluate(ctx, h, s, projectId, m.id)).toMatchObject({ state: 'alerting' });
    const [alert] = await delivered(ctx, s, '/mean', m.webhookSecret);
    expect(alert).toMatchObject({
      type: 'monitor.state_changed',
      monitor: { id: m.id, metric: 'score_mean', score: { name: 'helpfulness' }, window: '1h', threshold: { op: '<', value: 0.7 } },
      from: 'no_data',
      to: 'alerting',
      count: 3,
      reason: 'evaluated',
    });
    expect(alert!.value).toBeCloseTo(0.6, 12);

    clock.advance(10 * MINUTE);
    await give('helpfulness', [1, 1, 1]); // mean of six: 0.8
    expect(await reevaluate(ctx, h, s, projectId, m.id)).toMatchObject({ state: 'ok' });
    const [recovery] = await delivered(ctx, s, '/mean', m.webhookSecret);
    expect(recovery).toMatchObject({ from: 'alerting', to: 'ok', count: 6 });
    expect(recovery!.value).toBeCloseTo(0.8, 12);

    clock.advance(HOUR); // every score leaves the window: no value
    expect(await reevaluate(ctx, h, s, projectId, m.id)).toMatchObject({ state: 'no_data' });
    expect(await delivered(ctx, s, '/mean', m.webhookSecret)).toMatchObject([{ from: 'ok', to: 'no_data', value: null, count: 0 }]);

    const events = await h.events(s.owner, projectId, m.id);
    expect(events.map((e) => [e.from, e.to, e.count])).toEqual([
      ['ok', 'no_data', 0],
      ['alerting', 'ok', 6],
      ['no_data', 'alerting', 3],
    ]);
  });

  it('"share of thumbs-down above 10 %" counts the label among the scores of the name (booleans as true/false) and alerts and recovers likewise', async () => {
    begin();
    const { projectId, give } = await scoredProject(ctx, s);
    await give('thumbs_down', [...Array<boolean>(19).fill(false), true]); // 1 in 20: 5 %
    const m = await h.alerting(s.owner, projectId, [s.receiver.url('/share')], {
      name: 'thumbs down',
      metric: 'score_share',
      score: { name: 'thumbs_down', label: 'true' },
      window: '1h',
      threshold: { op: '>', value: 0.1 },
    });
    expect(m).toMatchObject({ state: 'ok', score: { name: 'thumbs_down', label: 'true' } });
    expect(await delivered(ctx, s, '/share', m.webhookSecret)).toMatchObject([{ from: 'no_data', to: 'ok', value: 0.05, count: 20 }]);

    await give('thumbs_down', [true, true, true, true, true]); // 6 in 25
    expect(await reevaluate(ctx, h, s, projectId, m.id)).toMatchObject({ state: 'alerting' });
    expect(await delivered(ctx, s, '/share', m.webhookSecret)).toMatchObject([{ from: 'ok', to: 'alerting', value: 0.24, count: 25 }]);

    await give('thumbs_down', Array<boolean>(35).fill(false)); // 6 in 60
    expect(await reevaluate(ctx, h, s, projectId, m.id)).toMatchObject({ state: 'ok' });
    expect(await delivered(ctx, s, '/share', m.webhookSecret)).toMatchObject([{ from: 'alerting', to: 'ok', value: 0.1, count: 60 }]);

    // A categorical score's share: 0 when other labels are given but not this one.
    const categories = await h.alerting(s.owner, projectId, [], {
      metric: 'score_share',
      score: { name: 'feedback', label: 'thumbs_down' },
      threshold: { op: '>', value: 0.1 },
      window: '1h',
    });
    expect(categories.state).toBe('no_data');
    await give('feedback', ['thumbs_up', 'thumbs_up']);
    const scored = await reevaluate(ctx, h, s, projectId, categories.id);
    expect(scored.state).toBe('ok');
    expect(ok(await h.get(s.owner, `${h.base(projectId)}/${categories.id}/metrics`)).current).toMatchObject({ value: 0, count: 2, state: 'ok' });
  });

  it('the filter takes the scores’ source and target', async () => {
    begin();
    const { projectId, give } = await scoredProject(ctx, s);
    await give('helpfulness', [0.2, 0.2]);
    await give('helpfulness', [0.9], { source: 'annotation' });
    const byReviewers = await h.alerting(s.owner, projectId, [], {
      metric: 'score_mean',
      score: { name: 'helpfulness' },
      filter: { source: 'annotation', target: 'run' },
      window: '1h',
      threshold: { op: '<', value: 0.7 },
    });
    expect(byReviewers).toMatchObject({ state: 'ok', filter: { source: 'annotation', target: 'run' } });
    const onSessions = await h.alerting(s.owner, projectId, [], {
      metric: 'score_mean',
      score: { name: 'helpfulness' },
      filter: { target: 'session' },
      window: '1h',
      threshold: { op: '<', value: 0.7 },
    });
    expect(onSessions.state).toBe('no_data');
  });

  it('the value equals the scores metrics’ mean and share over the same window, in total and per bucket', async () => {
    begin();
    const { projectId, give } = await scoredProject(ctx, s);
    // Scores at pseudo-random times over two hours: some leave the window, buckets differ.
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 24; i += 1) {
      clock.advance(Math.floor(next() * 10 * MINUTE));
      await give('quality', [Math.round(next() * 100) / 100, next() < 0.5]);
      await give('verdict', [next() < 0.3 ? 'bad' : next() < 0.5 ? 'fine' : 'good']);
    }
    const definitions: { metric: string; score: Json; pick: (total: Json) => unknown }[] = [
      { metric: 'score_mean', score: { name: 'quality' }, pick: (t) => t.mean },
      { metric: 'score_share', score: { name: 'quality', label: 'true' }, pick: (t) => t.shares.true ?? 0 },
      { metric: 'score_share', score: { name: 'verdict', label: 'bad' }, pick: (t) => t.shares.bad ?? 0 },
    ];
    for (const d of definitions) {
      const m = await h.alerting(s.owner, projectId, [], { metric: d.metric, score: d.score, window: '1h', threshold: null });
      const now = clock.now();
      const mine = ok(await h.get(s.owner, `${h.base(projectId)}/${m.id}/metrics?bucket=1m&from=${iso(now - 2 * HOUR)}&to=${iso(now)}`));
      const query = (extra: string) => `/v1/projects/${projectId}/scores/metrics?name=${d.score.name}&${extra}`;
      const total = ok(await h.get(s.owner, query(`from=${iso(now - HOUR)}&to=${iso(now)}`))).total as Json;
      expect(total.count).toBeGreaterThan(0);
      expect(mine.current).toMatchObject({ value: d.pick(total), count: total.count, windowStart: iso(now - HOUR), windowEnd: iso(now) });
      const series = (ok(await h.get(s.owner, query(`from=${iso(now - 2 * HOUR)}&to=${iso(now)}&bucket=1m`))).groups as Json[])[0]!.series as Json[];
      expect(mine.series).toHaveLength(series.length);
      expect(mine.series).toEqual(series.map((b) => ({ start: b.start, value: b.count === 0 ? null : d.pick(b), count: b.count })));
    }
  });

  it('score is required for the score metrics (a label for score_share, none for score_mean) and refused for the others; the filter matches the metric', async () => {
    begin();
    const projectId = await s.silentProject();
    const create = (body: Json) => h.create(s.owner, projectId, { name: 'x', window: '1h', ...body });
    const refused = async (body: Json, pointer: string, detail: RegExp) => {
      const problem = expectProblem(await create(body), 400, 'validation') as Json;
      expect(problem.errors).toEqual([{ pointer, detail: expect.stringMatching(detail) }]);
    };
    await refused({ metric: 'score_mean' }, '/score', /score_mean.*name/);
    await refused({ metric: 'score_mean', score: null }, '/score', /score_mean/);
    await refused({ metric: 'score_share', score: { name: 'thumbs_down' } }, '/score/label', /label/);
    await refused({ metric: 'score_mean', score: { name: 'helpfulness', label: 'true' } }, '/score/label', /`score_share` only/);
    await refused({ metric: 'count', score: { name: 'helpfulness' } }, '/score', /score metrics/);
    await refused({ metric: 'score_mean', score: { name: 'helpfulness' }, filter: { status: 'failed' } }, '/filter/status', /source.*target/);
    await refused({ metric: 'score_mean', score: { name: 'helpfulness' }, filter: { 'metadata.env': 'x' } }, '/filter/metadata.env', /selects runs/);
    await refused({ metric: 'error_rate', filter: { source: 'api' } }, '/filter/source', /score metrics/);
    // The schema's own bounds.
    expectProblem(await create({ metric: 'score_mean', score: { name: '' } }), 400, 'validation');
    expectProblem(await create({ metric: 'score_mean', score: { name: 'a', extra: 1 } }), 400, 'validation');
    expectProblem(await create({ metric: 'score_mean', score: { name: 'a' }, filter: { source: 'robot' } }), 400, 'validation');

    // An edit is checked as the monitor would be after it.
    const m = await h.alerting(s.owner, projectId, [], { metric: 'score_mean', score: { name: 'helpfulness' }, window: '1h', threshold: null });
    const patched = async (body: Json, pointer: string) => {
      const problem = expectProblem(await h.patch(s.owner, projectId, m.id, body), 400, 'validation') as Json;
      expect(problem.errors.map((e: Json) => e.pointer)).toEqual([pointer]);
    };
    await patched({ metric: 'count' }, '/score');
    await patched({ metric: 'score_share' }, '/score/label');
    await patched({ filter: { kind: 'llm' } }, '/filter/kind');
    expect(ok(await h.patch(s.owner, projectId, m.id, { metric: 'score_share', score: { name: 'helpfulness', label: 'true' } }))).toMatchObject({
      metric: 'score_share',
      score: { name: 'helpfulness', label: 'true' },
    });
    expect(ok(await h.patch(s.owner, projectId, m.id, { metric: 'count', score: null }))).toMatchObject({ metric: 'count', score: null });
  });
});
