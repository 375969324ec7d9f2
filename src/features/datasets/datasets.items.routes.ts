import type { App, Deps } from '../../deps.js';
import { requestedProject } from '../projects/index.js';
import { routeKit } from '../route-kit.js';
import { getRun, type Run } from '../runs/index.js';
import { addItems, deleteItem, listItems, requireItem, toDatasetItem, updateItem, versionToRead, type DatasetRef } from './datasets.items.repo.js';
import { requireDataset } from './datasets.repo.js';
import {
  AddItemsBody,
  DatasetItemPage,
  DatasetItemParams,
  DatasetItemsAddedSchema,
  DatasetParams,
  ItemVersionQuery,
  ListItemsQuery,
  MAX_ITEMS_PER_REQUEST,
  RunToDatasetBody,
  UpdateItemBody,
} from './datasets.schemas.js';
import { ProjectRunParams } from '../../schemas/records.js';

const tags = ['Datasets'];

const refOf = (request: { principal: { organizationId: string }; params: { dataset_id: string } }): DatasetRef => ({
  organizationId: request.principal.organizationId,
  datasetId: request.params.dataset_id,
});

export function datasetItemRoutes(app: App, { db, clock, cursors }: Deps): void {
  const route = routeKit(app, { tags, cursors });

  route.page(
    '/datasets/:dataset_id/items',
    {
      scope: 'scores:read',
      operationId: 'listDatasetItems',
      summary: 'List the items of a dataset at a version',
      description:
        'The items at `version` (default: the current one), newest item first (then id); an edit keeps an item in its place. A cursor taken with `version` reads that version to the end; one taken without it reads the current version of each page. A version the dataset has not reached is a 400.',
      params: DatasetParams,
      querystring: ListItemsQuery,
      page: DatasetItemPage,
    },
    async (request) => {
      const dataset = await requireDataset(db, request.principal.organizationId, request.params.dataset_id);
      const requested = request.query.version;
      const version = versionToRead(dataset, requested);
      return {
        identity: {
          endpoint: 'dataset-items',
          organizationId: dataset.organization_id,
          parents: [dataset.id],
          filters: requested === undefined ? {} : { version: requested },
        },
        fetch: (after, take) => listItems(db, refOf(request), version, after, take),
      };
    },
    toDatasetItem,
  );

  route.create(
    '/datasets/:dataset_id/items',
    {
      scope: 'scores:write',
      operationId: 'addDatasetItems',
      summary: 'Add items to a dataset',
      description: `1 to ${MAX_ITEMS_PER_REQUEST} items, added as one new version of the dataset. An id the dataset has had (a deleted item's too) is a 409, and nothing is added.`,
      params: DatasetParams,
      body: AddItemsBody,
      answer: DatasetItemsAddedSchema,
      problems: [409],
    },
    async (request) => {
      const { version, rows } = await addItems(db, refOf(request), request.body.items, clock.now());
      return { version, items: rows.map(toDatasetItem) };
    },
  );

  route.get(
    '/datasets/:dataset_id/items/:item_id',
    {
      scope: 'scores:read',
      operationId: 'getDatasetItem',
      summary: 'Get a dataset item at a version',
      description: 'As it was at `version` (default: the current one). An item not added yet, or deleted by then, is a 404.',
      params: DatasetItemParams,
      querystring: ItemVersionQuery,
      answer: 'DatasetItem',
    },
    async (request) => {
      const dataset = await requireDataset(db, request.principal.organizationId, request.params.dataset_id);
      const version = versionToRead(dataset, request.query.version);
      return toDatasetItem(await requireItem(db, refOf(request), request.params.item_id, version));
    },
  );

  route.patch(
    '/datasets/:dataset_id/items/:item_id',
    {
      scope: 'scores:write',
      operationId: 'updateDatasetItem',
      summary: 'Edit a dataset item',
      description: 'The fields given replace the current ones, as a new version of the dataset; earlier versions keep the item as it was.',
      params: DatasetItemParams,
      body: UpdateItemBody,
      answer: 'DatasetItem',
    },
    async (request) => toDatasetItem(await updateItem(db, refOf(request), request.params.item_id, request.body, clock.now())),
  );

  route.delete(
    '/datasets/:dataset_id/items/:item_id',
    {
      scope: 'scores:write',
      operationId: 'deleteDatasetItem',
      summary: 'Delete a dataset item',
      description: 'As a new version of the dataset: reading an earlier version still shows the item. Its id stays taken.',
      params: DatasetItemParams,
    },
    (request) => deleteItem(db, refOf(request), request.params.item_id, clock.now()),
  );

  route.create(
    '/projects/:project_id/runs/:run_id/dataset-items',
    {
      scope: 'scores:write',
      operationId: 'addRunToDataset',
      summary: 'Add a run to a dataset',
      description:
        "A new item (a new version of the dataset) from the run: its inputs as the input and its outputs as the expected output unless given, `sourceRunId` and `sourceProjectId` set. A run or a dataset that is not your organization's is a 404.",
      params: ProjectRunParams,
      body: RunToDatasetBody,
      answer: 'DatasetItem',
    },
    async (request) => {
      const project = await requestedProject(db, request);
      const run = await getRun(db, project.id, request.params.run_id);
      const { inputs, outputs } = JSON.parse(run.doc) as Pick<Run, 'inputs' | 'outputs'>;
      const { datasetId, input, expectedOutput, metadata } = request.body;
      const ref = { organizationId: request.principal.organizationId, datasetId };
      const item = {
        input: input === undefined ? inputs : input,
        expectedOutput: expectedOutput === undefined ? outputs : expectedOutput,
        metadata,
        sourceRunId: run.id,
        sourceProjectId: project.id,
      };
      const { rows } = await addItems(db, ref, [item], clock.now(), () => '');
      return toDatasetItem(rows[0]!);
    },
  );
}
