import type { Kysely } from 'kysely';
import { writeTransaction } from '../../db/rowwise.js';
import type { Database, RunRow } from '../../db/schema.js';
import { problems, type Problem } from '../../lib/problems.js';
import { indexRuns, searchText } from '../query/index.js';
import { runRecord, serializeRun, toRun, type RunBody } from './runs.document.js';
import { RUN_COLUMNS, runsByIds } from './runs.repo.js';
import type { Run } from './runs.schemas.js';
import { rollUp } from './runs.rollups.js';
import { keepValues, type ValuedRun } from './runs.values.js';
import { contributionOf, type Contribution } from './runs.totals.js';

/** A run stored again whole, as it is now: its new row (the id of one stored) and record. */
export interface Replacement {
  row: RunRow;
  body: RunBody;
}

/** The columns a replacement rewrites: everything but the run's identity, its trace, its creation and its record (written apart). */
const KEPT: ReadonlySet<string> = new Set(['project_id', 'id', 'trace_id', 'created_at', 'trace_pending', 'doc']);
const REWRITTEN = RUN_COLUMNS.filter((column) => !KEPT.has(column));

/**
 * Stores runs again with new content, for the ways in whose clients send a run in pieces and amend it
 * after it ended (Langfuse's ingestion API: an observation's create, then its updates). Every stored
 * thing follows in one transaction: the row and its record, its tags, its search words and its trace's,
 * session's and end user's totals (its contribution as it was taken away, as it is now added).
 * A run stays in its trace, and a root stays a root: one that names another trace, or a root that names
 * a parent (or the other way round), is a 409, as is one another request changed meanwhile (compared by
 * its content hash). It may move to another parent of its trace (an update that came before its create
 * named none). Answers each run's new row, or its problem.
 */
export async function replaceRuns(db: Kysely<Database>, projectId: string, runs: Replacement[]): Promise<Map<string, RunRow | Problem>> {
  const answers = new Map<string, RunRow | Problem>();
  if (runs.length === 0) return answers;
  await writeTransaction(db, async (trx) => {
    const changes: { add: Contribution[]; remove: Contribution[] } = { add: [], remove: [] };
    const texts: { id: string; text: string }[] = [];
    const valued: ValuedRun[] = [];
    const ordered = [...runs].sort((a, b) => (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0));
    for (let i = 0; i < ordered.length; i += 500) {
      const chunk = ordered.slice(i, i + 500);
      const stored = await trx
        .selectFrom('runs')
        .selectAll()
        .where('project_id', '=', projectId)
        .where(
          'id',
          'in',
          chunk.map((r) => r.row.id),
        )
        .execute();
      const priors = new Map(stored.map((row) => [row.id, row]));
      for (const { row, body } of chunk) {
        const prior = priors.get(row.id);
        if (!prior) {
          answers.set(row.id, problems.conflict(`Run ${row.id} was deleted while this request changed it; retry the request.`));
          continue;
        }
        if (prior.trace_id !== row.trace_id || (prior.parent_run_id === null) !== (row.parent_run_id === null)) {
          answers.set(row.id, problems.conflict(`Run ${row.id} already exists in another trace, or as a root of it; a run cannot move there.`));
          continue;
        }
        const now: RunRow = { ...row, created_at: prior.created_at, trace_pending: prior.trace_pending };
        now.doc = serializeRun(runRecord(now, body));
        const set: Partial<RunRow> = { doc: now.doc };
        for (const column of REWRITTEN) (set as Record<string, unknown>)[column] = now[column];
        const updated = await trx
          .updateTable('runs')
          .set(set)
          .where('project_id', '=', projectId)
          .where('id', '=', row.id)
          .where('content_hash', '=', prior.content_hash)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) {
          answers.set(row.id, problems.conflict(`Run ${row.id} was changed by another request meanwhile; retry the request.`));
          continue;
        }
        changes.remove.push(contributionOf(prior, toRun(prior)));
        changes.add.push(contributionOf(now, body));
        await trx.deleteFrom('run_tags').where('project_id', '=', projectId).where('run_id', '=', row.id).execute();
        if (body.tags.length > 0)
          await trx
            .insertInto('run_tags')
            .values(body.tags.map((tag) => ({ project_id: projectId, run_id: row.id, tag })))
            .execute();
        texts.push({ id: row.id, text: searchText({ ...body, name: row.name }) });
        valued.push({ ...body, name: row.name, model: row.model });
        answers.set(row.id, now);
      }
    }
    await rollUp(trx, projectId, changes);
    await indexRuns(trx, projectId, texts, true);
    await keepValues(trx, projectId, valued);
    // What instances keep of these traces' heads (traces.heads.ts) is kept per revision.
    const traces = [...new Set(changes.add.map((c) => c.traceId))];
    for (let i = 0; i < traces.length; i += 500)
      await trx
        .updateTable('traces')
        .set((eb) => ({ revision: eb('revision', '+', 1) }))
        .where('project_id', '=', projectId)
        .where('trace_id', 'in', traces.slice(i, i + 500))
        .execute();
  });
  return answers;
}

/** The project's runs with these ids, as their records, by id (what a way in that amends runs merges onto). */
export async function storedRunsByIds(db: Kysely<Database>, projectId: string, ids: string[]): Promise<Map<string, Run>> {
  const rows = await runsByIds(db, projectId, ids);
  return new Map([...rows].map(([id, row]) => [id, toRun(row)]));
}
