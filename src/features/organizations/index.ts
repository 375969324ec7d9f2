// The face of features/organizations/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { acceptInvitations } from './invitations.repo.js';
export { firstOrganizationOf } from './members.repo.js';
export {
  createOrganization,
  ensureOrganization,
  ensureUser,
  findOrganization,
  getOrganization,
  getUser,
  setMembership,
  toOrganization,
  toUser,
} from './organizations.repo.js';
export { organizationRoutes } from './organizations.routes.js';
export { addOperatorOrigin, originAllowList } from './origins.repo.js';
export { originFault } from './origins.js';
