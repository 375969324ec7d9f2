import { sql, type Kysely } from 'kysely';
import { toIso } from '../../lib/clock.js';
import type { Dialect } from '../../db/dialect.js';
import type { Database } from '../../db/schema.js';
import type { RollupTotals } from '../../db/schema.runs.js';
import { keysetQuery, keysetRows } from '../../lib/pagination.js';
import { problems } from '../../lib/problems.js';
import { rawRows } from '../../db/raw-rows.js';
import {
  type FilteredList,
  planList,
  type RunFilters,
  runFilterWhere,
  scoredColumn,
  scoredIds,
  scoreSummaries,
  type ScoreSummary,
  traceExperimentIs,
  withSummaries,
} from '../query/index.js';
import { type TraceListRow, withHeads } from './traces.heads.js';
import { MAX_OUTLINE_RUNS, type RunOutline, type Trace } from './traces.schemas.js';

export type { TraceListRow };

const TRACE_ORDER = { sort: 'traces.start_time', id: 'traces.trace_id' } as const;

/** The totals of a rollup row as the API shows them. */
export function totalsOf(row: RollupTotals) {
  return {
    startTime: toIso(Number(row.start_time)),
    endTime: toIso(Number(row.end_time)),
    runCount: Number(row.run_count),
    errorCount: Number(row.error_count),
    runningCount: Number(row.running_count),
    usage: {
      promptTokens: Number(row.prompt_tokens),
      completionTokens: Number(row.completion_tokens),
      totalTokens: Number(row.total_tokens),
      cacheReadTokens: Number(row.cache_read_tokens),
      cacheCreationTokens: Number(row.cache_creation_tokens),
      reasoningTokens: Number(row.reasoning_tokens),
      estimatedTokens: Number(row.estimated_tokens),
    },
    cost: Number(row.cost),
    computedCost: Number(row.computed_cost),
    estimatedCost: Number(row.estimated_cost),
  };
}

/** A trace as the API gives it: its row, its head's tags and previews, its own scores' summaries and its root run's. */
export function toTrace(row: TraceListRow, scores: ScoreSummary[], rootScores: ScoreSummary[]): Trace {
  const totals = totalsOf(row);
  return {
    traceId: row.trace_id,
    projectId: row.project_id,
    rootRunId: row.root_run_id,
    name: row.name,
    status: totals.runningCount > 0 ? 'running' : totals.errorCount > 0 ? 'failed' : 'succeeded',
    ...totals,
    latencyMs: Number(row.end_time) - Number(row.start_time),
    sessionId: row.session_id,
    userId: row.user_id,
    tags: row.head.tags,
    input: row.head.input,
    output: row.head.output,
    scores,
    rootScores,
  };
}

/**
 * Traces as the API gives them, with the summaries of their own scores and of their root runs' (a query
 * for each kind, by the page's ids: the cost of a page, not of the project's runs).
 */
export async function tracesWithScores(db: Kysely<Database>, dialect: Dialect, projectId: string, rows: TraceListRow[]): Promise<Trace[]> {
  const rooted = rows.filter((row): row is TraceListRow & { root_run_id: string } => row.root_run_id !== null);
  const rootIdOf = (row: { root_run_id: string }) => row.root_run_id;
  const rootScored = scoredIds(rooted, rootIdOf, (row) => row.root_scored);
  const rootScores = await scoreSummaries(db, dialect, projectId, 'run', rooted.map(rootIdOf), rootScored);
  return withSummaries(
    db,
    dialect,
    projectId,
    'trace',
    rows,
    (row) => row.trace_id,
    (row, scores) => toTrace(row, scores, (row.root_run_id === null ? undefined : rootScores.get(row.root_run_id)) ?? []),
    (row) => row.scored,
  );
}

/**
 * The traces a runs-list filter selects: `startedAfter` and `startedBefore` bound the trace's start;
 * every other filter of the runs list selects the traces that hold at least one run matching it (all of
 * them together, on the same run). The one selection of the traces list, its export and its metrics.
 */
