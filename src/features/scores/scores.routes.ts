import { Type } from '@sinclair/typebox';
import { allows, type Grant } from '../../auth/permissions.js';
import type { App, Deps } from '../../deps.js';
import { requireTimestamp } from '../../lib/clock.js';
import { problemBody, problemResponses } from '../../lib/problems.js';
import { requestedProject } from '../projects/index.js';
import { metricsWindow } from '../query/index.js';
import { routeKit } from '../route-kit.js';
import { ingestScores, removeScore, updateScore, type ScoreAuthor, type ScoreEditor } from './scores.ingest.js';
import { scoreMetrics } from './scores.metrics.js';
import { listScores, listScoreValues, requireScore, toScore } from './scores.repo.js';
import {
  ListScoresQuery,
  ScoreBatchBody,
  ScoreBatchResult,
  ScoreInputSchema,
  ScoreMetricsQuery,
  ScoreMetricsSchema,
  ScoreParams,
  ScorePage,
  ScoreValuesQuery,
  UpdateScoreBody,
} from './scores.schemas.js';
import { FieldValuePage, ProjectParams, ProjectRunParams, SessionParams, TraceParams, type ScoreTarget } from '../../schemas/records.js';

const tags = ['Scores'];

type Principal = Grant & { organizationId: string; userId: string };

async function authorOf(db: Deps['db'], request: { principal: Principal; params: { project_id: string } }): Promise<ScoreAuthor> {
  const project = await requestedProject(db, request);
  return { organizationId: request.principal.organizationId, projectId: project.id, kind: 'user', id: request.principal.userId };
}

async function editorOf(db: Deps['db'], request: { principal: Principal; params: { project_id: string } }): Promise<ScoreEditor> {
  const project = await requestedProject(db, request);
  const { organizationId, userId } = request.principal;
  return { organizationId, projectId: project.id, userId, mayChangeAny: allows(request.principal, 'quality:admin') };
}

