import { sql, type Kysely } from 'kysely';
import { deletedRow, foundRow, unlessTaken } from '../../db/rows.js';
import type { Database, ExperimentRow } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { jsonValueFault } from '../../lib/json.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems, type FieldError } from '../../lib/problems.js';
import { itemsAt, requireDataset, versionToRead } from '../datasets/index.js';
import { requireProject } from '../projects/index.js';

import type { Experiment } from './experiments.schemas.js';

/** What an experiment's counts and aggregates are computed from (`experimentStats`). */
export interface ExperimentStats {
  done: number;
  failed: number;
  latency: { mean: number | null; p50: number | null; p95: number | null };
  tokens: number;
  cost: number;
  scores: Record<string, { count: number; mean: number | null }>;
}
export type ExperimentWithStats = ExperimentRow & { stats: ExperimentStats };

const emptyStats = (): ExperimentStats => ({ done: 0, failed: 0, latency: { mean: null, p50: null, p95: null }, tokens: 0, cost: 0, scores: {} });

export function toExperiment(row: ExperimentWithStats): Experiment {
  const { stats } = row;
  return {
    id: row.id,
    name: row.name,
    datasetId: row.dataset_id,
    datasetVersion: row.dataset_version,
    projectId: row.project_id,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    status: row.status as Experiment['status'],
    counts: { items: row.item_count, done: stats.done, failed: stats.failed },
    aggregates: { latency: stats.latency, tokens: stats.tokens, cost: stats.cost, scores: stats.scores },
    createdAt: toIso(Number(row.created_at)),
    updatedAt: toIso(Number(row.updated_at)),
    completedAt: row.completed_at === null ? null : toIso(Number(row.completed_at)),
  };
}

const missing = (id: string) => problems.notFound(`Experiment ${id} does not exist.`);
const nameTaken = (name: string) => problems.conflict(`The dataset already has an experiment named "${name}".`);

function metadataFaults(metadata: unknown): FieldError[] {
  const fault = metadata === undefined ? null : jsonValueFault(metadata, true);
  return fault ? [{ pointer: '/metadata', detail: fault }] : [];
}

/**
 * Counts and aggregates of experiments, by id, in three queries whatever their number: the results'
 * counts and sums; the nearest-rank 50th and 95th latency percentiles (rank ⌈n/2⌉ and ⌈0.95·n⌉ of the
 * results ordered by latency); the scores on the results' runs, by name.
 */
export async function experimentStats(db: Kysely<Database>, organizationId: string, ids: readonly string[]): Promise<Map<string, ExperimentStats>> {
  const stats = new Map(ids.map((id) => [id, emptyStats()]));
  if (ids.length === 0) return stats;
  const totals = await db
    .selectFrom('experiment_results')
    .select((eb) => [
      'experiment_id',
      eb.fn.countAll<number>().as('n'),
      eb.fn.count<number>('error').as('failed'),
      eb.fn.avg<number>('latency_ms').as('latency'),
      eb.fn.sum<number>('total_tokens').as('tokens'),
      eb.fn.sum<number>('cost').as('cost'),
    ])
    .where('organization_id', '=', organizationId)
    .where('experiment_id', 'in', ids)
    .groupBy('experiment_id')
    .execute();
  for (const t of totals) {
    const s = stats.get(t.experiment_id)!;
    Object.assign(s, { done: Number(t.n), failed: Number(t.failed), tokens: Number(t.tokens ?? 0), cost: Number(t.cost ?? 0) });
    s.latency.mean = t.latency === null ? null : Number(t.latency);
  }
  const ranked = await sql<{ experiment_id: string; rn: number; n: number; latency_ms: number }>`
    select experiment_id, rn, n, latency_ms from (
      select experiment_id, latency_ms,
        row_number() over (partition by experiment_id order by latency_ms) as rn,
        count(*) over (partition by experiment_id) as n
      from experiment_results
      where organization_id = ${organizationId} and experiment_id in (${sql.join(ids)})
    ) ranked
    where rn = (n + 1) / 2 or rn = (95 * n + 99) / 100`.execute(db);
  for (const r of ranked.rows) {
    const s = stats.get(r.experiment_id)!;
    const n = Number(r.n);
    const rn = Number(r.rn);
    if (rn === Math.floor((n + 1) / 2)) s.latency.p50 = Number(r.latency_ms);
    if (rn === Math.floor((95 * n + 99) / 100)) s.latency.p95 = Number(r.latency_ms);
  }
  const scores = await db
    .selectFrom('experiment_results as r')
    .innerJoin('scores as s', (join) => join.onRef('s.project_id', '=', 'r.project_id').on('s.target', '=', 'run').onRef('s.target_id', '=', 'r.run_id'))
    .select((eb) => [
      'r.experiment_id',
      's.name',
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number>('s.value').as('total'),
      eb.fn.count<number>('s.value').as('valued'),
    ])
    .where('r.organization_id', '=', organizationId)
    .where('r.experiment_id', 'in', ids)
    .groupBy(['r.experiment_id', 's.name'])
    .execute();
  for (const r of scores) {
    const valued = Number(r.valued);
    stats.get(r.experiment_id)!.scores[r.name] = { count: Number(r.n), mean: valued === 0 ? null : Number(r.total) / valued };
  }
  return stats;
}

