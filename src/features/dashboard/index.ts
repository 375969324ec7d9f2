// The face of features/dashboard/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { dashboardRoutes } from './dashboard.routes.js';
