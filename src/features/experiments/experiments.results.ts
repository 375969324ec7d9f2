import type { Kysely } from 'kysely';
import { unlessTaken } from '../../db/rows.js';
import type { Database, ExperimentResultRow, ExperimentRow, ScoreRow } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { jsonValueFault } from '../../lib/json.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems, type FieldError } from '../../lib/problems.js';
import { contentHash } from '../../lib/content-hash.js';
import { toScore } from '../scores/index.js';
import type { ExperimentResult, NewResult } from './experiments.schemas.js';

/* An experiment's results: each the outcome of one dataset item, read with the item and the scores on its run. */

/** The items' input and expected output at the experiment's dataset version, by item id (deleted or not yet added: absent). */
export async function itemsOf(
  db: Kysely<Database>,
  experiment: ExperimentRow,
  itemIds: readonly string[],
): Promise<Map<string, { input: unknown; expectedOutput: unknown }>> {
  const found = new Map<string, { input: unknown; expectedOutput: unknown }>();
  if (itemIds.length === 0) return found;
  const rows = await db
    .selectFrom('dataset_item_versions')
    .select(['item_id', 'version', 'deleted', 'input', 'expected_output'])
    .where('organization_id', '=', experiment.organization_id)
    .where('dataset_id', '=', experiment.dataset_id)
    .where('item_id', 'in', [...new Set(itemIds)])
    .where('version', '<=', experiment.dataset_version)
    .orderBy('item_id')
    .orderBy('version', 'desc')
    .execute();
  const seen = new Set<string>();
  for (const row of rows) {
    if (seen.has(row.item_id)) continue; // an older row of an item already read at its latest
    seen.add(row.item_id);
    if (row.deleted === 0) found.set(row.item_id, { input: JSON.parse(row.input), expectedOutput: JSON.parse(row.expected_output) });
  }
  return found;
}

/** The scores on runs of a project, by run id (newest first, at most `perRun` each). */
export async function scoresOfRuns(db: Kysely<Database>, projectId: string, runIds: readonly string[], perRun = 100): Promise<Map<string, ScoreRow[]>> {
  const byRun = new Map<string, ScoreRow[]>();
  if (runIds.length === 0) return byRun;
  const rows = await db
    .selectFrom('scores')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('target', '=', 'run')
    .where('target_id', 'in', [...new Set(runIds)])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  for (const row of rows) {
    const list = byRun.get(row.target_id) ?? [];
    if (list.length < perRun) list.push(row);
    byRun.set(row.target_id, list);
  }
  return byRun;
}

export type ResultWithContext = ExperimentResultRow & { item: { input: unknown; expectedOutput: unknown } | null; scores: ScoreRow[] };

export function toExperimentResult(row: ResultWithContext): ExperimentResult {
  return {
    experimentId: row.experiment_id,
    itemId: row.item_id,
    runId: row.run_id,
    traceId: row.trace_id,
    output: JSON.parse(row.output) as unknown,
    error: row.error,
    latencyMs: Number(row.latency_ms),
    usage: row.usage === null ? null : (JSON.parse(row.usage) as ExperimentResult['usage']),
    cost: row.cost === null ? null : Number(row.cost),
    item: row.item,
    scores: row.scores.map(toScore),
    createdAt: toIso(Number(row.created_at)),
  };
}

export async function listResults(
  db: Kysely<Database>,
  experiment: ExperimentRow,
  after: Position | null,
  take: number,
): Promise<KeysetRows<ResultWithContext>> {
  const query = db
    .selectFrom('experiment_results')
    .selectAll()
    .where('organization_id', '=', experiment.organization_id)
    .where('experiment_id', '=', experiment.id);
  const page = await keysetPage(query, { sort: 'created_at', id: 'item_id' }, after, take);
  const items = await itemsOf(
    db,
    experiment,
    page.rows.map((r) => r.item_id),
  );
  const scores = await scoresOfRuns(
    db,
    experiment.project_id,
    page.rows.map((r) => r.run_id),
  );
  const rows = page.rows.map((r) => ({ ...r, item: items.get(r.item_id) ?? null, scores: scores.get(r.run_id) ?? [] }));
  return { rows, positionOf: (row) => page.positionOf(row) };
}

/**
 * Records results, all or nothing: an item the experiment's dataset version lacks, an item given
 * twice, or a run that is not the experiment's project's, is a 400 naming each; a result for an item that has one is `existing` when its content is the
 * same (a retry), else a 409 and nothing is recorded.
 */
