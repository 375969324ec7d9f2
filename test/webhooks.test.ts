/**
 * Monitor webhooks (README, Webhooks): signed deliveries to a real local receiver, retries with backoff, giving
 * up after the retry window, secret rotation, the deliveries list (roles, tenancy, pagination), and the
 * SSRF guard at create/patch, at delivery time, and as units (isPrivateAddress, resolveTarget, postJson).
 *
 * Every engine; a manual clock, so backoff and signature timestamps are exact. No background loop runs
 * in tests: `ctx.app.monitoring.deliverDue()` makes the attempts and says how many it made.
 *
 * The monitor used throughout is "fewer than one run in 5m" on a project without runs: it goes
 * no_data → alerting when it is created, so one delivery per webhook URL is queued at once. A run in the
 * window and the next scheduled evaluation take it to ok (a second state change, a second delivery).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isPrivateAddress, postJson, resolveTarget, TargetRefused, webhookUrlFault } from '../src/lib/webhook-target.js';
import { describeEachDialect, expectProblem, manualClock, type Caller, type TestContext } from './helpers/harness.js';
import { freePort } from './helpers/services.js';

type Json = Record<string, any>;

const NOW = Date.parse('2026-11-20T12:00:00.000Z');
const SECOND = 1000;
const MINUTE = 60_000;
const HOUR = 3_600_000;
const clock = manualClock(NOW);

/**
 * Each test starts on the next whole hour of a clock that only moves forward (tokens and signing keys
 * issued earlier must never lie in the future), at least an hour after anything an earlier test did.
 */
function begin(offsetMs = 0): number {
  const start = Math.ceil(clock.now() / HOUR) * HOUR + HOUR;
  clock.set(start + offsetMs);
  return start + offsetMs;
}

/** The first retry delay (SIGHTLINE_WEBHOOK_BACKOFF_SECONDS, default 10 s) and the retry window set below. */
const BACKOFF_MS = 10 * SECOND;
const RETRY_WINDOW_SECONDS = 30;

const ATTEMPT_KEYS = ['attempt', 'createdAt', 'deliveryId', 'error', 'eventId', 'id', 'latencyMs', 'nextAttemptAt', 'outcome', 'responseStatus', 'url'];
const PAYLOAD_KEYS = ['count', 'createdAt', 'from', 'id', 'monitor', 'reason', 'to', 'type', 'value', 'windowEnd', 'windowStart'];
const PRIVATE_FAULT = 'Must not target a private, loopback or link-local address.';
const URL_FAULT = 'Must be an absolute http or https URL.';
const CREDENTIALS_FAULT = 'Must not contain credentials.';
const HOST_FAULT = 'Must name a valid host: no empty labels, at most one trailing dot.';

function ok(res: LightMyRequestResponse, status = 200): Json {
  expect(res.statusCode, res.body.slice(0, 500)).toBe(status);
  return res.json() as Json;
}

const iso = (ms: number) => new Date(ms).toISOString();
const seconds = (ms: number) => Math.floor(ms / 1000);

// ---- a local webhook receiver ------------------------------------------------------------------

interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  /** Every request, in arrival order. */
  requests: Received[];
  /** The status to answer a request with (200 unless a test says otherwise). */
  respond: (request: Received) => number;
  url(path: string): string;
  /** The requests to one path (each test uses its own path). */
  at(path: string): Received[];
  close(): Promise<void>;
}

