import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Type } from '@sinclair/typebox';
import type { App, Deps } from '../../deps.js';
import { Gate, holdForResponse } from '../../lib/gate.js';
import { leaveWorkQueue } from '../../lib/shedding.js';
import { listOrderProperty, pageQueryProperties, type KeysetRows, type Position } from '../../lib/pagination.js';
import { StringEnum } from '../../schemas/common.js';
import { filteredListRequest, metadataFilters, runFilterProperties, scoreSummaries, type ScoreSummary, withScoresText } from '../query/index.js';
import { listTraces, type Trace, type TraceListRow, tracesWithScores } from '../traces/index.js';
import { listRuns, type Run, type RunListRow, toRun } from '../runs/index.js';
import { ProjectParams } from '../../schemas/records.js';

/** Rows read per step: a list page's most, so an export holds no more in memory than a list request. */
const STEP = 100;
/** How long one export response may stream; past it, it ends at a cursor line and the client resumes. */
const MAX_STREAM_MS = 10 * 60_000;
/** Characters serialised in one turn of the event loop at most (a step of large runs is sent in parts). */
const PART_CHARS = 1 << 20;
/** A client that takes nothing from its export for this long loses it, and its slot. */
const STALL_MS = 60_000;

const ExportQuery = Type.Object(
  {
    format: Type.Optional(StringEnum(['ndjson', 'csv'] as const, { description: 'NDJSON (default: one record per line, with cursor lines) or CSV' })),
    cursor: pageQueryProperties.cursor,
    ...runFilterProperties,
    ...listOrderProperty('start time'),
  },
  { additionalProperties: false, patternProperties: metadataFilters },
);

type Cell = string | number | boolean | null | undefined;

/**
 * A CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line break. Text that a spreadsheet
 * would run as a formula (starting with =, +, -, @, a tab or a carriage return) is prefixed with `'`.
 */
export function csvCell(value: Cell): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

const RUN_COLUMNS =
  'id,traceId,parentRunId,name,kind,status,startTime,endTime,latencyMs,model,provider,promptTokens,completionTokens,totalTokens,cost,costSource,sessionId,userId,tags,error,inputs,outputs,metadata,scores';
const runCells = (r: Run, scores: ScoreSummary[]): Cell[] => [
  r.id,
  r.traceId,
  r.parentRunId,
  r.name,
  r.kind,
  r.status,
  r.startTime,
  r.endTime,
  r.latencyMs,
  r.model,
  r.provider,
  r.usage?.promptTokens,
  r.usage?.completionTokens,
  r.usage?.totalTokens,
  r.cost,
  r.costSource,
  r.sessionId,
  r.userId,
  json(r.tags),
  r.error,
  json(r.inputs),
  json(r.outputs),
  json(r.metadata),
  json(scores),
];
const TRACE_COLUMNS =
  'traceId,rootRunId,name,status,startTime,endTime,latencyMs,runCount,errorCount,totalTokens,cost,sessionId,userId,tags,input,output,scores,rootScores';
const traceCells = (t: Trace): Cell[] => [
  t.traceId,
  t.rootRunId,
  t.name,
  t.status,
  t.startTime,
  t.endTime,
  t.latencyMs,
  t.runCount,
  t.errorCount,
  t.usage.totalTokens,
  t.cost,
  t.sessionId,
  t.userId,
  json(t.tags),
  t.input,
  t.output,
  json(t.scores),
  json(t.rootScores),
];

