import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/dialect.js';
import { prepared } from '../../db/prepared.js';
import type { Database, RunRow } from '../../db/schema.js';
import { keysetQuery, keysetRows, type ListOrder, type Position } from '../../lib/pagination.js';
import {
  experimentMatch,
  type FilteredList,
  planList,
  planSearch,
  queryWords,
  type RunFilters,
  runFilterWhere,
  scoredColumn,
  searchKeyColumn,
  firstWindow,
  type SearchPlan,
  type Stream,
  walkMatches,
} from '../query/index.js';

/**
 * What a list page needs of a run: its sort key, id and stored record; and, when the page was read with
 * it, whether the run has scores (`scoreSummaries` then needs no probe of its own).
 */
export type RunListRow = Pick<RunRow, 'start_time' | 'id' | 'doc'> & { scored?: unknown };

/** A project's runs as a list page needs them, and the stream's order (newest first, id as tie-breaker). */
const streamOf = (db: Kysely<Database>, projectId: string) =>
  db.selectFrom('runs').select(['runs.start_time', 'runs.id', 'runs.doc']).where('runs.project_id', '=', projectId);
const STREAM_ORDER = { sort: 'runs.start_time', id: 'runs.id' } as const;
const positionOf = (row: { start_time: number; id: string }): Position => [Number(row.start_time), row.id];

// The unfiltered stream is what the dashboard and most clients read: compiled once, then only re-bound.
// It also says which runs have scores (a probe of scores_target_idx per run of the page, in the same
// query: on PostgreSQL one round trip fewer per page). Filtered pages vary in shape and are built per
// request, from the same pieces; a sorted filtered page would probe every run it sorts, so they leave
// the probe to `scoreSummaries`.
const scoredStreamOf = (db: Kysely<Database>, projectId: string) => streamOf(db, projectId).select(scoredColumn('run', 'runs.project_id', 'runs.id'));
const unfiltered = (order: ListOrder) => ({
  head: prepared((db, projectId: string, take: number) => keysetQuery(scoredStreamOf(db, projectId), STREAM_ORDER, null, take, { order })),
  after: prepared((db, projectId: string, sortKey: number, id: string, take: number) =>
    keysetQuery(scoredStreamOf(db, projectId), STREAM_ORDER, [sortKey, id], take, { order }),
  ),
});
const stream = { desc: unfiltered('desc'), asc: unfiltered('asc') };

export const listRuns: FilteredList<RunListRow> = async (db, dialect, projectId, filters, after, take, order = 'desc') => {
  if (filters.q !== undefined) return keysetRows(STREAM_ORDER, await searchedRuns(db, dialect, projectId, { ...filters, q: filters.q }, after, take, order));
  const plan = await planList(db, projectId, filters);
  // `experiment=exclude` in a project without experiment traffic asks nothing of a run: the stream as it is.
  const { experiment, ...others } = filters;
  const filtered = Object.keys(others).length > 0 || (experiment !== undefined && experimentMatch(dialect, experiment, plan.experiment) !== undefined);
  const rows = filtered
    ? await keysetQuery(streamOf(db, projectId).where(runFilterWhere(dialect, filters, plan)), STREAM_ORDER, after, take, {
        sortSelected: plan.few,
        order,
      }).execute()
    : after
      ? await stream[order].after(db, projectId, after[0], after[1], take)
      : await stream[order].head(db, projectId, take);
  return keysetRows(STREAM_ORDER, rows);
};

/**
 * A page of runs that match `q` (and the other filters). A common word fills the page from the first
 * runs of the stream: they are walked a window at a time (`walkMatches`), first one window, before
 * anything else is asked. Only when that window does not fill the page does the plan of `q` decide (its
 * probe counts up to FEW_MATCHES matches in the project; on PostgreSQL it reads every match of the word
 * first): few matches are read and sorted; many are walked on, on SQLite in growing windows (a test per
 * run costs it a read of the word index in each of its segments), on PostgreSQL in one query that tests
 * each run by its words' primary key as the list goes.
 */
async function searchedRuns(
  db: Kysely<Database>,
  dialect: Dialect,
  projectId: string,
  filters: RunFilters & { q: string },
  after: Position | null,
  take: number,
  order: ListOrder,
): Promise<RunListRow[]> {
  const { q, ...others } = filters;
  const words = queryWords(q);
  const othersPlan = await planList(db, projectId, others);
  const planned = (search: SearchPlan, from: Position | null, size: number) => {
    const few = othersPlan.few || search.kind === 'few';
    const where = runFilterWhere(dialect, filters, { ...othersPlan, search, few });
    return keysetQuery(streamOf(db, projectId).where(where), STREAM_ORDER, from, size, { sortSelected: few, order }).execute();
  };
  // A score filter that selects few runs: the list starts from those and sorts them, the search with them.
  if (othersPlan.few) return planned(await planSearch(db, projectId, q), after, take);
  const filtered = Object.keys(others).length > 0;
  const base = <S extends 'runs.doc' | typeof searchKeyColumn>(column: S) => {
    const query = db.selectFrom('runs').select(['runs.project_id', 'runs.start_time', 'runs.id', column]).where('runs.project_id', '=', projectId);
    return filtered ? query.where(runFilterWhere(dialect, others, othersPlan)) : query;
  };
  const size = firstWindow(take);
  if (dialect === 'postgres') {
    // One query: the matches among the stream's first runs (each tested by its words' primary key), with their records.
    const window = keysetQuery(base('runs.doc'), STREAM_ORDER, after, size, { order });
    const found = await db
      .selectFrom(window.as('runs'))
      .select(['runs.start_time', 'runs.id', 'runs.doc'])
      .where(runFilterWhere(dialect, { q }, { search: { kind: 'many' }, scores: undefined, few: false }))
      .orderBy('runs.start_time', order)
      .orderBy('runs.id', order)
      .limit(take)
      .execute();
    if (found.length === take) return found;
    const plan = await planSearch(db, projectId, q);
    if (plan.kind === 'few') return planned(plan, after, take);
    const last = found[found.length - 1];
    return [...found, ...(await planned(plan, last ? positionOf(last) : after, take - found.length))];
  }
  const stream: Stream<{ start_time: number; id: string; search_key: number | null }> = (from, rows) =>
    keysetQuery(base(searchKeyColumn), STREAM_ORDER, from, rows, { order }).execute();
  const walk = { stream, positionOf, take };
  const first = await walkMatches(db, projectId, words, { ...walk, after, windows: 1 });
  if (first.found.length === take || first.next === null) return withDocs(db, projectId, first.found);
  const plan = await planSearch(db, projectId, q);
  if (plan.kind === 'few') return planned(plan, after, take);
  const rest = await walkMatches(db, projectId, words, { ...walk, after: first.next, take: take - first.found.length, windows: Infinity });
  return withDocs(db, projectId, [...first.found, ...rest.found]);
}

/** The stored records of rows found by id, in their order. */
async function withDocs(db: Kysely<Database>, projectId: string, rows: { start_time: number; id: string }[]): Promise<RunListRow[]> {
  if (rows.length === 0) return [];
  const docs = await db
    .selectFrom('runs')
    .select(['id', 'doc'])
    .where('project_id', '=', projectId)
    .where(
      'id',
      'in',
      rows.map((row) => row.id),
    )
    .execute();
  const docOf = new Map(docs.map((run) => [run.id, run.doc]));
  // A run deleted meanwhile (its project being deleted) is left out.
  return rows.flatMap((row) => {
    const doc = docOf.get(row.id);
    return doc === undefined ? [] : [{ start_time: row.start_time, id: row.id, doc }];
  });
}
