import type { Kysely, Transaction } from 'kysely';
import type { Database, DatasetItemVersionRow, DatasetRow } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems, type FieldError } from '../../lib/problems.js';
import { jsonFaults, missingDataset } from './datasets.repo.js';
import type { DatasetItem } from './datasets.schemas.js';

// Items: each change is new rows at a new dataset version, never an update of a row.

/** A dataset of an organization: what every item query is bound by. */
export interface DatasetRef {
  organizationId: string;
  datasetId: string;
}

export function toDatasetItem(row: DatasetItemVersionRow): DatasetItem {
  return {
    id: row.item_id,
    datasetId: row.dataset_id,
    input: JSON.parse(row.input) as unknown,
    expectedOutput: JSON.parse(row.expected_output) as unknown,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    sourceRunId: row.source_run_id,
    sourceProjectId: row.source_project_id,
    version: row.version,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

type Db = Kysely<Database> | Transaction<Database>;

/**
 * The version a read asks for, or the dataset's current one; one the dataset has not reached is a 400
 * naming `version` (reading it later would give other items).
 */
export function versionToRead(dataset: DatasetRow, requested: number | undefined): number {
  if (requested === undefined) return dataset.version;
  if (requested > dataset.version)
    throw problems.validation([{ parameter: 'version', detail: `The dataset is at version ${dataset.version}: ask for 0 to ${dataset.version}.` }]);
  return requested;
}

/** Each item's latest row at or before `version` (a row no later row at or before it replaces), unless a deletion. */
export function itemsAt(db: Db, ref: DatasetRef, version: number) {
  return db
    .selectFrom('dataset_item_versions as v')
    .selectAll('v')
    .where('v.organization_id', '=', ref.organizationId)
    .where('v.dataset_id', '=', ref.datasetId)
    .where('v.version', '<=', version)
    .where('v.deleted', '=', 0)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('dataset_item_versions as later')
            .select('later.version')
            .whereRef('later.dataset_id', '=', 'v.dataset_id')
            .whereRef('later.item_id', '=', 'v.item_id')
            .whereRef('later.version', '>', 'v.version')
            .where('later.version', '<=', version),
        ),
      ),
    );
}

/** The items at a version, newest item first (then id): an item keeps its place when it is edited. */
export async function listItems(
  db: Kysely<Database>,
  ref: DatasetRef,
  version: number,
  after: Position | null,
  take: number,
): Promise<KeysetRows<DatasetItemVersionRow>> {
  return keysetPage(itemsAt(db, ref, version), { sort: 'v.created_at', id: 'v.item_id' }, after, take);
}

/** An item's latest row at or before `version`, deletions included. */
async function latestRow(db: Db, ref: DatasetRef, itemId: string, version: number): Promise<DatasetItemVersionRow | undefined> {
  return db
    .selectFrom('dataset_item_versions')
    .selectAll()
    .where('organization_id', '=', ref.organizationId)
    .where('dataset_id', '=', ref.datasetId)
    .where('item_id', '=', itemId)
    .where('version', '<=', version)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The item as it was at `version`: one not added yet, or deleted by then, is a 404. */
export async function requireItem(db: Db, ref: DatasetRef, itemId: string, version: number): Promise<DatasetItemVersionRow> {
  const row = await latestRow(db, ref, itemId, version);
  if (!row || row.deleted === 1) throw problems.notFound(`Item ${itemId} does not exist in version ${version} of this dataset.`);
  return row;
}

/**
 * One change to a dataset's items, in one transaction: the dataset's version is bumped first (an
 * UPDATE … RETURNING, which takes the dataset row's lock on PostgreSQL and runs alone on SQLite), so
 * concurrent changes are serialised and never number two changes alike; `write` then stores the rows
 * of that version. A problem thrown by `write` rolls the bump back.
 */
async function newVersion<T>(
  db: Kysely<Database>,
  ref: DatasetRef,
  change: { countDelta: number; now: number },
  write: (trx: Transaction<Database>, version: number) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const bumped = await trx
      .updateTable('datasets')
      .set((eb) => ({ version: eb('version', '+', 1), item_count: eb('item_count', '+', change.countDelta), updated_at: change.now }))
      .where('organization_id', '=', ref.organizationId)
      .where('id', '=', ref.datasetId)
      .returning('version')
      .executeTakeFirst();
    if (!bumped) throw missingDataset(ref.datasetId);
    return write(trx, bumped.version);
  });
}

export interface NewItem {
  id?: string | undefined;
  input: unknown;
  expectedOutput?: unknown;
  metadata?: Record<string, unknown> | undefined;
  sourceRunId?: string | null;
  sourceProjectId?: string | null;
}

// Rows per INSERT: 12 values each, well within both engines' bound of bound parameters.
const INSERT_CHUNK = 500;

