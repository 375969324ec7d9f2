import { sql, type Expression, type Kysely, type SqlBool, type Transaction } from 'kysely';
import { dialectOf, type Dialect } from '../../db/dialect.js';
import { eachRow, heldSqlite } from '../../db/rowwise.js';
import type { Database } from '../../db/schema.js';
import { problems } from '../../lib/problems.js';

type Db = Kysely<Database> | Transaction<Database>;

/** How much of a run's text is searchable: its name and error, then its inputs' and outputs' text, to this many characters. */
export const MAX_SEARCH_TEXT = 32_768;
export const MAX_QUERY_WORDS = 16;

// eslint-disable-next-line no-control-regex -- U+0000 is what this removes
const UNINDEXABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The words of a run: its name, its error, and every text (and key) of its inputs and outputs, in order, bounded. */
export function searchText(run: { name: string; error: string | null; inputs: unknown; outputs: unknown }): string {
  const pieces: string[] = [run.name];
  let length = run.name.length;
  const add = (text: string) => {
    if (length >= MAX_SEARCH_TEXT) return;
    pieces.push(text);
    length += text.length + 1;
  };
  if (run.error) add(run.error);
  // Iterative: values may nest deep.
  const stack: unknown[] = [run.outputs, run.inputs];
  while (stack.length > 0 && length < MAX_SEARCH_TEXT) {
    const value = stack.pop();
    if (typeof value === 'string') add(value);
    else if (typeof value === 'number' || typeof value === 'boolean') add(String(value));
    else if (Array.isArray(value)) for (let i = value.length - 1; i >= 0; i--) stack.push(value[i]);
    else if (value && typeof value === 'object') {
      const values = Object.values(value);
      for (let i = values.length - 1; i >= 0; i--) stack.push(values[i]);
    }
  }
  // Characters no engine indexes as text (U+0000, half a surrogate pair) are word breaks here: the run
  // keeps them as sent, its words do not. Cutting at the bound never splits a pair either.
  return pieces.join(' ').slice(0, MAX_SEARCH_TEXT).replace(UNINDEXABLE, ' ');
}

/**
 * The words of a `q` filter: whitespace-separated, each with a letter or digit; all must appear in a
 * run (whole words, case-insensitive). A 400 problem naming `q` when there is no word or too many.
 */
export function queryWords(q: string): string[] {
  const words = q.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
  if (words.length === 0) throw problems.validation([{ parameter: 'q', detail: 'Must contain at least one word (letters or digits).' }]);
  if (words.length > MAX_QUERY_WORDS) throw problems.validation([{ parameter: 'q', detail: `Must contain at most ${MAX_QUERY_WORDS} words.` }]);
  return words;
}

/** FTS5's query for the words: each a quoted phrase, so no query syntax reaches it. */
export const phrasesOf = (words: string[]) => words.map((w) => `"${w.replace(/"/g, '""')}"`).join(' ');

/** At most this many matches in a project make a search "few": lists then start from the matches. */
export const FEW_MATCHES = 1000;

/**
 * How a list finds the runs that match `q`, decided per request by a bounded probe of the project's
 * matches: `few` (at most FEW_MATCHES) lists start from those runs and sort them; `many` lists walk
 * their own order and test each run, and stop once the page is full. Either way takes an index walk
 * of the size of the page, where one form for all made a rare word scan every run of the project, or
 * a common one read all its matches first.
 */
export type SearchPlan = { kind: 'few'; runIds: string[] } | { kind: 'many' };

export async function planSearch(db: Db, projectId: string, q: string): Promise<SearchPlan> {
  const words = queryWords(q);
  // PostgreSQL: the project compared as a value, else it ANDs the word index's bitmap with one of every
  // run of the project (a read of the whole project), where reading the matches' rows to the limit is cheap.
  const postgres = dialectOf(db as Kysely<Database>) === 'postgres';
  if (!postgres) {
    // SQLite: counted first (a count reads no run ids: a third of the time over many matches), read if few.
    const counted = await sql<{ n: number }>`select count(*) as n from (select 1 from run_search s join run_search_keys k on k.id = s.rowid
      where s.run_search match ${phrasesOf(words)} and k.project_id = ${projectId} limit ${FEW_MATCHES + 1})`.execute(db);
    if (Number(counted.rows[0]?.n ?? 0) > FEW_MATCHES) return { kind: 'many' };
  }
  const probe = postgres
    ? sql<{ run_id: string }>`select run_id from run_search where (project_id || '') = ${projectId}
        and words @@ plainto_tsquery('simple', ${words.join(' ')}) limit ${FEW_MATCHES + 1}`
    : sql<{ run_id: string }>`select k.run_id from run_search s join run_search_keys k on k.id = s.rowid
        where s.run_search match ${phrasesOf(words)} and k.project_id = ${projectId} limit ${FEW_MATCHES + 1}`;
  const rows = (await probe.execute(db)).rows;
  return rows.length <= FEW_MATCHES ? { kind: 'few', runIds: rows.map((r) => r.run_id) } : { kind: 'many' };
}

