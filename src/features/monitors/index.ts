// The face of features/monitors/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { deleteMonitorsWhere } from './monitors.repo.js';
export { monitorRoutes } from './monitors.routes.js';
export { MonitorSchema } from './monitors.schemas.js';
export { Monitoring } from './monitors.service.js';
