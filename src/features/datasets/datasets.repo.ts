import type { Kysely } from 'kysely';
import { containsText } from '../../db/errors.js';
import { deletedRow, foundRow, unlessTaken, updatedRow } from '../../db/rows.js';
import type { Database, DatasetRow } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { jsonValueFault } from '../../lib/json.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems, type FieldError } from '../../lib/problems.js';
import type { Dataset } from './datasets.schemas.js';

export function toDataset(row: DatasetRow): Dataset {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    version: row.version,
    itemCount: row.item_count,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

const nameKey = (name: string) => name.toLowerCase();
export const missingDataset = (id: string) => problems.notFound(`Dataset ${id} does not exist.`);
const nameTaken = (name: string) => problems.conflict(`A dataset named "${name}" already exists in this organization.`);

/** The JSON fields' faults beyond their schema (nesting; metadata the engines could not parse), at their pointers. */
export function jsonFaults(fields: { input?: unknown; expectedOutput?: unknown; metadata?: unknown }, prefix = ''): FieldError[] {
  const faults: FieldError[] = [];
  for (const field of ['input', 'expectedOutput', 'metadata'] as const) {
    if (fields[field] === undefined) continue;
    const fault = jsonValueFault(fields[field], field === 'metadata');
    if (fault) faults.push({ pointer: `${prefix}/${field}`, detail: fault });
  }
  return faults;
}

export async function listDatasets(
  db: Kysely<Database>,
  organizationId: string,
  filters: { name?: string | undefined },
  after: Position | null,
  take: number,
): Promise<KeysetRows<DatasetRow>> {
  let query = db.selectFrom('datasets').selectAll().where('organization_id', '=', organizationId);
  if (filters.name !== undefined) query = query.where(containsText('name_key', nameKey(filters.name)));
  return keysetPage(query, { sort: 'created_at', id: 'id' }, after, take);
}

export async function createDataset(
  db: Kysely<Database>,
  organizationId: string,
  input: { name: string; description?: string | undefined; metadata?: Record<string, unknown> | undefined },
  now: number,
): Promise<DatasetRow> {
  const faults = jsonFaults({ metadata: input.metadata });
  if (faults.length > 0) throw problems.validation(faults);
  const row: DatasetRow = {
    id: newId('ds', now),
    organization_id: organizationId,
    name: input.name,
    name_key: nameKey(input.name),
    description: input.description ?? '',
    metadata: JSON.stringify(input.metadata ?? {}),
    version: 0,
    item_count: 0,
    created_at: now,
    updated_at: now,
  };
  await unlessTaken(db.insertInto('datasets').values(row).execute(), () => nameTaken(input.name));
  return row;
}

/** A dataset of the organization; another organization's is a 404, as one that does not exist. */
export async function requireDataset(db: Kysely<Database>, organizationId: string, id: string): Promise<DatasetRow> {
  return foundRow(db.selectFrom('datasets').selectAll().where('organization_id', '=', organizationId).where('id', '=', id), () => missingDataset(id));
}

export async function updateDataset(
  db: Kysely<Database>,
  organizationId: string,
  id: string,
  input: { name?: string | undefined; description?: string | undefined; metadata?: Record<string, unknown> | undefined },
  now: number,
): Promise<DatasetRow> {
  const faults = jsonFaults({ metadata: input.metadata });
  if (faults.length > 0) throw problems.validation(faults);
  const changes: Partial<DatasetRow> = { updated_at: now };
  if (input.name !== undefined) Object.assign(changes, { name: input.name, name_key: nameKey(input.name) });
  if (input.description !== undefined) changes.description = input.description;
  if (input.metadata !== undefined) changes.metadata = JSON.stringify(input.metadata);
  const update = db.updateTable('datasets').set(changes).where('organization_id', '=', organizationId).where('id', '=', id).returningAll();
  return updatedRow(update, { missing: () => missingDataset(id), taken: () => nameTaken(input.name ?? '') });
}

export async function deleteDataset(db: Kysely<Database>, organizationId: string, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('dataset_item_versions').where('organization_id', '=', organizationId).where('dataset_id', '=', id).execute();
    await deletedRow(trx.deleteFrom('datasets').where('organization_id', '=', organizationId).where('id', '=', id), () => missingDataset(id));
  });
}
