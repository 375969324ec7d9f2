// The face of features/annotations/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { annotationItemRoutes } from './annotations.items.routes.js';
export { annotationQueueRoutes, scopeOf } from './annotations.routes.js';
export { sampled } from './annotations.rules.js';
export { AnnotationItemSchema, AnnotationQueueSchema } from './annotations.schemas.js';
export { queueFilters } from './annotations.targets.js';
