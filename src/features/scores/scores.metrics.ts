import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { bucketStart, bucketStarts, metricsGroups } from '../query/index.js';
import { scoreCells, type ScoreListFilters } from './scores.repo.js';
import { HOUR_MS, rollupCells, type ScoreCell } from './scores.rollups.js';

interface Sums {
  count: number;
  sum: number;
  valued: number;
  labels: Map<string, number>;
}
const empty = (): Sums => ({ count: 0, sum: 0, valued: 0, labels: new Map() });

function add(into: Sums, cell: { label: string | null; count: number; sum: number; valued: number }): void {
  into.count += cell.count;
  into.sum += cell.sum;
  into.valued += cell.valued;
  if (cell.label !== null) into.labels.set(cell.label, (into.labels.get(cell.label) ?? 0) + cell.count);
}

/** What a bucket reports: how many scores, the mean of the valued ones, each label's share of the labelled ones. */
function values(s: Sums) {
  const labelled = [...s.labels.values()].reduce((n, v) => n + v, 0);
  return {
    count: s.count,
    mean: s.valued === 0 ? null : s.sum / s.valued,
    shares: Object.fromEntries([...s.labels].sort(([a], [b]) => (a < b ? -1 : 1)).map(([label, n]) => [label, n / labelled])),
  };
}

type MetricsInput = { filters: ScoreListFilters; from: number; to: number; bucketMs: number | null; groupBy: 'name' | 'source' | 'target' | null };

/** The filters the rollups keep apart; any other filter (a target, a config, a queue, an author) takes the scan. */
const ROLLED_FILTERS = new Set(['name', 'source', 'target', 'createdAfter', 'createdBefore']);

/**
 * How a window is read from the rollups: the whole hours [from, to) from them, plus (sign 1) or minus
 * (sign -1) the scores of the partial hours at its ends. Each end is scanned on the side that holds no
 * score (`empty`: probed), else on the shorter side of the window's boundary: [from, next hour), or the
 * hour's start to `from` taken away from its whole hour (likewise at `to`, where a window that ends now
 * has nothing after it). Null when the rollups cannot serve the request: a filter they do not keep,
 * buckets finer than an hour, or no whole hour to read.
 */
export function rollupWindow(
  input: MetricsInput,
  empty: { before: boolean; after: boolean } = { before: false, after: false },
): { from: number; to: number; edges: { from: number; to: number; sign: 1 | -1 }[] } | null {
  if (input.bucketMs !== null && input.bucketMs % HOUR_MS !== 0) return null;
  if (Object.entries(input.filters).some(([key, value]) => value !== undefined && !ROLLED_FILTERS.has(key))) return null;
  const first = bucketStart(input.from, HOUR_MS) + (input.from % HOUR_MS === 0 ? 0 : HOUR_MS); // the first whole hour
  const last = bucketStart(input.to, HOUR_MS); // the end of the last whole hour
  let from = first;
  let to = last;
  const edges: { from: number; to: number; sign: 1 | -1 }[] = [];
  if (input.from < first) {
    if (!empty.before && first - input.from <= input.from - (first - HOUR_MS)) edges.push({ from: input.from, to: Math.min(first, input.to), sign: 1 });
    else {
      from = first - HOUR_MS;
      edges.push({ from, to: input.from, sign: -1 });
    }
  }
  if (input.to > last && last >= first) {
    if (!empty.after && input.to - last <= last + HOUR_MS - input.to) edges.push({ from: last, to: input.to, sign: 1 });
    else {
      to = last + HOUR_MS;
      edges.push({ from: input.to, to, sign: -1 });
    }
  }
  return from < to ? { from, to, edges } : null;
}

/**
 * The metrics' cells: from the rollups and the partial hours' scores (`rollupWindow`), read in one
 * snapshot so a score stored meanwhile counts in both or neither, or from a scan of the scores.
 * Cells are summed per bucket, group and label; a label no score has left is dropped, as a scan would.
 */
