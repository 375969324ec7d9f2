import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Position } from '../../lib/pagination.js';
import { phrasesOf } from './search.js';

/** Keys this close make one range of the word index: one read of it rather than one per key. */
const KEY_GAP = 256;
/** Ids per statement (both engines' parameter limits are far above). */
const IDS_PER_STATEMENT = 500;
/** The first window of a walk, in rows per row asked for: a common word (the only kind walked) fills a page in it. */
const FIRST_WINDOW = 4;
/** How much each further window grows, and the most rows one holds. */
const GROWTH = 4;
const MAX_WINDOW = 4096;

/**
 * SQLite: the runs among `runs` (of the project) whose words hold every word of the search, FTS5 read
 * once per range of the runs' keys, where a read per run costs a seek in each of the index's segments
 * (about 0.3 ms a run over 100,000 runs, 20 ms for a page of a common word). The keys of runs stored in
 * the order they arrive are close, so a window of the newest runs is one range or a few.
 */
export async function runsMatching(db: Kysely<Database>, projectId: string, words: string[], runs: readonly KeyedRun[]): Promise<Set<string>> {
  const matching = new Set<string>();
  for (let i = 0; i < runs.length; i += IDS_PER_STATEMENT) {
    const chunk = runs.slice(i, i + IDS_PER_STATEMENT);
    const runOf = new Map<number, string>();
    if (chunk.every((run) => run.search_key !== undefined)) {
      for (const run of chunk) if (run.search_key !== null && run.search_key !== undefined) runOf.set(Number(run.search_key), run.id);
    } else {
      const keyed = await sql<{ id: number; run_id: string }>`select id, run_id from run_search_keys
        where project_id = ${projectId} and run_id in (${sql.join(chunk.map((run) => run.id))})`.execute(db);
      for (const k of keyed.rows) runOf.set(Number(k.id), k.run_id);
    }
    for (const [low, high] of keyRanges([...runOf.keys()])) {
      // Bounds cast to integers: FTS5 ignores a rowid bound of another type (a JavaScript number may bind as a real).
      const found = await sql<{ key: number }>`select rowid as key from run_search where run_search match ${phrasesOf(words)}
        and rowid >= cast(${low} as integer) and rowid <= cast(${high} as integer)`.execute(db);
      for (const { key } of found.rows) {
        const run = runOf.get(Number(key));
        if (run !== undefined) matching.add(run);
      }
    }
  }
  return matching;
}

/** A run to test, with its key in the word index when the query that found it read it (`searchKey`; null: it has none). */
export interface KeyedRun {
  id: string;
  search_key?: number | null;
}

/**
 * SQLite: the run's key in the word index, as a column of a query over `runs` (`search_key`), so that a
 * walk reads it with the stream rather than in a query of its own.
 */
export const searchKeyColumn = sql<number | null>`(select k.id from run_search_keys k where k.project_id = runs.project_id and k.run_id = runs.id)`.as(
  'search_key',
);

/** The rows of a walk's first window, for a page of `take`: a common word fills the page in it. */
export const firstWindow = (take: number) => Math.min(MAX_WINDOW, FIRST_WINDOW * take);

/** Sorted keys in ranges: a new range wherever the next key is more than KEY_GAP past the last. */
export function keyRanges(keys: number[]): [number, number][] {
  const sorted = [...keys].sort((a, b) => a - b);
  const ranges: [number, number][] = [];
  for (const key of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && key - last[1] <= KEY_GAP) last[1] = key;
    else ranges.push([key, key]);
  }
  return ranges;
}

/** The next rows of a list's stream after a position (without the search), at most `size`, in its order. */
export type Stream<Row> = (after: Position | null, size: number) => Promise<Row[]>;

/** What a walk found, and where it stopped: null once the stream has no more rows. */
export interface Walked<Row> {
  found: Row[];
  next: Position | null;
}

/**
 * SQLite: walks a list's stream from `after` a window of rows at a time, keeping the rows that match the search
 * (`runsMatching`), until `take` are found, the stream ends, or `windows` windows are read (the first
 * FIRST_WINDOW rows per row asked for, each next GROWTH times larger, at most MAX_WINDOW). The rows found
 * are the first matches after `after`, in the stream's order: each window continues where the last ended.
 */
export async function walkMatches<Row extends KeyedRun>(
  db: Kysely<Database>,
  projectId: string,
  words: string[],
  walk: { stream: Stream<Row>; positionOf: (row: Row) => Position; after: Position | null; take: number; windows: number },
): Promise<Walked<Row>> {
  const found: Row[] = [];
  let next = walk.after;
  let size = firstWindow(walk.take);
  for (let window = 0; window < walk.windows; window++) {
    const rows = await walk.stream(next, size);
    const matching = await runsMatching(db, projectId, words, rows);
    for (const row of rows) {
      if (!matching.has(row.id)) continue;
      found.push(row);
      if (found.length === walk.take) return { found, next: walk.positionOf(row) };
    }
    if (rows.length < size) return { found, next: null };
    next = walk.positionOf(rows[rows.length - 1]!);
    size = Math.min(MAX_WINDOW, size * GROWTH);
  }
  return { found, next };
}
