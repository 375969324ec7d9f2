import type { Kysely, Transaction } from 'kysely';
import { lockRows, type Dialect } from '../../db/dialect.js';
import { foundRow } from '../../db/rows.js';
import type { Database, MonitorEventRow, MonitorRow } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { Problem, problems } from '../../lib/problems.js';
import { parseRunFilters, queryWords, type RunFilters } from '../query/index.js';
import { CLAIM_BATCH, LEASE_MS } from '../../db/leases.js';
import type { Monitor, MonitorEvent, MonitorFilter, MonitorScore, MonitorState, Operator } from './monitors.schemas.js';

import type { Threshold } from './monitors.rules.js';

export type { Threshold };

export const thresholdOf = (op: string | null, value: number | null): Threshold | null =>
  op === null || value === null ? null : { op: op as Operator, value: Number(value) };

export function toMonitor(row: MonitorRow): Monitor {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    description: row.description,
    filter: JSON.parse(row.filter) as MonitorFilter,
    metric: row.metric as Monitor['metric'],
    score: row.score === null ? null : (JSON.parse(row.score) as MonitorScore),
    window: row.window_size as Monitor['window'],
    threshold: thresholdOf(row.threshold_op, row.threshold_value),
    enabled: Number(row.enabled) === 1,
    state: row.state as MonitorState,
    lastEvaluatedAt: toIso(row.last_evaluated_at === null ? null : Number(row.last_evaluated_at)),
    webhookUrls: JSON.parse(row.webhook_urls) as string[],
    createdAt: toIso(Number(row.created_at)),
    updatedAt: toIso(Number(row.updated_at)),
  };
}

/** The stored filter as the runs list's normalised filters (the very code the list uses). */
export function monitorRunFilters(filter: MonitorFilter): RunFilters {
  const query: Record<string, unknown> = { ...filter };
  if (filter.parentRunId === null) query.parentRunId = 'null';
  return parseRunFilters(query);
}

/** A filter stored with its keys sorted and its tags deduplicated, so equal filters read back equal. */
export function normaliseFilter(filter: MonitorFilter | undefined): MonitorFilter {
  // A search the runs list would refuse is refused here, at the field, rather than at every evaluation.
  if (typeof filter?.q === 'string') {
    try {
      queryWords(filter.q);
    } catch (error) {
      if (error instanceof Problem) throw problems.validation((error.errors ?? []).map((e) => ({ pointer: '/filter/q', detail: e.detail })));
      throw error;
    }
  }
  const entries = Object.entries((filter ?? {}) as Record<string, unknown>)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(
    entries.map(([key, value]) => [key, key === 'tag' && Array.isArray(value) ? [...new Set(value as string[])].sort() : value]),
  ) as MonitorFilter;
}

const missingMonitor = (id: string) => problems.notFound(`Monitor ${id} does not exist.`);

export async function requireMonitor(db: Kysely<Database>, projectId: string, monitorId: string): Promise<MonitorRow> {
  return foundRow(db.selectFrom('monitors').selectAll().where('id', '=', monitorId).where('project_id', '=', projectId), () => missingMonitor(monitorId));
}

/** The monitor, locked for the rest of the caller's transaction (an edit must not race another edit or a pause). */
export async function lockMonitor(trx: Transaction<Database>, dialect: Dialect, projectId: string, monitorId: string): Promise<MonitorRow> {
  const current = trx.selectFrom('monitors').selectAll().where('id', '=', monitorId).where('project_id', '=', projectId);
  return foundRow(lockRows(current, dialect), () => missingMonitor(monitorId));
}

export async function insertMonitor(db: Kysely<Database>, row: MonitorRow): Promise<void> {
  await db.insertInto('monitors').values(row).execute();
}

export async function updateMonitor(db: Kysely<Database>, monitorId: string, changes: Partial<MonitorRow>): Promise<void> {
  await db.updateTable('monitors').set(changes).where('id', '=', monitorId).execute();
}

export async function setWebhookSecret(db: Kysely<Database>, projectId: string, monitorId: string, sealed: string, now: number): Promise<void> {
  const result = await db
    .updateTable('monitors')
    .set({ webhook_secret: sealed, updated_at: now })
    .where('id', '=', monitorId)
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw problems.notFound(`Monitor ${monitorId} does not exist.`);
}

