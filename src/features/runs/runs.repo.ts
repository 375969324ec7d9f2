import { insertIgnoringConflicts } from '../../db/bulk.js';
import { writeTransaction } from '../../db/rowwise.js';
import { foundRow } from '../../db/rows.js';
import { isUniqueViolation } from '../../db/errors.js';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, RunRow } from '../../db/schema.js';
import { problems, type FieldError } from '../../lib/problems.js';
import { requireTimestamp } from '../../lib/clock.js';
import { runRecord, serializeRun, toRun } from './runs.document.js';
import { indexRuns, searchText } from '../query/index.js';
import { jsonValueFault } from '../../lib/json.js';
import { runStateFaults, TERMINAL_STATUSES, usageWithTotal, type StoredUsage } from './runs.rules.js';
import { rollUp, rollUpMoves } from './runs.rollups.js';
import { contributionOf, type Contribution } from './runs.totals.js';
import { projectPrices, runCost } from '../models/index.js';
import type { RunPatch } from './runs.schemas.js';
import { awaitsEstimate, reestimate } from './runs.estimate.js';
import { keepValues } from './runs.values.js';

export { toRun };

export async function getRun(db: Kysely<Database> | Transaction<Database>, projectId: string, runId: string): Promise<RunRow> {
  const run = db.selectFrom('runs').selectAll().where('project_id', '=', projectId).where('id', '=', runId);
  return foundRow(run, () => problems.notFound(`Run ${runId} does not exist in this project.`));
}

/** A running run's tokens estimated from its inputs and the outputs given (`reestimate`); null when not to be, or the run is not found or has ended (the transaction answers those). */
async function estimateFor(db: Kysely<Database>, projectId: string, runId: string, outputs: unknown) {
  const run = await db.selectFrom('runs').select(['kind', 'status', 'doc']).where('project_id', '=', projectId).where('id', '=', runId).executeTakeFirst();
  if (!run || run.status !== 'running') return null;
  const { inputs, usage } = toRun(run);
  return reestimate({ kind: run.kind, inputs, usage }, outputs);
}

/**
 * Ends or amends a running run. Finished runs are final: any change is a 409. The update is
 * conditional on the run still running, so two concurrent "end" calls cannot both win.
 */
export async function patchRun(db: Kysely<Database>, projectId: string, runId: string, patch: RunPatch, now: number): Promise<RunRow> {
  // Outputs without usage on a model run that reported none: its tokens are estimated again from all its
  // texts (runs.estimate.ts), before the transaction, which never waits for the tokenizer.
  const estimate = patch.outputs !== undefined && patch.usage === undefined ? await estimateFor(db, projectId, runId, patch.outputs) : null;
  return db.transaction().execute(async (trx) => {
    const run = await getRun(trx, projectId, runId);
    if (TERMINAL_STATUSES.has(run.status)) throw problems.conflict(`Run ${runId} has already ${run.status}; finished runs cannot change.`);
    const status = patch.status ?? 'running';
    // Ending without endTime ends now (never before the start).
    const endTime =
      patch.endTime !== undefined
        ? requireTimestamp(patch.endTime, { pointer: '/endTime' })
        : TERMINAL_STATUSES.has(status)
          ? Math.max(now, run.start_time)
          : null;
    const faults: FieldError[] = runStateFaults({ status, startTime: run.start_time, endTime, error: patch.error }).map((f) => ({
      pointer: f.field,
      detail: f.detail,
    }));
    for (const field of ['outputs', 'metadata'] as const) {
      const fault = jsonValueFault(patch[field], field === 'metadata');
      if (fault) faults.push({ pointer: `/${field}`, detail: fault });
    }
    if (faults.length > 0) throw problems.validation(faults);

    const record = toRun(run);
    const changes: Partial<RunRow> = {};
    if (TERMINAL_STATUSES.has(status)) Object.assign(changes, { status, end_time: endTime, latency_ms: endTime! - run.start_time });
    if (patch.outputs !== undefined) record.outputs = patch.outputs;
    if (patch.error !== undefined) record.error = patch.error;
    // The estimate holds if the run still has none of its own (another call may have given it usage since).
    const usage = patch.usage !== undefined ? patch.usage : estimate && awaitsEstimate(record.usage) ? estimate : undefined;
    if (usage !== undefined) {
      record.usage = usage ? usageWithTotal(usage) : null;
      changes.total_tokens = record.usage?.totalTokens ?? null;
    }
    // A cost the client gives is kept; otherwise new usage (or a cleared cost) is priced again, at the run's start.
    if (patch.cost !== undefined || (usage !== undefined && record.costSource !== 'client')) {
      const usage = { model: run.model, provider: record.provider, usage: record.usage, startTime: run.start_time };
      const priced = runCost(patch.cost, usage, typeof patch.cost !== 'number' && run.model ? await projectPrices(trx, projectId) : []);
      Object.assign(record, { costSource: priced.costSource, price: priced.price });
      changes.cost = priced.cost;
    }
    if (patch.tags !== undefined) record.tags = patch.tags;
    if (patch.metadata !== undefined) {
      record.metadata = patch.metadata;
      changes.metadata = JSON.stringify(patch.metadata);
    }
    if (Object.keys(changes).length === 0 && Object.keys(patch).every((k) => k === 'status')) return run;
    changes.doc = serializeRun(runRecord({ ...run, ...changes }, record));

    const updated = await trx
      .updateTable('runs')
      .set(changes)
      .where('project_id', '=', projectId)
      .where('id', '=', runId)
      .where('status', '=', 'running')
      .returningAll()
      .executeTakeFirst();
    if (!updated) throw problems.conflict(`Run ${runId} has already finished; finished runs cannot change.`);
    await rollUp(trx, projectId, { add: [contributionOf(updated, record)], remove: [contributionOf(run, toRun(run))] });
    if (patch.outputs !== undefined || patch.error !== undefined)
      await indexRuns(trx, projectId, [{ id: runId, text: searchText({ ...record, name: run.name }) }], true);
    if (patch.tags !== undefined) {
      await trx.deleteFrom('run_tags').where('project_id', '=', projectId).where('run_id', '=', runId).execute();
      if (patch.tags.length > 0) {
        await trx
          .insertInto('run_tags')
          .values(patch.tags.map((tag) => ({ project_id: projectId, run_id: runId, tag })))
          .execute();
      }
    }
    if (patch.tags !== undefined || patch.metadata !== undefined) await keepValues(trx, projectId, [{ ...record, name: run.name, model: run.model }]);
    return updated;
  });
}