async function scoreCellsOver(db: Kysely<Database>, projectId: string, input: MetricsInput, plan: ScoreMetricsPlan): Promise<ScoreCell[]> {
  const scan = (trx: Kysely<Database>, from: number, to: number) =>
    scoreCells(trx, projectId, { ...input.filters, createdAfter: from, createdBefore: to }, input.bucketMs, input.groupBy);
  if (plan === 'scan' || !rollupWindow(input)) return scan(db, input.from, input.to);
  const read = async (trx: Kysely<Database>) => {
    // Whether a partial hour holds no score beside the window (one index probe each).
    const none = async (from: number, to: number) =>
      from < to &&
      !(await trx
        .selectFrom('scores')
        .select('id')
        .where('project_id', '=', projectId)
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .limit(1)
        .executeTakeFirst());
    const hourEnd = bucketStart(input.to, HOUR_MS) + (input.to % HOUR_MS === 0 ? 0 : HOUR_MS);
    const window = rollupWindow(input, { before: await none(bucketStart(input.from, HOUR_MS), input.from), after: await none(input.to, hourEnd) });
    if (!window) return [{ sign: 1 as const, cells: await scan(trx, input.from, input.to) }];
    const parts: { sign: 1 | -1; cells: ScoreCell[] }[] = [
      { sign: 1, cells: await rollupCells(trx, projectId, input.filters, window.from, window.to, input.bucketMs, input.groupBy) },
    ];
    for (const edge of window.edges) parts.push({ sign: edge.sign, cells: await scan(trx, edge.from, edge.to) });
    return parts;
  };
  const parts = db.isTransaction ? await read(db) : await db.transaction().setIsolationLevel('repeatable read').execute(read);
  const cells = new Map<string, ScoreCell>();
  for (const { sign, cells: list } of parts) {
    for (const c of list) {
      const key = JSON.stringify([c.bucket, c.group, c.label]);
      const cell = cells.get(key) ?? { bucket: c.bucket, group: c.group, label: c.label, count: 0, sum: 0, valued: 0 };
      cell.count += sign * c.count;
      cell.sum += sign * c.sum;
      cell.valued += sign * c.valued;
      cells.set(key, cell);
    }
  }
  return [...cells.values()].filter((c) => c.count > 0);
}

/** How the metrics find their cells: `auto` (rollups when the request allows), or one way forced (tests, the bench's checks). */
export type ScoreMetricsPlan = 'auto' | 'rollups' | 'scan';

/**
 * Score aggregates over [from, to) of the scores' createdAt: per UTC-aligned bucket (every bucket, empty
 * ones included) and group (`name`, `source` or `target`), and in total. The single entry point for the
 * endpoint and monitors: whole hours come from the hourly rollups when the filters and bucket allow
 * (`scoreCellsOver`), the rest from the scores.
 */
export async function scoreMetrics(db: Kysely<Database>, projectId: string, input: MetricsInput, plan: ScoreMetricsPlan = 'auto') {
  const cells = await scoreCellsOver(db, projectId, input, plan);
  const total = empty();
  // One cell per group, bucket and label from the database: summed per group and bucket here.
  const sums = new Map<string, { group: string | null; bucket: number; count: number; sums: Sums }>();
  for (const cell of cells) {
    add(total, cell);
    const bucket = cell.bucket ?? input.from;
    const key = JSON.stringify([bucket, cell.group]);
    const entry = sums.get(key) ?? { group: cell.group, bucket, count: 0, sums: empty() };
    add(entry.sums, cell);
    entry.count = entry.sums.count;
    sums.set(key, entry);
  }
  const starts = bucketStarts(input.from, input.to, input.bucketMs);
  return {
    from: toIso(input.from),
    to: toIso(input.to),
    groups: metricsGroups([...sums.values()], starts, input.groupBy !== null, (entry) => values(entry?.sums ?? empty())),
    total: values(total),
  };
}
