// The face of features/langfuse/: Langfuse's public API paths, for buildApp.
export { langfuseRoutes } from './langfuse.routes.js';
