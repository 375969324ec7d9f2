/**
 * Monitor webhooks (docs/monitors-and-webhooks.md, Webhooks): signed deliveries to a real local receiver, retries with backoff, giving
 * up after the retry window, secret rotation, the deliveries list (roles, tenancy, pagination), and the
 * SSRF guard at create/patch, at delivery time (webhooks.ssrf.test.ts), and as units (src/lib/webhook-target.test.ts).
 * Here: a delivery and who sees it; retries and secret rotation have files of their own.
 *
 * Every engine; a manual clock, so backoff and signature timestamps are exact. No background loop runs
 * in tests: `ctx.app.monitoring.deliverDue()` makes the attempts and says how many it made.
 *
 * The monitor used throughout is "fewer than one run in 5m" on a project without runs: it goes
 * no_data → alerting when it is created, so one delivery per webhook URL is queued at once. A run in the
 * window and the next scheduled evaluation take it to ok (a second state change, a second delivery).
 */
import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { ATTEMPT_KEYS, begin, clock, describeDeliveries, HOUR, iso, MINUTE, PAYLOAD_KEYS, seconds, verifySignature } from './webhooks.test-support.js';

describeDeliveries('a delivery', (ctx, h, s) => {
  it('POSTs one signed event per state change; the attempt is listed as succeeded; nothing is sent twice', async () => {
    begin(1_234); // not on a second: the signature's timestamp is the clock's whole seconds
    const projectId = await s.silentProject();
    const m = await h.alerting(s.owner, projectId, [s.receiver.url('/t1')]);
    expect(m.state).toBe('alerting');
    expect(m.webhookSecret).toMatch(/^whsec_/);
    expect(s.receiver.at('/t1')).toEqual([]); // queued, not sent: no background loop in tests

    const sentAt = clock.now();
    expect(await ctx.app.monitoring.deliverDue()).toBe(1);
    const [event] = await h.events(s.owner, projectId, m.id);
    expect(event).toMatchObject({ from: 'no_data', to: 'alerting', reason: 'evaluated' });
    const [request] = s.receiver.at('/t1');
    expect(s.receiver.at('/t1')).toHaveLength(1);
    expect(request!.method).toBe('POST');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['sightline-event-id']).toBe(event!.id);
    expect(request!.headers['sightline-delivery-id']).toMatch(/^whd_/);
    expect(request!.headers['sightline-delivery-attempt']).toBe('1');

    // The signature verifies with the secret the create answer showed, over the exact raw body…
    const signature = verifySignature(request!.headers['sightline-signature'], request!.body, m.webhookSecret);
    expect(signature).toEqual({ t: seconds(sentAt), valid: true });
    // …and not with another secret, nor over another body.
    expect(verifySignature(request!.headers['sightline-signature'], request!.body, `${m.webhookSecret}x`).valid).toBe(false);
    expect(verifySignature(request!.headers['sightline-signature'], request!.body.replace('alerting', 'ok'), m.webhookSecret).valid).toBe(false);

    const payload = JSON.parse(request!.body) as Json;
    expect(Object.keys(payload).sort()).toEqual(PAYLOAD_KEYS);
    expect(payload).toEqual({
      id: event!.id,
      type: 'monitor.state_changed',
      createdAt: iso(sentAt),
      monitor: { id: m.id, projectId, name: 'silence', metric: 'count', score: null, window: '5m', threshold: { op: '<', value: 1 }, filter: m.filter },
      from: 'no_data',
      to: 'alerting',
      value: 0,
      count: 0,
      windowStart: iso(sentAt - 5 * MINUTE),
      windowEnd: iso(sentAt),
      reason: 'evaluated',
    });
    expect(payload.windowStart).toBe(event!.windowStart);
    expect(payload.windowEnd).toBe(event!.windowEnd);

    const [attempt, ...older] = await h.attempts(s.owner, projectId, m.id);
    expect(older).toEqual([]);
    expect(Object.keys(attempt!).sort()).toEqual(ATTEMPT_KEYS);
    expect(attempt).toEqual({
      id: expect.stringMatching(/^wha_/),
      deliveryId: request!.headers['sightline-delivery-id'],
      eventId: event!.id,
      url: s.receiver.url('/t1'),
      attempt: 1,
      outcome: 'succeeded',
      responseStatus: 200,
      latencyMs: expect.any(Number),
      error: null,
      nextAttemptAt: null,
      createdAt: iso(sentAt),
    });
    expect(attempt!.latencyMs).toBeGreaterThanOrEqual(0);

    // Delivered: another pass sends nothing, now or later.
    expect(await ctx.app.monitoring.deliverDue()).toBe(0);
    clock.advance(HOUR);
    expect(await ctx.app.monitoring.deliverDue()).toBe(0);
    expect(s.receiver.at('/t1')).toHaveLength(1);

    // A second state change (alerting → ok) is a second event, delivered once.
    await h.bringBackToOk(projectId, m.id);
    expect(await ctx.app.monitoring.deliverDue()).toBe(1);
    expect(await ctx.app.monitoring.deliverDue()).toBe(0);
    const [okEvent] = await h.events(s.owner, projectId, m.id);
    expect(okEvent).toMatchObject({ from: 'alerting', to: 'ok', value: 1, count: 1 });
    expect(s.receiver.at('/t1')).toHaveLength(2);
    const second = s.receiver.at('/t1')[1]!;
    expect(second.headers['sightline-event-id']).toBe(okEvent!.id);
    expect(second.headers['sightline-delivery-id']).not.toBe(request!.headers['sightline-delivery-id']);
    expect(verifySignature(second.headers['sightline-signature'], second.body, m.webhookSecret)).toEqual({ t: seconds(clock.now()), valid: true });
    expect(JSON.parse(second.body)).toMatchObject({
      id: okEvent!.id,
      from: 'alerting',
      to: 'ok',
      value: 1,
      count: 1,
      reason: 'evaluated',
      createdAt: iso(clock.now()),
    });
    const listed = await h.attempts(s.owner, projectId, m.id);
    expect(listed.map((a) => [a.eventId, a.attempt, a.outcome])).toEqual([
      [okEvent!.id, 1, 'succeeded'],
      [event!.id, 1, 'succeeded'],
    ]);
  });

  it('one delivery per URL: each URL gets the event once, with its own delivery id', async () => {
    begin();
    const projectId = await s.silentProject();
    const m = await h.alerting(s.owner, projectId, [s.receiver.url('/t1b/a'), s.receiver.url('/t1b/b')]);
    expect(await ctx.app.monitoring.deliverDue()).toBe(2);
    expect(await ctx.app.monitoring.deliverDue()).toBe(0);
    const [a] = s.receiver.at('/t1b/a');
    const [b] = s.receiver.at('/t1b/b');
    expect(s.receiver.at('/t1b/a')).toHaveLength(1);
    expect(s.receiver.at('/t1b/b')).toHaveLength(1);
    expect(a!.headers['sightline-event-id']).toBe(b!.headers['sightline-event-id']);
    expect(a!.headers['sightline-delivery-id']).not.toBe(b!.headers['sightline-delivery-id']);
    expect(a!.body).toBe(b!.body);
    const listed = await h.attempts(s.owner, projectId, m.id);
    expect(listed.map((x) => x.url).sort()).toEqual([s.receiver.url('/t1b/a'), s.receiver.url('/t1b/b')]);
    expect(listed.every((x) => x.outcome === 'succeeded' && x.responseStatus === 200)).toBe(true);
  });

  it('a monitor without webhook URLs records events but queues nothing', async () => {
    begin();
    const projectId = await s.silentProject();
    const m = await h.alerting(s.owner, projectId, []);
    expect(await h.events(s.owner, projectId, m.id)).toHaveLength(1);
    expect(await ctx.app.monitoring.deliverDue()).toBe(0);
    expect(await h.attempts(s.owner, projectId, m.id)).toEqual([]);
  });
});

