// The face of features/experiments/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { experimentRoutes } from './experiments.routes.js';
export { ComparisonRowSchema, ExperimentResultSchema, ExperimentSchema } from './experiments.schemas.js';
