// The face of features/runs/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { toRun } from './runs.document.js';
export { ingestRuns, type IngestResult } from './runs.ingest.js';
export { getRun } from './runs.repo.js';
export { storedRunsByIds } from './runs.replace.js';
export { listRuns, type RunListRow } from './runs.list.js';
export { runRoutes } from './runs.routes.js';
export { MAX_COST, type Run, RunWithScoresSchema } from './runs.schemas.js';
