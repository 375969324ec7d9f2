import { Type } from '@sinclair/typebox';
import type { App, Deps } from '../../deps.js';
import { sendJsonText } from '../../lib/http.js';
import { paginate, pageJson } from '../../lib/pagination.js';
import { problemBody, problemResponses } from '../../lib/problems.js';
import { requestedProject } from '../projects/index.js';
import {
  type Bucket,
  filteredListRequest,
  metricsWindow,
  parseRunFilters,
  runMetrics,
  RunMetricsQuery,
  RunMetricsSchema,
  scoreSummaries,
  scoredIds,
  withScoresBody,
  withScoresText,
} from '../query/index.js';
import { routeKit } from '../route-kit.js';
import { ingestRuns } from './runs.ingest.js';
import { getRun, patchRun } from './runs.repo.js';
import { listRuns } from './runs.list.js';
import { BatchBodySchema, BatchResultSchema, ListRunsQuery, RunInputSchema, RunPage, RunPatchSchema, RunValuesQuery } from './runs.schemas.js';
import { checkValuesRequest, listRunValues, MAX_LISTED_VALUE } from './runs.values.js';
import { FieldValuePage, ProjectParams, ProjectRunParams } from '../../schemas/records.js';

const tags = ['Runs'];

/** A run's answer: its stored record with its scores' summaries. */
async function runWithScores(db: Deps['db'], dialect: Deps['dialect'], projectId: string, run: { id: string; doc: string }): Promise<string | Buffer> {
  const scores = await scoreSummaries(db, dialect, projectId, 'run', [run.id]);
  return withScoresBody(run.doc, scores.get(run.id) ?? []);
}

