// The face of features/models/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { needsPrice, projectPrices, runCost } from './models.cost.js';
export { costOf, priceFor, type PriceOverride, type Prices, type TokenUsage } from './models.pricing.js';
export { providerName } from './models.providers.js';
export { MAX_CALL_CHARS, MAX_RUN_CHARS, tokenCounter } from './models.tokens.js';
export { organizationPrices } from './models.repo.js';
export { modelRoutes } from './models.routes.js';
export { ModelPriceSchema } from './models.schemas.js';
