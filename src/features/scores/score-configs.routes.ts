import { Type } from '@sinclair/typebox';
import type { App, Deps } from '../../deps.js';
import { problemResponses } from '../../lib/problems.js';
import { pageRoute } from '../page-route.js';
import { createScoreConfig, deleteScoreConfig, listScoreConfigs, requireScoreConfig, toScoreConfig, updateScoreConfig } from './score-configs.repo.js';
import { CreateScoreConfigBody, ListScoreConfigsQuery, ScoreConfigPage, ScoreConfigParams, UpdateScoreConfigBody } from './scores.schemas.js';

const tags = ['Scores'];

export function scoreConfigRoutes(app: App, { db, clock, cursors }: Deps): void {
  pageRoute(
    app,
    cursors,
    '/score-configs',
    {
      scope: 'scores:read',
      operationId: 'listScoreConfigs',
      tags,
      summary: "List the organization's score configs",
      description: 'Newest first. Filters: `name` (case-insensitive substring), `archived`.',
      querystring: ListScoreConfigsQuery,
      page: ScoreConfigPage,
    },
    async ({ principal: { organizationId }, query: { limit: _limit, cursor: _cursor, ...filters } }) => ({
      identity: { endpoint: 'score-configs', organizationId, filters },
      fetch: (after, take) => listScoreConfigs(db, organizationId, filters, after, take),
    }),
    toScoreConfig,
  );

  app.post('/score-configs', {
    config: { scope: 'quality:admin' },
    schema: {
      operationId: 'createScoreConfig',
      tags,
      summary: 'Create a score config',
      description:
        'What the scores of a name may be: `numeric` (optionally within `min`..`max`), `boolean`, or `categorical` (one of `categories`). Names are unique in the organization (409).',
      body: CreateScoreConfigBody,
      response: { 201: Type.Ref('ScoreConfig'), ...problemResponses(409) },
    },
    handler: async (request, reply) =>
      reply.code(201).send(toScoreConfig(await createScoreConfig(db, request.principal.organizationId, request.body, clock.now()))),
  });

  app.get('/score-configs/:config_id', {
    config: { scope: 'scores:read' },
    schema: {
      operationId: 'getScoreConfig',
      tags,
      summary: 'Get a score config',
      description: 'Archived configs too.',
      params: ScoreConfigParams,
      response: { 200: Type.Ref('ScoreConfig') },
    },
    handler: async (request) => toScoreConfig(await requireScoreConfig(db, request.principal.organizationId, request.params.config_id)),
  });

  app.patch('/score-configs/:config_id', {
    config: { scope: 'quality:admin' },
    schema: {
      operationId: 'updateScoreConfig',
      tags,
      summary: 'Change a score config',
      description:
        'Its name, description, bounds, categories or `archived`; never its type. New rules apply to scores given from then on: stored scores keep their values.',
      params: ScoreConfigParams,
      body: UpdateScoreConfigBody,
      response: { 200: Type.Ref('ScoreConfig'), ...problemResponses(409) },
    },
    handler: async (request) =>
      toScoreConfig(await updateScoreConfig(db, request.principal.organizationId, request.params.config_id, request.body, clock.now())),
  });

  app.delete('/score-configs/:config_id', {
    config: { scope: 'quality:admin' },
    schema: {
      operationId: 'deleteScoreConfig',
      tags,
      summary: 'Delete a score config',
      description: 'The scores it validated keep their values; their `configId` becomes null. Archive it instead to keep the link.',
      params: ScoreConfigParams,
      response: { 204: Type.Null({ description: 'Deleted' }) },
    },
    handler: async (request, reply) => {
      await deleteScoreConfig(db, request.principal.organizationId, request.params.config_id);
      return reply.code(204).send(null);
    },
  });
}