describeDeliveries('who sees deliveries', (ctx, h, s) => {
  it('viewers list deliveries and events; another organization gets 404 for both', async () => {
    begin();
    const projectId = await s.silentProject();
    const m = await h.alerting(s.owner, projectId, [s.receiver.url('/t6')]);
    expect(await ctx.app.monitoring.deliverDue()).toBe(1);

    const viewer = await ctx.make.caller({ role: 'viewer', organizationId: s.owner.organizationId });
    const seen = await h.attempts(viewer, projectId, m.id);
    expect(seen).toEqual(await h.attempts(s.owner, projectId, m.id));
    expect(seen.map((a) => a.outcome)).toEqual(['succeeded']);
    expect((await h.events(viewer, projectId, m.id)).map((e) => [e.from, e.to])).toEqual([['no_data', 'alerting']]);

    const stranger = await ctx.make.caller();
    const strangerProject = (await ctx.make.project(stranger.organizationId)).id;
    for (const path of ['deliveries', 'events']) {
      expectProblem(await h.get(stranger, `${h.base(projectId)}/${m.id}/${path}`), 404, 'not-found');
      expectProblem(await h.get(stranger, `${h.base(strangerProject)}/${m.id}/${path}`), 404, 'not-found');
    }
    expectProblem(await h.get(s.owner, `${h.base(projectId)}/mon_nope/deliveries`), 404, 'not-found');
    expectProblem(await h.get(s.owner, `${h.base(projectId)}/${m.id}/deliveries?limit=abc`), 400, 'validation');
    expectProblem(await h.get(s.owner, `${h.base(projectId)}/${m.id}/deliveries?cursor=garbage`), 400, 'validation');
    expectProblem(await ctx.request('GET', `${h.base(projectId)}/${m.id}/deliveries`), 401, 'unauthorized');
  });
});
