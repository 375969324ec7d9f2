import type { App, Deps } from '../../deps.js';
import { sendJsonText } from '../../lib/http.js';
import { paginate } from '../../lib/pagination.js';
import { requestedProject } from '../projects/index.js';
import { type Bucket, filteredListRequest, metricsWindow, parseRunFilters } from '../query/index.js';
import { traceMetrics } from './traces.metrics.js';
import { getTrace, listTraces, tracesWithScores } from './traces.repo.js';
import { ListTracesQuery, TraceDetailQuery, TraceDetailSchema, TraceMetricsQuery, TraceMetricsSchema, TracePage } from './traces.schemas.js';
import { ProjectParams, TraceParams } from '../../schemas/records.js';

const tags = ['Traces'];

export function traceRoutes(app: App, { db, dialect, cursors, clock }: Deps): void {
  app.get('/projects/:project_id/traces', {
    config: { scope: 'runs:read', cacheable: true },
    schema: {
      operationId: 'listTraces',
      tags,
      summary: 'List traces',
      description:
        'One item per trace, newest first by its earliest start, then trace id (`order=asc`: oldest first): its root run (the earliest run while the root has not arrived), ' +
        'totals over all its runs, and previews of the root’s inputs and outputs. `startedAfter` (inclusive) and `startedBefore` (exclusive) bound the trace’s start; ' +
        'every other filter is the runs list’s, and a trace matches when at least one of its runs matches them all. ' +
        'Each trace carries `scores`: the summaries of the scores given to the trace itself (not to its runs).',
      params: ProjectParams,
      querystring: ListTracesQuery,
      response: { 200: TracePage },
    },
    handler: async (request, reply) => {
      const { project, filters, order, page, identity } = await filteredListRequest(db, request, 'traces');
      const found = await paginate(
        cursors,
        page,
        identity,
        (after, take) => listTraces(db, dialect, project.id, filters, after, take, order),
        (row) => row,
      );
      // Native JSON.stringify of the page built in the schema's shape and order (toTrace; the envelope's
      // from paginate): what the schema's serializer writes (traces.serialize.test.ts), in a fraction of its time.
      return sendJsonText(reply, JSON.stringify({ ...found, items: await tracesWithScores(db, dialect, project.id, found.items) }));
    },
  });

  app.get('/projects/:project_id/traces/metrics', {
    // Not cached: its window defaults to the last 24 hours up to now, as the runs metrics' does.
    config: { scope: 'runs:read' },
    schema: {
      operationId: 'getTraceMetrics',
      tags,
      summary: 'Count and aggregate traces',
      description:
        'The traces list’s filters (a trace matches when one of its runs matches them all), over the traces that started within [from, to): ' +
        'how many, how many hold a failed run, nearest-rank latency percentiles over the traces whose runs have all ended (first start to last end), ' +
        'and the tokens and cost of all of their runs. `bucket` splits the range into UTC-aligned buckets by the trace’s start (empty ones included). ' +
        'A count equals the number of traces a walk of the list with the same filters and `startedAfter=from&startedBefore=to` returns.',
      params: ProjectParams,
      querystring: TraceMetricsQuery,
      response: { 200: TraceMetricsSchema },
    },
    handler: async (request) => {
      const project = await requestedProject(db, request);
      const { from: fromRaw, to: toRaw, bucket, ...rest } = request.query as Record<string, unknown> & { from?: string; to?: string; bucket?: Bucket };
      const { from, to, bucketMs } = metricsWindow({ from: fromRaw, to: toRaw, bucket }, clock.now());
      const result = await traceMetrics(db, dialect, { projectId: project.id, filters: parseRunFilters(rest), from, to, bucketMs });
      return { ...result, bucket: bucket ?? null, groupBy: null };
    },
  });

  app.get('/projects/:project_id/traces/:trace_id', {
    config: { scope: 'runs:read', cacheable: true },
    schema: {
      operationId: 'getTrace',
      tags,
      summary: 'Get a trace with its runs in tree order',
      description:
        'The trace’s totals and every run as an outline (no inputs, outputs or metadata: GET the run for those), parents before children and siblings by start time. ' +
        'A run whose parent is not in the trace (it has not arrived) is listed at depth 0.',
      params: TraceParams,
      querystring: TraceDetailQuery,
      response: { 200: TraceDetailSchema },
    },
    handler: async (request, reply) => {
      const project = await requestedProject(db, request);
      // Native JSON.stringify of objects built in the schema's shape and order (getTrace): for a trace of
      // 25,000 runs, several times faster than the schema serializer, which escapes every string in JS.
      return sendJsonText(reply, JSON.stringify(await getTrace(db, dialect, project.id, request.params.trace_id, request.query.runLimit)));
    },
  });
}