async function withStats(db: Kysely<Database>, organizationId: string, rows: ExperimentRow[]): Promise<ExperimentWithStats[]> {
  const stats = await experimentStats(
    db,
    organizationId,
    rows.map((r) => r.id),
  );
  return rows.map((row) => ({ ...row, stats: stats.get(row.id)! }));
}

export async function listExperiments(
  db: Kysely<Database>,
  organizationId: string,
  filters: { datasetId?: string | undefined; name?: string | undefined },
  after: Position | null,
  take: number,
): Promise<KeysetRows<ExperimentWithStats>> {
  let query = db.selectFrom('experiments').selectAll().where('organization_id', '=', organizationId);
  if (filters.datasetId !== undefined) query = query.where('dataset_id', '=', filters.datasetId);
  if (filters.name !== undefined) query = query.where('name', '=', filters.name);
  const page = await keysetPage(query, { sort: 'created_at', id: 'id' }, after, take);
  const rows = await withStats(db, organizationId, page.rows);
  return { rows, positionOf: (row) => page.positionOf(row) };
}

export async function requireExperimentRow(db: Kysely<Database>, organizationId: string, id: string): Promise<ExperimentRow> {
  return foundRow(db.selectFrom('experiments').selectAll().where('organization_id', '=', organizationId).where('id', '=', id), () => missing(id));
}

export async function requireExperiment(db: Kysely<Database>, organizationId: string, id: string): Promise<ExperimentWithStats> {
  const [row] = await withStats(db, organizationId, [await requireExperimentRow(db, organizationId, id)]);
  return row!;
}

export async function createExperiment(
  db: Kysely<Database>,
  organizationId: string,
  input: { name: string; datasetId: string; datasetVersion?: number | undefined; projectId: string; metadata?: Record<string, unknown> | undefined },
  now: number,
): Promise<ExperimentWithStats> {
  const faults = metadataFaults(input.metadata);
  if (faults.length > 0) throw problems.validation(faults);
  const dataset = await requireDataset(db, organizationId, input.datasetId);
  const project = await requireProject(db, organizationId, input.projectId);
  if (input.datasetVersion !== undefined && input.datasetVersion > dataset.version)
    throw problems.validation([{ pointer: '/datasetVersion', detail: `The dataset is at version ${dataset.version}: give 0 to ${dataset.version}.` }]);
  const version = versionToRead(dataset, input.datasetVersion);
  const counted = await itemsAt(db, { organizationId, datasetId: dataset.id }, version)
    .clearSelect()
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const row: ExperimentRow = {
    id: newId('exp', now),
    organization_id: organizationId,
    dataset_id: dataset.id,
    dataset_version: version,
    project_id: project.id,
    name: input.name,
    metadata: JSON.stringify(input.metadata ?? {}),
    status: 'running',
    item_count: Number(counted.n),
    created_at: now,
    updated_at: now,
    completed_at: null,
  };
  await unlessTaken(db.insertInto('experiments').values(row).execute(), () => nameTaken(input.name));
  return { ...row, stats: emptyStats() };
}

export async function updateExperiment(
  db: Kysely<Database>,
  organizationId: string,
  id: string,
  input: { status?: 'running' | 'completed' | undefined; metadata?: Record<string, unknown> | undefined },
  now: number,
): Promise<ExperimentWithStats> {
  const faults = metadataFaults(input.metadata);
  if (faults.length > 0) throw problems.validation(faults);
  const current = await requireExperimentRow(db, organizationId, id);
  const changes: Partial<ExperimentRow> = { updated_at: now };
  if (input.metadata !== undefined) changes.metadata = JSON.stringify(input.metadata);
  if (input.status !== undefined && input.status !== current.status) {
    changes.status = input.status;
    changes.completed_at = input.status === 'completed' ? now : null;
  }
  await db.updateTable('experiments').set(changes).where('organization_id', '=', organizationId).where('id', '=', id).execute();
  return requireExperiment(db, organizationId, id);
}

export async function deleteExperiment(db: Kysely<Database>, organizationId: string, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('experiment_results').where('organization_id', '=', organizationId).where('experiment_id', '=', id).execute();
    await deletedRow(trx.deleteFrom('experiments').where('organization_id', '=', organizationId).where('id', '=', id), () => missing(id));
  });
}
