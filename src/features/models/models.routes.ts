import type { App, Deps } from '../../deps.js';
import { requireTimestamp } from '../../lib/clock.js';
import { filteredOrganizationList } from '../page-route.js';
import { routeKit } from '../route-kit.js';
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
  const route = routeKit(app, { tags, cursors });

  route.page(
    '/models',
    {
      scope: 'models:read',
      operationId: 'listModelPrices',
      summary: "List the organization's model prices",
      description: 'Newest first. Filters: `model` (case-insensitive substring), `provider`. They add to and override the built-in table.',
      querystring: ListModelPricesQuery,
      page: ModelPricePage,
    },
    filteredOrganizationList('models', (organizationId, filters, after, take) => listModelPrices(db, organizationId, filters, after, take)),
    toModelPrice,
  );

  route.page(
    '/models/builtin',
    {
      scope: 'models:read',
      operationId: 'listBuiltinModelPrices',
      summary: 'List the built-in model prices',
      description: `By provider, then model. Filters: \`model\` (case-insensitive substring of a name it prices), \`provider\`. Source: ${SOURCE}.`,
      querystring: ListBuiltinPricesQuery,
      page: BuiltinModelPricePage,
    },
    filteredOrganizationList('models-builtin', async (_organizationId, filters, after, take) => listBuiltinPrices(filters, after, take)),
    toBuiltinPrice,
  );

  route.create(
    '/models',
    {
      scope: 'models:write',
      operationId: 'createModelPrice',
      summary: 'Add a model price',
      description:
        'Runs of the model (and provider, if given) that start at or after `effectiveFrom` (default now) cost this, until a later price of the same model; earlier runs keep theirs. A second price for the same model, provider and instant is a 409.',
      body: CreateModelPriceBody,
      answer: 'ModelPrice',
      problems: [409],
    },
    async (request) => {
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
      return toModelPrice(row);
    },
  );

  route.get(
    '/models/:model_id',
    {
      scope: 'models:read',
      operationId: 'getModelPrice',
      summary: 'Get a model price',
      description: 'A price of another organization is a 404, as one that does not exist.',
      params: ModelPriceParams,
      answer: 'ModelPrice',
    },
    async (request) => toModelPrice(await requireModelPrice(db, request.principal.organizationId, request.params.model_id)),
  );

  route.patch(
    '/models/:model_id',
    {
      scope: 'models:write',
      operationId: 'updateModelPrice',
      summary: 'Change a model price',
      description:
        'In place. Runs already recorded keep the cost they were given; to change a price from some day on, add a price with that `effectiveFrom` instead.',
      params: ModelPriceParams,
      body: UpdateModelPriceBody,
      answer: 'ModelPrice',
      problems: [409],
    },
    async (request) => {
      const { effectiveFrom, ...rest } = request.body;
      const changes = {
        ...rest,
        ...(effectiveFrom === undefined ? {} : { effectiveFrom: requireTimestamp(effectiveFrom, { pointer: '/effectiveFrom' }) }),
      };
      return toModelPrice(await updateModelPrice(db, request.principal.organizationId, request.params.model_id, changes, clock.now()));
    },
  );

  route.delete(
    '/models/:model_id',
    {
      scope: 'models:write',
      operationId: 'deleteModelPrice',
      summary: 'Delete a model price',
      description: 'The model is priced by the built-in table (or an earlier price) again.',
      params: ModelPriceParams,
    },
    (request) => deleteModelPrice(db, request.principal.organizationId, request.params.model_id),
  );
}
