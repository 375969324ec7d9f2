// The face of features/model-connections/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { JudgeError, runJudge } from './judge.js';
export { modelConnectionRoutes } from './model-connections.routes.js';
export { ModelConnectionSchema } from './model-connections.schemas.js';
