import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, ScoreRow } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

export const HOUR_MS = 3_600_000;

/** What the metrics add up: how many scores of a bucket, group and label (null: numeric), the sum of their values and how many have one. */
export interface ScoreCell {
  bucket: number | null;
  group: string | null;
  label: string | null;
  count: number;
  sum: number;
  valued: number;
}

/** The columns of a score that say which rollup row it counts in, and what it adds there. */
export type RolledScore = Pick<ScoreRow, 'project_id' | 'created_at' | 'name' | 'source' | 'target' | 'data_type' | 'label' | 'value'>;

/** The hour a score counts in (UTC; createdAt is never before 1970). */
export const hourOf = (createdAt: number): number => createdAt - (createdAt % HOUR_MS);

/**
 * Applies scores to the hourly rollups (migration 020), in the caller's transaction: `add` for scores
 * stored (or as they are now), `remove` for scores as they were (changed or deleted). Rows are written
 * in one order, so concurrent writers of the same rows wait on each other instead of deadlocking; a row
 * left with no score is deleted.
 */
export async function rollUpScores(db: Db, changes: { add: readonly RolledScore[]; remove: readonly RolledScore[] }): Promise<void> {
  const sums = new Map<string, { key: (string | number)[]; count: number; sum: number }>();
  for (const [list, sign] of [
    [changes.add, 1],
    [changes.remove, -1],
  ] as const) {
    for (const s of list) {
      const key = [s.project_id, hourOf(Number(s.created_at)), s.name, s.source, s.target, s.data_type, s.data_type === 'numeric' ? '' : (s.label ?? '')];
      const k = JSON.stringify(key);
      const entry = sums.get(k) ?? { key, count: 0, sum: 0 };
      entry.count += sign;
      entry.sum += sign * (s.value === null ? 0 : Number(s.value));
      sums.set(k, entry);
    }
  }
  const rows = [...sums].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
  const changed = rows.filter((e) => e.count !== 0 || e.sum !== 0);
  if (changed.length === 0) return;
  const columns = ['project_id', 'hour', 'name', 'source', 'target', 'data_type', 'label'] as const;
  for (let i = 0; i < changed.length; i += 500) {
    await db
      .insertInto('score_rollups')
      .values(
        changed.slice(i, i + 500).map((e) => ({
          ...(Object.fromEntries(columns.map((c, j) => [c, e.key[j]])) as {
            project_id: string;
            hour: number;
            name: string;
            source: string;
            target: string;
            data_type: string;
            label: string;
          }),
          count: e.count,
          sum: e.sum,
        })),
      )
      .onConflict((oc) =>
        oc.columns([...columns]).doUpdateSet({
          count: sql`score_rollups.count + excluded.count`,
          sum: sql`score_rollups.sum + excluded.sum`,
        }),
      )
      .execute();
  }
  if (changes.remove.length > 0) {
    for (const e of changed.filter((r) => r.count < 0)) {
      let query = db.deleteFrom('score_rollups').where('count', '<=', 0);
      for (const [j, c] of columns.entries()) query = query.where(c, '=', e.key[j]!);
      await query.execute();
    }
  }
}

/**
 * What a metrics cell is keyed by, for a query over `scores` or `score_rollups`: the bucket of `time`
 * (null: unbucketed), the group, and the label (numeric scores have none: they count toward the mean,
 * not the shares).
 */
export function cellKeys(time: 'created_at' | 'hour', bucketMs: number | null, groupBy: 'name' | 'source' | 'target' | null) {
  return [
    (bucketMs === null ? sql<number | null>`null` : sql<number | null>`(${sql.ref(time)} / ${sql.lit(bucketMs)}) * ${sql.lit(bucketMs)}`).as('bucket'),
    (groupBy === null ? sql<string | null>`null` : sql<string | null>`${sql.ref(groupBy)}`).as('grp'),
    sql<string | null>`case when data_type = 'numeric' then null else label end`.as('label'),
  ] as const;
}

/** The cells of rows grouped by `cellKeys` (counts and sums come back as text or numbers, per engine). */
export function toCells(rows: { bucket: number | null; grp: string | null; label: string | null; n: unknown; total: unknown; valued: unknown }[]): ScoreCell[] {
  return rows.map((r) => ({
    bucket: r.bucket === null ? null : Number(r.bucket),
    group: r.grp,
    label: r.label,
    count: Number(r.n),
    sum: Number(r.total ?? 0),
    valued: Number(r.valued),
  }));
}

/** The rollups' share of the metrics' cells: per bucket (of the hour), group and label, over the whole hours [from, to). */
export async function rollupCells(
  db: Db,
  projectId: string,
  filters: { name?: string | undefined; source?: string | undefined; target?: string | undefined },
  from: number,
  to: number,
  bucketMs: number | null,
  groupBy: 'name' | 'source' | 'target' | null,
): Promise<ScoreCell[]> {
  let query = db.selectFrom('score_rollups').where('project_id', '=', projectId).where('hour', '>=', from).where('hour', '<', to);
  if (filters.name !== undefined) query = query.where('name', '=', filters.name);
  if (filters.source !== undefined) query = query.where('source', '=', filters.source);
  if (filters.target !== undefined) query = query.where('target', '=', filters.target);
  const rows = await query
    .select([
      ...cellKeys('hour', bucketMs, groupBy),
      sql<number>`sum(${sql.ref('count')})`.as('n'),
      sql<number>`sum(${sql.ref('sum')})`.as('total'),
      sql<number>`sum(case when data_type = 'categorical' then 0 else ${sql.ref('count')} end)`.as('valued'),
    ])
    .groupBy([sql`1`, sql`2`, sql`3`])
    .execute();
  return toCells(rows);
}
