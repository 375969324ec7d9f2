// The face of features/scores/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { configsNamed } from './score-configs.repo.js';
export { scoreConfigRoutes } from './score-configs.routes.js';
export { ingestScores } from './scores.ingest.js';
export { scoreMetrics } from './scores.metrics.js';
export { existingTargets, TARGET_NOUN, toScore } from './scores.repo.js';
export { scoreRoutes } from './scores.routes.js';
export { MAX_COMMENT, valueOf } from './scores.rules.js';
export { ScoreConfigSchema, ScoreSchema } from './scores.schemas.js';
