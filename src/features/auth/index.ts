// The face of features/auth/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { authRoutes } from './auth.routes.js';
export { identityProvider } from './identity-provider.js';