export async function tracesMatching(db: Kysely<Database>, dialect: Dialect, projectId: string, filters: RunFilters) {
  const { startedAfter, startedBefore, experiment, ...runFilters } = filters;
  let query = db.selectFrom('traces').where('traces.project_id', '=', projectId);
  // The mark is the trace's own: traces_experiment_idx walks either kind in the list's order.
  if (experiment !== undefined) query = query.where('traces.experiment', '=', traceExperimentIs(experiment));
  if (startedAfter !== undefined) query = query.where('traces.start_time', '>=', startedAfter);
  if (startedBefore !== undefined) query = query.where('traces.start_time', '<', startedBefore);
  const plan = await planList(db, projectId, runFilters);
  if (plan.few) {
    // Few matches: the traces of the matching runs, sorted (rather than testing every trace of the
    // project). Their ids are read first and put in the query, which neither engine can misjudge: as a
    // subquery, PostgreSQL without statistics (a bulk load before autovacuum's analyze) walked every trace
    // of the range testing each against the runs (5 s for one user's 20 traces among 200,000).
    const ids = await db
      .selectFrom('runs')
      .select('runs.trace_id')
      .distinct()
      .where('runs.project_id', '=', projectId)
      .where(runFilterWhere(dialect, runFilters, plan))
      .execute();
    query =
      ids.length === 0
        ? query.where(sql<boolean>`1 = 0`)
        : query.where(
            'traces.trace_id',
            'in',
            ids.map((row) => row.trace_id),
          );
  } else if (Object.keys(runFilters).length > 0) {
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('runs')
          .select(sql`1`.as('one'))
          .whereRef('runs.project_id', '=', 'traces.project_id')
          .whereRef('runs.trace_id', '=', 'traces.trace_id')
          .where(runFilterWhere(dialect, runFilters, plan)),
      ),
    );
  }
  return { query, few: plan.few };
}

/** A project's traces (`tracesMatching`), newest first (by their earliest start), then by trace id, or oldest first. */
export const listTraces: FilteredList<TraceListRow> = async (db, dialect, projectId, filters, after, take, order = 'desc') => {
  const { query: matching, few } = await tracesMatching(db, dialect, projectId, filters);
  const query = matching.selectAll();
  // Unfiltered (a project's home page), the page's query also says which traces and which of their root
  // runs have scores, as the runs list's does: their summaries then need no probe query (a sorted
  // filtered page would probe every trace it sorts, so those are probed by `scoreSummaries`).
  const listed = Object.keys(filters).every((key) => key === 'experiment')
    ? query.select([
        scoredColumn('trace', 'traces.project_id', 'traces.trace_id'),
        scoredColumn('run', 'traces.project_id', 'traces.root_run_id', 'root_scored'),
      ])
    : query;
  const rows = await keysetQuery(listed, TRACE_ORDER, after, take, { sortSelected: few, order }).execute();
  return keysetRows(TRACE_ORDER, await withHeads(db, projectId, rows));
};

/** The traces of a session or an end user, oldest first (at most `take`). */
export async function listedTraces(
  db: Kysely<Database>,
  projectId: string,
  key: 'session_id' | 'user_id',
  value: string,
  take: number,
): Promise<TraceListRow[]> {
  const rows = await db
    .selectFrom('traces')
    .selectAll()
    .where('project_id', '=', projectId)
    .where(key, '=', value)
    .orderBy(sql`+start_time`) // its own traces, sorted: SQLite would otherwise walk every trace in start order
    .orderBy('trace_id')
    .limit(take)
    .execute();
  return withHeads(db, projectId, rows);
}

/** One trace: its row (404 when the project has none of that id) and its first `runLimit` runs in tree order. */
export async function getTrace(
  db: Kysely<Database>,
  dialect: Dialect,
  projectId: string,
  traceId: string,
  runLimit = MAX_OUTLINE_RUNS,
): Promise<{ trace: Trace; runs: RunOutline[]; truncated: boolean }> {
  const row = await db.selectFrom('traces').selectAll().where('project_id', '=', projectId).where('trace_id', '=', traceId).executeTakeFirst();
  if (!row) throw problems.notFound(`Trace ${traceId} does not exist in this project.`);
  const [head] = await withHeads(db, projectId, [row]);
  const runs = await outlineRows(db, dialect, projectId, traceId);
  const kept = runs.length > MAX_OUTLINE_RUNS ? runs.slice(0, MAX_OUTLINE_RUNS) : runs;
  const [trace] = await tracesWithScores(db, dialect, projectId, [head!]);
  // Every row is read (the tree's order needs them all), but only the runs sent are made outlines.
  return { trace: trace!, runs: treeOrder(kept, runLimit), truncated: runs.length > Math.min(runLimit, MAX_OUTLINE_RUNS) };
}

