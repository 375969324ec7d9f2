import type { App, Deps } from '../../deps.js';
import { filteredOrganizationList } from '../page-route.js';
import { routeKit } from '../route-kit.js';
import { createScoreConfig, deleteScoreConfig, listScoreConfigs, requireScoreConfig, toScoreConfig, updateScoreConfig } from './score-configs.repo.js';
import { CreateScoreConfigBody, ListScoreConfigsQuery, ScoreConfigPage, ScoreConfigParams, UpdateScoreConfigBody } from './scores.schemas.js';

const tags = ['Scores'];

export function scoreConfigRoutes(app: App, { db, clock, cursors }: Deps): void {
  const route = routeKit(app, { tags, cursors });

  route.page(
    '/score-configs',
    {
      scope: 'scores:read',
      operationId: 'listScoreConfigs',
      summary: "List the organization's score configs",
      description: 'Newest first. Filters: `name` (case-insensitive substring), `archived`.',
      querystring: ListScoreConfigsQuery,
      page: ScoreConfigPage,
    },
    filteredOrganizationList('score-configs', (organizationId, filters, after, take) => listScoreConfigs(db, organizationId, filters, after, take)),
    toScoreConfig,
  );

  route.create(
    '/score-configs',
    {
      scope: 'quality:admin',
      operationId: 'createScoreConfig',
      summary: 'Create a score config',
      description:
        'What the scores of a name may be: `numeric` (optionally within `min`..`max`), `boolean`, or `categorical` (one of `categories`). Names are unique in the organization (409).',
      body: CreateScoreConfigBody,
      answer: 'ScoreConfig',
      problems: [409],
    },
    async (request) => toScoreConfig(await createScoreConfig(db, request.principal.organizationId, request.body, clock.now())),
  );

  route.get(
    '/score-configs/:config_id',
    {
      scope: 'scores:read',
      operationId: 'getScoreConfig',
      summary: 'Get a score config',
      description: 'Archived configs too.',
      params: ScoreConfigParams,
      answer: 'ScoreConfig',
    },
    async (request) => toScoreConfig(await requireScoreConfig(db, request.principal.organizationId, request.params.config_id)),
  );

  route.patch(
    '/score-configs/:config_id',
    {
      scope: 'quality:admin',
      operationId: 'updateScoreConfig',
      summary: 'Change a score config',
      description:
        'Its name, description, bounds, categories or `archived`; never its type. New rules apply to scores given from then on: stored scores keep their values.',
      params: ScoreConfigParams,
      body: UpdateScoreConfigBody,
      answer: 'ScoreConfig',
      problems: [409],
    },
    async (request) => toScoreConfig(await updateScoreConfig(db, request.principal.organizationId, request.params.config_id, request.body, clock.now())),
  );

  route.delete(
    '/score-configs/:config_id',
    {
      scope: 'quality:admin',
      operationId: 'deleteScoreConfig',
      summary: 'Delete a score config',
      description: 'The scores it validated keep their values; their `configId` becomes null. Archive it instead to keep the link.',
      params: ScoreConfigParams,
    },
    (request) => deleteScoreConfig(db, request.principal.organizationId, request.params.config_id),
  );
}
