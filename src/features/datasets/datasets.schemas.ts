import { Type, type Static } from '@sinclair/typebox';
import { enforcedElsewhere } from '../../lib/enforced-elsewhere.js';
import { listQuery, nameContains, recordPage } from '../../lib/pagination.js';
import { IdParam, NamedRecord, recordTimes, TrimmedText } from '../../schemas/common.js';

/** The most items one request adds: one dataset version for all of them. */
export const MAX_ITEMS_PER_REQUEST = 1000;

/** Client-chosen item ids: as run ids, URL-safe (they are a path segment). */
export const ITEM_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$';

const JsonObject = Type.Object({}, { additionalProperties: true, description: 'Any JSON object' });
/** Free-form JSON, as a run's inputs and outputs: an object, a list of messages, a string… */
const JsonValue = (description: string) => Type.Unknown({ description });

const Name = TrimmedText(200, 'Unique in the organization regardless of case; no leading or trailing space');
const Description = Type.String({ maxLength: 10_000 });

export const DatasetSchema = NamedRecord('Dataset', {
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  metadata: JsonObject,
  version: Type.Integer({ description: 'The number of changes made to its items (each add, edit or delete request is one); 0 before the first' }),
  itemCount: Type.Integer({ description: 'Items at the latest version' }),
  ...recordTimes,
});
export type Dataset = Static<typeof DatasetSchema>;
export const DatasetPage = recordPage('Dataset');

export const DatasetItemSchema = NamedRecord('DatasetItem', {
  id: Type.String(),
  datasetId: Type.String(),
  input: JsonValue('Any JSON value'),
  expectedOutput: JsonValue('Any JSON value; null when none was given'),
  metadata: JsonObject,
  sourceRunId: Type.Union([Type.String(), Type.Null()], { description: 'The run it was added from' }),
  sourceProjectId: Type.Union([Type.String(), Type.Null()], { description: "That run's project" }),
  version: Type.Integer({ description: 'The dataset version that wrote this state of the item' }),
  ...recordTimes,
});
export type DatasetItem = Static<typeof DatasetItemSchema>;
export const DatasetItemPage = recordPage('DatasetItem');

export const DatasetItemsAddedSchema = Type.Object(
  { version: Type.Integer({ description: 'The dataset version the items were added in' }), items: Type.Array(Type.Ref('DatasetItem')) },
  { title: 'DatasetItemsAdded', additionalProperties: false },
);
export type DatasetItemsAdded = Static<typeof DatasetItemsAddedSchema>;

export const CreateDatasetBody = Type.Object(
  { name: Name, description: Type.Optional(Description), metadata: Type.Optional(JsonObject) },
  { title: 'CreateDataset', additionalProperties: false },
);
export const UpdateDatasetBody = Type.Object(
  { name: Type.Optional(Name), description: Type.Optional(Description), metadata: Type.Optional(JsonObject) },
  { title: 'UpdateDataset', additionalProperties: false, minProperties: 1 },
);
export const ListDatasetsQuery = listQuery({ name: nameContains(200) });

// Its upper bound is the dataset's own version, which the route checks (a 400 naming `version`).
const Version = Type.Optional(
  Type.Integer({
    minimum: 0,
    maximum: 2_147_483_647,
    format: 'int32',
    description: 'A version of the dataset, 0 to its current one (default: the current one)',
  }),
);
export const ListItemsQuery = listQuery({ version: Version });
export const ItemVersionQuery = Type.Object({ version: Version }, { additionalProperties: false });

const ItemFields = {
  expectedOutput: Type.Optional(JsonValue('Any JSON value (default null)')),
  metadata: Type.Optional(JsonObject),
};
export const NewItemSchema = Type.Object(
  {
    id: Type.Optional(
      enforcedElsewhere(
        Type.String({
          pattern: ITEM_ID_PATTERN,
          description: 'A client-chosen id (1..128 of A-Z a-z 0-9 _ . : -), unique in the dataset for good (default: a generated `dsi_` id)',
        }),
        { maxLength: 128 },
      ),
    ),
    input: JsonValue('Any JSON value'),
    ...ItemFields,
  },
  { title: 'NewDatasetItem', additionalProperties: false },
);
export type NewItemInput = Static<typeof NewItemSchema>;
export const AddItemsBody = Type.Object(
  { items: Type.Array(NewItemSchema, { minItems: 1, maxItems: MAX_ITEMS_PER_REQUEST }) },
  { title: 'AddDatasetItems', additionalProperties: false },
);
export const UpdateItemBody = Type.Object(
  { input: Type.Optional(JsonValue('Any JSON value')), ...ItemFields },
  { title: 'UpdateDatasetItem', additionalProperties: false, minProperties: 1 },
);
export const RunToDatasetBody = Type.Object(
  {
    datasetId: Type.String({ minLength: 1, maxLength: 200, description: 'A dataset of your organization' }),
    input: Type.Optional(JsonValue("Any JSON value (default: the run's inputs)")),
    expectedOutput: Type.Optional(JsonValue("Any JSON value (default: the run's outputs)")),
    metadata: Type.Optional(JsonObject),
  },
  { title: 'AddRunToDataset', additionalProperties: false },
);

export const DatasetParams = Type.Object({ dataset_id: IdParam('ds', 'Dataset id') }, { additionalProperties: false });
export const DatasetItemParams = Type.Object(
  { dataset_id: IdParam('ds', 'Dataset id'), item_id: IdParam('dsi', 'Dataset item id') },
  { additionalProperties: false },
);
