import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { dialectOf } from '../../db/dialect.js';
import { eachRow, eachRowReturning, heldSqlite } from '../../db/rowwise.js';
import { selectJsonRows } from '../../db/bulk.js';
import type { Database } from '../../db/schema.js';
import type { RollupTotals, RunSessionsTable, TracesTable } from '../../db/schema.runs.js';
import { addTotals, type Contribution, emptyTotals, SUMMED } from './runs.totals.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Sums contributions per key: added ones count, removed ones are taken away (their times do not). */
function sumBy(changes: { add: Contribution[]; remove: Contribution[] }, keyOf: (c: Contribution) => string | null) {
  const sums = new Map<string, { totals: RollupTotals; first: Contribution | null; root: Contribution | null; session: string | null; user: string | null }>();
  const entry = (key: string) => {
    let found = sums.get(key);
    if (!found) sums.set(key, (found = { totals: emptyTotals(), first: null, root: null, session: null, user: null }));
    return found;
  };
  for (const [list, sign] of [
    [changes.add, 1],
    [changes.remove, -1],
  ] as const) {
    for (const c of list) {
      const key = keyOf(c);
      if (key === null) continue;
      const e = entry(key);
      addTotals(e.totals, c.totals, sign);
      if (sign === 1) {
        e.totals.start_time = Math.min(e.totals.start_time, c.totals.start_time);
        e.totals.end_time = Math.max(e.totals.end_time, c.totals.end_time);
        e.first ??= c;
        if (c.root) e.root ??= c;
        e.session ??= c.sessionId;
        e.user ??= c.userId;
      }
    }
  }
  // One global order, so concurrent writers of the same rows wait on each other instead of deadlocking.
  return [...sums].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function accumulate(table: 'traces' | 'run_sessions' | 'run_users', db: Db): Record<string, RawBuilder<unknown>> {
  const postgres = dialectOf(db as Kysely<Database>) === 'postgres';
  const set: Record<string, RawBuilder<unknown>> = {};
  for (const k of SUMMED) set[k] = sql`${sql.ref(`${table}.${k}`)} + excluded.${sql.ref(k)}`;
  set.start_time = sql`${sql.raw(postgres ? 'least' : 'min')}(${sql.ref(`${table}.start_time`)}, excluded.start_time)`;
  set.end_time = sql`${sql.raw(postgres ? 'greatest' : 'max')}(${sql.ref(`${table}.end_time`)}, excluded.end_time)`;
  return set;
}

/**
 * Applies runs' contributions to the rollups of their traces, sessions and end users, in the caller's
 * transaction: `add` for runs stored (or as they are now), `remove` for runs as they were (a run that
 * ended, a run that moved to its parent's trace). A trace left without runs is deleted.
 */
export async function rollUp(db: Db, projectId: string, changes: { add: Contribution[]; remove: Contribution[] }): Promise<void> {
  if (changes.add.length === 0 && changes.remove.length === 0) return;
  const traces = sumBy(changes, (c) => c.traceId).map(([traceId, e]) => ({
    project_id: projectId,
    trace_id: traceId,
    root_run_id: e.root?.runId ?? null,
    name: (e.root ?? e.first)?.name ?? '',
    session_id: e.session,
    user_id: e.user,
    ...e.totals,
  }));
  // A trace's session and end user are the first its runs name, kept by the insert and claimed later
  // (below) when a run names one for a trace that had none: never changed by the upsert, which answers
  // them as they were.
  const upsertTrace = (kysely: Db, rows: TracesTable | TracesTable[]) =>
    (Array.isArray(rows) && dialectOf(kysely as Kysely<Database>) === 'postgres'
      ? kysely
          .insertInto('traces')
          .columns(TRACE_COLUMNS)
          .expression(selectJsonRows('traces', TRACE_COLUMNS, rows))
      : kysely.insertInto('traces').values(rows)
    )
      .onConflict((oc) =>
        oc.columns(['project_id', 'trace_id']).doUpdateSet({
          ...accumulate('traces', kysely),
          root_run_id: sql`coalesce(excluded.root_run_id, traces.root_run_id)`,
          name: sql`case when excluded.root_run_id is not null or traces.name = '' then excluded.name else traces.name end`,
        }),
      )
      .returning(['trace_id', 'session_id', 'user_id', 'run_count']);
  const handle = heldSqlite(db);
  const toSessions: Share[] = [];
  const toUsers: Share[] = [];
  // In chunks of rows, in the global order: a statement's parameters stay under both engines' limits
  // (SQLite's 32,766) whatever the number of traces, sessions or users a call touches. In a SQLite write
  // transaction, one prepared one-row statement per row.
  for (const chunk of chunksOf(traces)) {
    const answers = handle
      ? eachRowReturning<TracesTable, TraceState>(handle, db, 'rollup|traces', TRACE_COLUMNS, upsertTrace, chunk)
      : await upsertTrace(db, chunk).execute();
    const states = new Map<string, TraceState>();
    for (const answer of answers) if (answer) states.set(answer.trace_id, answer);
    for (const row of chunk) {
      const claiming = shareOut(db, projectId, row, states.get(row.trace_id), toSessions, toUsers);
      if (claiming) await claiming; // a wait only where a trace claims a session or user
    }
    const ids = chunk.map((row) => row.trace_id);
    if (changes.remove.length > 0)
      await db.deleteFrom('traces').where('project_id', '=', projectId).where('trace_id', 'in', ids).where('run_count', '<=', 0).execute();
  }
  for (const [table, key, shares] of [
    ['run_sessions', 'session_id', toSessions],
    ['run_users', 'user_id', toUsers],
  ] as const) {
    // The two tables have the same shape, keyed by their own column: typed as the sessions' for Kysely.
    const columns = ['project_id', key as 'session_id', ...TOTAL_COLUMNS] as const;
    const upsert = (kysely: Db, rows: RunSessionsTable | RunSessionsTable[]) =>
      (Array.isArray(rows) && dialectOf(kysely as Kysely<Database>) === 'postgres'
        ? kysely
            .insertInto(table as 'run_sessions')
            .columns(columns)
            .expression(selectJsonRows(table as 'run_sessions', columns, rows))
        : kysely.insertInto(table as 'run_sessions').values(rows)
      ).onConflict((oc) => oc.columns(['project_id', key as 'session_id']).doUpdateSet(accumulate(table, kysely)));
    const rows = summed(shares).map(([value, totals]) => ({ project_id: projectId, [key]: value, ...totals }) as unknown as RunSessionsTable);
    for (const chunk of chunksOf(rows)) {
      if (handle) eachRow(handle, db, `rollup|${table}`, columns, upsert, chunk);
      else await upsert(db, chunk).execute();
    }
    // Runs that left a session (moved to their parent's trace, which has another): a session left without
    // runs is gone, and the span of one that keeps some is its traces' again.
    const left = [...new Set(shares.filter((share) => share.totals.run_count < 0).map((share) => share.key))];
    for (const chunk of chunksOf(left)) {
      await db
        .deleteFrom(table as 'run_sessions')
        .where('project_id', '=', projectId)
        .where(key as 'session_id', 'in', chunk)
        .where('run_count', '<=', 0)
        .execute();
      const ofTrace = (fn: 'min' | 'max', column: 'start_time' | 'end_time') =>
        sql<number>`(select ${sql.raw(fn)}(traces.${sql.ref(column)}) from traces where traces.project_id = ${sql.ref(`${table}.project_id`)} and ${sql.ref(`traces.${key}`)} = ${sql.ref(`${table}.${key}`)})`;
      await db
        .updateTable(table as 'run_sessions')
        .set({ start_time: ofTrace('min', 'start_time'), end_time: ofTrace('max', 'end_time') })
        .where('project_id', '=', projectId)
        .where(key as 'session_id', 'in', chunk)
        .execute();
    }
  }
}

/** A trace as its upsert answered: its session and end user as they were (or as inserted), its run count now; what a session or user adds. */
type TraceState = Pick<TracesTable, 'trace_id' | 'session_id' | 'user_id' | 'run_count'>;
type Share = { key: string; totals: RollupTotals };

/**
 * Where a trace's change goes: to its session and end user, whichever of its runs named them. A trace given
 * one by this change (a root after its children) hands it all it holds and takes it as its own (under the
 * upsert's row lock on PostgreSQL; SQLite has one writer). A promise only when it claims one.
 */
function shareOut(db: Db, projectId: string, row: TracesTable, state: TraceState | undefined, toSessions: Share[], toUsers: Share[]): Promise<void> | null {
  if (!state) throw new Error(`rollUp: the upsert of trace ${row.trace_id} answered no row`);
  const inserted = Number(state.run_count) === row.run_count && state.session_id === row.session_id && state.user_id === row.user_id;
  const claimSession = !inserted && state.session_id === null && row.session_id !== null;
  const claimUser = !inserted && state.user_id === null && row.user_id !== null;
  const share = (whole: RollupTotals | null): null => {
    const session = claimSession ? row.session_id : state.session_id;
    if (session !== null) toSessions.push({ key: session, totals: claimSession ? whole! : row });
    const user = claimUser ? row.user_id : state.user_id;
    if (user !== null) toUsers.push({ key: user, totals: claimUser ? whole! : row });
    return null;
  };
  if (!claimSession && !claimUser) return share(null);
  return db
    .updateTable('traces')
    .set({ ...(claimSession ? { session_id: row.session_id } : {}), ...(claimUser ? { user_id: row.user_id } : {}) })
    .where('project_id', '=', projectId)
    .where('trace_id', '=', row.trace_id)
    .returning(TOTAL_COLUMNS)
    .executeTakeFirstOrThrow()
    .then((claimed) => {
      // PostgreSQL answers its bigint columns as text.
      share(Object.fromEntries(TOTAL_COLUMNS.map((column) => [column, Number(claimed[column])])) as unknown as RollupTotals);
    });
}

/** Shares summed per key, in one global order (concurrent writers of the same rows wait instead of deadlocking). */
function summed(shares: Share[]): [string, RollupTotals][] {
  const sums = new Map<string, RollupTotals>();
  for (const { key, totals } of shares) {
    let sum = sums.get(key);
    if (!sum) sums.set(key, (sum = emptyTotals()));
    addTotals(sum, totals, 1);
    sum.start_time = Math.min(sum.start_time, Number(totals.start_time));
    sum.end_time = Math.max(sum.end_time, Number(totals.end_time));
  }
  return [...sums].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

const TOTAL_COLUMNS = [...SUMMED, 'start_time', 'end_time'] as const;
const TRACE_COLUMNS = ['project_id', 'trace_id', 'root_run_id', 'name', 'session_id', 'user_id', ...TOTAL_COLUMNS] as const;

/** Rows per rollup statement: 500 × 21 columns, far below SQLite's 32,766 parameters and PostgreSQL's 65,535. */
export const ROLLUP_CHUNK = 500;

function* chunksOf<T>(rows: T[]): Generator<T[]> {
  for (let i = 0; i < rows.length; i += ROLLUP_CHUNK) yield rows.slice(i, i + ROLLUP_CHUNK);
}

/**
 * Runs that move to their parent's trace (`moved`: each removed contribution paired with the added one
 * at its index) take their provisional trace's experiment mark with them: read before `rollUp`, which
 * deletes a trace left without runs, and given to the traces they join after it.
 */
export async function rollUpMoves(db: Db, projectId: string, moved: { add: Contribution[]; remove: Contribution[] }): Promise<void> {
  const from = [...new Set(moved.remove.map((c) => c.traceId))];
  const marked =
    from.length === 0
      ? new Set<string>()
      : new Set(
          (
            await db
              .selectFrom('traces')
              .select('trace_id')
              .where('project_id', '=', projectId)
              .where('trace_id', 'in', from)
              .where('experiment', '=', 1)
              .execute()
          ).map((r) => r.trace_id),
        );
  await rollUp(db, projectId, moved);
  const to = [...new Set(moved.add.filter((_, i) => marked.has(moved.remove[i]!.traceId)).map((c) => c.traceId))];
  if (to.length > 0) await db.updateTable('traces').set({ experiment: 1 }).where('project_id', '=', projectId).where('trace_id', 'in', to).execute();
}
