import type { Kysely, Transaction } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Dialect } from '../../db/dialect.js';
import type { Database, MonitorRow } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { definitionOf, evaluate, type Evaluation } from './monitors.evaluate.js';
import { CLAIM_BATCH } from '../../db/leases.js';
import { claimMonitors, insertEvent, storeEvaluation } from './monitors.repo.js';
import type { MonitorEvent, MonitorState } from './monitors.schemas.js';
import { queueDeliveries, type WebhookDelivery } from './monitors.webhooks.js';

type Reason = MonitorEvent['reason'];

/**
 * Evaluation (scheduled, on read, after a change) under a lease so that one instance at a time
 * evaluates a monitor, the events of state changes, and the background loop that also drives webhook
 * deliveries. Instances stay stateless: the schedule and the leases live in the database.
 */
export class MonitorScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private kicked = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly clock: Clock,
    /** How often each enabled monitor is evaluated. */
    private readonly intervalMs: number,
    private readonly deliveries: WebhookDelivery,
    private readonly leaseToken: () => string,
    public log: FastifyBaseLogger | null,
  ) {}

  /** Evaluates one claimed monitor and stores the result, unless its lease was lost meanwhile. */
  private async complete(row: MonitorRow, token: string, now: number, reason: Reason): Promise<MonitorRow | null> {
    const evaluation = await evaluate(this.db, this.dialect, definitionOf(row), now);
    return this.db.transaction().execute(async (trx) => {
      const updated = await storeEvaluation(trx, row.id, token, {
        state: evaluation.state,
        last_value: evaluation.value,
        last_count: evaluation.count,
        last_evaluated_at: now,
        next_evaluation_at: now + this.intervalMs,
      });
      if (!updated) return null;
      if (evaluation.state !== row.state) await this.recordChange(trx, updated, row.state as MonitorState, evaluation, reason, now);
      return updated;
    });
  }

  /** Records a state change and queues its webhook deliveries, in the caller's transaction. */
  async recordChange(trx: Transaction<Database>, row: MonitorRow, from: MonitorState, evaluation: Evaluation, reason: Reason, now: number): Promise<void> {
    const eventId = newId('mev', now);
    await insertEvent(trx, {
      id: eventId,
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
    });
    if ((await queueDeliveries(trx, row, { eventId, from, evaluation, reason, now })) > 0) this.kicked = true;
  }

  /** Evaluates one monitor now if nobody else holds it (and, on read, only when it is due). */
  async evaluateOne(monitorId: string, reason: Reason, requireDue: boolean): Promise<MonitorRow | null> {
    const now = this.clock.now();
    const token = this.leaseToken();
    const [row] = await claimMonitors(this.db, this.dialect, now, token, { id: monitorId, requireDue });
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
      const rows = await claimMonitors(this.db, this.dialect, now, token);
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

  // ---- the background loop ---------------------------------------------------------------------

  /** Runs one evaluation pass then one delivery pass; never two passes of this instance at once. */
  tick(): Promise<void> {
    if (this.running) return this.running;
    this.kicked = false;
    this.running = (async () => {
      try {
        await this.evaluateDue();
        await this.deliveries.deliverDue();
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
    const period = Math.min(1000, this.intervalMs);
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
