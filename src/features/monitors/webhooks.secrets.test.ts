import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { ok } from '../../../test/helpers/json.js';
import { begin, clock, describeDeliveries, seconds, verifySignature } from './webhooks.test-support.js';

/** Rotating a monitor's webhook secret: deliveries are signed with the new one. */
describeDeliveries('secret rotation', (ctx, h, s) => {
  it('after POST …/rotate-secret, deliveries (new ones and retries) are signed with the new secret only', async () => {
    begin();
    const projectId = await s.silentProject();
    const m = await h.alerting(s.owner, projectId, [s.receiver.url('/t4')]);
    expect(await ctx.app.monitoring.deliverDue()).toBe(1);
    const before = s.receiver.at('/t4')[0]!;
    expect(verifySignature(before.headers['sightline-signature'], before.body, m.webhookSecret).valid).toBe(true);

    const rotated = ok(await ctx.request('POST', `${h.base(projectId)}/${m.id}/rotate-secret`, { token: s.owner.token }));
    expect(rotated.webhookSecret).toMatch(/^whsec_/);
    expect(rotated.webhookSecret).not.toBe(m.webhookSecret);

    // A new event after the rotation: signed with the new secret, not the old one.
    s.receiver.respond = (r) => (r.path === '/t4' && s.receiver.at('/t4').length === 2 ? 500 : 200);
    await h.bringBackToOk(projectId, m.id);
    expect(await ctx.app.monitoring.deliverDue()).toBe(1);
    const after = s.receiver.at('/t4')[1]!;
    expect(verifySignature(after.headers['sightline-signature'], after.body, rotated.webhookSecret)).toEqual({ t: seconds(clock.now()), valid: true });
    expect(verifySignature(after.headers['sightline-signature'], after.body, m.webhookSecret).valid).toBe(false);

    // That attempt got a 500; rotate again before its retry: the retry is signed with the newest secret.
    const [retrying] = await h.attempts(s.owner, projectId, m.id);
    expect(retrying).toMatchObject({ outcome: 'retrying', attempt: 1 });
    const again = ok(await ctx.request('POST', `${h.base(projectId)}/${m.id}/rotate-secret`, { token: s.owner.token }));
    clock.set(Date.parse(retrying!.nextAttemptAt));
    expect(await ctx.app.monitoring.deliverDue()).toBe(1);
    const retry = s.receiver.at('/t4')[2]!;
    expect(retry.headers['sightline-delivery-attempt']).toBe('2');
    expect(verifySignature(retry.headers['sightline-signature'], retry.body, again.webhookSecret).valid).toBe(true);
    expect(verifySignature(retry.headers['sightline-signature'], retry.body, rotated.webhookSecret).valid).toBe(false);
    expect((await h.attempts(s.owner, projectId, m.id))[0]).toMatchObject({ attempt: 2, outcome: 'succeeded' });
  });

  it('rotating an unknown monitor is a 404; viewers may not rotate (403)', async () => {
    begin();
    const projectId = await s.silentProject();
    const m = await h.alerting(s.owner, projectId, []);
    expectProblem(await ctx.request('POST', `${h.base(projectId)}/mon_nope/rotate-secret`, { token: s.owner.token }), 404, 'not-found');
    const viewer = await ctx.make.caller({ role: 'viewer', organizationId: s.owner.organizationId });
    expectProblem(await ctx.request('POST', `${h.base(projectId)}/${m.id}/rotate-secret`, { token: viewer.token }), 403, 'forbidden');
  });
});
