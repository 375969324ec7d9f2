import type { Kysely } from 'kysely';
import type { Database, ModelPriceRow } from '../../db/schema.js';
import { containsText } from '../../db/errors.js';
import { deletedRow, foundRow, unlessTaken, updatedRow } from '../../db/rows.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems } from '../../lib/problems.js';
import { normalizeModel, type PriceOverride } from './models.pricing.js';
import type { ModelPrice } from './models.schemas.js';

/** The name a price is matched and kept unique by: the model as `normalizeModel` reduces it, and its `*`. */
export function modelKey(model: string): string {
  return model.endsWith('*') ? `${normalizeModel(model.slice(0, -1))}*` : normalizeModel(model);
}

export function toModelPrice(row: ModelPriceRow): ModelPrice {
  return {
    id: row.id,
    model: row.model,
    provider: row.provider === '' ? null : row.provider,
    inputPrice: row.input_price,
    outputPrice: row.output_price,
    cacheReadPrice: row.cache_read_price,
    cacheWritePrice: row.cache_write_price,
    reasoningPrice: row.reasoning_price,
    currency: row.currency as ModelPrice['currency'],
    effectiveFrom: toIso(row.effective_from),
    createdBy: row.created_by,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

export interface ModelPriceFields {
  model: string;
  provider: string | null;
  inputPrice: number;
  outputPrice: number;
  cacheReadPrice: number | null;
  cacheWritePrice: number | null;
  reasoningPrice: number | null;
  currency: string;
  effectiveFrom: number;
}

const columnsOf = (input: Partial<ModelPriceFields>): Partial<ModelPriceRow> => {
  const columns: Partial<ModelPriceRow> = {};
  if (input.model !== undefined) Object.assign(columns, { model: input.model, model_key: modelKey(input.model) });
  if (input.provider !== undefined) columns.provider = input.provider ?? '';
  if (input.inputPrice !== undefined) columns.input_price = input.inputPrice;
  if (input.outputPrice !== undefined) columns.output_price = input.outputPrice;
  if (input.cacheReadPrice !== undefined) columns.cache_read_price = input.cacheReadPrice;
  if (input.cacheWritePrice !== undefined) columns.cache_write_price = input.cacheWritePrice;
  if (input.reasoningPrice !== undefined) columns.reasoning_price = input.reasoningPrice;
  if (input.currency !== undefined) columns.currency = input.currency;
  if (input.effectiveFrom !== undefined) columns.effective_from = input.effectiveFrom;
  return columns;
};

const missing = (id: string) => problems.notFound(`Model price ${id} does not exist.`);
const taken = () => problems.conflict('This organization already has a price for this model and provider from that instant.');

export async function listModelPrices(
  db: Kysely<Database>,
  organizationId: string,
  filters: { model?: string | undefined; provider?: string | undefined },
  after: Position | null,
  take: number,
): Promise<KeysetRows<ModelPriceRow>> {
  let query = db.selectFrom('model_prices').selectAll().where('organization_id', '=', organizationId);
  if (filters.model !== undefined) query = query.where(containsText('model_key', filters.model.toLowerCase()));
  if (filters.provider !== undefined) query = query.where('provider', '=', filters.provider);
  return keysetPage(query, { sort: 'created_at', id: 'id' }, after, take);
}

export async function createModelPrice(
  db: Kysely<Database>,
  who: { organizationId: string; userId: string },
  input: ModelPriceFields,
  now: number,
): Promise<ModelPriceRow> {
  const row = {
    id: newId('mdl', now),
    organization_id: who.organizationId,
    ...(columnsOf(input) as Omit<ModelPriceRow, 'id' | 'organization_id' | 'created_by' | 'created_at' | 'updated_at'>),
    created_by: who.userId,
    created_at: now,
    updated_at: now,
  };
  await unlessTaken(db.insertInto('model_prices').values(row).execute(), taken);
  return row;
}

/** The organization's price with this id; otherwise the 404 problem (never revealing that it exists elsewhere). */
export async function requireModelPrice(db: Kysely<Database>, organizationId: string, id: string): Promise<ModelPriceRow> {
  return foundRow(db.selectFrom('model_prices').selectAll().where('id', '=', id).where('organization_id', '=', organizationId), () => missing(id));
}

export async function updateModelPrice(
  db: Kysely<Database>,
  organizationId: string,
  id: string,
  input: Partial<ModelPriceFields>,
  now: number,
): Promise<ModelPriceRow> {
  const update = db
    .updateTable('model_prices')
    .set({ ...columnsOf(input), updated_at: now })
    .where('id', '=', id)
    .where('organization_id', '=', organizationId)
    .returningAll();
  return updatedRow(update, { missing: () => missing(id), taken });
}

export async function deleteModelPrice(db: Kysely<Database>, organizationId: string, id: string): Promise<void> {
  await deletedRow(db.deleteFrom('model_prices').where('id', '=', id).where('organization_id', '=', organizationId), () => missing(id));
}

/**
 * Every price of the organization, as `priceFor` takes them (ingestion keeps them a short while per
 * organization). An organization holds few prices: one read by the lookup index.
 */
export async function organizationPrices(db: Kysely<Database>, organizationId: string): Promise<PriceOverride[]> {
  const rows = await db.selectFrom('model_prices').selectAll().where('organization_id', '=', organizationId).execute();
  return rows.map((row) => ({
    id: row.id,
    model: row.model,
    provider: row.provider === '' ? null : row.provider,
    effectiveFrom: Number(row.effective_from),
    inputPrice: row.input_price,
    outputPrice: row.output_price,
    cacheReadPrice: row.cache_read_price,
    cacheWritePrice: row.cache_write_price,
    reasoningPrice: row.reasoning_price,
  }));
}
