/**
 * The dashboard's only way to the server: the public /v1 API, with the session cookie (same origin).
 * Each call the dashboard makes is one function below, typed by the SDK's wire types (derived from the
 * server's schemas): pages never write a path or name a result type. Every error the server sends is a
 * problem document; it becomes an ApiError carrying its title and detail, which the pages show as they are.
 */
import type {
  Experiment,
  ExperimentComparisonRow,
  ExperimentResult,
  FieldValue,
  AddAnnotationItemsInput,
  CreateModelConnectionInput,
  ModelConnection,
  ModelConnectionTest,
  UpdateModelConnectionInput,
  AddDatasetItemsInput,
  AnnotationItem,
  AnnotationItemCompleted,
  AnnotationItemsAdded,
  AnnotationQueue,
  CompleteAnnotationItemInput,
  CreateAnnotationQueueInput,
  UpdateAnnotationQueueInput,
  AddRunToDatasetInput,
  BuiltinModelPrice,
  CreateDatasetInput,
  Dataset,
  DatasetItem,
  DatasetItemsAdded,
  UpdateDatasetInput,
  UpdateDatasetItemInput,
  CreateSavedViewInput,
  SavedView,
  Score,
  ScoreConfig,
  ScoreCreate,
  ScoreMetrics,
  CreateScoreConfigInput,
  UpdateScoreConfigInput,
  EndUser,
  EndUserDetail,
  Session,
  SessionDetail,
  Trace,
  TraceDetail,
  CreateInvitationInput,
  CreateModelPriceInput,
  CreateMonitorInput,
  CreateProjectInput,
  CreatePromptInput,
  AuditEvent,
  CreateTokenInput,
  CreateVersionInput,
  Invitation,
  LabelEvent,
  Me,
  Member,
  ModelPrice,
  Monitor,
  MonitorEvent,
  MonitorMetrics,
  MonitorWithSecret,
  NewToken,
  Organization,
  OrganizationToken,
  Project,
  Prompt,
  PromptVersion,
  SignInStatus,
  RenderInput,
  RenderResult,
  Run,
  RunMetrics,
  TraceMetrics,
  TokenRecord,
  UpdateMemberInput,
  UpdateModelPriceInput,
  UpdateMonitorInput,
  CreateEvaluatorRuleInput,
  EvaluatorRule,
  UpdateEvaluatorRuleInput,
  UpdateOrganizationInput,
  UpdateProjectInput,
  UpdatePromptInput,
  WebhookAttempt,
} from './types.js';
import { collection, del, get, listing, patch, post, projectCollection, projectPath, put, request, seg, type Query } from './api/client.js';

export { ApiError, describeError, queryString, setChangeHandler, setUnauthorizedHandler, streamExport } from './api/client.js';
export type { Listing, Query } from './api/client.js';

/** What the sign-in page says (`/auth/status`, outside /v1; its schema is `SignInStatusSchema`). */
export const auth = {
  /** null when the server cannot say (the sign-in button is offered anyway). */
  status: () => request<SignInStatus>('GET', '/auth/status').catch(() => null),
  /** Ends the dashboard session (the server revokes it and clears the cookie). */
  signOut: () => request<void>('POST', '/auth/logout'),
  me: () => get<Me>('/me'),
};

export const projects = collection<Project, CreateProjectInput, UpdateProjectInput>('/projects');

const runsPath = (projectId: string) => `${projectPath(projectId)}/runs`;
export const runs = {
  list: (projectId: string) => listing<Run>(runsPath(projectId)),
  get: (projectId: string, runId: string) => get<Run>(`${runsPath(projectId)}/${seg(runId)}`),
  metrics: (projectId: string, query: Query) => get<RunMetrics>(`${runsPath(projectId)}/metrics`, query),
  /** The distinct values of a field of the project's runs (`field`, `key` with metadataValue, `prefix`), for the filters' pickers. */
  values: (projectId: string) => listing<FieldValue>(`${runsPath(projectId)}/values`),
};

const tracesPath = (projectId: string) => `${projectPath(projectId)}/traces`;
export const traces = {
  list: (projectId: string) => listing<Trace>(tracesPath(projectId)),
  get: (projectId: string, traceId: string, query: Query = {}) => get<TraceDetail>(`${tracesPath(projectId)}/${seg(traceId)}`, query),
  /** Traces counted by their start, with whole-trace totals: the traces page's chart. */
  metrics: (projectId: string, query: Query) => get<TraceMetrics>(`${tracesPath(projectId)}/metrics`, query),
};

