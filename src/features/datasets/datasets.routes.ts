import type { App, Deps } from '../../deps.js';
import { routeKit } from '../route-kit.js';
import { createDataset, deleteDataset, listDatasets, requireDataset, toDataset, updateDataset } from './datasets.repo.js';
import { CreateDatasetBody, DatasetPage, DatasetParams, ListDatasetsQuery, UpdateDatasetBody } from './datasets.schemas.js';

const tags = ['Datasets'];

export function datasetRoutes(app: App, { db, clock, cursors }: Deps): void {
  const route = routeKit(app, { tags, cursors });

  route.page(
    '/datasets',
    {
      scope: 'scores:read',
      operationId: 'listDatasets',
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

  route.create(
    '/datasets',
    {
      scope: 'scores:write',
      operationId: 'createDataset',
      summary: 'Create a dataset',
      description: 'Empty, at version 0. Its name is unique in the organization regardless of case (409).',
      body: CreateDatasetBody,
      answer: 'Dataset',
      problems: [409],
    },
    async (request) => toDataset(await createDataset(db, request.principal.organizationId, request.body, clock.now())),
  );

  route.get(
    '/datasets/:dataset_id',
    {
      scope: 'scores:read',
      operationId: 'getDataset',
      summary: 'Get a dataset',
      description: "Another organization's dataset is a 404, as one that does not exist.",
      params: DatasetParams,
      answer: 'Dataset',
    },
    async (request) => toDataset(await requireDataset(db, request.principal.organizationId, request.params.dataset_id)),
  );

  route.patch(
    '/datasets/:dataset_id',
    {
      scope: 'scores:write',
      operationId: 'updateDataset',
      summary: "Change a dataset's name, description or metadata",
      description: 'Its items and version are unchanged. A name another dataset of the organization has is a 409.',
      params: DatasetParams,
      body: UpdateDatasetBody,
      answer: 'Dataset',
      problems: [409],
    },
    async (request) => toDataset(await updateDataset(db, request.principal.organizationId, request.params.dataset_id, request.body, clock.now())),
  );

  route.delete(
    '/datasets/:dataset_id',
    {
      scope: 'quality:admin',
      operationId: 'deleteDataset',
      summary: 'Delete a dataset',
      description: 'With its items and every version of them. Admins and owners only.',
      params: DatasetParams,
    },
    (request) => deleteDataset(db, request.principal.organizationId, request.params.dataset_id),
  );
}
