// The face of features/sessions/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { sessionRoutes } from './sessions.routes.js';
export { EndUserSchema, SessionSchema } from './sessions.schemas.js';
