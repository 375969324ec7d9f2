import { sql, type AliasedExpression, type Kysely, type SqlBool } from 'kysely';
import type { Dialect } from '../../db/dialect.js';
import { prepared } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import { MAX_SUMMARIES, type ScoreSummary } from './score-summaries.schemas.js';
import type { ScoreDataType, ScoreTarget } from '../../schemas/records.js';

export { MAX_SUMMARIES, type ScoreSummary };

/**
 * The summaries of the scores on each of `ids` (targets of one kind: runs, traces or sessions), in one
 * grouped query: per name and data type, how many and their mean (numeric; boolean: the share of true),
 * or the most frequent label (categorical; a tie goes to the label first in code-point order). At most
 * MAX_SUMMARIES per target, the first by name (then data type), in that order; a target without scores
 * has none (an empty list).
 *
 * Names are `collate "C"` columns on PostgreSQL (as ids): both engines order them bytewise, which is
 * code-point order; labels are ordinary text, so PostgreSQL is told the same collation for the tie.
 */
interface CellRow {
  target_id: string;
  name: string;
  data_type: string;
  label: string | null;
  n: number;
  total: number | null;
}

/** Which of `ids` have scores at all: one probe of `scores_target_idx` per id, on either engine. */
const scoredSqlite = new Map<number, (db: Kysely<Database>, projectId: string, target: ScoreTarget, ...ids: string[]) => Promise<{ target_id: string }[]>>();
// A probe per id whatever statistics PostgreSQL keeps (as the summaries below): `any(…)` on tables not yet
// analyzed can read all the project's scores of the kind.
const scoredPostgres = prepared((db, ids: string[], projectId: string, target: ScoreTarget) =>
  db
    .selectFrom(sql<{ w: string }>`unnest(${ids}::text[])`.as('w'))
    .select(sql<string>`w`.as('target_id'))
    .where(sql<SqlBool>`exists (select 1 from scores where project_id = ${projectId} and target = ${target} and target_id = w)`),
);

async function scoredTargets(db: Kysely<Database>, dialect: Dialect, projectId: string, target: ScoreTarget, ids: string[]): Promise<string[]> {
  if (dialect === 'postgres') return (await scoredPostgres(db, ids, projectId, target)).map((row) => row.target_id);
  let probe = scoredSqlite.get(ids.length);
  if (!probe) {
    // One compiled statement per number of ids (a page holds at most a few hundred), bound afresh each time.
    probe = prepared((db, projectId: string, target: ScoreTarget, ...wanted: string[]) =>
      db.selectFrom('scores').select('target_id').distinct().where('project_id', '=', projectId).where('target', '=', target).where('target_id', 'in', wanted),
    );
    scoredSqlite.set(ids.length, probe);
  }
  return (await probe(db, projectId, target, ...ids)).map((row) => row.target_id);
}