export async function recordResults(
  db: Kysely<Database>,
  experiment: ExperimentRow,
  results: readonly NewResult[],
  now: number,
): Promise<{ index: number; itemId: string; status: 'created' | 'existing' }[]> {
  const faults: FieldError[] = [];
  const firstAt = new Map<string, number>();
  results.forEach((r, i) => {
    const first = firstAt.get(r.itemId);
    if (first === undefined) firstAt.set(r.itemId, i);
    else faults.push({ pointer: `/results/${i}/itemId`, detail: `Item ${r.itemId} is given twice (first at /results/${first}/itemId).` });
    if (r.output !== undefined) {
      const fault = jsonValueFault(r.output, false);
      if (fault) faults.push({ pointer: `/results/${i}/output`, detail: fault });
    }
  });
  const items = await itemsOf(
    db,
    experiment,
    results.map((r) => r.itemId),
  );
  results.forEach((r, i) => {
    if (!items.has(r.itemId) && firstAt.get(r.itemId) === i)
      faults.push({
        pointer: `/results/${i}/itemId`,
        detail: `Item ${r.itemId} is not in version ${experiment.dataset_version} of the experiment's dataset.`,
      });
  });
  // The runs must be the experiment's project's (run ids are a project's own: another project's, or
  // another organization's, is answered as one that does not exist). A result's trace: the one given,
  // else its run's.
  const runTraces = new Map(
    (
      await db
        .selectFrom('runs')
        .select(['id', 'trace_id'])
        .where('project_id', '=', experiment.project_id)
        .where('id', 'in', [...new Set(results.map((r) => r.runId))])
        .execute()
    ).map((r) => [r.id, r.trace_id]),
  );
  results.forEach((r, i) => {
    if (!runTraces.has(r.runId)) faults.push({ pointer: `/results/${i}/runId`, detail: `Run ${r.runId} does not exist in the experiment's project.` });
  });
  if (faults.length > 0) throw problems.validation(faults);
  const rows = results.map((r): ExperimentResultRow => {
    const usage = r.usage ? { ...r.usage, totalTokens: r.usage.totalTokens ?? r.usage.promptTokens + r.usage.completionTokens } : null;
    const fields = {
      run_id: r.runId,
      trace_id: r.traceId ?? runTraces.get(r.runId)!,
      output: JSON.stringify(r.output ?? null),
      error: r.error ?? null,
      latency_ms: r.latencyMs,
      usage: usage === null ? null : JSON.stringify(usage),
      total_tokens: usage?.totalTokens ?? null,
      cost: r.cost ?? null,
    };
    return {
      experiment_id: experiment.id,
      item_id: r.itemId,
      organization_id: experiment.organization_id,
      project_id: experiment.project_id,
      ...fields,
      content_hash: contentHash([r.runId, r.traceId ?? null, r.output ?? null, fields.error, r.latencyMs, usage, fields.cost]),
      created_at: now,
    };
  });

  return db.transaction().execute(async (trx) => {
    const stored = new Map(
      (
        await trx
          .selectFrom('experiment_results')
          .select(['item_id', 'content_hash'])
          .where('experiment_id', '=', experiment.id)
          .where(
            'item_id',
            'in',
            rows.map((r) => r.item_id),
          )
          .execute()
      ).map((r) => [r.item_id, r.content_hash]),
    );
    const clashes = rows.filter((r) => stored.has(r.item_id) && stored.get(r.item_id) !== r.content_hash).map((r) => r.item_id);
    if (clashes.length > 0)
      throw problems.conflict(
        `The experiment already has a different result for ${clashes.length === 1 ? 'item' : 'items'} ${clashes.slice(0, 10).join(', ')}.`,
      );
    const fresh = rows.filter((r) => !stored.has(r.item_id));
    if (fresh.length > 0) {
      // A concurrent request recorded one of them first: the caller retries and is told what is stored.
      await unlessTaken(trx.insertInto('experiment_results').values(fresh).execute(), () =>
        problems.conflict('Another request recorded results for these items at the same time; send the request again.'),
      );
      await trx.updateTable('experiments').set({ updated_at: now }).where('id', '=', experiment.id).execute();
    }
    // Experiment traffic (the lists' `experiment` filter): the run's trace and the trace the result names,
    // marked in the transaction that links them.
    const traces = new Set(rows.flatMap((r) => [r.trace_id, runTraces.get(r.run_id)!]));
    await trx
      .updateTable('traces')
      .set({ experiment: 1 })
      .where('project_id', '=', experiment.project_id)
      .where('trace_id', 'in', [...traces])
      .where('experiment', '=', 0)
      .execute();
    return rows.map((r, index) => ({ index, itemId: r.item_id, status: stored.has(r.item_id) ? ('existing' as const) : ('created' as const) }));
  });
}
