import { sql, type Kysely } from 'kysely';
import { toIso } from '../../lib/clock.js';
import type { Dialect } from '../../db/dialect.js';
import type { Database } from '../../db/schema.js';
import type { RollupTotals } from '../../db/schema.runs.js';
import { keysetQuery, keysetRows } from '../../lib/pagination.js';
import { problems } from '../../lib/problems.js';
import { type FilteredList, planList, runFilterWhere, type ScoreSummary, withSummaries } from '../query/index.js';
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
    },
    cost: Number(row.cost),
    computedCost: Number(row.computed_cost),
  };
}

/** A trace as the API gives it: its row, its head's tags and previews, and its own scores' summaries. */
export function toTrace(row: TraceListRow, scores: ScoreSummary[]): Trace {
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
  };
}

/** Traces as the API gives them, with their scores' summaries (one query for them all). */
export function tracesWithScores(db: Kysely<Database>, dialect: Dialect, projectId: string, rows: TraceListRow[]): Promise<Trace[]> {
  return withSummaries(db, dialect, projectId, 'trace', rows, (row) => row.trace_id, toTrace);
}

/**
 * A project's traces, newest first (by their earliest start), then by trace id. `startedAfter` and
 * `startedBefore` bound the trace's start; every other filter of the runs list selects the traces that
 * hold at least one run matching it (all of them together, on the same run).
 */
export const listTraces: FilteredList<TraceListRow> = async (db, dialect, projectId, filters, after, take) => {
  const { startedAfter, startedBefore, ...runFilters } = filters;
  let query = db.selectFrom('traces').selectAll().where('traces.project_id', '=', projectId);
  if (startedAfter !== undefined) query = query.where('traces.start_time', '>=', startedAfter);
  if (startedBefore !== undefined) query = query.where('traces.start_time', '<', startedBefore);
  const plan = await planList(db, projectId, runFilters);
  if (plan.few) {
    // Few matches: the traces of the matching runs, sorted (rather than testing every trace of the project).
    const matching = db
      .selectFrom('runs')
      .select('runs.trace_id')
      .where('runs.project_id', '=', projectId)
      .where(runFilterWhere(dialect, runFilters, plan));
    query = query.where('traces.trace_id', 'in', matching);
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
  const rows = await keysetQuery(query, TRACE_ORDER, after, take, { sortSelected: plan.few }).execute();
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

/** One trace: its row (404 when the project has none of that id) and its runs in tree order. */
export async function getTrace(
  db: Kysely<Database>,
  dialect: Dialect,
  projectId: string,
  traceId: string,
): Promise<{ trace: Trace; runs: RunOutline[]; truncated: boolean }> {
  const row = await db.selectFrom('traces').selectAll().where('project_id', '=', projectId).where('trace_id', '=', traceId).executeTakeFirst();
  if (!row) throw problems.notFound(`Trace ${traceId} does not exist in this project.`);
  const [head] = await withHeads(db, projectId, [row]);
  const runs = await db
    .selectFrom('runs')
    .select(['id', 'parent_run_id', 'name', 'kind', 'status', 'start_time', 'end_time', 'latency_ms', 'model', 'total_tokens', 'cost'])
    .where('project_id', '=', projectId)
    .where('trace_id', '=', traceId)
    .orderBy(sql`+start_time`) // the trace's runs by its index, sorted: not a walk of the project's runs in start order
    .orderBy('id')
    .limit(MAX_OUTLINE_RUNS + 1)
    .execute();
  const truncated = runs.length > MAX_OUTLINE_RUNS;
  const [trace] = await tracesWithScores(db, dialect, projectId, [head!]);
  return { trace: trace!, runs: treeOrder(truncated ? runs.slice(0, MAX_OUTLINE_RUNS) : runs), truncated };
}

type OutlineRow = {
  id: string;
  parent_run_id: string | null;
  name: string;
  kind: string;
  status: string;
  start_time: number;
  end_time: number | null;
  latency_ms: number | null;
  model: string | null;
  total_tokens: number | null;
  cost: number | null;
};

/** Parents before their children, siblings by start time (the rows come so ordered); runs whose parent is absent start a tree of their own. */
function treeOrder(rows: OutlineRow[]): RunOutline[] {
  const ids = new Set(rows.map((r) => r.id));
  const children = new Map<string, OutlineRow[]>();
  const tops: OutlineRow[] = [];
  for (const row of rows) {
    if (row.parent_run_id !== null && ids.has(row.parent_run_id) && row.parent_run_id !== row.id) {
      const siblings = children.get(row.parent_run_id) ?? [];
      siblings.push(row);
      children.set(row.parent_run_id, siblings);
    } else tops.push(row);
  }
  const out: RunOutline[] = [];
  const seen = new Set<string>();
  // Iterative depth-first walk: a 25,000-deep chain must not exhaust the stack.
  const stack: [OutlineRow, number][] = tops.reverse().map((row) => [row, 0]);
  while (stack.length > 0) {
    const [row, depth] = stack.pop()!;
    if (seen.has(row.id)) continue;
    seen.add(row.id);
    out.push({
      id: row.id,
      parentRunId: row.parent_run_id,
      depth,
      name: row.name,
      kind: row.kind as RunOutline['kind'],
      status: row.status as RunOutline['status'],
      startTime: toIso(Number(row.start_time)),
      endTime: row.end_time === null ? null : toIso(Number(row.end_time)),
      latencyMs: row.latency_ms === null ? null : Number(row.latency_ms),
      model: row.model,
      totalTokens: row.total_tokens === null ? null : Number(row.total_tokens),
      cost: row.cost,
    });
    for (const child of [...(children.get(row.id) ?? [])].reverse()) stack.push([child, depth + 1]);
  }
  // Runs on a cycle of parents (possible across calls) are listed at the top level rather than lost.
  for (const row of rows) if (!seen.has(row.id)) out.push({ ...treeOrder([{ ...row, parent_run_id: null }])[0]!, parentRunId: row.parent_run_id });
  return out;
}