/** A node:http server on 127.0.0.1 (a port the OS picks) that records requests and answers as told. */
async function startReceiver(): Promise<Receiver> {
  const receiver = {
    requests: [] as Received[],
    respond: (() => 200) as (request: Received) => number,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      receiver.requests.push(received);
      res.statusCode = receiver.respond(received);
      res.end('{"received":true}');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    at: (path: string) => receiver.requests.filter((r) => r.path === path),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** Checks a `sightline-signature` header the way a receiver would: recompute the HMAC, compare in constant time. */
function verifySignature(header: unknown, body: string, secret: string): { t: number; valid: boolean } {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  if (!match) throw new Error(`malformed signature header: ${String(header)}`);
  const t = Number(match[1]);
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  const given = Buffer.from(match[2]!, 'hex');
  return { t, valid: given.length === expected.length && timingSafeEqual(given, expected) };
}

// ---- API helpers -------------------------------------------------------------------------------

function helpers(ctx: TestContext) {
  const base = (projectId: string) => `/v1/projects/${projectId}/monitors`;
  /** Monitors created by the running test, deleted after it so nothing it queued is left pending. */
  const created: { projectId: string; id: string; token: string }[] = [];
  const create = (caller: Caller, projectId: string, body: Json) => ctx.request('POST', base(projectId), { token: caller.token, body });
  /** "Fewer than one run in 5m": alerting at once on a project without runs. */
  async function alerting(caller: Caller, projectId: string, webhookUrls: string[], extra: Json = {}): Promise<Json> {
    const body = ok(
      await create(caller, projectId, { name: 'silence', metric: 'count', window: '5m', threshold: { op: '<', value: 1 }, webhookUrls, ...extra }),
      201,
    );
    created.push({ projectId, id: body.id, token: caller.token });
    return body;
  }
  const patch = (caller: Caller, projectId: string, id: string, body: Json) => ctx.request('PATCH', `${base(projectId)}/${id}`, { token: caller.token, body });
  const get = (caller: Caller, url: string) => ctx.request('GET', url, { token: caller.token });
  const attempts = async (caller: Caller, projectId: string, id: string): Promise<Json[]> => {
    const page = ok(await get(caller, `${base(projectId)}/${id}/deliveries?limit=100`));
    expect(page.nextCursor).toBeNull();
    return page.items as Json[];
  };
  const events = async (caller: Caller, projectId: string, id: string): Promise<Json[]> =>
    ok(await get(caller, `${base(projectId)}/${id}/events?limit=100`)).items as Json[];
  /** A run one minute ago, then the next scheduled evaluation: the monitor goes alerting → ok. */
  async function bringBackToOk(projectId: string, monitorId: string): Promise<void> {
    await ctx.make.runs(projectId, 1, () => ({ startTime: iso(clock.now() - MINUTE) }));
    clock.advance(61 * SECOND);
    expect(await ctx.app.monitoring.evaluateDue()).toContain(monitorId);
  }
  async function cleanUp(): Promise<void> {
    for (const m of created.splice(0)) {
      const res = await ctx.request('DELETE', `${base(m.projectId)}/${m.id}`, { token: m.token });
      expect([204, 404]).toContain(res.statusCode);
    }
  }
  return { base, created, create, alerting, patch, get, attempts, events, bringBackToOk, cleanUp };
}

// ---- deliveries to a local receiver (private targets allowed) ----------------------------------

describeEachDialect(
  'monitor webhooks: delivery',
  (ctx) => {
    const h = helpers(ctx);
    let receiver: Receiver;
    let owner: Caller;

    beforeAll(async () => {
      receiver = await startReceiver();
      owner = await ctx.make.caller({ role: 'owner' });
    });
    afterAll(async () => {
      await receiver?.close();
    });
    beforeEach(() => {
      receiver.respond = () => 200;
    });
    afterEach(async () => {
      await h.cleanUp();
      // Every test leaves the queue empty: later tests count attempts exactly.
      clock.advance(HOUR);
      expect(await ctx.app.monitoring.deliverDue()).toBe(0);
    });

    const silentProject = async () => (await ctx.make.project(owner.organizationId)).id;

    describe('a delivery', () => {
      it('POSTs one signed event per state change; the attempt is listed as succeeded; nothing is sent twice', async () => {
        begin(1_234); // not on a second: the signature's timestamp is the clock's whole seconds
        const projectId = await silentProject();
        const m = await h.alerting(owner, projectId, [receiver.url('/t1')]);
        expect(m.state).toBe('alerting');
        expect(m.webhookSecret).toMatch(/^whsec_/);
        expect(receiver.at('/t1')).toEqual([]); // queued, not sent: no background loop in tests

        const sentAt = clock.now();
        expect(await ctx.app.monitoring.deliverDue()).toBe(1);
        const [event] = await h.events(owner, projectId, m.id);
        expect(event).toMatchObject({ from: 'no_data', to: 'alerting', reason: 'evaluated' });
        const [request] = receiver.at('/t1');
        expect(receiver.at('/t1')).toHaveLength(1);
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
          monitor: { id: m.id, projectId, name: 'silence', metric: 'count', window: '5m', threshold: { op: '<', value: 1 }, filter: m.filter },
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

        const [attempt, ...older] = await h.attempts(owner, projectId, m.id);
        expect(older).toEqual([]);
        expect(Object.keys(attempt!).sort()).toEqual(ATTEMPT_KEYS);
        expect(attempt).toEqual({
          id: expect.stringMatching(/^wha_/),
          deliveryId: request!.headers['sightline-delivery-id'],
          eventId: event!.id,
          url: receiver.url('/t1'),
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
        expect(receiver.at('/t1')).toHaveLength(1);

        // A second state change (alerting → ok) is a second event, delivered once.
        await h.bringBackToOk(projectId, m.id);
        expect(await ctx.app.monitoring.deliverDue()).toBe(1);
        expect(await ctx.app.monitoring.deliverDue()).toBe(0);
        const [okEvent] = await h.events(owner, projectId, m.id);
        expect(okEvent).toMatchObject({ from: 'alerting', to: 'ok', value: 1, count: 1 });
        expect(receiver.at('/t1')).toHaveLength(2);
        const second = receiver.at('/t1')[1]!;
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
        const listed = await h.attempts(owner, projectId, m.id);
        expect(listed.map((a) => [a.eventId, a.attempt, a.outcome])).toEqual([
          [okEvent!.id, 1, 'succeeded'],
          [event!.id, 1, 'succeeded'],
        ]);
      });

      it('one delivery per URL: each URL gets the event once, with its own delivery id', async () => {
        begin();
        const projectId = await silentProject();
        const m = await h.alerting(owner, projectId, [receiver.url('/t1b/a'), receiver.url('/t1b/b')]);
        expect(await ctx.app.monitoring.deliverDue()).toBe(2);
        expect(await ctx.app.monitoring.deliverDue()).toBe(0);
        const [a] = receiver.at('/t1b/a');
        const [b] = receiver.at('/t1b/b');
        expect(receiver.at('/t1b/a')).toHaveLength(1);
        expect(receiver.at('/t1b/b')).toHaveLength(1);
        expect(a!.headers['sightline-event-id']).toBe(b!.headers['sightline-event-id']);
        expect(a!.headers['sightline-delivery-id']).not.toBe(b!.headers['sightline-delivery-id']);
        expect(a!.body).toBe(b!.body);
        const listed = await h.attempts(owner, projectId, m.id);
        expect(listed.map((x) => x.url).sort()).toEqual([receiver.url('/t1b/a'), receiver.url('/t1b/b')]);
        expect(listed.every((x) => x.outcome === 'succeeded' && x.responseStatus === 200)).toBe(true);
      });

      it('a monitor without webhook URLs records events but queues nothing', async () => {
        begin();
        const projectId = await silentProject();
        const m = await h.alerting(owner, projectId, []);
        expect(await h.events(owner, projectId, m.id)).toHaveLength(1);
        expect(await ctx.app.monitoring.deliverDue()).toBe(0);
        expect(await h.attempts(owner, projectId, m.id)).toEqual([]);
      });
    });

    describe('retries', () => {
      it('retries after a 500 at nextAttemptAt: same event and delivery, attempt 2, a fresh signature', async () => {
        begin();
        const projectId = await silentProject();
        let answered = 0;
        receiver.respond = (r) => (r.path === '/t2' && answered++ === 0 ? 500 : 200);
        const m = await h.alerting(owner, projectId, [receiver.url('/t2')]);

        const firstAt = clock.now();
        expect(await ctx.app.monitoring.deliverDue()).toBe(1);
        const [failed] = await h.attempts(owner, projectId, m.id);
        expect(failed).toMatchObject({ attempt: 1, outcome: 'retrying', responseStatus: 500, error: 'The receiver answered 500.', createdAt: iso(firstAt) });
        // Backoff: 10 s for the first retry, jittered to 75–100 %.
        const nextAt = Date.parse(failed!.nextAttemptAt);
        expect(nextAt - firstAt).toBeGreaterThanOrEqual(0.75 * BACKOFF_MS);
        expect(nextAt - firstAt).toBeLessThanOrEqual(BACKOFF_MS);

        // Not due yet: nothing is attempted.
        expect(await ctx.app.monitoring.deliverDue()).toBe(0);
        clock.set(nextAt - 1);
        expect(await ctx.app.monitoring.deliverDue()).toBe(0);
        expect(receiver.at('/t2')).toHaveLength(1);

        // Due at nextAttemptAt.
        clock.set(nextAt);
        expect(await ctx.app.monitoring.deliverDue()).toBe(1);
        expect(await ctx.app.monitoring.deliverDue()).toBe(0);
        const [first, second] = receiver.at('/t2');
        expect(receiver.at('/t2')).toHaveLength(2);
        expect(second!.headers['sightline-event-id']).toBe(first!.headers['sightline-event-id']);
        expect(second!.headers['sightline-delivery-id']).toBe(first!.headers['sightline-delivery-id']);
        expect(first!.headers['sightline-delivery-attempt']).toBe('1');
        expect(second!.headers['sightline-delivery-attempt']).toBe('2');
        expect(second!.body).toBe(first!.body); // the same event, byte for byte
        // Each attempt is signed at its own time.
        expect(verifySignature(first!.headers['sightline-signature'], first!.body, m.webhookSecret)).toEqual({ t: seconds(firstAt), valid: true });
        expect(verifySignature(second!.headers['sightline-signature'], second!.body, m.webhookSecret)).toEqual({ t: seconds(nextAt), valid: true });
        expect(second!.headers['sightline-signature']).not.toBe(first!.headers['sightline-signature']);

        const listed = await h.attempts(owner, projectId, m.id);
        expect(listed).toHaveLength(2);
        expect(listed[0]).toMatchObject({ attempt: 2, outcome: 'succeeded', responseStatus: 200, error: null, nextAttemptAt: null, createdAt: iso(nextAt) });
        expect(listed[1]).toMatchObject({ attempt: 1, outcome: 'retrying', responseStatus: 500 });
        expect(listed[0]!.deliveryId).toBe(listed[1]!.deliveryId);
        expect(listed[0]!.eventId).toBe(listed[1]!.eventId);
        expect(listed[0]!.deliveryId).toBe(first!.headers['sightline-delivery-id']);

        // The list pages newest first.
        const page1 = ok(await h.get(owner, `${h.base(projectId)}/${m.id}/deliveries?limit=1`));
        expect(page1.items.map((a: Json) => a.attempt)).toEqual([2]);
        expect(page1.nextCursor).toEqual(expect.any(String));
        const page2 = ok(await h.get(owner, `${h.base(projectId)}/${m.id}/deliveries?limit=1&cursor=${encodeURIComponent(page1.nextCursor)}`));
        expect(page2.items.map((a: Json) => a.attempt)).toEqual([1]);
        expect(page2.nextCursor).toBeNull();
      });

      it(`gives up once the retry window (${RETRY_WINDOW_SECONDS} s) is over: failed, no next attempt, nothing more`, async () => {
        begin();
        const projectId = await silentProject();
        const closed = `http://127.0.0.1:${await freePort()}/t3`; // nothing listens: a network error
        receiver.respond = () => 500;
        const m = await h.alerting(owner, projectId, [receiver.url('/t3'), closed]);
        const queuedAt = clock.now();

        // Attempt whatever is due, then move the clock to the earliest scheduled retry; until none is left.
        for (let pass = 0; pass < 20; pass++) {
          expect(await ctx.app.monitoring.deliverDue()).toBeGreaterThan(0);
          const latest = new Map<string, Json>();
          for (const a of await h.attempts(owner, projectId, m.id)) if (!latest.has(a.deliveryId)) latest.set(a.deliveryId, a);
          const retries = [...latest.values()].filter((a) => a.outcome === 'retrying').map((a) => Date.parse(a.nextAttemptAt));
          if (retries.length === 0) break;
          clock.set(Math.min(...retries));
        }

        const listed = await h.attempts(owner, projectId, m.id);
        for (const url of [receiver.url('/t3'), closed]) {
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
        expect(receiver.at('/t3').map((r) => r.headers['sightline-delivery-attempt'])).toEqual(['1', '2', '3']);

        // Given up: never attempted again (the longest backoff is an hour).
        clock.advance(HOUR);
        expect(await ctx.app.monitoring.deliverDue()).toBe(0);
        expect(receiver.at('/t3')).toHaveLength(3);
        expect(await h.attempts(owner, projectId, m.id)).toHaveLength(6);
      });
    });

    describe('secret rotation', () => {
      it('after POST …/rotate-secret, deliveries (new ones and retries) are signed with the new secret only', async () => {
        begin();
        const projectId = await silentProject();
        const m = await h.alerting(owner, projectId, [receiver.url('/t4')]);
        expect(await ctx.app.monitoring.deliverDue()).toBe(1);
        const before = receiver.at('/t4')[0]!;
        expect(verifySignature(before.headers['sightline-signature'], before.body, m.webhookSecret).valid).toBe(true);

        const rotated = ok(await ctx.request('POST', `${h.base(projectId)}/${m.id}/rotate-secret`, { token: owner.token }));
        expect(rotated.webhookSecret).toMatch(/^whsec_/);
        expect(rotated.webhookSecret).not.toBe(m.webhookSecret);

        // A new event after the rotation: signed with the new secret, not the old one.
        receiver.respond = (r) => (r.path === '/t4' && receiver.at('/t4').length === 2 ? 500 : 200);
        await h.bringBackToOk(projectId, m.id);
        expect(await ctx.app.monitoring.deliverDue()).toBe(1);
        const after = receiver.at('/t4')[1]!;
        expect(verifySignature(after.headers['sightline-signature'], after.body, rotated.webhookSecret)).toEqual({ t: seconds(clock.now()), valid: true });
        expect(verifySignature(after.headers['sightline-signature'], after.body, m.webhookSecret).valid).toBe(false);

        // That attempt got a 500; rotate again before its retry: the retry is signed with the newest secret.
        const [retrying] = await h.attempts(owner, projectId, m.id);
        expect(retrying).toMatchObject({ outcome: 'retrying', attempt: 1 });
        const again = ok(await ctx.request('POST', `${h.base(projectId)}/${m.id}/rotate-secret`, { token: owner.token }));
        clock.set(Date.parse(retrying!.nextAttemptAt));
        expect(await ctx.app.monitoring.deliverDue()).toBe(1);
        const retry = receiver.at('/t4')[2]!;
        expect(retry.headers['sightline-delivery-attempt']).toBe('2');
        expect(verifySignature(retry.headers['sightline-signature'], retry.body, again.webhookSecret).valid).toBe(true);
        expect(verifySignature(retry.headers['sightline-signature'], retry.body, rotated.webhookSecret).valid).toBe(false);
        expect((await h.attempts(owner, projectId, m.id))[0]).toMatchObject({ attempt: 2, outcome: 'succeeded' });
      });

      it('rotating an unknown monitor is a 404; viewers may not rotate (403)', async () => {
        begin();
        const projectId = await silentProject();
        const m = await h.alerting(owner, projectId, []);
        expectProblem(await ctx.request('POST', `${h.base(projectId)}/mon_nope/rotate-secret`, { token: owner.token }), 404, 'not-found');
        const viewer = await ctx.make.caller({ role: 'viewer', organizationId: owner.organizationId });
        expectProblem(await ctx.request('POST', `${h.base(projectId)}/${m.id}/rotate-secret`, { token: viewer.token }), 403, 'forbidden');
      });
    });

    describe('who sees deliveries', () => {
      it('viewers list deliveries and events; another organization gets 404 for both', async () => {
        begin();
        const projectId = await silentProject();
        const m = await h.alerting(owner, projectId, [receiver.url('/t6')]);
        expect(await ctx.app.monitoring.deliverDue()).toBe(1);

        const viewer = await ctx.make.caller({ role: 'viewer', organizationId: owner.organizationId });
        const seen = await h.attempts(viewer, projectId, m.id);
        expect(seen).toEqual(await h.attempts(owner, projectId, m.id));
        expect(seen.map((a) => a.outcome)).toEqual(['succeeded']);
        expect((await h.events(viewer, projectId, m.id)).map((e) => [e.from, e.to])).toEqual([['no_data', 'alerting']]);

        const stranger = await ctx.make.caller();
        const strangerProject = (await ctx.make.project(stranger.organizationId)).id;
        for (const path of ['deliveries', 'events']) {
          expectProblem(await h.get(stranger, `${h.base(projectId)}/${m.id}/${path}`), 404, 'not-found');
          expectProblem(await h.get(stranger, `${h.base(strangerProject)}/${m.id}/${path}`), 404, 'not-found');
        }
        expectProblem(await h.get(owner, `${h.base(projectId)}/mon_nope/deliveries`), 404, 'not-found');
        expectProblem(await h.get(owner, `${h.base(projectId)}/${m.id}/deliveries?limit=abc`), 400, 'validation');
        expectProblem(await h.get(owner, `${h.base(projectId)}/${m.id}/deliveries?cursor=garbage`), 400, 'validation');
        expectProblem(await ctx.request('GET', `${h.base(projectId)}/${m.id}/deliveries`), 401, 'unauthorized');
      });
    });
  },
  { clock, env: { SIGHTLINE_WEBHOOK_ALLOW_PRIVATE: 'true', SIGHTLINE_WEBHOOK_RETRY_SECONDS: String(RETRY_WINDOW_SECONDS) } },
);

// ---- the SSRF guard (the default: private targets refused) -------------------------------------

/** URLs refused at create and patch, with the fault each gets. */
const REFUSED: [string, string][] = [
  ['http://127.0.0.1:9/x', PRIVATE_FAULT],
  ['http://localhost/x', PRIVATE_FAULT],
  ['http://localhost./x', PRIVATE_FAULT], // the same name, fully qualified
  ['http://foo.localhost/x', PRIVATE_FAULT],
  ['http://[::1]/x', PRIVATE_FAULT],
  ['http://169.254.169.254/latest/meta-data', PRIVATE_FAULT],
  ['http://10.0.0.1/', PRIVATE_FAULT],
  ['http://172.16.0.1/', PRIVATE_FAULT],
  ['http://192.168.1.1/', PRIVATE_FAULT],
  ['http://[::ffff:127.0.0.1]/', PRIVATE_FAULT],
  ['http://[fd00::1]/', PRIVATE_FAULT],
  ['http://0.0.0.0/', PRIVATE_FAULT],
  ['http://0x7f000001/', PRIVATE_FAULT], // 127.0.0.1 in another spelling
  ['http://intranet/', PRIVATE_FAULT], // a single label resolves through the search domains
  // Other spellings of loopback that the URL parser turns into the address, or that end in one dot.
  ['http://LOCALHOST./x', PRIVATE_FAULT],
  ['http://127.0.0.1./x', PRIVATE_FAULT],
  ['http://127.1/', PRIVATE_FAULT],
  ['http://0x7f.1/', PRIVATE_FAULT],
  ['http://0x7f.1./', PRIVATE_FAULT],
  ['http://2130706433/', PRIVATE_FAULT],
  ['http://0177.0.0.1/', PRIVATE_FAULT],
  ['http://0/', PRIVATE_FAULT],
  ['http://[0:0:0:0:0:0:0:1]/', PRIVATE_FAULT],
  ['http://[::ffff:7f00:1]/', PRIVATE_FAULT],
  ['http://[::127.0.0.1]/', PRIVATE_FAULT],
  ['http://[::ffff:169.254.169.254]/', PRIVATE_FAULT],
  ['http://[64:ff9b::127.0.0.1]/', PRIVATE_FAULT],
  // Empty labels: more than the one trailing dot of a fully qualified name (the URL parser keeps them).
  ['http://localhost..:8080/x', HOST_FAULT],
  ['http://localhost...:8080/x', HOST_FAULT],
  ['http://LOCALHOST..:8080/x', HOST_FAULT],
  ['http://localhost%2e%2e/x', HOST_FAULT], // percent-encoded dots
  ['http://localhost\u3002\u3002/x', HOST_FAULT], // ideographic full stops, which the parser maps to dots
  ['http://foo.localhost../x', HOST_FAULT],
  ['http://.localhost/x', HOST_FAULT],
  ['http://127.0.0.1..:9/x', HOST_FAULT],
  ['http://0x7f.1../', HOST_FAULT],
  ['http://169.254.169.254../latest/meta-data', HOST_FAULT],
  ['http://hooks..example.com/', HOST_FAULT], // a public name, but not a name
  ['http://hooks.example.com../', HOST_FAULT],
  ['http://..:8080/', HOST_FAULT],
  ['ftp://example.com/', URL_FAULT],
  ['file:///etc/passwd', URL_FAULT],
  ['not a url', URL_FAULT],
  ['http://user:pw@example.com/', CREDENTIALS_FAULT],
];

describeEachDialect(
  'monitor webhooks: SSRF guard',
  (ctx) => {
    const h = helpers(ctx);
    let owner: Caller;
    let projectId: string;

    beforeAll(async () => {
      owner = await ctx.make.caller({ role: 'owner' });
      projectId = (await ctx.make.project(owner.organizationId)).id;
    });
    afterEach(async () => {
      await h.cleanUp();
    });

    /** Fillers put the bad URL at a varying index, so the pointer is checked, not assumed. */
    const withFillers = (bad: string, i: number) => [...Array.from({ length: i % 3 }, (_, k) => `https://hooks.example.com/filler-${k}`), bad];

    it('create refuses private, loopback, link-local, non-http and credentialed URLs: 400 naming /webhookUrls/<i>', async () => {
      begin();
      for (const [i, [bad, detail]] of REFUSED.entries()) {
        const res = await h.create(owner, projectId, {
          name: 'x',
          metric: 'count',
          window: '5m',
          threshold: { op: '<', value: 1 },
          webhookUrls: withFillers(bad, i),
        });
        const body = expectProblem(res, 400, 'validation');
        expect(body.errors, bad).toEqual([{ pointer: `/webhookUrls/${i % 3}`, detail }]);
      }
      // Two bad URLs: both named.
      const both = expectProblem(
        await h.create(owner, projectId, {
          name: 'x',
          metric: 'count',
          window: '5m',
          webhookUrls: ['http://10.0.0.1/', 'https://ok.example.com/', 'gopher://x'],
        }),
        400,
        'validation',
      );
      expect(both.errors).toEqual([
        { pointer: '/webhookUrls/0', detail: PRIVATE_FAULT },
        { pointer: '/webhookUrls/2', detail: URL_FAULT },
      ]);
      // Nothing was created.
      expect(ok(await h.get(owner, h.base(projectId))).items).toEqual([]);
    });

    it('create accepts a public https URL without contacting it', async () => {
      begin();
      const m = await h.alerting(owner, projectId, ['https://hooks.example.com/x']);
      expect(m.webhookUrls).toEqual(['https://hooks.example.com/x']);
      expect(m.state).toBe('alerting'); // a delivery is queued…
      expect(await h.attempts(owner, projectId, m.id)).toEqual([]); // …but nothing was attempted
    });

    it('patch refuses the same URLs and leaves the monitor unchanged', async () => {
      begin();
      const m = await h.alerting(owner, projectId, ['https://hooks.example.com/x']);
      for (const [i, [bad, detail]] of REFUSED.entries()) {
        const body = expectProblem(await h.patch(owner, projectId, m.id, { webhookUrls: withFillers(bad, i) }), 400, 'validation');
        expect(body.errors, bad).toEqual([{ pointer: `/webhookUrls/${i % 3}`, detail }]);
      }
      expect(ok(await h.get(owner, `${h.base(projectId)}/${m.id}`)).webhookUrls).toEqual(['https://hooks.example.com/x']);
      const patched = ok(await h.patch(owner, projectId, m.id, { webhookUrls: ['https://hooks.example.com/y', 'http://93.184.216.34/z'] }));
      expect(patched.webhookUrls).toEqual(['https://hooks.example.com/y', 'http://93.184.216.34/z']);
    });

    it('refuses a private target at delivery time: the attempt fails at once, is not retried, nothing is sent', async () => {
      begin();
      const receiver = await startReceiver();
      try {
        const m = await h.alerting(owner, projectId, ['https://hooks.example.com/x']);
        // A delivery queued for a loopback URL (as one accepted while the instance allowed private
        // targets would be): the create check cannot have caught it, the delivery-time check must.
        const target = receiver.url('/ssrf');
        const updated = await ctx.database.storage.db.updateTable('webhook_deliveries').set({ url: target }).where('monitor_id', '=', m.id).executeTakeFirst();
        expect(Number(updated.numUpdatedRows)).toBe(1);

        expect(await ctx.app.monitoring.deliverDue()).toBe(1);
        const [attempt, ...more] = await h.attempts(owner, projectId, m.id);
        expect(more).toEqual([]);
        expect(attempt).toMatchObject({ url: target, attempt: 1, outcome: 'failed', responseStatus: null, nextAttemptAt: null, error: PRIVATE_FAULT });
        clock.advance(HOUR);
        expect(await ctx.app.monitoring.deliverDue()).toBe(0);
        expect(receiver.requests).toEqual([]);
      } finally {
        await receiver.close();
      }
    });
  },
  { clock },
);

// ---- webhook-target units ----------------------------------------------------------------------

/** Non-public IPv4 networks (a sample of the guard's list), as [first address, prefix length]. */
const PRIVATE_V4: [number, number][] = [
  [0x7f000000, 8], // loopback
  [0x0a000000, 8],
  [0xac100000, 12],
  [0xc0a80000, 16],
  [0xa9fe0000, 16], // link-local, cloud metadata
  [0x64400000, 10], // carrier-grade NAT
  [0x00000000, 8],
];
const dotted = (v: number) => [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');

/** A non-public IPv4 address: [dotted form, 32-bit value]. */
const privateIpv4 = fc.tuple(fc.constantFrom(...PRIVATE_V4), fc.nat()).map(([[base, prefix], n]) => {
  const value = (base + (prefix === 32 ? 0 : n % 2 ** (32 - prefix))) >>> 0;
  return [dotted(value), value] as const;
});

/** The spellings of an IPv4 address the WHATWG URL parser accepts: decimal, octal, hex, per part, and shortened to 3, 2 or 1 parts. */
const ipv4Spelling = fc
  .tuple(fc.constantFrom(1, 2, 3, 4), fc.array(fc.constantFrom('dec', 'oct', 'hex'), { minLength: 4, maxLength: 4 }))
  .map(([parts, radixes]) => (value: number) => {
    const bytes = [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
    // The last part carries all the remaining bytes.
    const numbers = [...bytes.slice(0, parts - 1), bytes.slice(parts - 1).reduce((n, b) => n * 256 + b, 0)];
    const spell = (n: number, radix: string) => (radix === 'hex' ? `0x${n.toString(16)}` : radix === 'oct' ? `0${n.toString(8)}` : String(n));
    return numbers.map((n, i) => spell(n, radixes[i]!)).join('.');
  });

/** IPv6 literals that carry a non-public IPv4 address (mapped, compatible, NAT64) or are loopback itself. */
const ipv6Embedding = fc.constantFrom(
  (v: number) => `::ffff:${dotted(v)}`,
  (v: number) => `::ffff:${(v >>> 16).toString(16)}:${(v & 0xffff).toString(16)}`,
  (v: number) => `0:0:0:0:0:ffff:${dotted(v)}`,
  (v: number) => `::${dotted(v)}`,
  (v: number) => `64:ff9b::${dotted(v)}`,
  () => '::1',
  () => '0:0:0:0:0:0:0:1',
  () => '0000:0000:0000:0000:0000:0000:0000:0001',
  () => '::0:1',
);

describe('webhook-target', () => {
  describe('isPrivateAddress', () => {
    const cases: [string, boolean][] = [
      // Public.
      ['8.8.8.8', false],
      ['1.1.1.1', false],
      ['93.184.216.34', false],
      ['172.32.0.1', false], // just past 172.16/12
      ['100.128.0.1', false], // just past 100.64/10
      ['192.169.0.1', false],
      ['11.0.0.1', false],
      ['2606:4700:4700::1111', false],
      ['2001:4860:4860::8888', false],
      ['::ffff:8.8.8.8', false],
      ['::ffff:808:808', false],
      // Private, loopback, link-local, reserved.
      ['127.0.0.1', true],
      ['127.255.255.254', true],
      ['10.0.0.1', true],
      ['10.255.255.255', true],
      ['172.16.0.1', true],
      ['172.31.255.255', true],
      ['192.168.1.1', true],
      ['169.254.169.254', true],
      ['100.64.0.1', true],
      ['0.0.0.0', true],
      ['224.0.0.1', true],
      ['255.255.255.255', true],
      ['192.0.2.1', true],
      ['::1', true],
      ['::', true],
      ['0:0:0:0:0:0:0:1', true],
      ['fe80::1', true],
      ['FE80::1', true],
      ['fc00::1', true],
      ['fd12:3456::1', true],
      ['ff02::1', true],
      ['2001:db8::1', true],
      ['::ffff:127.0.0.1', true],
      ['::ffff:7f00:1', true], // the same, in hex
      ['0:0:0:0:0:ffff:7f00:1', true],
      ['::ffff:10.0.0.1', true],
      ['::ffff:169.254.169.254', true],
      ['64:ff9b::7f00:1', true], // NAT64 of 127.0.0.1
      ['2002:7f00:1::', true], // 6to4 of 127.0.0.1
      // Not an address at all: refused.
      ['localhost', true],
      ['', true],
    ];
    for (const [address, expected] of cases) {
      it(`${address || '(empty)'} → ${expected ? 'private' : 'public'}`, () => {
        expect(isPrivateAddress(address)).toBe(expected);
      });
    }
  });

  describe('webhookUrlFault', () => {
    it('takes a public name with one trailing dot (a fully qualified name) and refuses it with two', () => {
      expect(webhookUrlFault('https://hooks.example.com./x', false)).toBeNull();
      expect(webhookUrlFault('https://hooks.example.com../x', false)).toBe(HOST_FAULT);
      // Empty labels are refused even where private targets are allowed: they name no host at all.
      expect(webhookUrlFault('http://localhost..:8080/', true)).toBe(HOST_FAULT);
      expect(webhookUrlFault('http://localhost.:8080/', true)).toBeNull();
    });

    it('property: a private IPv4 address in any spelling the URL parser accepts is refused; with two or more trailing dots, as no host', () => {
      fc.assert(
        fc.property(privateIpv4, ipv4Spelling, fc.nat({ max: 4 }), fc.boolean(), ([address, value], spell, dots, upper) => {
          let host = spell(value) + '.'.repeat(dots);
          if (upper) host = host.toUpperCase();
          const fault = webhookUrlFault(`http://${host}:8080/hook`, false);
          expect(fault, `${host} (${address})`).toBe(dots <= 1 ? PRIVATE_FAULT : HOST_FAULT);
        }),
        { numRuns: 1000 },
      );
    });

    it('property: localhost and its subdomains, in any case, with any number of trailing dots, are refused', () => {
      const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
      const name = fc.tuple(fc.array(label, { maxLength: 3 }), fc.nat({ max: 5 }), fc.boolean(), fc.constantFrom('.', '%2e', '\u3002'));
      fc.assert(
        fc.property(name, ([subdomains, dots, upper, dot]) => {
          let host = [...subdomains, 'localhost'].join('.') + dot.repeat(dots);
          if (upper) host = host.toUpperCase();
          const fault = webhookUrlFault(`http://${host}/`, false);
          expect(fault, host).toBe(dots <= 1 ? PRIVATE_FAULT : HOST_FAULT);
        }),
        { numRuns: 500 },
      );
    });

    it('property: loopback, mapped and NAT64 IPv6 literals in any spelling are refused', () => {
      fc.assert(
        fc.property(privateIpv4, ipv6Embedding, fc.boolean(), ([, value], embed, upper) => {
          let host = embed(value);
          if (upper) host = host.toUpperCase();
          expect(webhookUrlFault(`http://[${host}]:8080/`, false), host).toBe(PRIVATE_FAULT);
        }),
        { numRuns: 500 },
      );
    });

    it('property: a public name is taken with at most one trailing dot, and refused with an empty label anywhere', () => {
      const label = fc.stringMatching(/^[a-z]([a-z0-9-]{0,10}[a-z0-9])?$/);
      const name = fc.tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom('example.com', 'hooks.example.org'));
      fc.assert(
        fc.property(name, fc.nat({ max: 3 }), fc.nat({ max: 4 }), ([labels, domain], dots, at) => {
          const good = [...labels, domain].join('.');
          expect(webhookUrlFault(`https://${good}${'.'.repeat(Math.min(dots, 1))}/x`, false), good).toBeNull();
          const parts = good.split('.');
          parts.splice(Math.min(at, parts.length - 1), 0, ''); // before a label: a leading or a doubled dot
          const bad = parts.join('.');
          expect(webhookUrlFault(`https://${bad}/x`, false), bad).toBe(HOST_FAULT);
          expect(webhookUrlFault(`https://${good}${'.'.repeat(dots + 2)}/x`, false), good).toBe(HOST_FAULT);
        }),
        { numRuns: 500 },
      );
    });
  });

  describe('resolveTarget', () => {
    it('refuses a name that resolves to loopback (through /etc/hosts) unless private targets are allowed', async () => {
      const refused = resolveTarget(new URL('http://localhost:1/'), false);
      await expect(refused).rejects.toBeInstanceOf(TargetRefused);
      await expect(refused).rejects.toThrow(/non-public address/);
      const allowed = await resolveTarget(new URL('http://localhost:1/'), true);
      expect(isPrivateAddress(allowed.address)).toBe(true);
      expect([4, 6]).toContain(allowed.family);
    });

    it('takes IP literals as they are (no DNS): public ones pass, private ones are refused', async () => {
      expect(await resolveTarget(new URL('http://8.8.8.8/'), false)).toEqual({ address: '8.8.8.8', family: 4 });
      expect(await resolveTarget(new URL('http://[2606:4700:4700::1111]/'), false)).toEqual({ address: '2606:4700:4700::1111', family: 6 });
      await expect(resolveTarget(new URL('http://169.254.169.254/'), false)).rejects.toBeInstanceOf(TargetRefused);
      await expect(resolveTarget(new URL('http://[::ffff:127.0.0.1]/'), false)).rejects.toBeInstanceOf(TargetRefused);
      expect(await resolveTarget(new URL('http://127.0.0.1/'), true)).toEqual({ address: '127.0.0.1', family: 4 });
    });
  });

  describe('postJson', () => {
    let receiver: Receiver;
    beforeAll(async () => {
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await receiver?.close();
    });

    it('refuses a loopback target when private targets are not allowed, sending nothing', async () => {
      const port = Number(new URL(receiver.url('/')).port);
      for (const url of [`http://localhost:${port}/`, `http://127.0.0.1:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`]) {
        await expect(postJson(url, '{}', {}, { timeoutMs: 1000, allowPrivate: false }), url).rejects.toBeInstanceOf(TargetRefused);
      }
      expect(receiver.requests).toEqual([]);
    });

    it('POSTs the body and headers when allowed, and resolves with the status (no redirects followed)', async () => {
      receiver.respond = (r) => (r.path === '/moved' ? 302 : r.path === '/teapot' ? 418 : 200);
      expect(await postJson(receiver.url('/ok'), '{"a":1}', { 'x-test': 'yes' }, { timeoutMs: 1000, allowPrivate: true })).toEqual({ status: 200 });
      const [request] = receiver.at('/ok');
      expect(request).toMatchObject({ method: 'POST', body: '{"a":1}' });
      expect(request!.headers).toMatchObject({ 'content-type': 'application/json', 'content-length': '7', 'x-test': 'yes' });
      expect(await postJson(receiver.url('/teapot'), '{}', {}, { timeoutMs: 1000, allowPrivate: true })).toEqual({ status: 418 });
      expect(await postJson(receiver.url('/moved'), '{}', {}, { timeoutMs: 1000, allowPrivate: true })).toEqual({ status: 302 });
      expect(receiver.requests.map((r) => r.path)).toEqual(['/ok', '/teapot', '/moved']);
    });

    it('rejects (not TargetRefused) when nothing listens', async () => {
      const port = await freePort();
      const failed = postJson(`http://127.0.0.1:${port}/`, '{}', {}, { timeoutMs: 1000, allowPrivate: true });
      await expect(failed).rejects.toThrow();
      await expect(failed).rejects.not.toBeInstanceOf(TargetRefused);
    });
  });
});
