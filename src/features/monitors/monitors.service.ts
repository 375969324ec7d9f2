import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Dialect } from '../../db/dialect.js';
import type { Database, MonitorRow } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Keyring } from '../../lib/keys.js';
import { problems, type FieldError } from '../../lib/problems.js';
import { webhookUrlFault } from '../../lib/webhook-target.js';
import { jsonValueFault } from '../../lib/json.js';
import { definitionOf } from './monitors.evaluate.js';
import { leaseTokens } from '../../db/leases.js';
import { insertMonitor, lockMonitor, normaliseFilter, requireMonitor, setWebhookSecret, thresholdOf, updateMonitor } from './monitors.repo.js';
import { MonitorScheduler } from './monitors.scheduler.js';
import { scoreDefinitionFaults } from './monitors.rules.js';
import type { CreateMonitorInput, MonitorEvent, MonitorScore, MonitorState, UpdateMonitorInput } from './monitors.schemas.js';
import { WebhookDelivery, type WebhookSettings } from './monitors.webhooks.js';

export interface MonitoringSettings extends WebhookSettings {
  /** How often each enabled monitor is evaluated. */
  intervalMs: number;
}

type Reason = MonitorEvent['reason'];

/** A score selector stored with its keys in one order, so equal selectors read back equal. */
const scoreOf = (score: MonitorScore): MonitorScore => (score.label === undefined ? { name: score.name } : { name: score.name, label: score.label });

const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

/**
 * Monitors: creation and edits here; evaluation under leases and the background loop in
 * `monitors.scheduler.ts`; webhook deliveries in `monitors.webhooks.ts`. Instances stay stateless: the
 * schedule, leases and the delivery queue live in the database.
 */
export class Monitoring {
  private readonly scheduler: MonitorScheduler;
  private readonly deliveries: WebhookDelivery;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly clock: Clock,
    private readonly keys: Keyring,
    readonly settings: MonitoringSettings,
    log: FastifyBaseLogger | null,
  ) {
    // One instance id in both lease tokens, so a row's lease_owner says which instance holds it.
    const leaseToken = leaseTokens();
    this.deliveries = new WebhookDelivery(db, dialect, clock, keys, settings, leaseToken, log);
    this.scheduler = new MonitorScheduler(db, dialect, clock, settings.intervalMs, this.deliveries, leaseToken, log);
  }

  attachLogger(log: FastifyBaseLogger): void {
    this.scheduler.log = log;
    this.deliveries.log = log;
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

  /** The metric, `score` and filter a monitor would have, checked together (monitors.rules.ts). */
  private checkDefinition(definition: Parameters<typeof scoreDefinitionFaults>[0]): void {
    const faults = scoreDefinitionFaults(definition);
    if (faults.length > 0) throw problems.validation(faults);
  }

  async create(projectId: string, input: CreateMonitorInput): Promise<{ row: MonitorRow; secret: string }> {
    this.checkInput(input);
    this.checkDefinition({ metric: input.metric, score: input.score, filter: input.filter });
    const now = this.clock.now();
    const secret = newSecret();
    const row: MonitorRow = {
      id: newId('mon', now),
      project_id: projectId,
      name: input.name,
      description: input.description ?? '',
      filter: JSON.stringify(normaliseFilter(input.filter)),
      metric: input.metric,
      score: input.score ? JSON.stringify(scoreOf(input.score)) : null,
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
    return { row: (await this.scheduler.evaluateOne(row.id, 'evaluated', false)) ?? row, secret };
  }

  async update(projectId: string, monitorId: string, input: UpdateMonitorInput): Promise<MonitorRow> {
    this.checkInput(input);
    const now = this.clock.now();
    let reason: Reason | null = null;
    await this.db.transaction().execute(async (trx) => {
      const row = await lockMonitor(trx, this.dialect, projectId, monitorId);
      const before = definitionOf(row);
      const filter = input.filter === undefined ? row.filter : JSON.stringify(normaliseFilter(input.filter));
      const score = input.score === undefined ? row.score : input.score === null ? null : JSON.stringify(scoreOf(input.score));
      this.checkDefinition({
        metric: input.metric ?? before.metric,
        score: score === null ? null : (JSON.parse(score) as MonitorScore),
        filter: JSON.parse(filter) as Record<string, unknown>,
      });
      const threshold = input.threshold === undefined ? thresholdOf(row.threshold_op, row.threshold_value) : input.threshold;
      const enabled = input.enabled === undefined ? before.enabled : input.enabled;
      const definitionChanged =
        filter !== row.filter ||
        score !== row.score ||
        (input.metric ?? row.metric) !== row.metric ||
        (input.window ?? row.window_size) !== row.window_size ||
        JSON.stringify(threshold) !== JSON.stringify(before.threshold);
      const changes: Partial<MonitorRow> = {
        name: input.name ?? row.name,
        description: input.description ?? row.description,
        filter,
        metric: input.metric ?? row.metric,
        score,
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
          await this.scheduler.recordChange(
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
    if (reason !== null) await this.scheduler.evaluateOne(monitorId, reason, false);
    this.scheduler.kick();
    return requireMonitor(this.db, projectId, monitorId);
  }

  async rotateSecret(projectId: string, monitorId: string): Promise<{ row: MonitorRow; secret: string }> {
    const secret = newSecret();
    await setWebhookSecret(this.db, projectId, monitorId, this.keys.seal(secret), this.clock.now());
    return { row: await requireMonitor(this.db, projectId, monitorId), secret };
  }

  /** Evaluate-on-read: a due monitor is evaluated before it is shown. */
  fresh(row: MonitorRow): Promise<MonitorRow> {
    return this.scheduler.fresh(row);
  }

  /** One scheduled pass: claims and evaluates every due monitor. Returns the ids this instance evaluated. */
  evaluateDue(): Promise<string[]> {
    return this.scheduler.evaluateDue();
  }

  /** One pass over the due deliveries (several at once). Returns how many attempts were made. */
  deliverDue(): Promise<number> {
    return this.deliveries.deliverDue();
  }

  start(): void {
    this.scheduler.start();
  }

  stop(): Promise<void> {
    return this.scheduler.stop();
  }
}
