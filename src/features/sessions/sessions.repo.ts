import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Dialect } from '../../db/dialect.js';
import { planList, type RunFilters, runFilterWhere, traceExperimentIs, withSummaries } from '../query/index.js';
import type { Database } from '../../db/schema.js';
import type { RollupTotals } from '../../db/schema.runs.js';
import { keysetQuery, keysetRows, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems } from '../../lib/problems.js';
import { listedTraces, totalsOf, type Trace, tracesWithScores } from '../traces/index.js';
import { MAX_LISTED_TRACES, type EndUser, type Session } from './sessions.schemas.js';

/** Sessions and end users: the same rollup, keyed by a different run field. */
const KINDS = {
  session: { table: 'run_sessions', key: 'session_id', column: 'run_sessions.session_id', counted: 'user_id' },
  user: { table: 'run_users', key: 'user_id', column: 'run_users.user_id', counted: 'session_id' },
} as const;
type Kind = keyof typeof KINDS;

export type ActivityRow = RollupTotals & { key: string; traceCount: number; other: string | null; otherCount: number };

/** Per key of a page: how many traces it has, and the first other key (session → its user) or how many (user → its sessions). */
async function traceFacts(db: Kysely<Database>, projectId: string, kind: Kind, keys: string[]) {
  const { key, counted } = KINDS[kind];
  if (keys.length === 0) return new Map<string, { traces: number; other: string | null; others: number }>();
  const rows = await db
    .selectFrom('traces')
    .select([
      sql.ref<string>(key).as('key'),
      sql<number>`count(*)`.as('traces'),
      sql<string | null>`min(${sql.ref(counted)})`.as('other'),
      sql<number>`count(distinct ${sql.ref(counted)})`.as('others'),
    ])
    .where('project_id', '=', projectId)
    .where(sql.ref(key), 'in', keys)
    .groupBy(sql.ref(key))
    .execute();
  return new Map(rows.map((r) => [r.key, { traces: Number(r.traces), other: r.other, others: Number(r.others) }]));
}

async function withFacts(db: Kysely<Database>, projectId: string, kind: Kind, rows: (RollupTotals & { key: string })[]): Promise<ActivityRow[]> {
  const facts = await traceFacts(
    db,
    projectId,
    kind,
    rows.map((r) => r.key),
  );
  return rows.map((r) => {
    const f = facts.get(r.key);
    return { ...r, traceCount: f?.traces ?? 0, other: f?.other ?? null, otherCount: f?.others ?? 0 };
  });
}

const ORDER = { sort: 'end_time', id: 'key' } as const;

/**
 * A project's sessions or end users, newest activity first (then by id); with filters, those with at
 * least one run that matches them all (the runs list's filters, `q` included) among the runs of their
 * traces: a session or end user is its traces' whole, whichever of their runs named it.
 */
export async function listActivity(
  db: Kysely<Database>,
  dialect: Dialect,
  projectId: string,
  kind: Kind,
  filters: RunFilters,
  after: Position | null,
  take: number,
): Promise<KeysetRows<ActivityRow>> {
  const { table, key, column } = KINDS[kind];
  // Typed as selecting from either table, so that each kind's own key column is a reference of the query.
  let query = db.selectFrom(table).selectAll().select(sql.ref<string>(key).as('key')).where('project_id', '=', projectId);
  // Experiment traffic is a trace's mark: a session or end user is listed by its traces that are (not) experiments.
  // `+` keeps the mark out of index choice: SQLite would otherwise walk traces_experiment_idx for each key
  // (every production trace of the project) rather than look the key's traces up by their own index.
  const { experiment, ...runFilters } = filters;
  const marked = experiment === undefined ? sql<SqlBool>`1 = 1` : sql<SqlBool>`+traces.experiment = ${traceExperimentIs(experiment)}`;
  const plan = await planList(db, projectId, runFilters);
  const tracesWithRuns = () =>
    db
      .selectFrom('runs')
      .innerJoin('traces', (join) => join.onRef('traces.project_id', '=', 'runs.project_id').onRef('traces.trace_id', '=', 'runs.trace_id'))
      .where(runFilterWhere(dialect, runFilters, plan))
      .where(marked);
  if (plan.few) {
    // Few matches: the sessions (or users) of the matching runs' traces, sorted.
    const matching = tracesWithRuns()
      .select(sql.ref<string>(`traces.${key}`).as('key'))
      .where('runs.project_id', '=', projectId);
    query = query.where(column, 'in', matching);
  } else if (Object.keys(runFilters).length > 0) {
    query = query.where(({ exists }) =>
      exists(
        tracesWithRuns()
          .select(sql`1`.as('one'))
          .where(sql<SqlBool>`traces.project_id = ${sql.ref(`${table}.project_id`)} and ${sql.ref(`traces.${key}`)} = ${sql.ref(column)}`),
      ),
    );
  } else if (experiment !== undefined) {
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('traces')
          .select(sql`1`.as('one'))
          .whereRef('traces.project_id', '=', `${table}.project_id`)
          .whereRef(`traces.${key}`, '=', column)
          .where(marked),
      ),
    );
  }
  const rows = await keysetQuery(query, { sort: 'end_time', id: key }, after, take, { sortSelected: plan.few }).execute();
  return keysetRows(ORDER, await withFacts(db, projectId, kind, rows));
}

/** One session or end user (404 when the project has none of that id), with its traces oldest first. */
export async function getActivity(
  db: Kysely<Database>,
  dialect: Dialect,
  projectId: string,
  kind: Kind,
  id: string,
): Promise<{ row: ActivityRow; traces: Trace[]; truncated: boolean }> {
  const { table, key } = KINDS[kind];
  const found: (RollupTotals & { key: string }) | undefined = await db
    .selectFrom(table as 'run_sessions')
    .selectAll()
    .select(sql.ref<string>(key).as('key'))
    .where('project_id', '=', projectId)
    .where(sql.ref(key), '=', id)
    .executeTakeFirst();
  if (!found) throw problems.notFound(`${kind === 'session' ? 'Session' : 'End user'} ${id} does not exist in this project.`);
  const [row] = await withFacts(db, projectId, kind, [found]);
  const traces = await listedTraces(db, projectId, key, id, MAX_LISTED_TRACES + 1);
  return {
    row: row!,
    traces: await tracesWithScores(db, dialect, projectId, traces.slice(0, MAX_LISTED_TRACES)),
    truncated: traces.length > MAX_LISTED_TRACES,
  };
}

export function toSession(projectId: string, row: ActivityRow, scores: Session['scores']): Session {
  return { sessionId: row.key, projectId, ...totalsOf(row), traceCount: row.traceCount, userId: row.other, scores };
}

/** Sessions as the API gives them, with their scores' summaries (one query for them all). */
export function sessionsWithScores(db: Kysely<Database>, dialect: Dialect, projectId: string, rows: ActivityRow[]): Promise<Session[]> {
  return withSummaries(
    db,
    dialect,
    projectId,
    'session',
    rows,
    (row) => row.key,
    (row, scores) => toSession(projectId, row, scores),
  );
}

export function toEndUser(projectId: string, row: ActivityRow): EndUser {
  return { userId: row.key, projectId, ...totalsOf(row), traceCount: row.traceCount, sessionCount: row.otherCount };
}
