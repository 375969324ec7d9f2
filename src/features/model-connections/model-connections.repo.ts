import { sql, type Kysely } from 'kysely';
import { audited, type AuditActor } from '../../db/audit.js';
import { containsText } from '../../db/errors.js';
import { deletedRow, foundRow, unlessTaken, updatedRow } from '../../db/rows.js';
import type { Database, ModelConnectionRow } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Keyring } from '../../lib/keys.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems, type FieldError } from '../../lib/problems.js';
import { webhookUrlFault } from '../../lib/webhook-target.js';
import { organizationPrices, priceFor } from '../models/index.js';
import { fromPico, headerFaults, keyHint, monthOf, normalizeBaseUrl } from './model-connections.rules.js';
import type { CreateModelConnection, ModelConnection, UpdateModelConnection } from './model-connections.schemas.js';

/** What writing a connection needs besides the database: the keyring that seals its key, and whether private targets are allowed. */
export interface ConnectionSettings {
  keys: Keyring;
  allowPrivate: boolean;
}

/** A stored connection on the wire at `now` (a spend of an earlier month is this month's 0). */
export function toModelConnection(row: ModelConnectionRow, now: number): ModelConnection {
  return {
    id: row.id,
    name: row.name,
    baseUrl: row.base_url,
    model: row.model,
    apiKeyHint: row.api_key_hint,
    headerNames: JSON.parse(row.header_names) as string[],
    monthlyBudgetUsd: Number(row.monthly_budget_usd),
    spentThisMonthUsd: row.spent_month === monthOf(now) ? fromPico(Number(row.spent_picousd)) : 0,
    pricing:
      row.input_price === null || row.output_price === null ? null : { inputPerMillion: Number(row.input_price), outputPerMillion: Number(row.output_price) },
    createdAt: toIso(Number(row.created_at)),
    updatedAt: toIso(Number(row.updated_at)),
  };
}

const missing = (id: string) => problems.notFound(`Model connection ${id} does not exist.`);
const nameTaken = (name: string) => problems.conflict(`The organization already has a model connection named "${name}".`);

export async function listModelConnections(
  db: Kysely<Database>,
  organizationId: string,
  filters: { name?: string | undefined },
  after: Position | null,
  take: number,
): Promise<KeysetRows<ModelConnectionRow>> {
  let query = db.selectFrom('model_connections').selectAll().where('organization_id', '=', organizationId);
  if (filters.name !== undefined) query = query.where(containsText('name', filters.name, true));
  return keysetPage(query, { sort: 'created_at', id: 'id' }, after, take);
}

export async function requireModelConnection(db: Kysely<Database>, organizationId: string, id: string): Promise<ModelConnectionRow> {
  return foundRow(db.selectFrom('model_connections').selectAll().where('organization_id', '=', organizationId).where('id', '=', id), () => missing(id));
}

/** The columns a connection's fields set: the URL checked by the SSRF guard, the key and headers sealed, a price known. */
async function columnsOf(
  db: Kysely<Database>,
  settings: ConnectionSettings,
  organizationId: string,
  fields: UpdateModelConnection,
  effective: { model: string; pricing: unknown },
  now: number,
): Promise<Partial<ModelConnectionRow>> {
  const faults: FieldError[] = [];
  if (fields.baseUrl !== undefined) {
    const fault = webhookUrlFault(fields.baseUrl, settings.allowPrivate);
    if (fault) faults.push({ pointer: '/baseUrl', detail: fault });
  }
  for (const { name, detail } of headerFaults(fields.headers ?? {})) faults.push({ pointer: `/headers/${name.replace(/~/g, '~0')}`, detail });
  if ((fields.model !== undefined || fields.pricing !== undefined) && effective.pricing === null) {
    if (!priceFor(effective.model, null, now, await organizationPrices(db, organizationId)))
      faults.push({ pointer: '/pricing', detail: `No price is known for the model "${effective.model}": give pricing.` });
  }
  if (faults.length > 0) throw problems.validation(faults);
  const columns: Partial<ModelConnectionRow> = {};
  if (fields.name !== undefined) columns.name = fields.name;
  if (fields.baseUrl !== undefined) columns.base_url = normalizeBaseUrl(fields.baseUrl);
  if (fields.model !== undefined) columns.model = fields.model;
  if (fields.apiKey !== undefined) {
    columns.api_key = fields.apiKey === null ? null : settings.keys.seal(fields.apiKey);
    columns.api_key_hint = fields.apiKey === null ? null : keyHint(fields.apiKey);
  }
  if (fields.headers !== undefined) {
    const headers = fields.headers ?? {};
    columns.headers = Object.keys(headers).length === 0 ? null : settings.keys.seal(JSON.stringify(headers));
    columns.header_names = JSON.stringify(Object.keys(headers));
  }
  if (fields.monthlyBudgetUsd !== undefined) columns.monthly_budget_usd = fields.monthlyBudgetUsd;
  if (fields.pricing !== undefined) {
    columns.input_price = fields.pricing?.inputPerMillion ?? null;
    columns.output_price = fields.pricing?.outputPerMillion ?? null;
  }
  return columns;
}