export function scoreRoutes(app: App, { db, clock, cursors, config }: Deps): void {
  const route = routeKit(app, { tags, cursors });
  const targets: {
    target: ScoreTarget;
    path: string;
    params: typeof ProjectRunParams | typeof TraceParams | typeof SessionParams;
    key: string;
    noun: string;
  }[] = [
    { target: 'run', path: '/projects/:project_id/runs/:run_id/scores', params: ProjectRunParams, key: 'run_id', noun: 'run' },
    { target: 'trace', path: '/projects/:project_id/traces/:trace_id/scores', params: TraceParams, key: 'trace_id', noun: 'trace' },
    { target: 'session', path: '/projects/:project_id/sessions/:session_id/scores', params: SessionParams, key: 'session_id', noun: 'session' },
  ];
  for (const { target, path, params, key, noun } of targets) {
    app.post(path, {
      config: { scope: 'scores:write' },
      schema: {
        operationId: `create${noun[0]!.toUpperCase()}${noun.slice(1)}Score`,
        tags,
        summary: `Score a ${noun}`,
        description:
          `A judgment on the ${noun}: a number, true or false, or a category. A score config of the organization named by \`configId\`, or by the score's \`name\`, validates the value (400 when it does not fit). ` +
          'With a client `id` the create is idempotent: the same content again answers 200 with the stored score; different content is a 409.',
        params,
        body: ScoreInputSchema,
        response: { 200: Type.Ref('Score'), 201: Type.Ref('Score'), ...problemResponses(409) },
      },
      handler: async (request, reply) => {
        const author = await authorOf(db, request);
        const targetId = (request.params as Record<string, string>)[key]!;
        const [result] = await ingestScores(db, author, [request.body], clock.now(), () => '', { target, targetId });
        if (!result) throw new Error('ingest returned no result');
        if (result.status === 'rejected') throw result.problem;
        const row = result.row ?? (await requireScore(db, author.projectId, result.id));
        return reply.code(result.status === 'created' ? 201 : 200).send(toScore(row));
      },
    });
  }

  route.post(
    '/projects/:project_id/scores/batch',
    {
      scope: 'scores:write',
      operationId: 'createScoreBatch',
      summary: 'Create up to 1,000 scores',
      description:
        'Each score names exactly one of `runId`, `traceId` and `sessionId`. One result per score, in order: a bad score (or one whose target does not exist) is rejected with its own problem and does not sink the others; a retried batch creates nothing twice (client ids).',
      params: ProjectParams,
      body: ScoreBatchBody,
      answer: ScoreBatchResult,
    },
    async (request) => {
      const author = await authorOf(db, request);
      const results = await ingestScores(db, author, request.body.scores, clock.now(), (i) => `/scores/${i}`);
      return {
        results: results.map((r) =>
          r.status === 'rejected'
            ? { index: r.index, id: r.id, status: r.status, problem: problemBody(r.problem, config.problemBase, undefined) }
            : { index: r.index, id: r.id, status: r.status },
        ),
      };
    },
  );

  route.page(
    '/projects/:project_id/scores',
    {
      scope: 'scores:read',
      operationId: 'listScores',
      summary: 'List scores',
      description:
        'Newest first (then id). Filters: `name`, `source`, `target`, `runId`, `traceId` (the trace’s scores and its runs’), `sessionId`, `configId`, `queueId`, `authorId`, `createdAfter` (inclusive), `createdBefore` (exclusive).',
      params: ProjectParams,
      querystring: ListScoresQuery,
      page: ScorePage,
    },
    async (request) => {
      const project = await requestedProject(db, request);
      const { limit: _limit, cursor: _cursor, createdAfter, createdBefore, ...rest } = request.query;
      const filters = {
        ...rest,
        createdAfter: createdAfter === undefined ? undefined : requireTimestamp(createdAfter, { parameter: 'createdAfter' }),
        createdBefore: createdBefore === undefined ? undefined : requireTimestamp(createdBefore, { parameter: 'createdBefore' }),
      };
      return {
        identity: {
          endpoint: 'scores',
          organizationId: request.principal.organizationId,
          parents: [project.id],
          filters: { ...rest, createdAfter, createdBefore },
        },
        fetch: (after, take) => listScores(db, project.id, filters, after, take),
      };
    },
    toScore,
  );

  route.page(
    '/projects/:project_id/scores/values',
    {
      scope: 'scores:read',
      operationId: 'listScoreValues',
      summary: 'List the values of a score field',
      description:
        'The distinct values of one field of the project’s scores (`name`), to pick a filter’s value from; `prefix` keeps those that start with it (case-sensitive). ' +
        'In code-point order (the order of their UTF-8 bytes); a page costs the same however deep it is and however many scores the project has.',
      params: ProjectParams,
      querystring: ScoreValuesQuery,
      page: FieldValuePage,
    },
    async ({ principal, params, query: { limit: _limit, cursor: _cursor, ...asked } }) => {
      const project = await requestedProject(db, { principal, params });
      return {
        identity: { endpoint: 'scores/values', organizationId: principal.organizationId, parents: [project.id], filters: asked },
        fetch: (after, take) => listScoreValues(db, project.id, asked, after, take),
      };
    },
    (row) => row,
  );

  route.get(
    '/projects/:project_id/scores/metrics',
    {
      scope: 'scores:read',
      operationId: 'getScoreMetrics',
      summary: 'Count and aggregate scores',
      description:
        'The scores the list’s filters select, given within [from, to): how many, the mean of the numeric and boolean ones (true as 1), and each label’s share of the boolean and categorical ones. ' +
        '`bucket` splits the range into UTC-aligned buckets of their createdAt (empty ones included); `groupBy` splits by `name`, `source` or `target`. The count equals the length of a full walk of the list with the same filters and createdAfter/createdBefore.',
      params: ProjectParams,
      querystring: ScoreMetricsQuery,
      answer: ScoreMetricsSchema,
    },
    async (request) => {
      const project = await requestedProject(db, request);
      const { from: fromRaw, to: toRaw, bucket, groupBy, ...filters } = request.query;
      const { from, to, bucketMs } = metricsWindow({ from: fromRaw, to: toRaw, bucket }, clock.now());
      const result = await scoreMetrics(db, project.id, { filters, from, to, bucketMs, groupBy: groupBy ?? null });
      return { ...result, bucket: bucket ?? null, groupBy: groupBy ?? null };
    },
  );

  route.get(
    '/projects/:project_id/scores/:score_id',
    {
      scope: 'scores:read',
      operationId: 'getScore',
      summary: 'Get a score',
      description: 'Any score of the project, whoever gave it.',
      params: ScoreParams,
      answer: 'Score',
    },
    async (request) => {
      const project = await requestedProject(db, request);
      return toScore(await requireScore(db, project.id, request.params.score_id));
    },
  );

  route.patch(
    '/projects/:project_id/scores/:score_id',
    {
      scope: 'scores:write',
      operationId: 'updateScore',
      summary: 'Change a score’s value, comment or metadata',
      description: 'By its author, or an admin (403 for anyone else). A new value is validated against the score’s config as at creation.',
      params: ScoreParams,
      body: UpdateScoreBody,
      answer: 'Score',
      problems: [409],
    },
    async (request) => toScore(await updateScore(db, await editorOf(db, request), request.params.score_id, request.body, clock.now())),
  );

  route.delete(
    '/projects/:project_id/scores/:score_id',
    {
      scope: 'scores:write',
      operationId: 'deleteScore',
      summary: 'Delete a score',
      description: 'By its author, or an admin (403 for anyone else).',
      params: ScoreParams,
    },
    async (request) => removeScore(db, await editorOf(db, request), request.params.score_id),
  );
}