export function runRoutes(app: App, { db, dialect, clock, cursors, config, runsStored }: Deps): void {
  const route = routeKit(app, { tags, cursors });
  app.get('/projects/:project_id/runs', {
    config: { scope: 'runs:read', cacheable: true },
    schema: {
      operationId: 'listRuns',
      tags,
      summary: 'List runs',
      description:
        'Newest first by startTime, then id (`order=asc`: oldest first). Filters combine with AND; `tag` is repeatable (all must match); `parentRunId=null` lists root runs; ' +
        '`startedAfter` is inclusive and `startedBefore` exclusive; `metadata.<key>=<value>` matches a top-level metadata value exactly. ' +
        'Each run carries `scores`: the summaries of the scores given to the run itself.',
      params: ProjectParams,
      querystring: ListRunsQuery,
      response: { 200: RunPage },
    },
    handler: async (request, reply) => {
      const { project, filters, order, page: asked, identity } = await filteredListRequest(db, request, 'runs');
      const page = await paginate(
        cursors,
        asked,
        identity,
        (after, take) => listRuns(db, dialect, project.id, filters, after, take, order),
        (row) => row,
      );
      // One grouped query for the page's scores, spliced into the stored records.
      // The unfiltered stream's rows say which runs have scores (`scored`); other pages are probed.
      const ids = page.items.map((row) => row.id);
      const scores = await scoreSummaries(
        db,
        dialect,
        project.id,
        'run',
        ids,
        scoredIds(
          page.items,
          (row) => row.id,
          (row) => row.scored,
        ),
      );
      return sendJsonText(reply, pageJson({ ...page, items: page.items.map((row) => withScoresText(row.doc, scores.get(row.id) ?? [])) }));
    },
  });

  route.get(
    '/projects/:project_id/runs/metrics',
    {
      scope: 'runs:read',
      operationId: 'getRunMetrics',
      summary: 'Count and aggregate runs',
      description:
        'Uses the filters of the runs list, within [from, to). `bucket` splits the range into UTC-aligned buckets (empty ones included); `groupBy` splits by a field. ' +
        'Latency percentiles are nearest-rank over runs that have ended.',
      params: ProjectParams,
      querystring: RunMetricsQuery,
      answer: RunMetricsSchema,
    },
    async (request) => {
      const project = await requestedProject(db, request);
      const {
        from: fromRaw,
        to: toRaw,
        bucket,
        groupBy,
        ...rest
      } = request.query as Record<string, unknown> & { from?: string; to?: string; bucket?: Bucket; groupBy?: 'status' | 'kind' | 'model' | 'name' };
      const { from, to, bucketMs } = metricsWindow({ from: fromRaw, to: toRaw, bucket }, clock.now());
      const result = await runMetrics(db, dialect, { projectId: project.id, filters: parseRunFilters(rest), from, to, bucketMs, groupBy: groupBy ?? null });
      return { ...result, bucket: bucket ?? null, groupBy: groupBy ?? null };
    },
  );

  route.page(
    '/projects/:project_id/runs/values',
    {
      scope: 'runs:read',
      operationId: 'listRunValues',
      summary: 'List the values of a run field',
      description:
        'The distinct values of one field of the project’s runs, to pick a filter’s value from: `field` says whose, `prefix` keeps those that start with it (case-sensitive). ' +
        'In code-point order (the order of their UTF-8 bytes); a page costs the same however deep it is and however many runs the project has. ' +
        `Metadata values are those the \`metadata.<key>\` filter can name: a string of at most ${MAX_LISTED_VALUE} characters, or a number, true, false or null as its JSON text. ` +
        'Names, models, tags and metadata are listed as runs were stored: a value that amended runs (PATCH, or Langfuse’s updates) no longer have stays listed.',
      params: ProjectParams,
      querystring: RunValuesQuery,
      page: FieldValuePage,
    },
    async ({ principal, params, query: { limit: _limit, cursor: _cursor, ...asked } }) => {
      checkValuesRequest(asked);
      const project = await requestedProject(db, { principal, params });
      return {
        identity: { endpoint: 'runs/values', organizationId: principal.organizationId, parents: [project.id], filters: asked },
        fetch: (after, take) => listRunValues(db, project.id, asked, after, take),
      };
    },
    (row) => row,
  );

  app.post('/projects/:project_id/runs', {
    config: { scope: 'runs:write' },
    schema: {
      operationId: 'createRun',
      tags,
      summary: 'Create a run',
      description:
        'With a client `id` the create is idempotent: the same content again (what would be stored, in any key order, the creation time and a server-priced cost aside) answers 200 with the stored run; different content is a 409.',
      params: ProjectParams,
      body: RunInputSchema,
      response: { 200: Type.Ref('Run'), 201: Type.Ref('Run'), ...problemResponses(409) },
    },
    handler: async (request, reply) => {
      const project = await requestedProject(db, request);
      const [result] = await ingestRuns(db, project.id, [request.body], clock.now(), () => '', runsStored);
      if (!result) throw new Error('ingest returned no result');
      if (result.status === 'rejected') throw result.problem;
      // The stored record is already the serialized answer: sent as it is, not parsed and serialized again
      // (with its scores: none yet for a run just created).
      if (result.status === 'created') return sendJsonText(reply.code(201), withScoresBody(result.row.doc, []));
      return sendJsonText(reply, await runWithScores(db, dialect, project.id, { id: result.id, doc: result.row.doc }));
    },
  });

  route.post(
    '/projects/:project_id/runs/batch',
    {
      scope: 'runs:write',
      operationId: 'createRunBatch',
      summary: 'Create up to 1,000 runs',
      description:
        'One result per run, in order. A bad run is rejected with its own problem and does not sink the others; a retried batch creates nothing twice. ' +
        'Parents may come later in the same batch.',
      params: ProjectParams,
      body: BatchBodySchema,
      answer: BatchResultSchema,
    },
    async (request) => {
      const project = await requestedProject(db, request);
      const results = await ingestRuns(db, project.id, request.body.runs, clock.now(), (i) => `/runs/${i}`, runsStored);
      return {
        results: results.map((r) =>
          r.status === 'rejected'
            ? { index: r.index, id: r.id, status: r.status, problem: problemBody(r.problem, config.problemBase, undefined) }
            : { index: r.index, id: r.id, status: r.status },
        ),
      };
    },
  );

  app.get('/projects/:project_id/runs/:run_id', {
    config: { scope: 'runs:read', cacheable: true },
    schema: {
      operationId: 'getRun',
      tags,
      summary: 'Get a run',
      description: 'By the id the server gave it or the client chose, with the summaries of its scores (`scores`, as in the list).',
      params: ProjectRunParams,
      response: { 200: Type.Ref('Run') },
    },
    handler: async (request, reply) => {
      const project = await requestedProject(db, request);
      return sendJsonText(reply, await runWithScores(db, dialect, project.id, await getRun(db, project.id, request.params.run_id)));
    },
  });

  app.patch('/projects/:project_id/runs/:run_id', {
    config: { scope: 'runs:write' },
    schema: {
      operationId: 'updateRun',
      tags,
      summary: 'End or amend a running run',
      description:
        'Finished runs (succeeded, failed) are final: any change is a 409. Ending without `endTime` uses the current time. `tags` and `metadata` replace the stored values.',
      params: ProjectRunParams,
      body: RunPatchSchema,
      response: { 200: Type.Ref('Run'), ...problemResponses(409) },
    },
    handler: async (request, reply) => {
      const project = await requestedProject(db, request);
      const run = await patchRun(db, project.id, request.params.run_id, request.body, clock.now());
      return sendJsonText(reply, await runWithScores(db, dialect, project.id, run));
    },
  });
}
