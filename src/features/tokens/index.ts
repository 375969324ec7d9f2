// The face of features/tokens/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { issuePersonalAccessToken, listTokens, projectsOfOrganization, toTokenRecord } from './tokens.repo.js';
export { tokenRoutes } from './tokens.routes.js';
export { TokenRecordSchema } from './tokens.schemas.js';
