import type { Kysely } from 'kysely';
import type { Database, ScoreConfigRow } from '../../db/schema.js';
import { containsText } from '../../db/errors.js';
import { deletedRow, foundRow, unlessTaken, updatedRow } from '../../db/rows.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems } from '../../lib/problems.js';
import { configFaults, type ConfigRule } from './scores.rules.js';
import type { CreateScoreConfig, ScoreConfig, UpdateScoreConfig } from './scores.schemas.js';
import type { ScoreDataType } from '../../schemas/records.js';

export function toScoreConfig(row: ScoreConfigRow): ScoreConfig {
  return {
    id: row.id,
    name: row.name,
    dataType: row.data_type as ScoreDataType,
    min: row.min_value === null ? null : Number(row.min_value),
    max: row.max_value === null ? null : Number(row.max_value),
    categories: row.categories === null ? null : (JSON.parse(row.categories) as string[]),
    description: row.description,
    archived: Number(row.archived) === 1,
    createdAt: toIso(Number(row.created_at)),
    updatedAt: toIso(Number(row.updated_at)),
  };
}

/** The rule a stored config sets for scores. */
export function ruleOf(row: ScoreConfigRow): ConfigRule {
  const config = toScoreConfig(row);
  return { id: config.id, name: config.name, dataType: config.dataType, min: config.min, max: config.max, categories: config.categories };
}

const missing = (id: string) => problems.notFound(`Score config ${id} does not exist.`);
const nameTaken = (name: string) => problems.conflict(`The organization already has a score config named "${name}".`);

function checkConfig(config: Parameters<typeof configFaults>[0]): void {
  const faults = configFaults(config);
  if (faults.length > 0) throw problems.validation(faults.map((f) => ({ pointer: `/${f.field}`, detail: f.detail })));
}

export async function listScoreConfigs(
  db: Kysely<Database>,
  organizationId: string,
  filters: { name?: string | undefined; archived?: boolean | undefined },
  after: Position | null,
  take: number,
): Promise<KeysetRows<ScoreConfigRow>> {
  let query = db.selectFrom('score_configs').selectAll().where('organization_id', '=', organizationId);
  if (filters.name !== undefined) query = query.where(containsText('name', filters.name, true));
  if (filters.archived !== undefined) query = query.where('archived', '=', filters.archived ? 1 : 0);
  return keysetPage(query, { sort: 'created_at', id: 'id' }, after, take);
}

export async function createScoreConfig(db: Kysely<Database>, organizationId: string, input: CreateScoreConfig, now: number): Promise<ScoreConfigRow> {
  checkConfig(input);
  const row: ScoreConfigRow = {
    id: newId('scc', now),
    organization_id: organizationId,
    name: input.name,
    data_type: input.dataType,
    min_value: input.min ?? null,
    max_value: input.max ?? null,
    categories: input.categories ? JSON.stringify(input.categories) : null,
    description: input.description ?? null,
    archived: 0,
    created_at: now,
    updated_at: now,
  };
  await unlessTaken(db.insertInto('score_configs').values(row).execute(), () => nameTaken(input.name));
  return row;
}

export async function requireScoreConfig(db: Kysely<Database>, organizationId: string, id: string): Promise<ScoreConfigRow> {
  return foundRow(db.selectFrom('score_configs').selectAll().where('organization_id', '=', organizationId).where('id', '=', id), () => missing(id));
}

/** A config's new fields, checked as a whole (its type never changes: scores were validated by it). */
export async function updateScoreConfig(
  db: Kysely<Database>,
  organizationId: string,
  id: string,
  patch: UpdateScoreConfig,
  now: number,
): Promise<ScoreConfigRow> {
  const current = toScoreConfig(await requireScoreConfig(db, organizationId, id));
  const next = { ...current, ...patch };
  checkConfig(next);
  const update = db
    .updateTable('score_configs')
    .set({
      name: next.name,
      min_value: next.min,
      max_value: next.max,
      categories: next.categories ? JSON.stringify(next.categories) : null,
      description: next.description,
      archived: next.archived ? 1 : 0,
      updated_at: now,
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll();
  return updatedRow(update, { missing: () => missing(id), taken: () => nameTaken(next.name) });
}

/** Deletes a config; the scores it validated keep their values and no longer name it. */
export async function deleteScoreConfig(db: Kysely<Database>, organizationId: string, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await deletedRow(trx.deleteFrom('score_configs').where('organization_id', '=', organizationId).where('id', '=', id), () => missing(id));
    await trx.updateTable('scores').set({ config_id: null }).where('organization_id', '=', organizationId).where('config_id', '=', id).execute();
  });
}

/** The organization's configs that a set of scores names, by id or by name (one query). */
export async function configsNamed(
  db: Kysely<Database>,
  organizationId: string,
  ids: readonly string[],
  names: readonly string[],
): Promise<{ byId: Map<string, ConfigRule>; byName: Map<string, ConfigRule> }> {
  const byId = new Map<string, ConfigRule>();
  const byName = new Map<string, ConfigRule>();
  if (ids.length === 0 && names.length === 0) return { byId, byName };
  const rows = await db
    .selectFrom('score_configs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where((eb) => eb.or([...(ids.length > 0 ? [eb('id', 'in', [...ids])] : []), ...(names.length > 0 ? [eb('name', 'in', [...names])] : [])]))
    .execute();
  for (const row of rows) {
    const rule = ruleOf(row);
    byId.set(rule.id, rule);
    byName.set(rule.name, rule);
  }
  return { byId, byName };
}
