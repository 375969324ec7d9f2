import type { FastifyPluginAsync, onRequestHookHandler } from 'fastify';
import { declareV1Route } from './auth/route-scope.js';
import type { App, Deps } from './deps.js';
import { annotationItemRoutes, AnnotationItemSchema, annotationQueueRoutes, AnnotationQueueSchema } from './features/annotations/index.js';
import { evaluatorRoutes, EvaluatorRuleSchema } from './features/evaluators/index.js';
import { lifecycleRoutes } from './features/lifecycle/index.js';
import { datasetItemRoutes, DatasetItemSchema, datasetRoutes, DatasetSchema } from './features/datasets/index.js';
import { ComparisonRowSchema, ExperimentResultSchema, experimentRoutes, ExperimentSchema } from './features/experiments/index.js';
import { meRoutes } from './features/me/index.js';
import { ModelPriceSchema, modelRoutes } from './features/models/index.js';
import { type Monitoring, monitorRoutes, MonitorSchema } from './features/monitors/index.js';
import { organizationRoutes } from './features/organizations/index.js';
import { projectRoutes, ProjectSchema } from './features/projects/index.js';
import { promptRoutes, PromptSchema, PromptVersionSchema } from './features/prompts/index.js';
import { runRoutes, RunWithScoresSchema } from './features/runs/index.js';
import { otlpRoutes } from './features/otlp/index.js';
import { langfuseRoutes } from './features/langfuse/index.js';
import { traceRoutes, TraceSchema } from './features/traces/index.js';
import { EndUserSchema, sessionRoutes, SessionSchema } from './features/sessions/index.js';
import { SavedViewSchema, viewRoutes } from './features/views/index.js';
import { scoreConfigRoutes, ScoreConfigSchema, scoreRoutes, ScoreSchema } from './features/scores/index.js';
import { exportRoutes } from './features/export/index.js';
import { TokenRecordSchema, tokenRoutes } from './features/tokens/index.js';
import { AuditEventSchema, auditRoutes } from './features/audit/index.js';
import { modelConnectionRoutes, ModelConnectionSchema } from './features/model-connections/index.js';
import { ProblemSchema } from './lib/problems.js';
import { FieldValueSchema } from './schemas/records.js';

/*
 * What buildApp mounts of the features: the schemas responses name by `$ref`, and every feature's
 * routes under /v1. The order of both is the OpenAPI document's order (components, then paths).
 */

/** The schemas that responses refer to by `$ref` (`Type.Ref('Run')`): added before any route. */
export const SHARED_SCHEMAS = [
  ProblemSchema,
  ProjectSchema,
  RunWithScoresSchema,
  TraceSchema,
  SessionSchema,
  EndUserSchema,
  TokenRecordSchema,
  AuditEventSchema,
  PromptSchema,
  PromptVersionSchema,
  MonitorSchema,
  ModelPriceSchema,
  SavedViewSchema,
  ScoreSchema,
  ScoreConfigSchema,
  DatasetSchema,
  DatasetItemSchema,
  AnnotationQueueSchema,
  AnnotationItemSchema,
  EvaluatorRuleSchema,
  ModelConnectionSchema,
  ExperimentSchema,
  ExperimentResultSchema,
  ComparisonRowSchema,
  FieldValueSchema,
];

/** What routes receive besides Deps: the instance's services that buildApp starts and stops. */
export interface Services {
  monitoring: Monitoring;
}

/** Every feature's routes, inside the /v1 plugin (after its access hook). */
export function v1Routes(api: App, deps: Deps, { monitoring }: Services): void {
  meRoutes(api, deps);
  tokenRoutes(api, deps);
  organizationRoutes(api, deps);
  auditRoutes(api, deps);
  projectRoutes(api, deps);
  lifecycleRoutes(api, deps);
  promptRoutes(api, deps);
  runRoutes(api, deps);
  otlpRoutes(api, deps);
  traceRoutes(api, deps);
  sessionRoutes(api, deps);
  viewRoutes(api, deps);
  exportRoutes(api, deps);
  monitorRoutes(api, deps, monitoring);
  modelRoutes(api, deps);
  scoreRoutes(api, deps);
  scoreConfigRoutes(api, deps);
  datasetRoutes(api, deps);
  datasetItemRoutes(api, deps);
  annotationQueueRoutes(api, deps);
  annotationItemRoutes(api, deps);
  evaluatorRoutes(api, deps);
  modelConnectionRoutes(api, deps);
  experimentRoutes(api, deps);
}

/** The /api/public plugin: Langfuse's public API paths, declared and behind the access hook as /v1's routes are. */
export function langfuseApi(deps: Deps, access: onRequestHookHandler): FastifyPluginAsync {
  return async (instance) => {
    const api = instance as unknown as App;
    api.addHook('onRoute', declareV1Route);
    api.addHook('onRequest', access);
    langfuseRoutes(api, deps);
  };
}
