import { createHmac, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Kysely, Transaction } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { lockRows, type Dialect } from '../../db/dialect.js';
import type { Database, MonitorRow, WebhookDeliveryRow } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Keyring } from '../../lib/keys.js';
import { problems, type FieldError } from '../../lib/problems.js';
import { postJson, TargetRefused, webhookUrlFault } from '../../lib/webhook-target.js';
import { jsonValueFault } from '../../lib/json.js';
import { definitionOf, evaluate, type Evaluation } from './monitors.evaluate.js';
import { insertMonitor, lockMonitor, normaliseFilter, requireMonitor, setWebhookSecret, thresholdOf, toMonitor, updateMonitor } from './monitors.repo.js';
import type { CreateMonitorInput, MonitorEvent, MonitorState, UpdateMonitorInput } from './monitors.schemas.js';

export interface MonitoringSettings {
  /** How often each enabled monitor is evaluated. */
  intervalMs: number;
  /** Allow webhook targets on private, loopback and link-local addresses. */
  webhookAllowPrivate: boolean;
  webhookTimeoutMs: number;
  /** First retry delay; doubled each attempt (capped at an hour), with jitter. */
  webhookBackoffMs: number;
  /** Retries stop once a delivery is this old. */
  webhookRetryForMs: number;
}

type Reason = MonitorEvent['reason'];

const LEASE_MS = 60_000;
const CLAIM_BATCH = 25;
const MAX_BACKOFF_MS = 3_600_000;

