import { expressionBuilder, sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Dialect } from '../../db/dialect.js';
import type { Database } from '../../db/schema.js';
import { requireTimestamp } from '../../lib/clock.js';
import { problems } from '../../lib/problems.js';
import { experimentMatch, type ExperimentFilter } from './experiment.js';
import { queryWords, searchMatch, type SearchPlan } from './search.js';

/** Normalised run filters: what the list, the metrics and monitors all apply, through `runFilterWhere`. */
export interface RunFilters {
  status?: string;
  kind?: string;
  name?: string;
  tags?: string[];
  model?: string;
  traceId?: string;
  sessionId?: string;
  userId?: string;
  /** `null` selects root runs only. */
  parentRunId?: string | null;
  startedAfter?: number;
  startedBefore?: number;
  metadata?: Record<string, string>;
  /** `metadata.<key>!=<value>`: runs without that value under that key. */
  metadataNot?: Record<string, string>;
  /** Top-level metadata keys that must be present. */
  hasMetadata?: string[];
  /** Words that must all appear in a run's name, inputs, outputs or error. */
  q?: string;
  /** `score.<name>=v`, `score.<name>>=v`, `score.<name><=v` and `hasScore=<name>` (op `any`). */
  scores?: ScoreFilter[];
  /** Experiment traffic left out or alone (`include`, the default, is absent: the same list, the same cursors). */
  experiment?: ExperimentFilter;
}