const INSERT_CHUNK = 500; // 20 columns × 500 rows stays under both engines' parameter limits
export const RUN_COLUMNS = [
  'project_id',
  'id',
  'trace_id',
  'parent_run_id',
  'name',
  'kind',
  'status',
  'start_time',
  'end_time',
  'latency_ms',
  'model',
  'total_tokens',
  'cost',
  'metadata',
  'content_hash',
  'created_at',
  'doc',
  'session_id',
  'user_id',
  'trace_pending',
] as const satisfies readonly (keyof RunRow)[];

/** In chunks that stay under both engines' parameter limits. */
async function inChunks<T>(ids: readonly string[], read: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  for (let i = 0; i < ids.length; i += 500) rows.push(...(await read(ids.slice(i, i + 500))));
  return rows;
}

/** The project's runs with these ids, by id: what an idempotent retry is compared with and answered by. */
export async function runsByIds(db: Kysely<Database>, projectId: string, ids: string[]): Promise<Map<string, Pick<RunRow, 'id' | 'content_hash' | 'doc'>>> {
  const rows = await inChunks(ids, (chunk) =>
    db.selectFrom('runs').select(['id', 'content_hash', 'doc']).where('project_id', '=', projectId).where('id', 'in', chunk).execute(),
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** The traces of stored runs that runs of a call name as parents, by id. */
export async function storedParents(db: Kysely<Database>, projectId: string, ids: string[]): Promise<Map<string, Pick<RunRow, 'trace_id' | 'trace_pending'>>> {
  const rows = await inChunks(ids, (chunk) =>
    db.selectFrom('runs').select(['id', 'trace_id', 'trace_pending']).where('project_id', '=', projectId).where('id', 'in', chunk).execute(),
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** Whether some run of the project waits for its parent's trace (from the partial index of waiting runs). */
async function anyWaiting(db: Kysely<Database>, projectId: string): Promise<boolean> {
  const found = await db
    .selectFrom('runs')
    .select(sql.lit(1).as('one'))
    .where('project_id', '=', projectId)
    .where('trace_pending', '=', sql.lit(1)) // a literal, so both engines may use the partial index
    .limit(1)
    .executeTakeFirst();
  return found !== undefined;
}

/**
 * Runs that came before their parent take the trace of the run they wait for (whose id is their
 * provisional trace) once it is stored, with their descendants, which wait on the same id. `arrived`:
 * ids of runs that may be awaited (just inserted, or awaited by runs just inserted, which another call
 * may have stored meanwhile: whichever of two concurrent calls commits last sees the other's run).
 * Returns the new records of the runs that changed, by id.
 */
export async function adoptWaitingRuns(db: Kysely<Database>, projectId: string, arrived: string[]): Promise<Map<string, string>> {
  const docs = new Map<string, string>();
  // Most projects have no run waiting (a run waits only when it names no trace and its parent has not
  // arrived): one probe of the partial index answers that, where a lookup of every arrived id cost
  // statements of hundreds of parameters on every call.
  if (arrived.length === 0 || !(await anyWaiting(db, projectId))) return docs;
  let awaited = [...new Set(arrived)];
  // A parent that was itself waiting hands down a trace that may be provisional too: a few rounds settle it.
  for (let round = 0; round < 8 && awaited.length > 0; round++) {
    const waiting = await inChunks(awaited, (chunk) =>
      db
        .selectFrom('runs')
        .select(['id', 'trace_id', 'doc', 'parent_run_id', 'name', 'status', 'start_time', 'end_time', 'cost', 'session_id', 'user_id'])
        .where('project_id', '=', projectId)
        .where('trace_pending', '=', sql.lit(1)) // a literal, so both engines may use the partial index
        .where('trace_id', 'in', chunk)
        .execute(),
    );
    if (waiting.length === 0) break;
    const found = await storedParents(db, projectId, [...new Set(waiting.map((w) => w.trace_id))]);
    const next = new Set<string>();
    await db.transaction().execute(async (trx) => {
      const moved: { add: Contribution[]; remove: Contribution[] } = { add: [], remove: [] };
      for (const run of waiting) {
        const parent = found.get(run.trace_id);
        if (!parent) continue;
        const record = toRun({ doc: docs.get(run.id) ?? run.doc });
        record.traceId = parent.trace_id;
        const doc = serializeRun(record);
        const updated = await trx
          .updateTable('runs')
          .set({ trace_id: parent.trace_id, trace_pending: parent.trace_pending, doc })
          .where('project_id', '=', projectId)
          .where('id', '=', run.id)
          .where('trace_pending', '=', 1)
          .where('trace_id', '=', run.trace_id)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) continue;
        docs.set(run.id, doc);
        if (parent.trace_pending === 1) next.add(parent.trace_id);
        // Its contribution moves from the provisional trace to its parent's.
        moved.remove.push(contributionOf(run, record));
        moved.add.push(contributionOf({ ...run, trace_id: parent.trace_id }, record));
      }
      await rollUpMoves(trx, projectId, moved);
    });
    awaited = [...next];
  }
  return docs;
}

/**
 * Inserts runs and their tags in one transaction, skipping ids the project already has (a concurrent
 * request may have created them); returns the ids this call inserted. One global insertion order (by
 * id), so concurrent calls naming the same runs in different orders wait on each other instead of
 * deadlocking (PostgreSQL locks each conflicting row).
 */
export async function insertRuns(
  db: Kysely<Database>,
  projectId: string,
  runs: { row: RunRow; tags: string[]; metadata: Record<string, unknown>; usage: StoredUsage | null; costSource: 'client' | 'computed' | null; text: string }[],
): Promise<Set<string>> {
  const inserted = new Set<string>();
  const ordered = [...runs].sort((a, b) => (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0));
  try {
    await writeTransaction(db, async (trx) => {
      for (let i = 0; i < ordered.length; i += INSERT_CHUNK) {
        const chunk = ordered.slice(i, i + INSERT_CHUNK);
        const rows = await insertIgnoringConflicts(
          trx,
          'runs',
          RUN_COLUMNS,
          ['project_id', 'id'],
          'id',
          chunk.map((c) => c.row),
        );
        for (const r of rows) inserted.add(r.id as string);
      }
      const tags = runs.filter((c) => inserted.has(c.row.id)).flatMap((c) => c.tags.map((tag) => ({ project_id: projectId, run_id: c.row.id, tag })));
      for (let i = 0; i < tags.length; i += INSERT_CHUNK * 4) {
        await insertIgnoringConflicts(
          trx,
          'run_tags',
          ['project_id', 'run_id', 'tag'],
          ['project_id', 'run_id', 'tag'],
          'tag',
          tags.slice(i, i + INSERT_CHUNK * 4),
        );
      }
      // The runs' traces, sessions and end users add them up, in the same transaction.
      const stored = runs.filter((c) => inserted.has(c.row.id));
      await rollUp(trx, projectId, { add: stored.map((c) => contributionOf(c.row, c)), remove: [] });
      await indexRuns(
        trx,
        projectId,
        stored.map((c) => ({ id: c.row.id, text: c.text })),
      );
      // Last, so that concurrent batches wait on a value both are first to store only until one commits.
      await keepValues(
        trx,
        projectId,
        stored.map((c) => ({ name: c.row.name, model: c.row.model, tags: c.tags, metadata: c.metadata })),
      );
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw problems.conflict('A concurrent request created some of these runs; retry the request.');
    throw error;
  }
  return inserted;
}