const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the timestamp is signed, so a replay is detectable. */
export function signatureHeader(secret: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

/**
 * Monitors: creation and edits, evaluation (scheduled, on read, after a change) under a lease so that
 * one instance at a time evaluates a monitor, the events of state changes, and webhook deliveries with
 * retries. Instances stay stateless: the schedule, leases and the delivery queue live in the database.
 */
export class Monitoring {
  private readonly instance = randomBytes(6).toString('hex');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private kicked = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly clock: Clock,
    private readonly keys: Keyring,
    readonly settings: MonitoringSettings,
    private log: FastifyBaseLogger | null,
  ) {}

  attachLogger(log: FastifyBaseLogger): void {
    this.log = log;
  }

  // ---- creation and edits ----------------------------------------------------------------------

  webhookFaults(urls: string[] | undefined): FieldError[] {
    return (urls ?? []).flatMap((url, i) => {
      const fault = webhookUrlFault(url, this.settings.webhookAllowPrivate);
      return fault ? [{ pointer: `/webhookUrls/${i}`, detail: fault }] : [];
    });
  }

  private checkInput(input: { filter?: unknown; webhookUrls?: string[] | undefined }): void {
    const faults = this.webhookFaults(input.webhookUrls);
    if (input.filter !== undefined) {
      const fault = jsonValueFault(input.filter, true);
      if (fault) faults.push({ pointer: '/filter', detail: fault });
    }
    if (faults.length > 0) throw problems.validation(faults);
  }

  async create(projectId: string, input: CreateMonitorInput): Promise<{ row: MonitorRow; secret: string }> {
    this.checkInput(input);
    const now = this.clock.now();
    const secret = newSecret();
    const row: MonitorRow = {
      id: newId('mon', now),
      project_id: projectId,
      name: input.name,
      description: input.description ?? '',
      filter: JSON.stringify(normaliseFilter(input.filter)),
      metric: input.metric,
      window_size: input.window,
      threshold_op: input.threshold?.op ?? null,
      threshold_value: input.threshold?.value ?? null,
      enabled: input.enabled === false ? 0 : 1,
      state: 'no_data',
      last_value: null,
      last_count: null,
      last_evaluated_at: null,
      webhook_urls: JSON.stringify(input.webhookUrls ?? []),
      webhook_secret: this.keys.seal(secret),
      next_evaluation_at: now,
      lease_owner: null,
      lease_until: null,
      created_at: now,
      updated_at: now,
    };
    await insertMonitor(this.db, row);
    return { row: (await this.evaluateOne(row.id, 'evaluated', false)) ?? row, secret };
  }

  async update(projectId: string, monitorId: string, input: UpdateMonitorInput): Promise<MonitorRow> {
    this.checkInput(input);
    const now = this.clock.now();
    let reason: Reason | null = null;
    await this.db.transaction().execute(async (trx) => {
      const row = await lockMonitor(trx, this.dialect, projectId, monitorId);
      const before = definitionOf(row);
      const filter = input.filter === undefined ? row.filter : JSON.stringify(normaliseFilter(input.filter));
      const threshold = input.threshold === undefined ? thresholdOf(row.threshold_op, row.threshold_value) : input.threshold;
      const enabled = input.enabled === undefined ? before.enabled : input.enabled;
      const definitionChanged =
        filter !== row.filter ||
        (input.metric ?? row.metric) !== row.metric ||
        (input.window ?? row.window_size) !== row.window_size ||
        JSON.stringify(threshold) !== JSON.stringify(before.threshold);
      const changes: Partial<MonitorRow> = {
        name: input.name ?? row.name,
        description: input.description ?? row.description,
        filter,
        metric: input.metric ?? row.metric,
        window_size: input.window ?? row.window_size,
        threshold_op: threshold?.op ?? null,
        threshold_value: threshold?.value ?? null,
        enabled: enabled ? 1 : 0,
        webhook_urls: input.webhookUrls === undefined ? row.webhook_urls : JSON.stringify(input.webhookUrls),
        updated_at: now,
      };
      if (!enabled) {
        // Paused: no data, at once; a running evaluation loses its lease and is discarded.
        Object.assign(changes, { state: 'no_data', last_value: null, last_count: null, lease_owner: null, lease_until: null });
        if (row.state !== 'no_data') {
          await this.recordChange(
            trx,
            { ...row, ...changes } as MonitorRow,
            row.state as MonitorState,
            { value: null, count: 0, state: 'no_data', windowStart: now, windowEnd: now },
            before.enabled ? 'paused' : 'changed',
            now,
          );
        }
      } else if (definitionChanged || !before.enabled) {
        // Re-evaluated now with the new definition; an evaluation of the old one in flight is discarded.
        Object.assign(changes, { next_evaluation_at: now, lease_owner: null, lease_until: null });
        reason = before.enabled ? 'changed' : 'resumed';
      }
      await updateMonitor(trx, row.id, changes);
    });
    if (reason !== null) await this.evaluateOne(monitorId, reason, false);
    this.kick();
    return requireMonitor(this.db, projectId, monitorId);
  }

  async rotateSecret(projectId: string, monitorId: string): Promise<{ row: MonitorRow; secret: string }> {
    const secret = newSecret();
    await setWebhookSecret(this.db, projectId, monitorId, this.keys.seal(secret), this.clock.now());
    return { row: await requireMonitor(this.db, projectId, monitorId), secret };
  }

  // ---- evaluation ------------------------------------------------------------------------------

  private leaseToken(): string {
    return `${this.instance}:${randomBytes(6).toString('hex')}`;
  }

  /**
   * Claims due monitors for this instance: a conditional UPDATE sets a lease on rows nobody holds, so
   * a monitor is evaluated by one instance at a time (PostgreSQL: the candidates are picked with
   * FOR UPDATE SKIP LOCKED, so concurrent claimers take disjoint sets without waiting).
   */
  private async claim(now: number, token: string, only?: { id: string; requireDue: boolean }): Promise<MonitorRow[]> {
    let candidates = this.db
      .selectFrom('monitors')
      .select('id')
      .where('enabled', '=', 1)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]));
    if (only) {
      candidates = candidates.where('id', '=', only.id);
      if (only.requireDue) candidates = candidates.where('next_evaluation_at', '<=', now);
    } else {
      candidates = candidates.where('next_evaluation_at', '<=', now).orderBy('next_evaluation_at').limit(CLAIM_BATCH);
    }
    return this.db
      .updateTable('monitors')
      .set({ lease_owner: token, lease_until: now + LEASE_MS })
      .where('id', 'in', lockRows(candidates, this.dialect, 'update skip locked'))
      .returningAll()
      .execute();
  }

  /** Evaluates one claimed monitor and stores the result, unless its lease was lost meanwhile. */
  private async complete(row: MonitorRow, token: string, now: number, reason: Reason): Promise<MonitorRow | null> {
    const evaluation = await evaluate(this.db, this.dialect, definitionOf(row), now);
    return this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('monitors')
        .set({
          state: evaluation.state,
          last_value: evaluation.value,
          last_count: evaluation.count,
          last_evaluated_at: now,
          next_evaluation_at: now + this.settings.intervalMs,
          lease_owner: null,
          lease_until: null,
        })
        .where('id', '=', row.id)
        .where('lease_owner', '=', token)
        .returningAll()
        .executeTakeFirst();
      if (!updated) return null;
      if (evaluation.state !== row.state) await this.recordChange(trx, updated, row.state as MonitorState, evaluation, reason, now);
      return updated;
    });
  }

  /** Records a state change and queues one webhook delivery per URL, in the caller's transaction. */
  private async recordChange(
    trx: Transaction<Database>,
    row: MonitorRow,
    from: MonitorState,
    evaluation: Evaluation,
    reason: Reason,
    now: number,
  ): Promise<void> {
    const event = {
      id: newId('mev', now),
      monitor_id: row.id,
      project_id: row.project_id,
      from_state: from,
      to_state: evaluation.state,
      value: evaluation.value,
      count: evaluation.count,
      threshold_op: row.threshold_op,
      threshold_value: row.threshold_value,
      window_start: evaluation.windowStart,
      window_end: evaluation.windowEnd,
      reason,
      created_at: now,
    };
    await trx.insertInto('monitor_events').values(event).execute();
    const urls = JSON.parse(row.webhook_urls) as string[];
    if (urls.length === 0) return;
    const monitor = toMonitor(row);
    const payload = JSON.stringify({
      id: event.id,
      type: 'monitor.state_changed',
      createdAt: toIso(now),
      monitor: {
        id: monitor.id,
        projectId: monitor.projectId,
        name: monitor.name,
        metric: monitor.metric,
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
    await trx
      .insertInto('webhook_deliveries')
      .values(
        urls.map((url) => ({
          id: newId('whd', now),
          monitor_id: row.id,
          event_id: event.id,
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
      )
      .execute();
    this.kicked = true;
  }

  /** Evaluates one monitor now if nobody else holds it (and, on read, only when it is due). */
  async evaluateOne(monitorId: string, reason: Reason, requireDue: boolean): Promise<MonitorRow | null> {
    const now = this.clock.now();
    const token = this.leaseToken();
    const [row] = await this.claim(now, token, { id: monitorId, requireDue });
    if (!row) return null;
    const done = await this.complete(row, token, now, reason);
    if (this.kicked) this.kick();
    return done;
  }

  /** Evaluate-on-read: a due monitor is evaluated before it is shown. */
  async fresh(row: MonitorRow): Promise<MonitorRow> {
    if (Number(row.enabled) !== 1 || Number(row.next_evaluation_at) > this.clock.now()) return row;
    return (await this.evaluateOne(row.id, 'evaluated', true)) ?? row;
  }

  /** One scheduled pass: claims and evaluates every due monitor. Returns the ids this instance evaluated. */
  async evaluateDue(): Promise<string[]> {
    const evaluated: string[] = [];
    for (;;) {
      const now = this.clock.now();
      const token = this.leaseToken();
      const rows = await this.claim(now, token);
      for (const row of rows) {
        try {
          if (await this.complete(row, token, now, 'evaluated')) evaluated.push(row.id);
        } catch (error) {
          // One failing monitor must not stop the others; its lease expires and it is retried.
          this.log?.error({ err: error, monitorId: row.id }, 'monitor evaluation failed');
        }
      }
      if (rows.length < CLAIM_BATCH) break;
    }
    return evaluated;
  }

  // ---- webhook deliveries ----------------------------------------------------------------------

  private async claimDeliveries(now: number, token: string): Promise<WebhookDeliveryRow[]> {
    const candidates = this.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .orderBy('next_attempt_at')
      .limit(CLAIM_BATCH);
    return this.db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: token, lease_until: now + LEASE_MS + this.settings.webhookTimeoutMs })
      .where('id', 'in', lockRows(candidates, this.dialect, 'update skip locked'))
      .returningAll()
      .execute();
  }

  private backoff(attempt: number): number {
    const base = Math.min(MAX_BACKOFF_MS, this.settings.webhookBackoffMs * 2 ** Math.min(attempt - 1, 30));
    return Math.round(base * (0.75 + Math.random() * 0.25));
  }

  private async attempt(delivery: WebhookDeliveryRow, token: string): Promise<void> {
    const monitor = await this.db.selectFrom('monitors').select(['webhook_secret']).where('id', '=', delivery.monitor_id).executeTakeFirst();
    if (!monitor) {
      await this.db.deleteFrom('webhook_deliveries').where('id', '=', delivery.id).execute();
      return;
    }
    const secret = await this.keys.unseal(monitor.webhook_secret);
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
    await this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('webhook_deliveries')
        .set({
          attempts: attempt,
          status: outcome === 'retrying' ? 'pending' : outcome,
          next_attempt_at: next,
          lease_owner: null,
          lease_until: null,
          updated_at: now,
        })
        .where('id', '=', delivery.id)
        .where('lease_owner', '=', token)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return;
      await trx
        .insertInto('webhook_attempts')
        .values({
          id: newId('wha', now),
          delivery_id: delivery.id,
          monitor_id: delivery.monitor_id,
          event_id: delivery.event_id,
          url: delivery.url,
          attempt,
          outcome,
          response_status: status,
          latency_ms: latencyMs,
          error,
          next_attempt_at: next,
          created_at: now,
        })
        .execute();
    });
  }

  /** One pass over the due deliveries (several at once). Returns how many attempts were made. */
  async deliverDue(): Promise<number> {
    let attempts = 0;
    for (;;) {
      const token = this.leaseToken();
      const rows = await this.claimDeliveries(this.clock.now(), token);
      await Promise.all(
        rows.map((row) => this.attempt(row, token).catch((error: unknown) => this.log?.error({ err: error, deliveryId: row.id }, 'webhook delivery failed'))),
      );
      attempts += rows.length;
      if (rows.length < CLAIM_BATCH) break;
    }
    return attempts;
  }

  // ---- the background loop ---------------------------------------------------------------------

  /** Runs one evaluation pass then one delivery pass; never two passes of this instance at once. */
  tick(): Promise<void> {
    if (this.running) return this.running;
    this.kicked = false;
    this.running = (async () => {
      try {
        await this.evaluateDue();
        await this.deliverDue();
      } catch (error) {
        this.log?.error({ err: error }, 'monitoring pass failed');
      } finally {
        this.running = null;
        if (this.kicked) this.kick();
      }
    })();
    return this.running;
  }

  /** Asks for a pass soon (a state change queued deliveries) rather than at the next tick. */
  kick(): void {
    if (this.timer === null) return;
    if (this.running) {
      this.kicked = true;
      return;
    }
    this.kicked = false;
    setImmediate(() => void this.tick());
  }

  start(): void {
    if (this.timer) return;
    const period = Math.min(1000, this.settings.intervalMs);
    this.timer = setInterval(() => void this.tick(), period);
    this.timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