/** A condition on the scores a run, its trace or its session has. */
export interface ScoreFilter {
  name: string;
  op: '=' | '>=' | '<=' | 'any';
  /** The value as given (`=`), or a number (`>=`, `<=`); absent for `any`. */
  value?: string | number;
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** The most score filters one request may give (each is planned by bounded probes of the scores). */
export const MAX_SCORE_FILTERS = 10;

/** The score filters of a query: `score.<name>` (`=`), `score.<name>>` (`>=`), `score.<name><` (`<=`), `hasScore`. */
function scoreFiltersOf(query: Record<string, unknown>): ScoreFilter[] {
  const out: ScoreFilter[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (!key.startsWith('score.') || typeof value !== 'string') continue;
    const last = key.at(-1);
    const op = last === '>' ? '>=' : last === '<' ? '<=' : '=';
    const name = key.slice('score.'.length, op === '=' ? undefined : -1);
    if (op !== '=' && !NUMBER.test(value.trim()))
      throw problems.validation([{ parameter: key, detail: `A score bound is a number; ${JSON.stringify(value.slice(0, 100))} is not.` }]);
    out.push({ name, op, value: op === '=' ? value : Number(value) });
  }
  if (Array.isArray(query.hasScore)) for (const name of new Set(query.hasScore as string[])) out.push({ name, op: 'any' });
  if (out.length > MAX_SCORE_FILTERS) {
    throw problems.validation([
      {
        parameter: 'score',
        detail: `At most ${MAX_SCORE_FILTERS} score filters (score.<name> and hasScore together) in one request; this one has ${out.length}.`,
      },
    ]);
  }
  return out.sort((a, b) => (`${a.name}|${a.op}` < `${b.name}|${b.op}` ? -1 : 1));
}

/** Reads the filter parameters out of a validated query (anything else in it is ignored here). */
export function parseRunFilters(query: Record<string, unknown>): RunFilters {
  const filters: RunFilters = {};
  for (const key of ['status', 'kind', 'name', 'model', 'traceId', 'sessionId', 'userId'] as const) {
    if (typeof query[key] === 'string') filters[key] = query[key] as string;
  }
  if (query.experiment === 'exclude' || query.experiment === 'only') filters.experiment = query.experiment;
  if (typeof query.q === 'string') filters.q = queryWords(query.q).join(' ');
  if (Array.isArray(query.tag)) filters.tags = [...new Set(query.tag as string[])].sort();
  if (typeof query.parentRunId === 'string') filters.parentRunId = query.parentRunId === 'null' ? null : query.parentRunId;
  if (typeof query.startedAfter === 'string') filters.startedAfter = requireTimestamp(query.startedAfter, { parameter: 'startedAfter' });
  if (typeof query.startedBefore === 'string') filters.startedBefore = requireTimestamp(query.startedBefore, { parameter: 'startedBefore' });
  if (Array.isArray(query.hasMetadata)) filters.hasMetadata = [...new Set(query.hasMetadata as string[])].sort();
  // fromEntries defines own properties, so a key such as `__proto__` stays a filter instead of vanishing.
  const metadataOf = (negated: boolean): Record<string, string> =>
    Object.fromEntries(
      Object.entries(query)
        .filter(([key, value]) => key.startsWith('metadata.') && key.endsWith('!') === negated && typeof value === 'string')
        .map(([key, value]) => [key.slice('metadata.'.length, negated ? -1 : undefined), value as string]),
    );
  const metadata = metadataOf(false);
  const metadataNot = metadataOf(true);
  if (Object.keys(metadata).length > 0) filters.metadata = metadata;
  if (Object.keys(metadataNot).length > 0) filters.metadataNot = metadataNot;
  const scores = scoreFiltersOf(query);
  if (scores.length > 0) filters.scores = scores;
  return filters;
}

/**
 * A metadata value matches when it is the string given, or a number/boolean/null whose JSON text is
 * the value given (`metadata.attempt=2` matches 2 and "2"). Both engines compare the stored JSON text,
 * which JSON.stringify wrote: PostgreSQL through `json`, which keeps that text, not `jsonb`, which
 * rewrites numbers (1e-7 reads back as 0.0000001). Ingest keeps metadata parsable (see jsonValueFault).
 */
function metadataCandidates(value: string): string[] {
  const candidates = [JSON.stringify(value)];
  if (/^(true|false|null|-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?)$/.test(value)) {
    const literal = JSON.stringify(JSON.parse(value));
    if (!candidates.includes(literal)) candidates.push(literal);
  }
  return candidates;
}

/** A top-level metadata value's JSON text, or SQL null when the key is absent (a JSON null is the text `null`). */
function metadataValue(dialect: Dialect, key: string) {
  // Keys are limited to [A-Za-z0-9_-] by the query schema, so quoting them in a JSON path is safe.
  return dialect === 'postgres' ? sql`((runs.metadata)::json -> ${key})::text` : sql`(runs.metadata -> ${`$."${key}"`})`;
}

function metadataMatch(dialect: Dialect, key: string, value: string, negated = false): Expression<SqlBool> {
  const value_ = metadataValue(dialect, key);
  const candidates = sql.join(metadataCandidates(value));
  return negated ? sql<SqlBool>`(${value_} is null or ${value_} not in (${candidates}))` : sql<SqlBool>`${value_} in (${candidates})`;
}

/**
 * The scores of a filter's name whose value matches (`=`: the label of a boolean or categorical score,
 * or a numeric score's value; `>=`, `<=`: numeric scores, booleans as 1 and 0; `any`: any value): one
 * condition for the per-run probes here and the plan's probe of the scores (runs.score-plan.ts).
 */
export function scoreValueMatch(
  eb: ExpressionBuilder<Database, 'scores'>,
  filter: ScoreFilter,
  label = true,
  numeric = true,
  nameIndexed = true,
): Expression<SqlBool> {
  // `nameIndexed: false` compares the name as a value no index holds, so that only the target's index
  // (scores_target_idx) can serve the condition.
  const and: Expression<SqlBool>[] = [nameIndexed ? eb('scores.name', '=', filter.name) : sql<SqlBool>`(scores.name || '') = ${filter.name}`];
  if (filter.op === '>=') and.push(eb('scores.value', '>=', filter.value as number));
  if (filter.op === '<=') and.push(eb('scores.value', '<=', filter.value as number));
  if (filter.op === '=') {
    const text = filter.value as string;
    const byLabel = eb('scores.label', '=', text);
    const byValue = eb.and([eb('scores.data_type', '=', 'numeric'), eb('scores.value', '=', Number(text))]);
    if (!NUMBER.test(text.trim())) and.push(byLabel);
    else if (label && numeric) and.push(eb.or([byLabel, byValue]));
    else and.push(label ? byLabel : byValue);
  }
  return eb.and(and);
}

/**
 * How a list finds a score filter's runs (runs.score-plan.ts: planScoreFilters): `few`: the scores that
 * match were read while planning, and the runs are those they name (by id, trace or session); `many`:
 * probing each run the list walks, only for the `targets` that have scores of that name.
 */
export type ScorePlan =
  { kind: 'few'; projectId: string; matches: Record<ScoreTargetKind, string[]> } | { kind: 'many'; projectId: string; targets: ScoreTargetKind[] };

export type ScoreTargetKind = 'run' | 'trace' | 'session';

/**
 * The ways to read a filter's scores from an index, as `scoreValueMatch`'s (label, numeric) flags: an
 * `=` whose value may be a number matches labels and numeric values, read one index each.
 */
export const valueWays = (filter: ScoreFilter): readonly (readonly [boolean, boolean])[] =>
  filter.op === '=' && NUMBER.test((filter.value as string).trim())
    ? [
        [true, false],
        [false, true],
      ]
    : [[true, true]];

const TARGET_COLUMN = { run: 'runs.id', trace: 'runs.trace_id', session: 'runs.session_id' } as const;

/**
 * A score filter: a run matches when it, its trace or its session has a score of that name whose value
 * matches (`scoreValueMatch`). Without a plan (aggregates, which read every run of a range) each target
 * is one index probe per run (`scores_target_idx`); with `many`, likewise for the targets that have such
 * scores; with `few`, the runs those scores name, which the plan read (`scores_value_idx`, `scores_label_idx`).
 */
function scoreMatch(dialect: Dialect, eb: ExpressionBuilder<Database, 'runs'>, filter: ScoreFilter, plan?: ScorePlan): Expression<SqlBool> {
  if (plan?.kind === 'few') {
    // The matches' runs by their indexes (primary key, runs_trace_idx, runs_session_idx), which neither
    // engine can misjudge: the ids are in the query, as a `few` search's are.
    const or = (Object.keys(TARGET_COLUMN) as ScoreTargetKind[])
      .filter((target) => plan.matches[target].length > 0)
      .map((target) => sql<SqlBool>`${sql.ref(TARGET_COLUMN[target])} in (${sql.join(plan.matches[target])})`);
    return or.length === 0 ? sql<SqlBool>`1 = 0` : eb.or(or);
  }
  const targets = plan?.targets ?? (['run', 'trace', 'session'] as const);
  if (targets.length === 0) return sql<SqlBool>`1 = 0`;
  // The condition names scores' columns, which the probe below (not this query over runs) brings in.
  const scoresBuilder = expressionBuilder<Database, 'scores'>();
  const on = (target: 'run' | 'trace' | 'session') => {
    const match = scoreValueMatch(scoresBuilder, filter);
    // SQLite (no statistics kept here) would take the covering scores_value_idx and range over the
    // project's scores for each run: the probe names its index, an exact lookup.
    if (dialect === 'sqlite')
      return sql<SqlBool>`exists (select 1 from scores indexed by scores_target_idx where scores.project_id = runs.project_id
        and scores.target = ${target} and scores.target_id = ${sql.ref(TARGET_COLUMN[target])} and ${match})`;
    const probe = eb
      .selectFrom('scores')
      .select(sql`1`.as('one'))
      .whereRef('scores.project_id', '=', 'runs.project_id')
      .where('scores.target', '=', target)
      .whereRef('scores.target_id', '=', TARGET_COLUMN[target]);
    if (plan?.kind !== 'many') return eb.exists(probe.where(match));
    // A list walking its order (`many`): one exact probe per run, whatever statistics PostgreSQL keeps.
    // OFFSET 0 keeps the probe per run (a semi-join let PostgreSQL, on tables not yet analyzed, read every
    // matching score first and sort their runs: 1.7 s over a million runs in the bench); the name compared
    // as a value leaves it scores_target_idx, where scores_name_idx would range over the name's scores for
    // each run.
    return eb.exists(probe.where(scoreValueMatch(scoresBuilder, filter, true, true, false)).offset(0));
  };
  return eb.or(targets.map(on));
}

/** A run name filter: exact, or ending in `*` a prefix (compared by characters, so no pattern syntax reaches the engine). */
function nameMatch(name: string): Expression<SqlBool> {
  if (!name.endsWith('*')) return sql<SqlBool>`runs.name = ${name}`;
  const prefix = name.slice(0, -1);
  // Both engines count characters (code points) in length and substr.
  return sql<SqlBool>`substr(runs.name, 1, ${sql.lit([...prefix].length)}) = ${prefix}`;
}

/** How a list finds its filters' runs (runs.score-plan.ts: planList): `q`'s plan, each score filter's, and whether one starts from few matches. */
export interface ListPlan {
  search: SearchPlan | undefined;
  scores: ScorePlan[] | undefined;
  few: boolean;
  /** The project's experiment traces when few (`experimentTraces`); null or absent: probe each run's trace. */
  experiment?: readonly string[] | null;
}

/**
 * The WHERE clause for a filter set, for queries over `runs` (project scoping is the caller's); `plan`:
 * how a list finds the matches of `q` and of each score filter (planList), else as an aggregate does.
 */
export function runFilterWhere(dialect: Dialect, filters: RunFilters, plan?: ListPlan): Expression<SqlBool> {
  // A builder of its own (as Kysely gives a `where` callback), so the lists of traces, sessions and users
  // take the condition inside their probes of `runs` as the runs list does.
  const eb = expressionBuilder<Database, 'runs'>();
  const and: Expression<SqlBool>[] = [];
  if (filters.status !== undefined) and.push(eb('runs.status', '=', filters.status));
  if (filters.kind !== undefined) and.push(eb('runs.kind', '=', filters.kind));
  if (filters.name !== undefined) and.push(nameMatch(filters.name));
  if (filters.model !== undefined) and.push(eb('runs.model', '=', filters.model));
  if (filters.traceId !== undefined) and.push(eb('runs.trace_id', '=', filters.traceId));
  if (filters.sessionId !== undefined) and.push(eb('runs.session_id', '=', filters.sessionId));
  if (filters.userId !== undefined) and.push(eb('runs.user_id', '=', filters.userId));
  if (filters.parentRunId === null) and.push(eb('runs.parent_run_id', 'is', null));
  else if (filters.parentRunId !== undefined) and.push(eb('runs.parent_run_id', '=', filters.parentRunId));
  if (filters.startedAfter !== undefined) and.push(eb('runs.start_time', '>=', filters.startedAfter));
  if (filters.startedBefore !== undefined) and.push(eb('runs.start_time', '<', filters.startedBefore));
  for (const tag of filters.tags ?? []) {
    and.push(
      eb.exists(
        eb
          .selectFrom('run_tags')
          .select(sql`1`.as('one'))
          .whereRef('run_tags.project_id', '=', 'runs.project_id')
          .whereRef('run_tags.run_id', '=', 'runs.id')
          .where('run_tags.tag', '=', tag),
      ),
    );
  }
  if (filters.q !== undefined) and.push(searchMatch(dialect, queryWords(filters.q), plan?.search));
  for (const [key, value] of Object.entries(filters.metadata ?? {})) and.push(metadataMatch(dialect, key, value));
  for (const [key, value] of Object.entries(filters.metadataNot ?? {})) and.push(metadataMatch(dialect, key, value, true));
  for (const key of filters.hasMetadata ?? []) and.push(sql<SqlBool>`${metadataValue(dialect, key)} is not null`);
  for (const [i, filter] of (filters.scores ?? []).entries()) and.push(scoreMatch(dialect, eb, filter, plan?.scores?.[i]));
  const experiment = filters.experiment && experimentMatch(dialect, filters.experiment, plan?.experiment);
  if (experiment) and.push(experiment);
  return eb.and(and);
}
