// The face of features/views/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { viewRoutes } from './views.routes.js';
export { SavedViewSchema } from './views.schemas.js';