export async function scoreSummaries(
  db: Kysely<Database>,
  dialect: Dialect,
  projectId: string,
  target: ScoreTarget,
  ids: readonly string[],
  /** Which of `ids` have scores, when the caller's own query said so (then no probe is made). */
  scored?: readonly string[],
): Promise<Map<string, ScoreSummary[]>> {
  const summaries = new Map<string, ScoreSummary[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return summaries;
  // Most listed items have no scores (and many projects none at all): which ones do is a probe per
  // item, where summarizing costs its window functions' setup even over no scores at all.
  const wanted = scored ? [...new Set(scored)] : await scoredTargets(db, dialect, projectId, target, [...new Set(ids)]);
  if (wanted.length === 0) return summaries;
  const labelOrder = dialect === 'postgres' ? sql`label collate "C"` : sql`label`;
  // Per target, name, type and label: the count and the values' sum (one index range per target).
  const cells: AliasedExpression<CellRow, 'cells'> =
    dialect === 'postgres'
      ? // One exact probe of scores_target_idx per target, whatever statistics PostgreSQL keeps: with `in`,
        // on tables not yet analyzed, it read all the project's scores of the kind and kept the page's
        // (0.75 s a page over two million scores in the bench). OFFSET 0 keeps the lateral a probe.
        sql<CellRow>`(select s.target_id, s.name, s.data_type, s.label, count(*) as n, sum(s.value) as total
          from unnest(${wanted}::text[]) as wanted (id)
          cross join lateral (select target_id, name, data_type, label, value from scores
            where project_id = ${projectId} and target = ${target} and target_id = wanted.id offset 0) as s
          group by s.target_id, s.name, s.data_type, s.label)`.as('cells')
      : db
          .selectFrom('scores')
          .select(['target_id', 'name', 'data_type', 'label', sql<number>`count(*)`.as('n'), sql<number | null>`sum(value)`.as('total')])
          .where('project_id', '=', projectId)
          .where('target', '=', target)
          .where('target_id', 'in', wanted)
          .groupBy(['target_id', 'name', 'data_type', 'label'])
          .as('cells');
  // Per target, name and type: the counts and sums added up, the label with the most scores first, and
  // the rank of the (name, type) within the target, so that only the first MAX_SUMMARIES leave the database.
  const ranked = db
    .selectFrom(cells)
    .select([
      'target_id',
      'name',
      'data_type',
      'label',
      sql<number>`sum(n) over (partition by target_id, name, data_type)`.as('count'),
      sql<number | null>`sum(total) over (partition by target_id, name, data_type)`.as('sum'),
      sql<number>`row_number() over (partition by target_id, name, data_type order by n desc, ${labelOrder})`.as('label_rank'),
      sql<number>`dense_rank() over (partition by target_id order by name, data_type)`.as('name_rank'),
    ]);
  const rows = await db
    .selectFrom(ranked.as('ranked'))
    .select(['target_id', 'name', 'data_type', 'label', 'count', 'sum'])
    .where('label_rank', '=', 1)
    .where('name_rank', '<=', MAX_SUMMARIES)
    .orderBy('target_id')
    .orderBy('name')
    .orderBy('data_type')
    .execute();
  for (const row of rows) {
    const count = Number(row.count);
    const dataType = row.data_type as ScoreDataType;
    const value = dataType === 'categorical' ? (row.label ?? '') : Number(row.sum ?? 0) / count;
    summaries.get(row.target_id)?.push({ name: row.name, dataType, value, count });
  }
  return summaries;
}

/**
 * A column `scored` (or `alias`) for a list's query: whether the target on the row has scores, one probe
 * of scores_target_idx (1/0 on SQLite, true/false on PostgreSQL). The target is written into the SQL, not
 * bound, so a `prepared` query keeps its own parameters.
 */
export function scoredColumn<Alias extends string = 'scored'>(target: ScoreTarget, projectColumn: string, idColumn: string, alias?: Alias) {
  return sql<unknown>`exists (select 1 from scores where scores.project_id = ${sql.ref(projectColumn)} and scores.target = ${sql.lit(target)} and scores.target_id = ${sql.ref(idColumn)})`.as(
    alias ?? ('scored' as Alias),
  );
}

/**
 * The ids of the rows whose query said their target has scores (an `exists` column: 1/0 on SQLite,
 * true/false on PostgreSQL), or undefined when some row was read without it.
 */
export function scoredIds<Row>(rows: readonly Row[], idOf: (row: Row) => string, scoredOf: (row: Row) => unknown): string[] | undefined {
  if (!rows.every((row) => scoredOf(row) !== undefined)) return undefined;
  return rows.filter((row) => Boolean(scoredOf(row))).map(idOf);
}

/** Items made from rows, each with its scores' summaries (one query for them all). */
export async function withSummaries<Row, Item>(
  db: Kysely<Database>,
  dialect: Dialect,
  projectId: string,
  target: ScoreTarget,
  rows: readonly Row[],
  idOf: (row: Row) => string,
  toItem: (row: Row, scores: ScoreSummary[]) => Item,
  /** Whether a row's target has scores, when the rows' own query said so (undefined: it did not). */
  scoredOf?: (row: Row) => unknown,
): Promise<Item[]> {
  const scored = scoredOf ? scoredIds(rows, idOf, scoredOf) : undefined;
  const summaries = await scoreSummaries(db, dialect, projectId, target, rows.map(idOf), scored);
  return rows.map((row) => toItem(row, summaries.get(idOf(row)) ?? []));
}

/**
 * A stored record (JSON text of an object) with its `scores` added as the last member, without parsing
 * and serializing it again: the record's closing brace is replaced.
 */
export function withScoresText(record: string, scores: readonly ScoreSummary[]): string {
  return `${record.slice(0, record.lastIndexOf('}'))},"scores":${JSON.stringify(scores)}}`;
}

/** From this many characters a record is answered as bytes (`withScoresBody`). */
export const LARGE_RECORD_CHARS = 1 << 16;

/**
 * One record's answer: `withScoresText`'s text, and for a large record (a run of megabytes) its UTF-8
 * bytes written once into a buffer. The text joined from the record's slice and the scores is a string
 * of pieces, which measuring its bytes and writing it to the socket each copied whole into the heap:
 * a 9.5 MB run's answer cost 19 MB of heap beside its record.
 */
export function withScoresBody(record: string, scores: readonly ScoreSummary[]): string | Buffer {
  if (record.length < LARGE_RECORD_CHARS) return withScoresText(record, scores);
  const end = record.lastIndexOf('}');
  const tail = `,"scores":${JSON.stringify(scores)}}`;
  // What follows the closing brace is ASCII (JSON whitespace at most): one byte a character.
  const head = Buffer.byteLength(record) - (record.length - end);
  const bytes = Buffer.allocUnsafe(head + Buffer.byteLength(tail));
  bytes.write(record, 0, head, 'utf8');
  bytes.write(tail, head, 'utf8');
  return bytes;
}
