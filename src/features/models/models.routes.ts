import { Type } from '@sinclair/typebox';
import type { App, Deps } from '../../deps.js';
import { requireTimestamp } from '../../lib/clock.js';
import { problemResponses } from '../../lib/problems.js';
import { pageRoute } from '../page-route.js';
import { createModelPrice, deleteModelPrice, listModelPrices, requireModelPrice, toModelPrice, updateModelPrice } from './models.repo.js';
import {
  BuiltinModelPricePage,
  CreateModelPriceBody,
  ListBuiltinPricesQuery,
  ListModelPricesQuery,
  ModelPricePage,
  ModelPriceParams,
  UpdateModelPriceBody,
} from './models.schemas.js';
import { BUILTIN_TABLE, listBuiltinPrices, toBuiltinPrice } from './models.table.js';

const tags = ['Models'];
const SOURCE = `${BUILTIN_TABLE.source.name} at commit ${BUILTIN_TABLE.source.commit.slice(0, 12)} (${BUILTIN_TABLE.source.repository}), read ${BUILTIN_TABLE.date}`;

export function modelRoutes(app: App, { db, clock, cursors }: Deps): void {
  pageRoute(
    app,
    cursors,
    '/models',
    {
      scope: 'models:read',
      operationId: 'listModelPrices',
      tags,
      summary: "List the organization's model prices",
      description: 'Newest first. Filters: `model` (case-insensitive substring), `provider`. They add to and override the built-in table.',
      querystring: ListModelPricesQuery,
      page: ModelPricePage,
    },
    async ({ principal: { organizationId }, query: { limit: _limit, cursor: _cursor, ...filters } }) => ({
      identity: { endpoint: 'models', organizationId, filters },
      fetch: (after, take) => listModelPrices(db, organizationId, filters, after, take),
    }),
    toModelPrice,
  );

  pageRoute(
    app,
    cursors,
    '/models/builtin',
    {
      scope: 'models:read',
      operationId: 'listBuiltinModelPrices',
      tags,
      summary: 'List the built-in model prices',
      description: `By provider, then model. Filters: \`model\` (case-insensitive substring of a name it prices), \`provider\`. Source: ${SOURCE}.`,
      querystring: ListBuiltinPricesQuery,
      page: BuiltinModelPricePage,
    },
    async ({ principal: { organizationId }, query: { limit: _limit, cursor: _cursor, ...filters } }) => ({
      identity: { endpoint: 'models-builtin', organizationId, filters },
      fetch: async (after, take) => listBuiltinPrices(filters, after, take),
    }),
    toBuiltinPrice,
  );

  app.post('/models', {
    config: { scope: 'models:write' },
    schema: {
      operationId: 'createModelPrice',
      tags,
      summary: 'Add a model price',
      description:
        'Runs of the model (and provider, if given) that start at or after `effectiveFrom` (default now) cost this, until a later price of the same model; earlier runs keep theirs. A second price for the same model, provider and instant is a 409.',
      body: CreateModelPriceBody,
      response: { 201: Type.Ref('ModelPrice'), ...problemResponses(409) },
    },
    handler: async (request, reply) => {
      const { body } = request;
      const now = clock.now();
      const row = await createModelPrice(
        db,
        request.principal,
        {
          model: body.model,
          provider: body.provider ?? null,
          inputPrice: body.inputPrice,
          outputPrice: body.outputPrice,
          cacheReadPrice: body.cacheReadPrice ?? null,
          cacheWritePrice: body.cacheWritePrice ?? null,
          reasoningPrice: body.reasoningPrice ?? null,
          currency: body.currency ?? 'USD',
          effectiveFrom: body.effectiveFrom === undefined ? now : requireTimestamp(body.effectiveFrom, { pointer: '/effectiveFrom' }),
        },
        now,
      );
      return reply.code(201).send(toModelPrice(row));
    },
  });

  app.get('/models/:model_id', {
    config: { scope: 'models:read' },
    schema: {
      operationId: 'getModelPrice',
      tags,
      summary: 'Get a model price',
      description: 'A price of another organization is a 404, as one that does not exist.',
      params: ModelPriceParams,
      response: { 200: Type.Ref('ModelPrice') },
    },
    handler: async (request) => toModelPrice(await requireModelPrice(db, request.principal.organizationId, request.params.model_id)),
  });

  app.patch('/models/:model_id', {
    config: { scope: 'models:write' },
    schema: {
      operationId: 'updateModelPrice',
      tags,
      summary: 'Change a model price',
      description:
        'In place. Runs already recorded keep the cost they were given; to change a price from some day on, add a price with that `effectiveFrom` instead.',
      params: ModelPriceParams,
      body: UpdateModelPriceBody,
      response: { 200: Type.Ref('ModelPrice'), ...problemResponses(409) },
    },
    handler: async (request) => {
      const { effectiveFrom, ...rest } = request.body;
      const changes = {
        ...rest,
        ...(effectiveFrom === undefined ? {} : { effectiveFrom: requireTimestamp(effectiveFrom, { pointer: '/effectiveFrom' }) }),
      };
      return toModelPrice(await updateModelPrice(db, request.principal.organizationId, request.params.model_id, changes, clock.now()));
    },
  });

  app.delete('/models/:model_id', {
    config: { scope: 'models:write' },
    schema: {
      operationId: 'deleteModelPrice',
      tags,
      summary: 'Delete a model price',
      description: 'The model is priced by the built-in table (or an earlier price) again.',
      params: ModelPriceParams,
      response: { 204: Type.Null({ description: 'Deleted' }) },
    },
    handler: async (request, reply) => {
      await deleteModelPrice(db, request.principal.organizationId, request.params.model_id);
      return reply.code(204).send(null);
    },
  });
}