export function exportRoutes(app: App, { db, dialect, cursors, config }: Deps): void {
  // Exports of runs and traces share one budget per instance: a few stream at once, twice as many wait
  // a bounded time, the others are refused with a 503 at once.
  const budget = new Gate(config.exportConcurrency, 2 * config.exportConcurrency);
  const busy =
    `Too many exports are running on this instance (${config.exportConcurrency} at once, ${2 * config.exportConcurrency} waiting). ` +
    `Retry after ${config.exportQueueSeconds} seconds.`;
  for (const what of ['runs', 'traces'] as const) {
    app.get(`/projects/:project_id/${what}/export`, {
      config: { scope: 'runs:read' },
      schema: {
        operationId: what === 'runs' ? 'exportRuns' : 'exportTraceList',
        tags: [what === 'runs' ? 'Runs' : 'Traces'],
        summary: `Export ${what} as NDJSON or CSV`,
        description:
          `Every ${what === 'runs' ? 'run' : 'trace'} the list's filters select, in the list's order, streamed. NDJSON: one record per line as the list gives it (with its \`scores\`); ` +
          'after every 100 records a line `{"cursor": "…"}` (a position to resume from with `cursor`, which list cursors are too), and last `{"cursor": null}`: ' +
          "an export without that line did not finish. CSV: a header row, then one row per record (JSON-valued fields, `scores` last (a trace's `rootScores` after them), as JSON text; cells starting with = + - @ prefixed with '). " +
          `Exports of runs and traces share a budget per instance (\`SIGHTLINE_EXPORT_CONCURRENCY\`, default 4, streaming at once): ` +
          'up to twice as many wait for a slot for `SIGHTLINE_EXPORT_QUEUE_SECONDS` (default 5), past that or that many the answer is a 503 `service-unavailable` problem with `Retry-After`. ' +
          'One response streams for at most 10 minutes (then it ends at a cursor line: resume from it), and ends when its client takes nothing for 60 seconds.',
        params: ProjectParams,
        querystring: ExportQuery,
        response: {
          200: {
            description: 'The records, streamed',
            content: {
              'application/x-ndjson': { schema: { type: 'string', description: 'One JSON record per line, with cursor lines' } },
              'text/csv': { schema: { type: 'string', description: 'RFC 4180, a header row first' } },
            },
          },
        },
      },
      handler: async (request, reply) => {
        const { format, ...listQuery } = request.query as { format?: 'ndjson' | 'csv' } & Record<string, unknown>;
        const csv = format === 'csv';
        const { project, filters, order, page, identity } = await filteredListRequest(db, { ...request, query: listQuery }, what);
        const start = page.cursor === undefined ? null : await cursors.decode(identity, page.cursor);
        const fetch = (after: Position | null): Promise<KeysetRows<RunListRow | TraceListRow>> =>
          what === 'runs'
            ? listRuns(db, dialect, project.id, filters, after, STEP + 1, order)
            : listTraces(db, dialect, project.id, filters, after, STEP + 1, order);
        const runLine = (row: RunListRow, scores: ScoreSummary[]): string =>
          csv ? runCells(toRun(row), scores).map(csvCell).join(',') : withScoresText(row.doc, scores);
        const traceLine = (t: Trace): string => (csv ? traceCells(t).map(csvCell).join(',') : JSON.stringify(t));
        /** A step's lines, its scores read as for a list page (one grouped query per kind of target). */
        const linesOf = async (step: (RunListRow | TraceListRow)[]): Promise<string[]> => {
          if (what === 'traces') return (await tracesWithScores(db, dialect, project.id, step as TraceListRow[])).map(traceLine);
          const runs = step as RunListRow[];
          const scores = await scoreSummaries(
            db,
            dialect,
            project.id,
            'run',
            runs.map((row) => row.id),
          );
          return runs.map((row) => runLine(row, scores.get(row.id) ?? []));
        };
        const eol = csv ? '\r\n' : '\n';
        // Steps of at most STEP records, each in a turn of the event loop of its own (on SQLite every
        // query answers at once: without these yields a fast client would have the whole export run in
        // one turn, and the instance answer nothing else meanwhile). Backpressure holds: a step is read
        // only when the response has taken the last.
        async function* stream(): AsyncGenerator<string> {
          const deadline = Date.now() + MAX_STREAM_MS;
          if (csv) yield `${what === 'runs' ? RUN_COLUMNS : TRACE_COLUMNS}\r\n`;
          let after = start;
          for (;;) {
            const { rows, positionOf } = await fetch(after);
            const more = rows.length > STEP;
            const step = more ? rows.slice(0, STEP) : rows;
            let part = '';
            for (const line of await linesOf(step)) {
              part += `${line}${eol}`;
              if (part.length < PART_CHARS) continue;
              yield part;
              part = '';
              await nextTurn();
            }
            const next = more ? positionOf(step[step.length - 1]!) : null;
            // The cursor line: where to resume from, and last `null` (CSV has none).
            if (!csv) part += `{"cursor":${next ? JSON.stringify(cursors.encode(identity, next)) : 'null'}}\n`;
            if (part !== '') yield part;
            // A stream bounded in time: it stops at a cursor line, from which the client goes on.
            if (!next || Date.now() > deadline) return;
            after = next;
            await nextTurn();
          }
        }
        // The slot is given back when the response closes, whichever way: sent, failed, cut at its
        // client's stall, abandoned by its client (while waiting for the slot too). Waiting for it holds
        // no place in the work queue: the export budget bounds exports, and the stream's steps take turns.
        leaveWorkQueue(request);
        await holdForResponse(budget, reply.raw, { timeoutMs: config.exportQueueSeconds * 1000, busy });
        reply.raw.setTimeout(STALL_MS, () => reply.raw.destroy());
        const name = `${what}-${project.id}.${csv ? 'csv' : 'ndjson'}`;
        return reply
          .type(csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
          .header('content-disposition', `attachment; filename="${name}"`)
          .send(Readable.from(stream(), { objectMode: false }));
      },
    });
  }
}
