// The face of features/projects/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { createProject, findProject, projectsCreatedSince, requestedProject, requireProject } from './projects.repo.js';
export { projectRoutes } from './projects.routes.js';
export { ProjectSchema } from './projects.schemas.js';
