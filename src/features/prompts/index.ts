// The face of features/prompts/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { extractVariables, getVersion, renderTemplate, requirePrompt } from './prompts.repo.js';
export { promptRoutes } from './prompts.routes.js';
export { PromptSchema, PromptVersionSchema, type Template } from './prompts.schemas.js';