export const sessions = {
  list: (projectId: string) => listing<Session>(`${projectPath(projectId)}/sessions`),
  get: (projectId: string, sessionId: string) => get<SessionDetail>(`${projectPath(projectId)}/sessions/${seg(sessionId)}`),
};

export const views = {
  list: (projectId: string) => listing<SavedView>(`${projectPath(projectId)}/views`),
  create: (projectId: string, body: CreateSavedViewInput) => post<SavedView>(`${projectPath(projectId)}/views`, body),
  remove: (projectId: string, viewId: string) => del(`${projectPath(projectId)}/views/${seg(viewId)}`),
};

/** What a score judges, as the paths name it. */
export type ScoreTargetKind = 'runs' | 'traces' | 'sessions';
export const scores = {
  list: (projectId: string) => listing<Score>(`${projectPath(projectId)}/scores`),
  create: (projectId: string, kind: ScoreTargetKind, targetId: string, body: ScoreCreate) =>
    post<Score>(`${projectPath(projectId)}/${kind}/${seg(targetId)}/scores`, body),
  remove: (projectId: string, scoreId: string) => del(`${projectPath(projectId)}/scores/${seg(scoreId)}`),
};

/** The organization's score configs (`/v1/score-configs`). */
export const scoreConfigs = collection<ScoreConfig, CreateScoreConfigInput, UpdateScoreConfigInput>('/score-configs');

/** The organization's datasets (`/v1/datasets`), their items at any version, and a run added as an item. */
const datasetItemsPath = (datasetId: string) => `/datasets/${seg(datasetId)}/items`;
export const datasets = {
  ...collection<Dataset, CreateDatasetInput, UpdateDatasetInput>('/datasets'),
  /** Read at the query's `version` (default: the current one). */
  items: (datasetId: string) => listing<DatasetItem>(datasetItemsPath(datasetId)),
  addItems: (datasetId: string, body: AddDatasetItemsInput) => post<DatasetItemsAdded>(datasetItemsPath(datasetId), body),
  updateItem: (datasetId: string, itemId: string, body: UpdateDatasetItemInput) => patch<DatasetItem>(`${datasetItemsPath(datasetId)}/${seg(itemId)}`, body),
  removeItem: (datasetId: string, itemId: string) => del(`${datasetItemsPath(datasetId)}/${seg(itemId)}`),
  addRun: (projectId: string, runId: string, body: AddRunToDatasetInput) => post<DatasetItem>(`${runsPath(projectId)}/${seg(runId)}/dataset-items`, body),
};

export const endUsers = {
  list: (projectId: string) => listing<EndUser>(`${projectPath(projectId)}/users`),
  get: (projectId: string, userId: string) => get<EndUserDetail>(`${projectPath(projectId)}/users/${seg(userId)}`),
};

const monitorPath = (projectId: string, monitorId: string) => `${projectPath(projectId)}/monitors/${seg(monitorId)}`;
export const monitors = {
  ...projectCollection<Monitor, CreateMonitorInput, UpdateMonitorInput, MonitorWithSecret>('monitors'),
  rotateSecret: (projectId: string, monitorId: string) => post<MonitorWithSecret>(`${monitorPath(projectId, monitorId)}/rotate-secret`),
  metrics: (projectId: string, monitorId: string) => get<MonitorMetrics>(`${monitorPath(projectId, monitorId)}/metrics`),
  events: (projectId: string, monitorId: string) => listing<MonitorEvent>(`${monitorPath(projectId, monitorId)}/events`),
  deliveries: (projectId: string, monitorId: string) => listing<WebhookAttempt>(`${monitorPath(projectId, monitorId)}/deliveries`),
};

/** A prompt is named by its id or its name. */
const promptPath = (prompt: string) => `/prompts/${seg(prompt)}`;
export const prompts = {
  ...collection<Prompt, CreatePromptInput, UpdatePromptInput>('/prompts'),
  versions: (prompt: string) => listing<PromptVersion>(`${promptPath(prompt)}/versions`),
  /** `version`: a number, or a label's name. */
  version: (prompt: string, version: number | string) => get<PromptVersion>(`${promptPath(prompt)}/versions/${seg(version)}`),
  createVersion: (prompt: string, body: CreateVersionInput) => post<PromptVersion>(`${promptPath(prompt)}/versions`, body),
  labelHistory: (prompt: string) => listing<LabelEvent>(`${promptPath(prompt)}/label-history`),
  setLabel: (prompt: string, label: string, version: number) => put<Prompt>(`${promptPath(prompt)}/labels/${seg(label)}`, { version }),
  removeLabel: (prompt: string, label: string) => del(`${promptPath(prompt)}/labels/${seg(label)}`),
  render: (prompt: string, body: RenderInput) => post<RenderResult>(`${promptPath(prompt)}/render`, body),
};