/**
 * `runs` rows whose words contain every word of `q`. Without a plan (aggregates over a time range, which
 * read every run in it), one uncorrelated subquery, so each engine reads its index once per query: FTS5,
 * and PostgreSQL's `plainto_tsquery` (which has no query syntax either). With a plan, as it says.
 */
export function searchMatch(dialect: Dialect, words: string[], plan?: SearchPlan): Expression<SqlBool> {
  if (plan?.kind === 'few') return plan.runIds.length === 0 ? sql<SqlBool>`1 = 0` : sql<SqlBool>`runs.id in (${sql.join(plan.runIds)})`;
  if (dialect === 'postgres') {
    const query = sql`plainto_tsquery('simple', ${words.join(' ')})`;
    // A correlated scalar subquery, which PostgreSQL evaluates run by run as the list walks its order (an
    // EXISTS it would turn into a join reading every match first).
    return plan?.kind === 'many'
      ? sql<SqlBool>`coalesce((select s.words @@ ${query} from run_search s where s.project_id = runs.project_id and s.run_id = runs.id), false)`
      : sql<SqlBool>`(runs.project_id, runs.id) in (select run_search.project_id, run_search.run_id from run_search where run_search.words @@ ${query})`;
  }
  const phrases = phrasesOf(words);
  return plan?.kind === 'many'
    ? sql<SqlBool>`exists (select 1 from run_search_keys k where k.project_id = runs.project_id and k.run_id = runs.id
        and exists (select 1 from run_search where run_search match ${phrases} and run_search.rowid = k.id))`
    : sql<SqlBool>`(runs.project_id, runs.id) in (select k.project_id, k.run_id from run_search_keys k where k.id in (select rowid from run_search where run_search match ${phrases}))`;
}

/** Writes runs' words (new runs, or `replace` to rewrite those of stored runs), in the caller's transaction. */
export async function indexRuns(db: Db, projectId: string, runs: { id: string; text: string }[], replace = false): Promise<void> {
  const handle = replace ? null : heldSqlite(db);
  if (handle) {
    // In a SQLite write transaction: each run's key, then its words under the key's rowid.
    const keys = eachRow(
      handle,
      db,
      'run_search_keys',
      ['project_id', 'run_id'],
      (kysely, row) => sql`insert into run_search_keys (project_id, run_id) values (${row.project_id}, ${row.run_id})`.compile(kysely),
      runs.map((r) => ({ project_id: projectId, run_id: r.id })),
    );
    eachRow(
      handle,
      db,
      'run_search',
      ['rowid', 'words'],
      (kysely, row) => sql`insert into run_search (rowid, words) values (${row.rowid}, ${row.words})`.compile(kysely),
      runs.map((r, i) => ({ rowid: keys[i]!.lastInsertRowid, words: r.text })),
    );
    return;
  }
  const postgres = dialectOf(db as Kysely<Database>) === 'postgres';
  for (let i = 0; i < runs.length; i += 500) {
    const chunk = runs.slice(i, i + 500);
    if (postgres) {
      await sql`insert into run_search (project_id, run_id, words)
        select ${projectId}, r.id, to_tsvector('simple', r.text) from unnest(${chunk.map((r) => r.id)}::text[], ${chunk.map((r) => r.text)}::text[]) as r(id, text)
        on conflict (project_id, run_id) do update set words = excluded.words`.execute(db);
      continue;
    }
    if (replace) {
      const ids = sql.join(chunk.map((r) => r.id));
      await sql`delete from run_search where rowid in (select id from run_search_keys where project_id = ${projectId} and run_id in (${ids}))`.execute(db);
      await sql`delete from run_search_keys where project_id = ${projectId} and run_id in (${ids})`.execute(db);
    }
    const keys = await sql<{ id: number; run_id: string }>`insert into run_search_keys (project_id, run_id)
      values ${sql.join(chunk.map((r) => sql`(${projectId}, ${r.id})`))} returning id, run_id`.execute(db);
    const text = new Map(chunk.map((r) => [r.id, r.text]));
    await sql`insert into run_search (rowid, words) values ${sql.join(keys.rows.map((k) => sql`(${k.id}, ${text.get(k.run_id)!})`))}`.execute(db);
  }
}

/** Forgets a project's words (the project is being deleted), in the caller's transaction. */
export async function forgetProjectWords(db: Db, projectId: string): Promise<void> {
  if (dialectOf(db as Kysely<Database>) === 'postgres') {
    await sql`delete from run_search where project_id = ${projectId}`.execute(db);
    return;
  }
  await sql`delete from run_search where rowid in (select id from run_search_keys where project_id = ${projectId})`.execute(db);
  await sql`delete from run_search_keys where project_id = ${projectId}`.execute(db);
}
