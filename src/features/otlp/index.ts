// The face of features/otlp/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { type GrpcReceiver, startGrpcReceiver } from './otlp.grpc.js';
export { otlpRoutes, otlpTracesRoute, projectHeader } from './otlp.routes.js';
export { langfuseCost, langfuseIo, langfuseKind, langfuseUsage } from './otlp.langfuse.js';
export type { SpanUsage } from './otlp.usage.js';
export { ProjectRouter } from './otlp.projects.js';