export async function listMonitors(
  db: Kysely<Database>,
  projectId: string,
  filters: { state?: MonitorState | undefined; enabled?: 'true' | 'false' | undefined },
  after: Position | null,
  take: number,
): Promise<KeysetRows<MonitorRow>> {
  let query = db.selectFrom('monitors').selectAll().where('project_id', '=', projectId);
  if (filters.state !== undefined) query = query.where('state', '=', filters.state);
  if (filters.enabled !== undefined) query = query.where('enabled', '=', filters.enabled === 'true' ? 1 : 0);
  return keysetPage(query, { sort: 'created_at', id: 'id' }, after, take);
}

export async function listEvents(db: Kysely<Database>, monitorId: string, after: Position | null, take: number): Promise<KeysetRows<MonitorEventRow>> {
  return keysetPage(db.selectFrom('monitor_events').selectAll().where('monitor_id', '=', monitorId), { sort: 'created_at', id: 'id' }, after, take);
}

export function toEvent(row: MonitorEventRow): MonitorEvent {
  return {
    id: row.id,
    monitorId: row.monitor_id,
    from: row.from_state as MonitorState,
    to: row.to_state as MonitorState,
    value: row.value === null ? null : Number(row.value),
    count: Number(row.count),
    threshold: thresholdOf(row.threshold_op, row.threshold_value),
    windowStart: toIso(Number(row.window_start)),
    windowEnd: toIso(Number(row.window_end)),
    reason: row.reason as MonitorEvent['reason'],
    createdAt: toIso(Number(row.created_at)),
  };
}

/** Deletes monitors (of a project, or one) with their events, deliveries and attempts. */
export async function deleteMonitorsWhere(trx: Kysely<Database>, where: { projectId: string; monitorId?: string }): Promise<number> {
  let ids = trx.selectFrom('monitors').select('id').where('project_id', '=', where.projectId);
  if (where.monitorId !== undefined) ids = ids.where('id', '=', where.monitorId);
  const monitorIds = (await ids.execute()).map((r) => r.id);
  if (monitorIds.length === 0) return 0;
  await trx.deleteFrom('webhook_attempts').where('monitor_id', 'in', monitorIds).execute();
  await trx.deleteFrom('webhook_deliveries').where('monitor_id', 'in', monitorIds).execute();
  await trx.deleteFrom('monitor_events').where('monitor_id', 'in', monitorIds).execute();
  await trx.deleteFrom('monitors').where('id', 'in', monitorIds).execute();
  return monitorIds.length;
}

export async function deleteMonitor(db: Kysely<Database>, projectId: string, monitorId: string): Promise<void> {
  const deleted = await db.transaction().execute((trx) => deleteMonitorsWhere(trx, { projectId, monitorId }));
  if (deleted === 0) throw problems.notFound(`Monitor ${monitorId} does not exist.`);
}

/**
 * Claims due monitors for the lease `token`: a conditional UPDATE sets a lease on rows nobody holds, so a
 * monitor is evaluated by one instance at a time (PostgreSQL: the candidates are picked with FOR UPDATE
 * SKIP LOCKED, so concurrent claimers take disjoint sets without waiting). `only`: that one monitor
 * (if due, with `requireDue`); otherwise a batch of the due ones, longest due first.
 */
export async function claimMonitors(
  db: Kysely<Database>,
  dialect: Dialect,
  now: number,
  token: string,
  only?: { id: string; requireDue: boolean },
): Promise<MonitorRow[]> {
  let candidates = db
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
  return db
    .updateTable('monitors')
    .set({ lease_owner: token, lease_until: now + LEASE_MS })
    .where('id', 'in', lockRows(candidates, dialect, 'update skip locked'))
    .returningAll()
    .execute();
}

/** Stores an evaluation and gives the lease back, unless the lease was lost meanwhile (then nothing, undefined). */
export async function storeEvaluation(
  trx: Transaction<Database>,
  monitorId: string,
  token: string,
  result: Pick<MonitorRow, 'state' | 'last_value' | 'last_count' | 'last_evaluated_at' | 'next_evaluation_at'>,
): Promise<MonitorRow | undefined> {
  return trx
    .updateTable('monitors')
    .set({ ...result, lease_owner: null, lease_until: null })
    .where('id', '=', monitorId)
    .where('lease_owner', '=', token)
    .returningAll()
    .executeTakeFirst();
}

export async function insertEvent(trx: Transaction<Database>, event: MonitorEventRow): Promise<void> {
  await trx.insertInto('monitor_events').values(event).execute();
}

/** The sealed webhook signing secret of a monitor; undefined once the monitor is deleted. */
export async function sealedWebhookSecret(db: Kysely<Database>, monitorId: string): Promise<string | undefined> {
  return (await db.selectFrom('monitors').select(['webhook_secret']).where('id', '=', monitorId).executeTakeFirst())?.webhook_secret;
}
