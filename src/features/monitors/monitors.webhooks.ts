import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Kysely, Transaction } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Dialect } from '../../db/dialect.js';
import type { Database, MonitorRow, WebhookDeliveryRow } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Keyring } from '../../lib/keys.js';
import { postJson, TargetRefused } from '../../lib/webhook-target.js';
import type { Evaluation } from './monitors.evaluate.js';
import { CLAIM_BATCH, LEASE_MS } from '../../db/leases.js';
import { sealedWebhookSecret, toMonitor } from './monitors.repo.js';
import { claimDeliveries, deleteDelivery, insertDeliveries, recordAttempt } from './monitors.webhooks.repo.js';
import type { MonitorEvent, MonitorState } from './monitors.schemas.js';

export interface WebhookSettings {
  /** Allow webhook targets on private, loopback and link-local addresses. */
  webhookAllowPrivate: boolean;
  webhookTimeoutMs: number;
  /** First retry delay; doubled each attempt (capped at an hour), with jitter. */
  webhookBackoffMs: number;
  /** Retries stop once a delivery is this old. */
  webhookRetryForMs: number;
}

const MAX_BACKOFF_MS = 3_600_000;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the timestamp is signed, so a replay is detectable. */
export function signatureHeader(secret: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

/** A state change as its webhook payload, with the event it was recorded as. */
export interface StateChange {
  eventId: string;
  from: MonitorState;
  evaluation: Evaluation;
  reason: MonitorEvent['reason'];
  now: number;
}

/** Queues one delivery of a state change per webhook URL, in the caller's transaction. Returns how many. */
export async function queueDeliveries(trx: Transaction<Database>, row: MonitorRow, change: StateChange): Promise<number> {
  const urls = JSON.parse(row.webhook_urls) as string[];
  if (urls.length === 0) return 0;
  const { eventId, from, evaluation, reason, now } = change;
  const monitor = toMonitor(row);
  const payload = JSON.stringify({
    id: eventId,
    type: 'monitor.state_changed',
    createdAt: toIso(now),
    monitor: {
      id: monitor.id,
      projectId: monitor.projectId,
      name: monitor.name,
      metric: monitor.metric,
      score: monitor.score,
      window: monitor.window,
      threshold: monitor.threshold,
      filter: monitor.filter,
    },
    from,
    to: evaluation.state,
    value: evaluation.value,
    count: evaluation.count,
    windowStart: toIso(evaluation.windowStart),
    windowEnd: toIso(evaluation.windowEnd),
    reason,
  });
  await insertDeliveries(
    trx,
    urls.map((url) => ({
      id: newId('whd', now),
      monitor_id: row.id,
      event_id: eventId,
      url,
      payload,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      lease_owner: null,
      lease_until: null,
      created_at: now,
      updated_at: now,
    })),
  );
  return urls.length;
}

/**
 * Webhook deliveries: claimed under a lease like monitors (the queue lives in the database), signed,
 * sent through the SSRF guard, retried with backoff until too old, every attempt logged.
 */
export class WebhookDelivery {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly clock: Clock,
    private readonly keys: Keyring,
    private readonly settings: WebhookSettings,
    private readonly leaseToken: () => string,
    public log: FastifyBaseLogger | null,
  ) {}

  private backoff(attempt: number): number {
    const base = Math.min(MAX_BACKOFF_MS, this.settings.webhookBackoffMs * 2 ** Math.min(attempt - 1, 30));
    return Math.round(base * (0.75 + Math.random() * 0.25));
  }

  private async attempt(delivery: WebhookDeliveryRow, token: string): Promise<void> {
    const sealed = await sealedWebhookSecret(this.db, delivery.monitor_id);
    if (sealed === undefined) {
      await deleteDelivery(this.db, delivery.id);
      return;
    }
    const secret = await this.keys.unseal(sealed);
    const attempt = Number(delivery.attempts) + 1;
    const headers = {
      'sightline-signature': signatureHeader(secret, Math.floor(this.clock.now() / 1000), delivery.payload),
      'sightline-event-id': delivery.event_id,
      'sightline-delivery-id': delivery.id,
      'sightline-delivery-attempt': String(attempt),
    };
    const started = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    let permanent = false;
    try {
      status = (
        await postJson(delivery.url, delivery.payload, headers, { timeoutMs: this.settings.webhookTimeoutMs, allowPrivate: this.settings.webhookAllowPrivate })
      ).status;
      if (status < 200 || status > 299) error = `The receiver answered ${status}.`;
    } catch (caught) {
      permanent = caught instanceof TargetRefused;
      error = (caught as Error).message.slice(0, 500) || 'The request failed.';
    }
    const latencyMs = Math.round(performance.now() - started);
    const now = this.clock.now();
    let outcome: 'succeeded' | 'retrying' | 'failed' = error === null ? 'succeeded' : 'retrying';
    let next: number | null = null;
    if (outcome === 'retrying') {
      next = now + this.backoff(attempt);
      if (permanent || next - Number(delivery.created_at) > this.settings.webhookRetryForMs) {
        outcome = 'failed';
        next = null;
      }
    }
    await recordAttempt(this.db, delivery, token, { attempt, outcome, responseStatus: status, latencyMs, error, nextAttemptAt: next }, now);
  }

  /** One pass over the due deliveries (several at once). Returns how many attempts were made. */
  async deliverDue(): Promise<number> {
    let attempts = 0;
    for (;;) {
      const token = this.leaseToken();
      const now = this.clock.now();
      const rows = await claimDeliveries(this.db, this.dialect, now, token, now + LEASE_MS + this.settings.webhookTimeoutMs);
      await Promise.all(
        rows.map((row) => this.attempt(row, token).catch((error: unknown) => this.log?.error({ err: error, deliveryId: row.id }, 'webhook delivery failed'))),
      );
      attempts += rows.length;
      if (rows.length < CLAIM_BATCH) break;
    }
    return attempts;
  }
}
