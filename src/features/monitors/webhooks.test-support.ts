// What the webhooks suites (webhooks*.test.ts) share: the clock and its hours, the record shapes, the calls bound to a context, the delivery setup.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect } from 'vitest';
import { describeEachDialect, manualClock, type Caller, type TestContext } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { startReceiver, type Receiver } from '../../../test/helpers/webhooks.js';

export const NOW = Date.parse('2026-11-20T12:00:00.000Z');
export const SECOND = 1000;
export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const clock = manualClock(NOW);

/**
 * Each test starts on the next whole hour of a clock that only moves forward (tokens and signing keys
 * issued earlier must never lie in the future), at least an hour after anything an earlier test did.
 */
export function begin(offsetMs = 0): number {
  const start = Math.ceil(clock.now() / HOUR) * HOUR + HOUR;
  clock.set(start + offsetMs);
  return start + offsetMs;
}

/** The first retry delay (SIGHTLINE_WEBHOOK_BACKOFF_SECONDS, default 10 s) and the retry window set below. */
export const BACKOFF_MS = 10 * SECOND;
export const RETRY_WINDOW_SECONDS = 30;

export const ATTEMPT_KEYS = ['attempt', 'createdAt', 'deliveryId', 'error', 'eventId', 'id', 'latencyMs', 'nextAttemptAt', 'outcome', 'responseStatus', 'url'];
export const PAYLOAD_KEYS = ['count', 'createdAt', 'from', 'id', 'monitor', 'reason', 'to', 'type', 'value', 'windowEnd', 'windowStart'];

export const iso = (ms: number) => new Date(ms).toISOString();
export const seconds = (ms: number) => Math.floor(ms / 1000);

/** Checks a `sightline-signature` header the way a receiver would: recompute the HMAC, compare in constant time. */
export function verifySignature(header: unknown, body: string, secret: string): { t: number; valid: boolean } {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  if (!match) throw new Error(`malformed signature header: ${String(header)}`);
  const t = Number(match[1]);
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  const given = Buffer.from(match[2]!, 'hex');
  return { t, valid: given.length === expected.length && timingSafeEqual(given, expected) };
}

export function helpers(ctx: TestContext) {
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

export type WebhookHelpers = ReturnType<typeof helpers>;

/** What a delivery suite's tests share, filled in before they run. */
export interface Deliveries {
  receiver: Receiver;
  owner: Caller;
  /** A new project of the owner's, without runs. */
  silentProject(): Promise<string>;
}

/**
 * The delivery suite of one part on each engine: a local receiver (private targets allowed), an owner, the
 * retry window set. Every test leaves the delivery queue empty.
 */
export function describeDeliveries(part: string, body: (ctx: TestContext, h: WebhookHelpers, s: Deliveries) => void): void {
  describeEachDialect(
    'monitor webhooks: delivery',
    (ctx) => {
      const h = helpers(ctx);
      const s = { silentProject: async () => (await ctx.make.project(s.owner.organizationId)).id } as Deliveries;

      beforeAll(async () => {
        s.receiver = await startReceiver();
        s.owner = await ctx.make.caller({ role: 'owner' });
      });
      afterAll(async () => {
        await s.receiver?.close();
      });
      beforeEach(() => {
        s.receiver.respond = () => 200;
      });
      afterEach(async () => {
        await h.cleanUp();
        // Every test leaves the queue empty: later tests count attempts exactly.
        clock.advance(HOUR);
        expect(await ctx.app.monitoring.deliverDue()).toBe(0);
      });

      describe(part, () => body(ctx, h, s));
    },
    { clock, env: { SIGHTLINE_WEBHOOK_ALLOW_PRIVATE: 'true', SIGHTLINE_WEBHOOK_RETRY_SECONDS: String(RETRY_WINDOW_SECONDS) } },
  );
}
