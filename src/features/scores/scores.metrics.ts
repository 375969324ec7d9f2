import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { bucketStarts, metricsGroups } from '../runs/runs.metrics.js';
import { scoreCells, type ScoreListFilters } from './scores.repo.js';

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

/**
 * Score aggregates over [from, to) of the scores' createdAt: per UTC-aligned bucket (every bucket, empty
 * ones included) and group (`name`, `source` or `target`), and in total.
 */
export async function scoreMetrics(
  db: Kysely<Database>,
  projectId: string,
  input: { filters: ScoreListFilters; from: number; to: number; bucketMs: number | null; groupBy: 'name' | 'source' | 'target' | null },
) {
  const cells = await scoreCells(db, projectId, { ...input.filters, createdAfter: input.from, createdBefore: input.to }, input.bucketMs, input.groupBy);
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
