import { sql, type Kysely } from 'kysely';
import type { Database, TraceRow } from '../../db/schema.js';
import { toRun } from '../runs/index.js';
import { previewOf } from './traces.preview.js';

/** What a trace shows of the run that represents it (its head): the run's tags and the previews of its inputs and outputs. */
export interface TraceHead {
  tags: string[];
  input: string | null;
  output: string | null;
}

/**
 * A trace's row with what it shows of its head (its root, else its earliest run); `scored` and
 * `root_scored` when the page's query said whether the trace and its root run have scores.
 */
export type TraceListRow = TraceRow & { head: TraceHead; scored?: unknown; root_scored?: unknown };

/** What a trace shows of its head's stored record (none: no tags, no previews). */
function headOf(doc: string | undefined): TraceHead {
  if (doc === undefined) return { tags: [], input: null, output: null };
  const run = toRun({ doc });
  return { tags: run.tags ?? [], input: previewOf(run.inputs, 'input'), output: previewOf(run.outputs, 'output') };
}

/**
 * The heads of finished traces, by project, root run and the trace's revision: a finished run changes
 * only where its trace's revision counts it (a PATCH of it is a 409, a create again with other content
 * too; adopting it into its parent's trace changes its trace, not its tags, inputs or outputs; Langfuse's
 * ingestion API stores it again, and counts up the revision), so what a trace shows of it is worked out once, not on every read of
 * the list (reading and parsing the record, then its previews, were most of the traces list's time). A
 * trace is finished when none of its runs is running, which its row says; a deleted project takes
 * its runs' ids with it. The most recently used are kept, a bounded number.
 */
class FinishedHeads {
  private readonly heads = new Map<string, TraceHead>();

  constructor(private readonly most: number) {}

  get(row: TraceRow): TraceHead | undefined {
    const key = FinishedHeads.key(row);
    const head = this.heads.get(key);
    if (head !== undefined) {
      this.heads.delete(key);
      this.heads.set(key, head);
    }
    return head;
  }

  set(row: TraceRow, head: TraceHead): void {
    if (this.heads.size >= this.most) this.heads.delete(this.heads.keys().next().value!);
    this.heads.set(FinishedHeads.key(row), head);
  }

  private static key(row: TraceRow): string {
    return `${row.project_id}/${row.root_run_id}/${row.revision}`;
  }
}

const finished = new FinishedHeads(4096);

const isFinished = (row: TraceRow) => Number(row.running_count) === 0;

/** Traces' rows with their heads: their roots, else (while the root has not arrived) their earliest runs. */
export async function withHeads(db: Kysely<Database>, projectId: string, rows: TraceRow[]): Promise<TraceListRow[]> {
  const heads = new Map<string, TraceHead>();
  const unread: string[] = [];
  for (const row of rows) {
    if (row.root_run_id === null) continue;
    const kept = isFinished(row) ? finished.get(row) : undefined;
    if (kept) heads.set(row.root_run_id, kept);
    else unread.push(row.root_run_id);
  }
  if (unread.length > 0) {
    const runs = await db.selectFrom('runs').select(['id', 'doc']).where('project_id', '=', projectId).where('id', 'in', unread).execute();
    for (const run of runs) heads.set(run.id, headOf(run.doc));
  }
  const out: TraceListRow[] = [];
  for (const row of rows) {
    let head = row.root_run_id === null ? undefined : heads.get(row.root_run_id);
    if (head === undefined) {
      const earliest = await db
        .selectFrom('runs')
        .select('doc')
        .where('project_id', '=', projectId)
        .where('trace_id', '=', row.trace_id)
        .orderBy(sql`+start_time`) // a value, not the stream index's order: the trace's own runs, sorted
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      head = headOf(earliest?.doc);
    } else if (row.root_run_id !== null && isFinished(row) && unread.includes(row.root_run_id)) {
      finished.set(row, head);
    }
    out.push({ ...row, head });
  }
  return out;
}
