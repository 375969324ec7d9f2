// The face of features/datasets/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { itemsAt, listItems, versionToRead } from './datasets.items.repo.js';
export { datasetItemRoutes } from './datasets.items.routes.js';
export { requireDataset } from './datasets.repo.js';
export { datasetRoutes } from './datasets.routes.js';
export { DatasetItemSchema, DatasetSchema } from './datasets.schemas.js';
