import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { scoreValueMatch, valueWays, type ListPlan, type RunFilters, type ScoreFilter, type ScorePlan, type ScoreTargetKind } from './filters.js';
import { experimentTraces } from './experiment.js';
import { planSearch } from './search.js';

/**
 * At most this many matching scores in a project make a filter "few": the list then starts from them.
 * Where the two plans cost the same: starting from M scores reads about M rows; walking the runs reads
 * about a page (50) divided by the share of runs that match, a probe per target each. Over a million
 * runs, on a loaded two-core machine, they meet near a few thousand (a match's run is a random read; a walked run is the next one).
 */
export const FEW_SCORES = 2000;

/**
 * How a list finds the runs that match a score filter, decided per request by bounded probes of the
 * project's scores (as `planSearch` does for `q`): which targets have scores of that name at all (one
 * index probe each, `scores_name_idx`), and whether at most FEW_SCORES match the value
 * (`scores_value_idx`, `scores_label_idx`), read with their targets. `few` lists start from those
 * targets' runs (a trace's or a session's score stands for its runs) and sort them; `many` lists walk
 * their own order, probe each run's (trace's, session's) scores, and stop once the page is full. Either reads about a page's worth
 * or the matches, where one form for all made a rare name walk every run of the project, or (PostgreSQL)
 * a common one read all its scores first.
 */
export type { ScorePlan };

let forced: ScorePlan['kind'] | null = null;
/** Tests: take one plan for every filter (null: decide by the probes). Both plans select the same runs. */
export function forceScorePlan(kind: ScorePlan['kind'] | null): void {
  forced = kind;
}

/** A filter's targets with scores of its name, and its matches' targets when at most FEW_SCORES match (else null). */
interface Probed {
  targets: ScoreTargetKind[];
  matches: Record<ScoreTargetKind, string[]> | null;
  found: number;
}

async function probeOne(db: Kysely<Database>, projectId: string, filter: ScoreFilter): Promise<Probed> {
  const targets: ScoreTargetKind[] = [];
  for (const target of ['run', 'trace', 'session'] as const) {
    const any = await db
      .selectFrom('scores')
      .select('scores.target')
      .where('scores.project_id', '=', projectId)
      .where('scores.name', '=', filter.name)
      .where('scores.target', '=', target)
      .limit(1)
      .executeTakeFirst();
    if (any) targets.push(target);
  }
  if (forced === 'many') return { targets, matches: null, found: Infinity };
  // A forced `few` reads every match (tests: small projects).
  const bound = forced === 'few' ? Infinity : FEW_SCORES + 1;
  const matches: Record<ScoreTargetKind, Set<string>> = { run: new Set(), trace: new Set(), session: new Set() };
  let found = 0;
  for (const [label, numeric] of valueWays(filter)) {
    // In the order of the index that holds the matches, so that the read stops at the bound: PostgreSQL, on
    // tables not yet analyzed, otherwise gathered the whole name's range in a bitmap first (38 ms over a
    // million scores in the bench, against 0.8).
    const order =
      filter.op === 'any'
        ? (['scores.name', 'scores.target', 'scores.created_at'] as const)
        : filter.op === '=' && label
          ? (['scores.name', 'scores.label'] as const)
          : (['scores.name', 'scores.value'] as const);
    let query = db
      .selectFrom('scores')
      .select(['scores.target', 'scores.target_id'])
      .where('scores.project_id', '=', projectId)
      .where((eb) => scoreValueMatch(eb, filter, label, numeric))
      .orderBy([...order]);
    if (bound !== Infinity) query = query.limit(bound - found);
    const rows = await query.execute();
    found += rows.length;
    if (found >= bound) return { targets, matches: null, found };
    for (const row of rows) matches[row.target as ScoreTargetKind].add(row.target_id);
  }
  return { targets, matches: { run: [...matches.run], trace: [...matches.trace], session: [...matches.session] }, found };
}

/**
 * One plan per score filter, in order. At most one is `few` (the one with the fewest matches): the
 * filters are all required, so the others are probed on its runs, and the ids in a query stay at most
 * FEW_SCORES per `few` kind of read.
 */
export async function planScoreFilters(db: Kysely<Database>, projectId: string, filters: readonly ScoreFilter[] | undefined): Promise<ScorePlan[] | undefined> {
  if (!filters || filters.length === 0) return undefined;
  const probed: Probed[] = [];
  for (const filter of filters) probed.push(await probeOne(db, projectId, filter));
  const fewest = probed.reduce<number>((best, p, i) => (p.matches !== null && (best < 0 || p.found < probed[best]!.found) ? i : best), -1);
  return probed.map((p, i) =>
    i === fewest && p.matches !== null ? { kind: 'few', projectId, matches: p.matches } : { kind: 'many', projectId, targets: p.targets },
  );
}

/**
 * How a list (runs, traces, sessions, users) finds the runs of its filters: `q`'s plan, each score
 * filter's and the experiment traces', decided per request; `few` when one of them starts from few matches (the list then sorts
 * what it selected rather than walking its order).
 */
export async function planList(db: Kysely<Database>, projectId: string, filters: RunFilters): Promise<ListPlan> {
  const search = filters.q === undefined ? undefined : await planSearch(db, projectId, filters.q);
  const scores = await planScoreFilters(db, projectId, filters.scores);
  // `only` with few experiment traces starts from their runs (runs_trace_idx), as a few matches of `q` do.
  const experiment = filters.experiment === undefined ? undefined : await experimentTraces(db, projectId);
  const few =
    search?.kind === 'few' ||
    (scores ?? []).some((plan) => plan.kind === 'few') ||
    (filters.experiment === 'only' && Array.isArray(experiment)) ||
    (await fewContextRuns(db, projectId, filters));
  return { search, scores, few, experiment };
}

/**
 * At most this many runs of the filter's end user or session make it "few": a list then starts from their
 * runs (runs_user_idx, runs_session_idx) and sorts what it selected, where walking its own order tested
 * trace after trace for one (a user with 20 traces among 200,000 walked nearly all of them: 12 s over a
 * million runs on SQLite, bench:pages).
 */
export const FEW_CONTEXT_RUNS = 5000;
let fewContext = FEW_CONTEXT_RUNS;
/** Tests: how many runs of a user or session are few (null: FEW_CONTEXT_RUNS). Both plans select the same runs. */
export function setFewContextRuns(bound: number | null): void {
  fewContext = bound ?? FEW_CONTEXT_RUNS;
}

/** Whether the filter's end user or session has few runs (FEW_CONTEXT_RUNS at most): one primary-key read of its rollup. */
async function fewContextRuns(db: Kysely<Database>, projectId: string, filters: RunFilters): Promise<boolean> {
  if (filters.userId !== undefined) {
    const row = await db
      .selectFrom('run_users')
      .select('run_count')
      .where('project_id', '=', projectId)
      .where('user_id', '=', filters.userId)
      .executeTakeFirst();
    if (Number(row?.run_count ?? 0) <= fewContext) return true;
  }
  if (filters.sessionId !== undefined) {
    const row = await db
      .selectFrom('run_sessions')
      .select('run_count')
      .where('project_id', '=', projectId)
      .where('session_id', '=', filters.sessionId)
      .executeTakeFirst();
    if (Number(row?.run_count ?? 0) <= fewContext) return true;
  }
  return false;
}
