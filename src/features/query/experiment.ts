import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Dialect } from '../../db/dialect.js';
import type { Database } from '../../db/schema.js';

/**
 * Experiment traffic (`experiment=exclude|only`): the traces an experiment recorded a result for, marked
 * `traces.experiment = 1` in the transaction that records the result (experiments.results.ts). A run is
 * experiment traffic when its trace is. `include`, the default, is no filter at all.
 */
export type ExperimentFilter = 'exclude' | 'only';

/**
 * At most this many experiment traces in a project, and a filter over runs names them in its query
 * (`runs.trace_id [not] in (…)`, read first from traces_experiment_idx: one short range); more, and each run
 * the query reads probes its trace's row by the primary key. Either costs a lookup per run read, never a
 * scan of the project's traces; a project without experiments pays one empty probe of the index.
 */
export const FEW_EXPERIMENT_TRACES = 1000;

let fewest = FEW_EXPERIMENT_TRACES;
/** Tests: how many experiment traces are few (0: always probe each run's trace; null: FEW_EXPERIMENT_TRACES). Both select the same runs. */
export function setFewExperimentTraces(bound: number | null): void {
  fewest = bound ?? FEW_EXPERIMENT_TRACES;
}

/** The project's experiment traces when there are at most FEW_EXPERIMENT_TRACES of them, else null. */
export async function experimentTraces(db: Kysely<Database>, projectId: string): Promise<string[] | null> {
  const rows = await db
    .selectFrom('traces')
    .select('trace_id')
    .where('project_id', '=', projectId)
    .where('experiment', '=', sql.lit(1))
    .orderBy('experiment')
    .orderBy('start_time')
    .limit(fewest + 1)
    .execute();
  return rows.length > fewest ? null : rows.map((r) => r.trace_id);
}

/**
 * The condition a filter puts on runs: with the project's experiment traces (`traces`, from
 * `experimentTraces`), by their ids; without them (null: too many; undefined: not read), a probe of the
 * run's trace. Undefined when every run passes (`exclude` in a project that has no experiment traffic).
 */
export function experimentMatch(dialect: Dialect, filter: ExperimentFilter, traces: readonly string[] | null | undefined): Expression<SqlBool> | undefined {
  if (traces) {
    if (filter === 'only') return traces.length === 0 ? sql<SqlBool>`1 = 0` : sql<SqlBool>`runs.trace_id in (${sql.join(traces)})`;
    return traces.length === 0 ? undefined : sql<SqlBool>`runs.trace_id not in (${sql.join(traces)})`;
  }
  // By the trace's primary key, whatever either engine believes of the mark (`+` keeps it out of index
  // choice): PostgreSQL, its statistics taken before the results marked traces, walked the experiment
  // traces of traces_experiment_idx for every run (2.9 s for a day's metrics over 200,000 runs in the
  // bench). OFFSET 0 keeps PostgreSQL's probe per run (as the score filters' `many` probe): as an anti-join
  // it read every trace of the project first (1.1 s for a page of 200,000 runs, against 48 ms).
  const probe = sql<SqlBool>`exists (select 1 from traces where traces.project_id = runs.project_id and traces.trace_id = runs.trace_id
    and +traces.experiment = 1${sql.raw(dialect === 'postgres' ? ' offset 0' : '')})`;
  return filter === 'only' ? probe : sql<SqlBool>`not ${probe}`;
}

/** The condition on a trace row itself (the traces, sessions and end-users lists read the mark where it is). */
export const traceExperimentIs = (filter: ExperimentFilter) => (filter === 'only' ? sql.lit(1) : sql.lit(0));