/** Checks a request's items before anything is written: JSON faults, and an id given twice, at their pointers. */
function checkNewItems(items: NewItem[], pointerOf: (index: number) => string): void {
  const faults: FieldError[] = [];
  const firstAt = new Map<string, number>();
  items.forEach((item, i) => {
    faults.push(...jsonFaults(item, pointerOf(i)));
    if (item.id === undefined) return;
    const first = firstAt.get(item.id);
    if (first === undefined) firstAt.set(item.id, i);
    else faults.push({ pointer: `/items/${i}/id`, detail: `Item ${item.id} is given twice (first at /items/${first}/id).` });
  });
  if (faults.length > 0) throw problems.validation(faults);
}

/**
 * Adds items as one new version. An id the dataset has ever had (deleted ones too: their history keeps
 * the id) is a 409 for the whole request, and nothing is written. `pointerOf` says where each item is in
 * the request body, for its faults.
 */
export async function addItems(
  db: Kysely<Database>,
  ref: DatasetRef,
  items: NewItem[],
  now: number,
  pointerOf: (index: number) => string = (i) => `/items/${i}`,
): Promise<{ version: number; rows: DatasetItemVersionRow[] }> {
  checkNewItems(items, pointerOf);
  const chosen = items.flatMap((item) => (item.id === undefined ? [] : [item.id]));
  return newVersion(db, ref, { countDelta: items.length, now }, async (trx, version) => {
    for (let i = 0; i < chosen.length; i += INSERT_CHUNK) {
      const taken = await trx
        .selectFrom('dataset_item_versions')
        .select('item_id')
        .distinct()
        .where('organization_id', '=', ref.organizationId)
        .where('dataset_id', '=', ref.datasetId)
        .where('item_id', 'in', chosen.slice(i, i + INSERT_CHUNK))
        .execute();
      if (taken.length > 0) {
        const ids = taken.map((t) => t.item_id).sort();
        throw problems.conflict(`This dataset already has ${ids.length === 1 ? 'an item' : 'items'} with the id ${ids.slice(0, 10).join(', ')}.`);
      }
    }
    const rows = items.map((item): DatasetItemVersionRow => ({
      organization_id: ref.organizationId,
      dataset_id: ref.datasetId,
      item_id: item.id ?? newId('dsi', now),
      version,
      input: JSON.stringify(item.input),
      expected_output: JSON.stringify(item.expectedOutput ?? null),
      metadata: JSON.stringify(item.metadata ?? {}),
      source_run_id: item.sourceRunId ?? null,
      source_project_id: item.sourceProjectId ?? null,
      deleted: 0,
      created_at: now,
      updated_at: now,
    }));
    for (let i = 0; i < rows.length; i += INSERT_CHUNK)
      await trx
        .insertInto('dataset_item_versions')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .execute();
    return { version, rows };
  });
}

/** The item's current row, which a change starts from; a deleted or unknown item is a 404. */
async function currentRow(trx: Transaction<Database>, ref: DatasetRef, itemId: string, version: number): Promise<DatasetItemVersionRow> {
  const row = await latestRow(trx, ref, itemId, version - 1);
  if (!row || row.deleted === 1) throw problems.notFound(`Item ${itemId} does not exist in this dataset.`);
  return row;
}

/** Edits an item as a new version: the fields given replace the current ones; the others are kept. */
export async function updateItem(
  db: Kysely<Database>,
  ref: DatasetRef,
  itemId: string,
  changes: { input?: unknown; expectedOutput?: unknown; metadata?: Record<string, unknown> | undefined },
  now: number,
): Promise<DatasetItemVersionRow> {
  const faults = jsonFaults(changes);
  if (faults.length > 0) throw problems.validation(faults);
  return newVersion(db, ref, { countDelta: 0, now }, async (trx, version) => {
    const current = await currentRow(trx, ref, itemId, version);
    const row: DatasetItemVersionRow = {
      ...current,
      version,
      updated_at: now,
      ...(changes.input === undefined ? {} : { input: JSON.stringify(changes.input) }),
      ...(changes.expectedOutput === undefined ? {} : { expected_output: JSON.stringify(changes.expectedOutput) }),
      ...(changes.metadata === undefined ? {} : { metadata: JSON.stringify(changes.metadata) }),
    };
    await trx.insertInto('dataset_item_versions').values(row).execute();
    return row;
  });
}

/** Deletes an item as a new version (a deletion row): earlier versions still hold it. */
export async function deleteItem(db: Kysely<Database>, ref: DatasetRef, itemId: string, now: number): Promise<number> {
  return newVersion(db, ref, { countDelta: -1, now }, async (trx, version) => {
    const current = await currentRow(trx, ref, itemId, version);
    await trx
      .insertInto('dataset_item_versions')
      .values({ ...current, version, deleted: 1, updated_at: now })
      .execute();
    return version;
  });
}