/** The organization's model prices (`/v1/models`) and the built-in table (`/v1/models/builtin`). */
export const models = {
  ...collection<ModelPrice, CreateModelPriceInput, UpdateModelPriceInput>('/models'),
  builtin: listing<BuiltinModelPrice>('/models/builtin'),
};

export const tokens = {
  list: listing<TokenRecord>('/tokens'),
  create: (body: CreateTokenInput) => post<NewToken>('/tokens', body),
  rotate: (tokenId: string) => post<NewToken>(`/tokens/${seg(tokenId)}/rotate`),
  revoke: (tokenId: string) => del(`/tokens/${seg(tokenId)}`),
};

export const organization = {
  get: () => get<Organization>('/organization'),
  update: (body: UpdateOrganizationInput) => patch<Organization>('/organization', body),
  members: listing<Member>('/organization/members'),
  updateMember: (userId: string, body: UpdateMemberInput) => patch<Member>(`/organization/members/${seg(userId)}`, body),
  removeMember: (userId: string) => del(`/organization/members/${seg(userId)}`),
  invitations: listing<Invitation>('/organization/invitations'),
  invite: (body: CreateInvitationInput) => post<Invitation>('/organization/invitations', body),
  withdrawInvitation: (invitationId: string) => del(`/organization/invitations/${seg(invitationId)}`),
  tokens: listing<OrganizationToken>('/organization/tokens'),
  auditLog: listing<AuditEvent>('/organization/audit-log'),
};

/** A project's annotation queues, their items, and the review: claim the next item, complete or skip it. */
const queuePath = (projectId: string, queueId: string) => `${projectPath(projectId)}/annotation-queues/${seg(queueId)}`;
export const annotationQueues = {
  ...projectCollection<AnnotationQueue, CreateAnnotationQueueInput, UpdateAnnotationQueueInput>('annotation-queues'),
  items: (projectId: string, queueId: string) => listing<AnnotationItem>(`${queuePath(projectId, queueId)}/items`),
  addItems: (projectId: string, queueId: string, body: AddAnnotationItemsInput) => post<AnnotationItemsAdded>(`${queuePath(projectId, queueId)}/items`, body),
  /** The item leased to you (yours again if you hold one), or null when none is free (204). */
  claim: async (projectId: string, queueId: string) => (await post<AnnotationItem | undefined>(`${queuePath(projectId, queueId)}/claim`)) ?? null,
  complete: (projectId: string, queueId: string, itemId: string, body: CompleteAnnotationItemInput) =>
    post<AnnotationItemCompleted>(`${queuePath(projectId, queueId)}/items/${seg(itemId)}/complete`, body),
  skip: (projectId: string, queueId: string, itemId: string) => post<AnnotationItem>(`${queuePath(projectId, queueId)}/items/${seg(itemId)}/skip`),
};

/** A project's evaluator rules (`/v1/projects/{id}/evaluators`). */
export const evaluators = projectCollection<EvaluatorRule, CreateEvaluatorRuleInput, UpdateEvaluatorRuleInput>('evaluators');
// Monitors over scores: the live preview reads the score metrics (GET …/scores/metrics).
export const scoreMetrics = (projectId: string, query: Query) => get<ScoreMetrics>(`${projectPath(projectId)}/scores/metrics`, query);
/** The organization's model connections for LLM-as-judge evaluators (`/v1/model-connections`, admins and owners). */
export const modelConnections = {
  ...collection<ModelConnection, CreateModelConnectionInput, UpdateModelConnectionInput>('/model-connections'),
  test: (connectionId: string) => post<ModelConnectionTest>(`/model-connections/${seg(connectionId)}/test`),
};

/** The organization's experiments (`/v1/experiments`): a dataset's, their results, and two or more compared item by item. */
export const experiments = {
  list: listing<Experiment>('/experiments'),
  get: (experimentId: string) => get<Experiment>(`/experiments/${seg(experimentId)}`),
  results: (experimentId: string) => listing<ExperimentResult>(`/experiments/${seg(experimentId)}/results`),
  /** Query `{ ids: 'a,b' }`: the first is the baseline. */
  compare: listing<ExperimentComparisonRow>('/experiments/compare'),
};
