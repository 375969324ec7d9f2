// The face of features/lifecycle/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { lifecycleRoutes } from './lifecycle.routes.js';
