import type { Kysely, Transaction } from 'kysely';
import { lockRows, type Dialect } from '../../db/dialect.js';
import type { Database, WebhookAttemptRow, WebhookDeliveryRow } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { CLAIM_BATCH } from '../../db/leases.js';
import type { WebhookAttempt } from './monitors.schemas.js';

// The webhook queue (deliveries, claimed under leases like monitors) and its log of attempts.

export async function insertDeliveries(trx: Transaction<Database>, rows: WebhookDeliveryRow[]): Promise<void> {
  await trx.insertInto('webhook_deliveries').values(rows).execute();
}

/** Claims a batch of due deliveries for the lease `token` until `leaseUntil`, as `claimMonitors` claims monitors. */
export async function claimDeliveries(db: Kysely<Database>, dialect: Dialect, now: number, token: string, leaseUntil: number): Promise<WebhookDeliveryRow[]> {
  const candidates = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .orderBy('next_attempt_at')
    .limit(CLAIM_BATCH);
  return db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: token, lease_until: leaseUntil })
    .where('id', 'in', lockRows(candidates, dialect, 'update skip locked'))
    .returningAll()
    .execute();
}

export async function deleteDelivery(db: Kysely<Database>, deliveryId: string): Promise<void> {
  await db.deleteFrom('webhook_deliveries').where('id', '=', deliveryId).execute();
}

/** What one attempt came to. */
export interface AttemptResult {
  attempt: number;
  outcome: 'succeeded' | 'retrying' | 'failed';
  responseStatus: number | null;
  latencyMs: number;
  error: string | null;
  nextAttemptAt: number | null;
}

/**
 * Stores an attempt in one transaction: the delivery's new state (its lease given back) and the attempt's
 * log row; nothing when the lease was lost meanwhile.
 */
export async function recordAttempt(db: Kysely<Database>, delivery: WebhookDeliveryRow, token: string, result: AttemptResult, now: number): Promise<void> {
  const { attempt, outcome } = result;
  await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({
        attempts: attempt,
        status: outcome === 'retrying' ? 'pending' : outcome,
        next_attempt_at: result.nextAttemptAt,
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
        response_status: result.responseStatus,
        latency_ms: result.latencyMs,
        error: result.error,
        next_attempt_at: result.nextAttemptAt,
        created_at: now,
      })
      .execute();
  });
}

export async function listAttempts(db: Kysely<Database>, monitorId: string, after: Position | null, take: number): Promise<KeysetRows<WebhookAttemptRow>> {
  return keysetPage(db.selectFrom('webhook_attempts').selectAll().where('monitor_id', '=', monitorId), { sort: 'created_at', id: 'id' }, after, take);
}

export function toAttempt(row: WebhookAttemptRow): WebhookAttempt {
  return {
    id: row.id,
    deliveryId: row.delivery_id,
    eventId: row.event_id,
    url: row.url,
    attempt: Number(row.attempt),
    outcome: row.outcome as WebhookAttempt['outcome'],
    responseStatus: row.response_status === null ? null : Number(row.response_status),
    latencyMs: Number(row.latency_ms),
    error: row.error,
    nextAttemptAt: toIso(row.next_attempt_at === null ? null : Number(row.next_attempt_at)),
    createdAt: toIso(Number(row.created_at)),
  };
}