/** A trace's runs as outline rows, by start time then id, at most MAX_OUTLINE_RUNS + 1 (one more says it was cut). */
async function outlineRows(db: Kysely<Database>, dialect: Dialect, projectId: string, traceId: string): Promise<OutlineRow[]> {
  const query = db
    .selectFrom('runs')
    .select(['id', 'parent_run_id', 'name', 'kind', 'status', 'start_time', 'end_time', 'latency_ms', 'model', 'total_tokens', 'cost'])
    .where('project_id', '=', projectId)
    .where('trace_id', '=', traceId)
    .orderBy(sql`+start_time`) // the trace's runs by its index, sorted: not a walk of the project's runs in start order
    .orderBy('id')
    .limit(MAX_OUTLINE_RUNS + 1);
  if (dialect !== 'postgres') return (await rawRows(db, query)) as OutlineRow[];
  // On PostgreSQL the rows come as one JSON array of arrays, in their order (stated in the aggregate): one
  // JSON text to parse costs a fraction of what node-postgres spends making a row object of 11 values for
  // each of a thousand rows. Integers (milliseconds, tokens) and costs come back as the same numbers.
  const { rows } = await sql<{ outline: OutlineRow[] }>`select coalesce(json_agg(json_build_array(
      r.id, r.parent_run_id, r.name, r.kind, r.status, r.start_time, r.end_time, r.latency_ms, r.model, r.total_tokens, r.cost)
      order by r.start_time, r.id), '[]'::json) as outline from (${query}) as r`.execute(db);
  return rows[0]?.outline ?? [];
}

/** An outline's columns, as `rawRows` reads them: id, parent_run_id, name, kind, status, start_time, end_time, latency_ms, model, total_tokens, cost. */
type OutlineRow = [
  id: string,
  parentRunId: string | null,
  name: string,
  kind: string,
  status: string,
  startTime: number,
  endTime: number | null,
  latencyMs: number | null,
  model: string | null,
  totalTokens: number | null,
  cost: number | null,
];

/**
 * Parents before their children, siblings by start time (the rows come so ordered); runs whose parent is
 * absent start a tree of their own. The first `limit` of them.
 */
function treeOrder(rows: OutlineRow[], limit: number): RunOutline[] {
  const ids = new Set(rows.map((r) => r[0]));
  const children = new Map<string, OutlineRow[]>();
  const tops: OutlineRow[] = [];
  for (const row of rows) {
    const parent = row[1];
    if (parent !== null && ids.has(parent) && parent !== row[0]) {
      const siblings = children.get(parent) ?? [];
      siblings.push(row);
      children.set(parent, siblings);
    } else tops.push(row);
  }
  const out: RunOutline[] = [];
  const seen = new Set<string>();
  // Iterative depth-first walk: a 25,000-deep chain must not exhaust the stack.
  const stack: [OutlineRow, number][] = tops.reverse().map((row) => [row, 0]);
  while (stack.length > 0 && out.length < limit) {
    const [row, depth] = stack.pop()!;
    if (seen.has(row[0])) continue;
    seen.add(row[0]);
    out.push(outlineOf(row, row[1], depth));
    const below = children.get(row[0]);
    if (below) for (let i = below.length - 1; i >= 0; i--) stack.push([below[i]!, depth + 1]);
  }
  // Runs on a cycle of parents (possible across calls) are listed at the top level rather than lost.
  for (const row of rows) if (out.length < limit && !seen.has(row[0])) out.push(outlineOf(row, row[1], 0));
  return out;
}

/** A run's outline, in the schema's order. */
function outlineOf(row: OutlineRow, parentRunId: string | null, depth: number): RunOutline {
  const [id, , name, kind, status, startTime, endTime, latencyMs, model, totalTokens, cost] = row;
  return {
    id,
    parentRunId,
    depth,
    name,
    kind: kind as RunOutline['kind'],
    status: status as RunOutline['status'],
    startTime: toIso(Number(startTime)),
    endTime: endTime === null ? null : toIso(Number(endTime)),
    latencyMs: latencyMs === null ? null : Number(latencyMs),
    model,
    totalTokens: totalTokens === null ? null : Number(totalTokens),
    cost,
  };
}