export async function createModelConnection(
  db: Kysely<Database>,
  settings: ConnectionSettings,
  organizationId: string,
  input: CreateModelConnection,
  now: number,
  actor: AuditActor,
): Promise<ModelConnectionRow> {
  const columns = await columnsOf(
    db,
    settings,
    organizationId,
    { ...input, headers: input.headers ?? {}, pricing: input.pricing ?? null },
    {
      model: input.model,
      pricing: input.pricing ?? null,
    },
    now,
  );
  const row: ModelConnectionRow = {
    id: newId('mcn', now),
    organization_id: organizationId,
    name: input.name,
    base_url: '',
    model: input.model,
    api_key: null,
    api_key_hint: null,
    headers: null,
    header_names: '[]',
    monthly_budget_usd: input.monthlyBudgetUsd,
    input_price: null,
    output_price: null,
    spent_month: '',
    spent_picousd: 0,
    test_lease_owner: null,
    test_lease_until: null,
    created_at: now,
    updated_at: now,
    ...columns,
  };
  const event = (action: 'model_connection.created', details: Record<string, unknown>) => ({
    organizationId,
    actor,
    action,
    target: { type: 'model_connection', id: row.id },
    details,
    at: now,
  });
  await unlessTaken(
    audited(
      db,
      (trx) => trx.insertInto('model_connections').values(row).execute(),
      // Never the key or a header's value: their names at most.
      () =>
        event('model_connection.created', { name: row.name, baseUrl: row.base_url, model: row.model, headerNames: JSON.parse(row.header_names) as unknown }),
    ),
    () => nameTaken(input.name),
  );
  return row;
}

export async function updateModelConnection(
  db: Kysely<Database>,
  settings: ConnectionSettings,
  organizationId: string,
  id: string,
  patch: UpdateModelConnection,
  now: number,
  actor: AuditActor,
): Promise<ModelConnectionRow> {
  const current = toModelConnection(await requireModelConnection(db, organizationId, id), now);
  const effective = { model: patch.model ?? current.model, pricing: patch.pricing !== undefined ? patch.pricing : current.pricing };
  const columns = await columnsOf(db, settings, organizationId, patch, effective, now);
  return audited(
    db,
    (trx) => {
      const update = trx
        .updateTable('model_connections')
        .set({ ...columns, updated_at: now })
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .returningAll();
      return updatedRow(update, { missing: () => missing(id), taken: () => nameTaken(patch.name ?? current.name) });
    },
    // Which fields changed, not their values (a new key is `apiKey`, nothing more).
    (row) => ({
      organizationId,
      actor,
      action: 'model_connection.updated',
      target: { type: 'model_connection', id },
      details: { name: row.name, fields: Object.keys(patch).sort() },
      at: now,
    }),
  );
}

export async function deleteModelConnection(db: Kysely<Database>, organizationId: string, id: string, now: number, actor: AuditActor): Promise<void> {
  const { name } = await requireModelConnection(db, organizationId, id);
  await audited(
    db,
    (trx) => deletedRow(trx.deleteFrom('model_connections').where('organization_id', '=', organizationId).where('id', '=', id), () => missing(id)),
    () => ({ organizationId, actor, action: 'model_connection.deleted', target: { type: 'model_connection', id }, details: { name }, at: now }),
  );
}

/**
 * Adds what a call cost to the connection's spend of `month` in one statement (a spend of an earlier
 * month starts over), so concurrent calls on any instance add up exactly.
 */
export async function addSpend(db: Kysely<Database>, organizationId: string, id: string, month: string, pico: number): Promise<void> {
  await db
    .updateTable('model_connections')
    .set({
      spent_picousd: sql<number>`case when spent_month = ${month} then spent_picousd + cast(${pico} as bigint) else cast(${pico} as bigint) end`,
      spent_month: month,
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
}

/**
 * Takes the connection's test lease for `owner` until `until`, in one conditional UPDATE (the lease is
 * free or has expired), so that one test at a time runs per connection whatever the instances: true
 * when taken; else when the test in progress's lease ends.
 */
export async function takeTestLease(
  db: Kysely<Database>,
  organizationId: string,
  id: string,
  lease: { owner: string; now: number; until: number },
): Promise<{ taken: true } | { taken: false; until: number }> {
  const taken = await db
    .updateTable('model_connections')
    .set({ test_lease_owner: lease.owner, test_lease_until: lease.until })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('test_lease_until', 'is', null), eb('test_lease_until', '<=', lease.now)]))
    .executeTakeFirst();
  if (Number(taken.numUpdatedRows) === 1) return { taken: true };
  const row = await db
    .selectFrom('model_connections')
    .select('test_lease_until')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw missing(id);
  return { taken: false, until: row.test_lease_until === null ? lease.now : Number(row.test_lease_until) };
}

/** Gives the test lease back, if `owner` still holds it. */
export async function releaseTestLease(db: Kysely<Database>, organizationId: string, id: string, owner: string): Promise<void> {
  await db
    .updateTable('model_connections')
    .set({ test_lease_owner: null, test_lease_until: null })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('test_lease_owner', '=', owner)
    .execute();
}
