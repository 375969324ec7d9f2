// The face of features/traces/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { listedTraces, listTraces, totalsOf, toTrace, type TraceListRow, tracesWithScores } from './traces.repo.js';
export { traceRoutes } from './traces.routes.js';
export { type Trace, TraceSchema } from './traces.schemas.js';
