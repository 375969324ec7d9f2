import { Type } from '@sinclair/typebox';
import type { App, Deps } from '../../deps.js';
import { problemResponses } from '../../lib/problems.js';
import { pageRoute } from '../page-route.js';
import { createDataset, deleteDataset, listDatasets, requireDataset, toDataset, updateDataset } from './datasets.repo.js';
import { CreateDatasetBody, DatasetPage, DatasetParams, ListDatasetsQuery, UpdateDatasetBody } from './datasets.schemas.js';

const tags = ['Datasets'];

export function datasetRoutes(app: App, { db, clock, cursors }: Deps): void {
  pageRoute(
    app,
    cursors,
    '/datasets',
    {
      scope: 'scores:read',
      operationId: 'listDatasets',
      tags,
      summary: "List the organization's datasets",
      description: 'Newest first (then id). Filter `name`: a case-insensitive substring of the name.',
      querystring: ListDatasetsQuery,
      page: DatasetPage,
    },
    async ({ principal: { organizationId }, query: { name } }) => {
      // The filter as it compares (in lower case): spellings that select the same datasets share cursors.
      const filters = name === undefined ? {} : { name: name.toLowerCase() };
      return { identity: { endpoint: 'datasets', organizationId, filters }, fetch: (after, take) => listDatasets(db, organizationId, filters, after, take) };
    },
    toDataset,
  );

  app.post('/datasets', {
    config: { scope: 'scores:write' },
    schema: {
      operationId: 'createDataset',
      tags,
      summary: 'Create a dataset',
      description: 'Empty, at version 0. Its name is unique in the organization regardless of case (409).',
      body: CreateDatasetBody,
      response: { 201: Type.Ref('Dataset'), ...problemResponses(409) },
    },
    handler: async (request, reply) => reply.code(201).send(toDataset(await createDataset(db, request.principal.organizationId, request.body, clock.now()))),
  });

  app.get('/datasets/:dataset_id', {
    config: { scope: 'scores:read' },
    schema: {
      operationId: 'getDataset',
      tags,
      summary: 'Get a dataset',
      description: "Another organization's dataset is a 404, as one that does not exist.",
      params: DatasetParams,
      response: { 200: Type.Ref('Dataset') },
    },
    handler: async (request) => toDataset(await requireDataset(db, request.principal.organizationId, request.params.dataset_id)),
  });

  app.patch('/datasets/:dataset_id', {
    config: { scope: 'scores:write' },
    schema: {
      operationId: 'updateDataset',
      tags,
      summary: "Change a dataset's name, description or metadata",
      description: 'Its items and version are unchanged. A name another dataset of the organization has is a 409.',
      params: DatasetParams,
      body: UpdateDatasetBody,
      response: { 200: Type.Ref('Dataset'), ...problemResponses(409) },
    },
    handler: async (request) => toDataset(await updateDataset(db, request.principal.organizationId, request.params.dataset_id, request.body, clock.now())),
  });

  app.delete('/datasets/:dataset_id', {
    config: { scope: 'quality:admin' },
    schema: {
      operationId: 'deleteDataset',
      tags,
      summary: 'Delete a dataset',
      description: 'With its items and every version of them. Admins and owners only.',
      params: DatasetParams,
      response: { 204: Type.Null({ description: 'Deleted' }) },
    },
    handler: async (request, reply) => {
      await deleteDataset(db, request.principal.organizationId, request.params.dataset_id);
      return reply.code(204).send(null);
    },
  });
}
