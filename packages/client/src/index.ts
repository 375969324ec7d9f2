/**
 * @sightline/client: the TypeScript client of the Sightline API. Depends on nothing but the platform's
 * `fetch` (Node >= 20.19, Deno, Bun, browsers' workers and edge runtimes).
 */
export { Sightline, type CallOptions } from './client.js';
export { withRunIds, withScoreIds, MAX_BATCH } from './batch.js';
export type { ClientOptions, RetryInfo, RequestSpec, ApiResponse, StreamResponse, Query, QueryValue } from './http.js';
export type { TokenProvider } from './credentials.js';
export { SightlineProblem, SightlineNetworkError } from './errors.js';
export { Paginated, type PageResult, type ListOptions } from './pagination.js';
export { Exported, type ExportOptions } from './export.js';
export { Tracer, type TracerOptions, type DropReason } from './tracer.js';
export type { TraceOptions, RunHandle, ActiveRun, Usage } from './span.js';
export { snapshot } from './snapshot.js';
export { wrapOpenAI, traceChatCompletion, type ChatCompletionParams, type ChatTraceOptions } from './openai.js';
export { rotateBeforeExpiry, type RotateBeforeExpiryOptions, type RotateResult } from './rotation.js';
export { newRunId, newScoreId, derivedId } from './ids.js';
export type { Evaluator, EvaluatorArgs, EvaluatorScore, ExperimentProgress, ExperimentSummary, RunExperimentOptions } from './experiments.js';
export type * from './types.js';
