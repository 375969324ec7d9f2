import { expect, it } from 'vitest';
import { ok, type Json } from '../../../test/helpers/json.js';
import { BACKOFF_MS, begin, clock, describeDeliveries, HOUR, iso, RETRY_WINDOW_SECONDS, SECOND, seconds, verifySignature } from './webhooks.test-support.js';
import { freePort } from '../../../test/helpers/services.js';

/** A failed delivery is retried with backoff, and given up after the retry window. */
describeDeliveries('retries', (ctx, h, s) => {
  it('retries after a 500 at nextAttemptAt: same event and delivery, attempt 2, a fresh signature', async () => {
    begin();
    const projectId = await s.silentProject();
    let answered = 0;
    s.receiver.respond = (r) => (r.path === '/t2' && answered++ === 0 ? 500 : 200);
    const m = await h.alerting(s.owner, projectId, [s.receiver.url('/t2')]);

    const firstAt = clock.now();
    expect(await ctx.app.monitoring.deliverDue()).toBe(1);
    const [failed] = await h.attempts(s.owner, projectId, m.id);
    expect(failed).toMatchObject({ attempt: 1, outcome: 'retrying', responseStatus: 500, error: 'The receiver answered 500.', createdAt: iso(firstAt) });
    // Backoff: 10 s for the first retry, jittered to 75–100 %.
    const nextAt = Date.parse(failed!.nextAttemptAt);
    expect(nextAt - firstAt).toBeGreaterThanOrEqual(0.75 * BACKOFF_MS);
    expect(nextAt - firstAt).toBeLessThanOrEqual(BACKOFF_MS);

    // Not due yet: nothing is attempted.
    expect(await ctx.app.monitoring.deliverDue()).toBe(0);
    clock.set(nextAt - 1);
    expect(await ctx.app.monitoring.deliverDue()).toBe(0);
    expect(s.receiver.at('/t2')).toHaveLength(1);

    // Due at nextAttemptAt.
    clock.set(nextAt);
    expect(await ctx.app.monitoring.deliverDue()).toBe(1);
    expect(await ctx.app.monitoring.deliverDue()).toBe(0);
    const [first, second] = s.receiver.at('/t2');
    expect(s.receiver.at('/t2')).toHaveLength(2);
    expect(second!.headers['sightline-event-id']).toBe(first!.headers['sightline-event-id']);
    expect(second!.headers['sightline-delivery-id']).toBe(first!.headers['sightline-delivery-id']);
    expect(first!.headers['sightline-delivery-attempt']).toBe('1');
    expect(second!.headers['sightline-delivery-attempt']).toBe('2');
    expect(second!.body).toBe(first!.body); // the same event, byte for byte
    // Each attempt is signed at its own time.
    expect(verifySignature(first!.headers['sightline-signature'], first!.body, m.webhookSecret)).toEqual({ t: seconds(firstAt), valid: true });
    expect(verifySignature(second!.headers['sightline-signature'], second!.body, m.webhookSecret)).toEqual({ t: seconds(nextAt), valid: true });
    expect(second!.headers['sightline-signature']).not.toBe(first!.headers['sightline-signature']);

    const listed = await h.attempts(s.owner, projectId, m.id);
    expect(listed).toHaveLength(2);
    expect(listed[0]).toMatchObject({ attempt: 2, outcome: 'succeeded', responseStatus: 200, error: null, nextAttemptAt: null, createdAt: iso(nextAt) });
    expect(listed[1]).toMatchObject({ attempt: 1, outcome: 'retrying', responseStatus: 500 });
    expect(listed[0]!.deliveryId).toBe(listed[1]!.deliveryId);
    expect(listed[0]!.eventId).toBe(listed[1]!.eventId);
    expect(listed[0]!.deliveryId).toBe(first!.headers['sightline-delivery-id']);

    // The list pages newest first.
    const page1 = ok(await h.get(s.owner, `${h.base(projectId)}/${m.id}/deliveries?limit=1`));
    expect(page1.items.map((a: Json) => a.attempt)).toEqual([2]);
    expect(page1.nextCursor).toEqual(expect.any(String));
    const page2 = ok(await h.get(s.owner, `${h.base(projectId)}/${m.id}/deliveries?limit=1&cursor=${encodeURIComponent(page1.nextCursor)}`));
    expect(page2.items.map((a: Json) => a.attempt)).toEqual([1]);
    expect(page2.nextCursor).toBeNull();
  });

  it(`gives up once the retry window (${RETRY_WINDOW_SECONDS} s) is over: failed, no next attempt, nothing more`, async () => {
    begin();
    const projectId = await s.silentProject();
    const closed = `http://127.0.0.1:${await freePort()}/t3`; // nothing listens: a network error
    s.receiver.respond = () => 500;
    const m = await h.alerting(s.owner, projectId, [s.receiver.url('/t3'), closed]);
    const queuedAt = clock.now();

    // Attempt whatever is due, then move the clock to the earliest scheduled retry; until none is left.
    for (let pass = 0; pass < 20; pass++) {
      expect(await ctx.app.monitoring.deliverDue()).toBeGreaterThan(0);
      const latest = new Map<string, Json>();
      for (const a of await h.attempts(s.owner, projectId, m.id)) if (!latest.has(a.deliveryId)) latest.set(a.deliveryId, a);
      const retries = [...latest.values()].filter((a) => a.outcome === 'retrying').map((a) => Date.parse(a.nextAttemptAt));
      if (retries.length === 0) break;
      clock.set(Math.min(...retries));
    }

    const listed = await h.attempts(s.owner, projectId, m.id);
    for (const url of [s.receiver.url('/t3'), closed]) {
      const mine = listed.filter((a) => a.url === url).reverse(); // oldest first
      // Backoff 10 s then 20 s (each jittered to 75–100 %): the third retry would start after
      // 52.5 s > 30 s, so the third attempt is the last one.
      expect(
        mine.map((a) => [a.attempt, a.outcome]),
        url,
      ).toEqual([
        [1, 'retrying'],
        [2, 'retrying'],
        [3, 'failed'],
      ]);
      expect(new Set(mine.map((a) => a.deliveryId)).size).toBe(1);
      for (const a of mine.slice(0, -1)) expect(Date.parse(a.nextAttemptAt) - queuedAt).toBeLessThanOrEqual(RETRY_WINDOW_SECONDS * SECOND);
      expect(mine[2]!.nextAttemptAt).toBeNull();
      for (const a of mine) {
        if (url === closed) {
          expect(a.responseStatus).toBeNull();
          expect(a.error).toEqual(expect.any(String));
          expect(a.error).not.toBe('');
        } else {
          expect(a).toMatchObject({ responseStatus: 500, error: 'The receiver answered 500.' });
        }
      }
    }
    expect(s.receiver.at('/t3').map((r) => r.headers['sightline-delivery-attempt'])).toEqual(['1', '2', '3']);

    // Given up: never attempted again (the longest backoff is an hour).
    clock.advance(HOUR);
    expect(await ctx.app.monitoring.deliverDue()).toBe(0);
    expect(s.receiver.at('/t3')).toHaveLength(3);
    expect(await h.attempts(s.owner, projectId, m.id)).toHaveLength(6);
  });
});
