// The face of features/evaluators/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { evaluatorRoutes } from './evaluators.routes.js';
export { queueEvaluations } from './evaluators.sampling.js';
export { EvaluatorRuleSchema } from './evaluators.schemas.js';
export { EvaluationWorker } from './evaluators.worker.js';
