import { Transport, type ClientOptions, type Query, type RequestSpec } from './http.js';
import { MAX_BATCH, withRunIds, withScoreIds } from './batch.js';
import { Exported, type ExportOptions } from './export.js';
import { Paginated, type ListOptions } from './pagination.js';
import { Tracer, type TracerOptions } from './tracer.js';
import { runExperiment, type ExperimentSummary, type RunExperimentOptions } from './experiments.js';
import type {
  CreateModelConnectionInput,
  ModelConnection,
  ModelConnectionFilters,
  ModelConnectionTest,
  UpdateModelConnectionInput,
  CreateExperimentInput,
  Experiment,
  ExperimentComparisonRow,
  ExperimentFilters,
  ExperimentResult,
  ExperimentResultsRecorded,
  NewExperimentResult,
  UpdateExperimentInput,
  ActivityFilters,
  AddAnnotationItemsInput,
  AnnotationItem,
  AnnotationItemCompleted,
  AnnotationItemFilters,
  AnnotationItemsAdded,
  AnnotationQueue,
  CompleteAnnotationItemInput,
  CreateAnnotationQueueInput,
  UpdateAnnotationQueueInput,
  CreateEvaluatorRuleInput,
  EvaluatorRule,
  UpdateEvaluatorRuleInput,
  AddRunToDatasetInput,
  CreateDatasetInput,
  Dataset,
  DatasetFilters,
  DatasetItem,
  DatasetItemFilters,
  DatasetItemsAdded,
  NewDatasetItem,
  UpdateDatasetInput,
  UpdateDatasetItemInput,
  CreateSavedViewInput,
  SavedView,
  SavedViewFilters,
  Score,
  ScoreBatchItem,
  ScoreBatchResult,
  ScoreConfig,
  ScoreConfigFilters,
  ScoreCreate,
  ScoreFilters,
  ScoreMetrics,
  ScoreMetricsQuery,
  ScoreTarget,
  ScoreUpdate,
  CreateScoreConfigInput,
  UpdateScoreConfigInput,
  UpdateSavedViewInput,
  BuiltinModelPrice,
  BuiltinModelPriceFilters,
  CreateInvitationInput,
  CreateModelPriceInput,
  CreateMonitorInput,
  CreateProjectInput,
  CreatePromptInput,
  CreateTokenInput,
  CreateVersionInput,
  Invitation,
  LabelEvent,
  Me,
  Member,
  Monitor,
  MonitorEvent,
  MonitorFilters,
  MonitorMetrics,
  MonitorMetricsQuery,
  MonitorWithSecret,
  ModelPrice,
  ModelPriceFilters,
  NewToken,
  Organization,
  OrganizationToken,
  Page,
  Project,
  ProjectFilters,
  Prompt,
  PromptFilters,
  PromptVersion,
  RenderInput,
  RenderResult,
  Run,
  RunBatchResult,
  RunCreate,
  RunFilters,
  RunMetrics,
  RunMetricsQuery,
  RunPatch,
  Trace,
  TraceDetail,
  TraceFilters,
  Session,
  SessionDetail,
  EndUser,
  EndUserDetail,
  TokenRecord,
  UpdateMemberInput,
  UpdateModelPriceInput,
  UpdateMonitorInput,
  UpdateOrganizationInput,
  UpdateProjectInput,
  UpdatePromptInput,
  WebhookAttempt,
} from './types.js';

/** Per-call options of every method. */
export interface CallOptions {
  signal?: AbortSignal;
}

export type { ClientOptions } from './http.js';

const seg = (value: string | number): string => encodeURIComponent(String(value));
class Resource {
  constructor(protected readonly http: Transport) {}

  protected async call<T>(spec: RequestSpec): Promise<T> {
    return (await this.http.request<T>(spec)).data;
  }

  protected paginate<T>(path: string, filters: Query | object = {}, options: ListOptions = {}): Paginated<T> {
    const { limit, cursor, signal } = options;
    return new Paginated<T>(async (at, sig) => this.call<Page<T>>({ method: 'GET', path, query: { ...(filters as Query), limit, cursor: at }, signal: sig }), {
      cursor,
      signal,
    });
  }
}

/** `GET /v1/me`. */
class MeResource extends Resource {
  /** The user, organization, role and the credential (`kind`, `id`, `expiresAt`). */
  get(options: CallOptions = {}): Promise<Me> {
    return this.call({ method: 'GET', path: '/me', signal: options.signal });
  }
}

/** `/v1/tokens`: your personal access tokens. */
class TokensResource extends Resource {
  list(options: ListOptions = {}): Paginated<TokenRecord> {
    return this.paginate<TokenRecord>('/tokens', {}, options);
  }
  /** Mints a token; `token` is shown only in this answer. */
  create(body: CreateTokenInput, options: CallOptions = {}): Promise<NewToken> {
    return this.call({ method: 'POST', path: '/tokens', body, signal: options.signal });
  }
  /**
   * A new token with the same name and lifetime; the old one stops working. Never retried: rotating
   * a rotated-away token again revokes the whole family. See also `rotateBeforeExpiry`.
   */
  rotate(tokenId: string, options: CallOptions = {}): Promise<NewToken> {
    return this.call({ method: 'POST', path: `/tokens/${seg(tokenId)}/rotate`, idempotent: false, signal: options.signal });
  }
  async revoke(tokenId: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', path: `/tokens/${seg(tokenId)}`, signal: options.signal });
  }
}

class MembersResource extends Resource {
  list(options: ListOptions = {}): Paginated<Member> {
    return this.paginate<Member>('/organization/members', {}, options);
  }
  /** Changes a member's role (only an owner grants or takes `owner`). */
  update(userId: string, body: UpdateMemberInput, options: CallOptions = {}): Promise<Member> {
    return this.call({ method: 'PATCH', path: `/organization/members/${seg(userId)}`, body, signal: options.signal });
  }
  async remove(userId: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', path: `/organization/members/${seg(userId)}`, signal: options.signal });
  }
}

class InvitationsResource extends Resource {
  list(options: ListOptions = {}): Paginated<Invitation> {
    return this.paginate<Invitation>('/organization/invitations', {}, options);
  }
  create(body: CreateInvitationInput, options: CallOptions = {}): Promise<Invitation> {
    return this.call({ method: 'POST', path: '/organization/invitations', body, signal: options.signal });
  }
  /** Withdraws an invitation. */
  async delete(invitationId: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', path: `/organization/invitations/${seg(invitationId)}`, signal: options.signal });
  }
}

class OrganizationTokensResource extends Resource {
  /** Every member's tokens (admins only; never the secrets). Revoke with `client.tokens.revoke`. */
  list(options: ListOptions = {}): Paginated<OrganizationToken> {
    return this.paginate<OrganizationToken>('/organization/tokens', {}, options);
  }
}

/** `/v1/organization`. */
class OrganizationResource extends Resource {
  readonly members: MembersResource;
  readonly invitations: InvitationsResource;
  readonly tokens: OrganizationTokensResource;
  constructor(http: Transport) {
    super(http);
    this.members = new MembersResource(http);
    this.invitations = new InvitationsResource(http);
    this.tokens = new OrganizationTokensResource(http);
  }
  get(options: CallOptions = {}): Promise<Organization> {
    return this.call({ method: 'GET', path: '/organization', signal: options.signal });
  }
  /** Renames the organization or replaces its `allowedOrigins` (admins). */
  update(body: UpdateOrganizationInput, options: CallOptions = {}): Promise<Organization> {
    return this.call({ method: 'PATCH', path: '/organization', body, signal: options.signal });
  }
}

/** `/v1/projects`. */
class ProjectsResource extends Resource {
  list(filters: ProjectFilters = {}, options: ListOptions = {}): Paginated<Project> {
    return this.paginate<Project>('/projects', filters, options);
  }
  create(body: CreateProjectInput, options: CallOptions = {}): Promise<Project> {
    return this.call({ method: 'POST', path: '/projects', body, signal: options.signal });
  }
  get(projectId: string, options: CallOptions = {}): Promise<Project> {
    return this.call({ method: 'GET', path: `/projects/${seg(projectId)}`, signal: options.signal });
  }
  update(projectId: string, body: UpdateProjectInput, options: CallOptions = {}): Promise<Project> {
    return this.call({ method: 'PATCH', path: `/projects/${seg(projectId)}`, body, signal: options.signal });
  }
  /** Deletes the project with its runs and monitors (admins). */
  async delete(projectId: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', path: `/projects/${seg(projectId)}`, signal: options.signal });
  }
}

/** `/v1/projects/{id}/runs`. */
class RunsResource extends Resource {
  /** Newest first; filters combine with AND (`tag` all must match, `parentRunId: null` = roots). */
  list(projectId: string, filters: RunFilters = {}, options: ListOptions = {}): Paginated<Run> {
    return this.paginate<Run>(`/projects/${seg(projectId)}/runs`, filters, options);
  }
  /**
   * Creates one run. A run without an `id` gets a client-generated one, which makes the create
   * idempotent (a retry answers with the stored run), so it is retried like a GET.
   */
  create(projectId: string, run: RunCreate, options: CallOptions = {}): Promise<Run> {
    const [body] = withRunIds([run]);
    return this.call({ method: 'POST', path: `/projects/${seg(projectId)}/runs`, body, idempotent: true, signal: options.signal });
  }
  /**
   * Creates many runs: one result per run, in order (`created`, `existing` or `rejected` with its own
   * problem). Runs get client ids when they lack one, so a retried batch never creates a run twice;
   * more than 1,000 runs go as several requests, in order (parents before children).
   */
  async batch(projectId: string, runs: readonly RunCreate[], options: CallOptions = {}): Promise<RunBatchResult> {
    const withIds = withRunIds(runs);
    const results: RunBatchResult['results'] = [];
    for (let offset = 0; offset < withIds.length || offset === 0; offset += MAX_BATCH) {
      const chunk = withIds.slice(offset, offset + MAX_BATCH);
      const answer = await this.call<RunBatchResult>({
        method: 'POST',
        path: `/projects/${seg(projectId)}/runs/batch`,
        body: { runs: chunk },
        idempotent: true,
        signal: options.signal,
      });
      for (const result of answer.results) results.push({ ...result, index: result.index + offset });
      if (withIds.length === 0) break;
    }
    return { results };
  }
  /** The run with its scores' summaries (`scores`). */
  get(projectId: string, runId: string, options: CallOptions = {}): Promise<Run> {
    return this.call({ method: 'GET', path: `/projects/${seg(projectId)}/runs/${seg(runId)}`, signal: options.signal });
  }
  /** Ends or amends a running run (finished runs are final: 409). */
  patch(projectId: string, runId: string, body: RunPatch, options: CallOptions = {}): Promise<Run> {
    return this.call({ method: 'PATCH', path: `/projects/${seg(projectId)}/runs/${seg(runId)}`, body, signal: options.signal });
  }
  /**
   * Every run the filters select, streamed (`GET …/runs/export`, NDJSON) and yielded one by one in the
   * list's order; a dropped or stalled stream resumes from its last cursor without repeating a run.
   * `onCursor` reports where to resume after a crash (pass it back as `cursor`).
   */
  export(projectId: string, filters: RunFilters = {}, options: ExportOptions = {}): Exported<Run> {
    return new Exported<Run>(this.http, `/projects/${seg(projectId)}/runs/export`, filters, (run) => run.id, options);
  }
  /** Counts and aggregates over the runs matching the list's filters, within [from, to). */
  metrics(projectId: string, query: RunMetricsQuery = {}, options: CallOptions = {}): Promise<RunMetrics> {
    return this.call({ method: 'GET', path: `/projects/${seg(projectId)}/runs/metrics`, query: query as Query, signal: options.signal });
  }
  /**
   * Adds the run to a dataset as a new item (a new version of the dataset): its inputs and outputs as the
   * input and expected output unless `body` gives them.
   */
  addToDataset(projectId: string, runId: string, body: AddRunToDatasetInput, options: CallOptions = {}): Promise<DatasetItem> {
    return this.call({ method: 'POST', path: `/projects/${seg(projectId)}/runs/${seg(runId)}/dataset-items`, body, signal: options.signal });
  }
}

/** `/v1/projects/{id}/traces`. */
class TracesResource extends Resource {
  /** Newest first; each trace with its totals and its root's previews. */
  list(projectId: string, filters: TraceFilters = {}, options: ListOptions = {}): Paginated<Trace> {
    return this.paginate<Trace>(`/projects/${seg(projectId)}/traces`, filters, options);
  }
  /** Every trace the filters select, streamed and resumable like `runs.export`. */
  export(projectId: string, filters: TraceFilters = {}, options: ExportOptions = {}): Exported<Trace> {
    return new Exported<Trace>(this.http, `/projects/${seg(projectId)}/traces/export`, filters, (trace) => trace.traceId, options);
  }
  /** A trace's totals and its runs in tree order. */
  get(projectId: string, traceId: string, options: CallOptions = {}): Promise<TraceDetail> {
    return this.call({ method: 'GET', path: `/projects/${seg(projectId)}/traces/${seg(traceId)}`, signal: options.signal });
  }
}

/** `/v1/projects/{id}/sessions`: conversations. */
class SessionsResource extends Resource {
  /** Newest activity first; with filters, those with a run that matches them all. */
  list(projectId: string, filters: ActivityFilters = {}, options: ListOptions = {}): Paginated<Session> {
    return this.paginate<Session>(`/projects/${seg(projectId)}/sessions`, filters, options);
  }
  /** A session's totals and its traces, oldest first. */
  get(projectId: string, sessionId: string, options: CallOptions = {}): Promise<SessionDetail> {
    return this.call({ method: 'GET', path: `/projects/${seg(projectId)}/sessions/${seg(sessionId)}`, signal: options.signal });
  }
}

/** `/v1/projects/{id}/users`: the end users an application serves. */
class EndUsersResource extends Resource {
  /** Newest activity first; with filters, those with a run that matches them all. */
  list(projectId: string, filters: ActivityFilters = {}, options: ListOptions = {}): Paginated<EndUser> {
    return this.paginate<EndUser>(`/projects/${seg(projectId)}/users`, filters, options);
  }
  /** An end user's totals and their traces, oldest first. */
  get(projectId: string, userId: string, options: CallOptions = {}): Promise<EndUserDetail> {
    return this.call({ method: 'GET', path: `/projects/${seg(projectId)}/users/${seg(userId)}`, signal: options.signal });
  }
}

class PromptVersionsResource extends Resource {
  /** Newest version first. */
  list(prompt: string, options: ListOptions = {}): Paginated<PromptVersion> {
    return this.paginate<PromptVersion>(`/prompts/${seg(prompt)}/versions`, {}, options);
  }
  /** The next version (versions are immutable). */
  create(prompt: string, body: CreateVersionInput, options: CallOptions = {}): Promise<PromptVersion> {
    return this.call({ method: 'POST', path: `/prompts/${seg(prompt)}/versions`, body, signal: options.signal });
  }
  /** One version, by number or by label (`production`). */
  get(prompt: string, version: number | string, options: CallOptions = {}): Promise<PromptVersion> {
    return this.call({ method: 'GET', path: `/prompts/${seg(prompt)}/versions/${seg(version)}`, signal: options.signal });
  }
  /**
   * A conditional read for polling a label cheaply: pass the `etag` of the previous answer; while
   * the version is unchanged the server answers 304 and this returns `{ changed: false }`.
   */
  async poll(
    prompt: string,
    version: number | string,
    etag?: string,
    options: CallOptions = {},
  ): Promise<{ changed: true; version: PromptVersion; etag: string | undefined } | { changed: false; etag: string }> {
    const response = await this.http.request<PromptVersion>({
      method: 'GET',
      path: `/prompts/${seg(prompt)}/versions/${seg(version)}`,
      headers: etag ? { 'if-none-match': etag } : {},
      allowNotModified: true,
      signal: options.signal,
    });
    if (response.status === 304 && etag) return { changed: false, etag };
    return { changed: true, version: response.data, etag: response.headers.get('etag') ?? undefined };
  }
}

class PromptLabelsResource extends Resource {
  /** Points a label (e.g. `production`) at a version; every move is recorded. */
  set(prompt: string, label: string, version: number, options: CallOptions = {}): Promise<Prompt> {
    return this.call({ method: 'PUT', path: `/prompts/${seg(prompt)}/labels/${seg(label)}`, body: { version }, signal: options.signal });
  }
  async remove(prompt: string, label: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', path: `/prompts/${seg(prompt)}/labels/${seg(label)}`, signal: options.signal });
  }
}

/** `/v1/prompts`: `prompt` arguments take the prompt's id or its name. */
class PromptsResource extends Resource {
  readonly versions: PromptVersionsResource;
  readonly labels: PromptLabelsResource;
  constructor(http: Transport) {
    super(http);
    this.versions = new PromptVersionsResource(http);
    this.labels = new PromptLabelsResource(http);
  }
  list(filters: PromptFilters = {}, options: ListOptions = {}): Paginated<Prompt> {
    return this.paginate<Prompt>('/prompts', filters, options);
  }
  /** Creates the prompt with its version 1. */
  create(body: CreatePromptInput, options: CallOptions = {}): Promise<Prompt> {
    return this.call({ method: 'POST', path: '/prompts', body, signal: options.signal });
  }
  get(prompt: string, options: CallOptions = {}): Promise<Prompt> {
    return this.call({ method: 'GET', path: `/prompts/${seg(prompt)}`, signal: options.signal });
  }
  update(prompt: string, body: UpdatePromptInput, options: CallOptions = {}): Promise<Prompt> {
    return this.call({ method: 'PATCH', path: `/prompts/${seg(prompt)}`, body, signal: options.signal });
  }
  /** Deletes the prompt with its versions and labels (admins). */
  async delete(prompt: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', path: `/prompts/${seg(prompt)}`, signal: options.signal });
  }
  /** Every label move, newest first. */
  labelHistory(prompt: string, options: ListOptions = {}): Paginated<LabelEvent> {
    return this.paginate<LabelEvent>(`/prompts/${seg(prompt)}/label-history`, {}, options);
  }
  /** Renders the latest version, or `version` or `label`, with `variables` (a missing one is a 400 naming it). */
  render(prompt: string, body: RenderInput, options: CallOptions = {}): Promise<RenderResult> {
    return this.call({ method: 'POST', path: `/prompts/${seg(prompt)}/render`, body, idempotent: true, signal: options.signal });
  }
}

/** `/v1/projects/{id}/monitors`. */
class MonitorsResource extends Resource {
  list(projectId: string, filters: MonitorFilters = {}, options: ListOptions = {}): Paginated<Monitor> {
    return this.paginate<Monitor>(`/projects/${seg(projectId)}/monitors`, filters, options);
  }
  /** Creates a monitor; the answer's `webhookSecret` is shown only here. */
  create(projectId: string, body: CreateMonitorInput, options: CallOptions = {}): Promise<MonitorWithSecret> {
    return this.call({ method: 'POST', path: `/projects/${seg(projectId)}/monitors`, body, signal: options.signal });
  }
  get(projectId: string, monitorId: string, options: CallOptions = {}): Promise<Monitor> {
    return this.call({ method: 'GET', path: `/projects/${seg(projectId)}/monitors/${seg(monitorId)}`, signal: options.signal });
  }
  /** Edits, pauses (`enabled: false`) or resumes a monitor. */
  update(projectId: string, monitorId: string, body: UpdateMonitorInput, options: CallOptions = {}): Promise<Monitor> {
    return this.call({ method: 'PATCH', path: `/projects/${seg(projectId)}/monitors/${seg(monitorId)}`, body, signal: options.signal });
  }
  async delete(projectId: string, monitorId: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', path: `/projects/${seg(projectId)}/monitors/${seg(monitorId)}`, signal: options.signal });
  }
  /** The metric over time (default: the last 24 windows) and its current value and state. */
  metrics(projectId: string, monitorId: string, query: MonitorMetricsQuery = {}, options: CallOptions = {}): Promise<MonitorMetrics> {
    return this.call({ method: 'GET', path: `/projects/${seg(projectId)}/monitors/${seg(monitorId)}/metrics`, query, signal: options.signal });
  }
  /** State changes, newest first. */
  events(projectId: string, monitorId: string, options: ListOptions = {}): Paginated<MonitorEvent> {
    return this.paginate<MonitorEvent>(`/projects/${seg(projectId)}/monitors/${seg(monitorId)}/events`, {}, options);
  }
  /** Webhook delivery attempts, newest first. */
  deliveries(projectId: string, monitorId: string, options: ListOptions = {}): Paginated<WebhookAttempt> {
    return this.paginate<WebhookAttempt>(`/projects/${seg(projectId)}/monitors/${seg(monitorId)}/deliveries`, {}, options);
  }
  /** A new webhook signing secret, shown only in this answer. */
  rotateSecret(projectId: string, monitorId: string, options: CallOptions = {}): Promise<MonitorWithSecret> {
    return this.call({ method: 'POST', path: `/projects/${seg(projectId)}/monitors/${seg(monitorId)}/rotate-secret`, signal: options.signal });
  }
}

/** `/v1/models`: the organization's model prices (admins and owners write them), and the built-in table. */
class ModelsResource extends Resource {
  list(filters: ModelPriceFilters = {}, options: ListOptions = {}): Paginated<ModelPrice> {
    return this.paginate<ModelPrice>('/models', filters, options);
  }
  /** The built-in price table (dated, with its source), by provider then model. */
  builtin(filters: BuiltinModelPriceFilters = {}, options: ListOptions = {}): Paginated<BuiltinModelPrice> {
    return this.paginate<BuiltinModelPrice>('/models/builtin', filters, options);
  }
  /** A price in force from `effectiveFrom` (default now); runs that started before keep theirs. */
  create(body: CreateModelPriceInput, options: CallOptions = {}): Promise<ModelPrice> {
    return this.call({ method: 'POST', path: '/models', body, signal: options.signal });
  }
  get(modelId: string, options: CallOptions = {}): Promise<ModelPrice> {
    return this.call({ method: 'GET', path: `/models/${seg(modelId)}`, signal: options.signal });
  }
  update(modelId: string, body: UpdateModelPriceInput, options: CallOptions = {}): Promise<ModelPrice> {
    return this.call({ method: 'PATCH', path: `/models/${seg(modelId)}`, body, signal: options.signal });
  }
  async delete(modelId: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', path: `/models/${seg(modelId)}`, signal: options.signal });
  }
}

/** `/v1/projects/{id}/scores`: judgments on runs, traces and sessions. */
class ScoresResource extends Resource {
  /**
   * Scores a run, a trace or a session. The score gets a client id when it lacks one, so a retried
   * request never scores twice (the same content again answers the stored score).
   */
  create(projectId: string, target: ScoreTarget, score: ScoreCreate, options: CallOptions = {}): Promise<Score> {
    const [path, id] = 'runId' in target ? ['runs', target.runId] : 'traceId' in target ? ['traces', target.traceId] : ['sessions', target.sessionId];
    const [body] = withScoreIds([score]);
    return this.call({ method: 'POST', path: `/projects/${seg(projectId)}/${path}/${seg(id)}/scores`, body, idempotent: true, signal: options.signal });
  }
  /**
   * Creates many scores, each naming its target: one result per score, in order (`created`,
   * `existing` or `rejected` with its own problem); client ids make retries safe; more than 1,000 go as
   * several requests, in order.
   */
  async batch(projectId: string, scores: readonly ScoreBatchItem[], options: CallOptions = {}): Promise<ScoreBatchResult> {
    const withIds = withScoreIds(scores);
    const results: ScoreBatchResult['results'] = [];
    for (let offset = 0; offset < withIds.length; offset += MAX_BATCH) {
      const answer = await this.call<ScoreBatchResult>({
        method: 'POST',
        path: `/projects/${seg(projectId)}/scores/batch`,
        body: { scores: withIds.slice(offset, offset + MAX_BATCH) },
        idempotent: true,
        signal: options.signal,
      });
      for (const result of answer.results) results.push({ ...result, index: result.index + offset });
    }
    return { results };
  }
  /** Newest first; `traceId` gives a trace's scores and its runs'. */
  list(projectId: string, filters: ScoreFilters = {}, options: ListOptions = {}): Paginated<Score> {
    return this.paginate<Score>(`/projects/${seg(projectId)}/scores`, filters, options);
  }
  /** Counts, means and label shares of the scores the filters select, within [from, to) of their createdAt, per bucket and group. */
  metrics(projectId: string, query: ScoreMetricsQuery = {}, options: CallOptions = {}): Promise<ScoreMetrics> {
    return this.call({ method: 'GET', path: `/projects/${seg(projectId)}/scores/metrics`, query: query as Query, signal: options.signal });
  }
  get(projectId: string, scoreId: string, options: CallOptions = {}): Promise<Score> {
    return this.call({ method: 'GET', path: `/projects/${seg(projectId)}/scores/${seg(scoreId)}`, signal: options.signal });
  }
  /** By its author or an admin. */
  update(projectId: string, scoreId: string, body: ScoreUpdate, options: CallOptions = {}): Promise<Score> {
    return this.call({ method: 'PATCH', path: `/projects/${seg(projectId)}/scores/${seg(scoreId)}`, body, signal: options.signal });
  }
  async delete(projectId: string, scoreId: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', path: `/projects/${seg(projectId)}/scores/${seg(scoreId)}`, signal: options.signal });
  }
}

/** `/v1/score-configs`: what the scores of a name may be (admins and owners write them). */
class ScoreConfigsResource extends Resource {
  list(filters: ScoreConfigFilters = {}, options: ListOptions = {}): Paginated<ScoreConfig> {
    return this.paginate<ScoreConfig>('/score-configs', filters, options);
  }
  create(body: CreateScoreConfigInput, options: CallOptions = {}): Promise<ScoreConfig> {
    return this.call({ method: 'POST', path: '/score-configs', body, signal: options.signal });
  }
  get(configId: string, options: CallOptions = {}): Promise<ScoreConfig> {
    return this.call({ method: 'GET', path: `/score-configs/${seg(configId)}`, signal: options.signal });
  }
  update(configId: string, body: UpdateScoreConfigInput, options: CallOptions = {}): Promise<ScoreConfig> {
    return this.call({ method: 'PATCH', path: `/score-configs/${seg(configId)}`, body, signal: options.signal });
  }
  async delete(configId: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', path: `/score-configs/${seg(configId)}`, signal: options.signal });
  }
}

/** `/v1/projects/{id}/views`: your own named filter sets for a project's lists. */
class SavedViewsResource extends Resource {
  /** Newest first; `page` keeps one list's views. */
  list(projectId: string, filters: SavedViewFilters = {}, options: ListOptions = {}): Paginated<SavedView> {
    return this.paginate<SavedView>(`/projects/${seg(projectId)}/views`, filters, options);
  }
  create(projectId: string, body: CreateSavedViewInput, options: CallOptions = {}): Promise<SavedView> {
    return this.call({ method: 'POST', path: `/projects/${seg(projectId)}/views`, body, signal: options.signal });
  }
  get(projectId: string, viewId: string, options: CallOptions = {}): Promise<SavedView> {
    return this.call({ method: 'GET', path: `/projects/${seg(projectId)}/views/${seg(viewId)}`, signal: options.signal });
  }
  update(projectId: string, viewId: string, body: UpdateSavedViewInput, options: CallOptions = {}): Promise<SavedView> {
    return this.call({ method: 'PATCH', path: `/projects/${seg(projectId)}/views/${seg(viewId)}`, body, signal: options.signal });
  }
  async delete(projectId: string, viewId: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', path: `/projects/${seg(projectId)}/views/${seg(viewId)}`, signal: options.signal });
  }
}

/** `/v1/datasets/{id}/items`: a dataset's items; each add, edit or delete makes a new version of the dataset. */
class DatasetItemsResource extends Resource {
  /** The items at `version` (default: the current one), newest item first. */
  list(datasetId: string, filters: DatasetItemFilters = {}, options: ListOptions = {}): Paginated<DatasetItem> {
    return this.paginate<DatasetItem>(`/datasets/${seg(datasetId)}/items`, filters, options);
  }
  /** Adds 1 to 1,000 items as one new version (an id the dataset has had is a 409, and nothing is added). */
  add(datasetId: string, items: readonly NewDatasetItem[], options: CallOptions = {}): Promise<DatasetItemsAdded> {
    return this.call({ method: 'POST', path: `/datasets/${seg(datasetId)}/items`, body: { items }, signal: options.signal });
  }
  /** The item as it was at `version` (default: the current one). */
  get(datasetId: string, itemId: string, filters: DatasetItemFilters = {}, options: CallOptions = {}): Promise<DatasetItem> {
    return this.call({ method: 'GET', path: `/datasets/${seg(datasetId)}/items/${seg(itemId)}`, query: filters as Query, signal: options.signal });
  }
  update(datasetId: string, itemId: string, body: UpdateDatasetItemInput, options: CallOptions = {}): Promise<DatasetItem> {
    return this.call({ method: 'PATCH', path: `/datasets/${seg(datasetId)}/items/${seg(itemId)}`, body, signal: options.signal });
  }
  /** Deletes the item from the next version on; earlier versions keep it. */
  async delete(datasetId: string, itemId: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', path: `/datasets/${seg(datasetId)}/items/${seg(itemId)}`, signal: options.signal });
  }
}

/** `/v1/datasets`: the organization's datasets (admins and owners delete them). */
class DatasetsResource extends Resource {
  readonly items: DatasetItemsResource;
  constructor(http: Transport) {
    super(http);
    this.items = new DatasetItemsResource(http);
  }
  /** Newest first; `name` keeps those whose name holds it (case-insensitive). */
  list(filters: DatasetFilters = {}, options: ListOptions = {}): Paginated<Dataset> {
    return this.paginate<Dataset>('/datasets', filters, options);
  }
  create(body: CreateDatasetInput, options: CallOptions = {}): Promise<Dataset> {
    return this.call({ method: 'POST', path: '/datasets', body, signal: options.signal });
  }
  get(datasetId: string, options: CallOptions = {}): Promise<Dataset> {
    return this.call({ method: 'GET', path: `/datasets/${seg(datasetId)}`, signal: options.signal });
  }
  update(datasetId: string, body: UpdateDatasetInput, options: CallOptions = {}): Promise<Dataset> {
    return this.call({ method: 'PATCH', path: `/datasets/${seg(datasetId)}`, body, signal: options.signal });
  }
  async delete(datasetId: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', path: `/datasets/${seg(datasetId)}`, signal: options.signal });
  }
}

/** `/v1/projects/{id}/annotation-queues/{id}/items`: the runs or traces a queue holds. */
class AnnotationItemsResource extends Resource {
  /** Newest first; `status` keeps one status's items. */
  list(projectId: string, queueId: string, filters: AnnotationItemFilters = {}, options: ListOptions = {}): Paginated<AnnotationItem> {
    return this.paginate<AnnotationItem>(`/projects/${seg(projectId)}/annotation-queues/${seg(queueId)}/items`, filters, options);
  }
  /**
   * Puts runs or traces in the queue: `{ ids }` (all must exist, else a 400 lists the missing and nothing
   * is added), `{ filter, limit? }` (the newest the runs list gives for the filter) or `{ filter, rate }`
   * (a sample that is the same each time). A target already there counts as `existing`, so a retry is safe.
   */
  add(projectId: string, queueId: string, body: AddAnnotationItemsInput, options: CallOptions = {}): Promise<AnnotationItemsAdded> {
    return this.call({
      method: 'POST',
      path: `/projects/${seg(projectId)}/annotation-queues/${seg(queueId)}/items`,
      body,
      idempotent: true,
      signal: options.signal,
    });
  }
}

/** `/v1/projects/{id}/annotation-queues`: runs or traces for people to score, one claimed item at a time. */
class AnnotationQueuesResource extends Resource {
  readonly items: AnnotationItemsResource;
  constructor(http: Transport) {
    super(http);
    this.items = new AnnotationItemsResource(http);
  }
  /** Newest first, each with its counts. */
  list(projectId: string, options: ListOptions = {}): Paginated<AnnotationQueue> {
    return this.paginate<AnnotationQueue>(`/projects/${seg(projectId)}/annotation-queues`, {}, options);
  }
  create(projectId: string, body: CreateAnnotationQueueInput, options: CallOptions = {}): Promise<AnnotationQueue> {
    return this.call({ method: 'POST', path: `/projects/${seg(projectId)}/annotation-queues`, body, signal: options.signal });
  }
  /** With its counts: pending, inProgress (held under a lease), completed, skipped. */
  get(projectId: string, queueId: string, options: CallOptions = {}): Promise<AnnotationQueue> {
    return this.call({ method: 'GET', path: `/projects/${seg(projectId)}/annotation-queues/${seg(queueId)}`, signal: options.signal });
  }
  update(projectId: string, queueId: string, body: UpdateAnnotationQueueInput, options: CallOptions = {}): Promise<AnnotationQueue> {
    return this.call({ method: 'PATCH', path: `/projects/${seg(projectId)}/annotation-queues/${seg(queueId)}`, body, signal: options.signal });
  }
  /** Deletes the queue with its items (admins); the scores given in it stay. */
  async delete(projectId: string, queueId: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', path: `/projects/${seg(projectId)}/annotation-queues/${seg(queueId)}`, signal: options.signal });
  }
  /**
   * The next item for you to review, leased to you for 10 minutes (the one you hold already, renewed,
   * so a retry is safe); null when none is left.
   */
  async claim(projectId: string, queueId: string, options: CallOptions = {}): Promise<AnnotationItem | null> {
    const path = `/projects/${seg(projectId)}/annotation-queues/${seg(queueId)}/claim`;
    return (await this.call<AnnotationItem | null>({ method: 'POST', path, idempotent: true, signal: options.signal })) ?? null;
  }
  /** Completes an item you hold with its scores (all stored, or none when one is refused); a 409 when you do not hold it. */
  complete(projectId: string, queueId: string, itemId: string, body: CompleteAnnotationItemInput, options: CallOptions = {}): Promise<AnnotationItemCompleted> {
    const path = `/projects/${seg(projectId)}/annotation-queues/${seg(queueId)}/items/${seg(itemId)}/complete`;
    return this.call({ method: 'POST', path, body, signal: options.signal });
  }
  /** Skips an item you hold (no scores); a 409 when you do not hold it. */
  skip(projectId: string, queueId: string, itemId: string, options: CallOptions = {}): Promise<AnnotationItem> {
    const path = `/projects/${seg(projectId)}/annotation-queues/${seg(queueId)}/items/${seg(itemId)}/skip`;
    return this.call({ method: 'POST', path, signal: options.signal });
  }
}

/** `/v1/experiments/{id}/results`: one result per dataset item. */
class ExperimentResultsResource extends Resource {
  /** Newest first, each with its item at the experiment's dataset version and the scores on its run. */
  list(experimentId: string, options: ListOptions = {}): Paginated<ExperimentResult> {
    return this.paginate<ExperimentResult>(`/experiments/${seg(experimentId)}/results`, {}, options);
  }
  /**
   * Records 1 to 100 results, all or nothing: a result the item has already is `existing` when it is
   * the same (so a retry is safe), else a 409; an item not in the experiment's dataset version, or a
   * run not stored in the experiment's project, is a 400.
   */
  record(experimentId: string, results: readonly NewExperimentResult[], options: CallOptions = {}): Promise<ExperimentResultsRecorded> {
    return this.call({ method: 'POST', path: `/experiments/${seg(experimentId)}/results`, body: { results }, idempotent: true, signal: options.signal });
  }
}

/** `/v1/experiments`: tasks run over dataset versions, their results and aggregates, compared item by item. */
class ExperimentsResource extends Resource {
  readonly results: ExperimentResultsResource;
  constructor(http: Transport) {
    super(http);
    this.results = new ExperimentResultsResource(http);
  }
  /** Newest first, with counts and aggregates; `datasetId`, and `name` exactly. */
  list(filters: ExperimentFilters = {}, options: ListOptions = {}): Paginated<Experiment> {
    return this.paginate<Experiment>('/experiments', filters, options);
  }
  /** Over a dataset version (default: its current one); a name the dataset's experiments have is a 409. */
  create(body: CreateExperimentInput, options: CallOptions = {}): Promise<Experiment> {
    return this.call({ method: 'POST', path: '/experiments', body, signal: options.signal });
  }
  get(experimentId: string, options: CallOptions = {}): Promise<Experiment> {
    return this.call({ method: 'GET', path: `/experiments/${seg(experimentId)}`, signal: options.signal });
  }
  /** `status: 'completed'` (or `'running'` again) and metadata. */
  update(experimentId: string, body: UpdateExperimentInput, options: CallOptions = {}): Promise<Experiment> {
    return this.call({ method: 'PATCH', path: `/experiments/${seg(experimentId)}`, body, signal: options.signal });
  }
  /** With its results (admins); its runs and their scores stay. */
  async delete(experimentId: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', path: `/experiments/${seg(experimentId)}`, signal: options.signal });
  }
  /**
   * 2 to 5 experiments of one dataset, item by item (the items at the first one's version): each one's
   * output, latency and scores, and per score name the difference from the first, `regression` below 0.
   */
  compare(experimentIds: readonly string[], options: ListOptions = {}): Paginated<ExperimentComparisonRow> {
    return this.paginate<ExperimentComparisonRow>('/experiments/compare', { ids: experimentIds.join(',') }, options);
  }
}

/**
 * `/v1/projects/{id}/evaluators`: rules that score a project's new runs in the background (a runs
 * filter, a sampling rate, an evaluator); their results are scores with source `evaluator`.
 */
class EvaluatorsResource extends Resource {
  /** Newest first, each with its jobs counted by status. */
  list(projectId: string, options: ListOptions = {}): Paginated<EvaluatorRule> {
    return this.paginate<EvaluatorRule>(`/projects/${seg(projectId)}/evaluators`, {}, options);
  }
  /** Admins: from now on, new runs are sampled at `sampleRate` and those matching `filter` scored by `evaluator`. */
  create(projectId: string, body: CreateEvaluatorRuleInput, options: CallOptions = {}): Promise<EvaluatorRule> {
    return this.call({ method: 'POST', path: `/projects/${seg(projectId)}/evaluators`, body, signal: options.signal });
  }
  /** With its jobs by status (pending, done, failed, skipped) and its latest failure. */
  get(projectId: string, ruleId: string, options: CallOptions = {}): Promise<EvaluatorRule> {
    return this.call({ method: 'GET', path: `/projects/${seg(projectId)}/evaluators/${seg(ruleId)}`, signal: options.signal });
  }
  update(projectId: string, ruleId: string, body: UpdateEvaluatorRuleInput, options: CallOptions = {}): Promise<EvaluatorRule> {
    return this.call({ method: 'PATCH', path: `/projects/${seg(projectId)}/evaluators/${seg(ruleId)}`, body, signal: options.signal });
  }
  /** Deletes the rule with its jobs (admins); the scores it gave stay. */
  async delete(projectId: string, ruleId: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', path: `/projects/${seg(projectId)}/evaluators/${seg(ruleId)}`, signal: options.signal });
  }
}

/**
 * The Sightline API client.
 *
 * ```ts
 * const client = new Sightline({ baseUrl: 'https://sightline.example.com', token: process.env.SIGHTLINE_TOKEN! });
 * for await (const run of client.runs.list(projectId, { status: 'failed' })) console.log(run.id);
 * ```
 */
/** `/v1/model-connections`: the organization's OpenAI-compatible endpoints for LLM-as-judge evaluators (admins and owners only). */
class ModelConnectionsResource extends Resource {
  list(filters: ModelConnectionFilters = {}, options: ListOptions = {}): Paginated<ModelConnection> {
    return this.paginate<ModelConnection>('/model-connections', filters, options);
  }
  /** The key and extra headers are sent once and never shown again (`apiKeyHint`, `headerNames`). */
  create(body: CreateModelConnectionInput, options: CallOptions = {}): Promise<ModelConnection> {
    return this.call({ method: 'POST', path: '/model-connections', body, signal: options.signal });
  }
  get(connectionId: string, options: CallOptions = {}): Promise<ModelConnection> {
    return this.call({ method: 'GET', path: `/model-connections/${seg(connectionId)}`, signal: options.signal });
  }
  update(connectionId: string, body: UpdateModelConnectionInput, options: CallOptions = {}): Promise<ModelConnection> {
    return this.call({ method: 'PATCH', path: `/model-connections/${seg(connectionId)}`, body, signal: options.signal });
  }
  async delete(connectionId: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', path: `/model-connections/${seg(connectionId)}`, signal: options.signal });
  }
  /**
   * Sends a tiny JSON-mode request through the connection: `ok`, or the problem and whether it is
   * retryable. One test at a time per connection: a 409 (with `retryAfter`) while another runs.
   */
  test(connectionId: string, options: CallOptions = {}): Promise<ModelConnectionTest> {
    return this.call({ method: 'POST', path: `/model-connections/${seg(connectionId)}/test`, signal: options.signal });
  }
}

export class Sightline {
  readonly me: MeResource;
  readonly tokens: TokensResource;
  readonly organization: OrganizationResource;
  readonly projects: ProjectsResource;
  readonly runs: RunsResource;
  readonly traces: TracesResource;
  readonly sessions: SessionsResource;
  readonly endUsers: EndUsersResource;
  readonly prompts: PromptsResource;
  readonly monitors: MonitorsResource;
  readonly models: ModelsResource;
  readonly views: SavedViewsResource;
  readonly scores: ScoresResource;
  readonly scoreConfigs: ScoreConfigsResource;
  readonly datasets: DatasetsResource;
  readonly annotationQueues: AnnotationQueuesResource;
  readonly evaluators: EvaluatorsResource;
  readonly modelConnections: ModelConnectionsResource;
  readonly experiments: ExperimentsResource;
  /** The transport every call goes through (low-level: `client.http.request({...})`). */
  readonly http: Transport;

  constructor(options: ClientOptions) {
    this.http = new Transport(options);
    this.me = new MeResource(this.http);
    this.tokens = new TokensResource(this.http);
    this.organization = new OrganizationResource(this.http);
    this.projects = new ProjectsResource(this.http);
    this.runs = new RunsResource(this.http);
    this.traces = new TracesResource(this.http);
    this.sessions = new SessionsResource(this.http);
    this.endUsers = new EndUsersResource(this.http);
    this.prompts = new PromptsResource(this.http);
    this.monitors = new MonitorsResource(this.http);
    this.models = new ModelsResource(this.http);
    this.views = new SavedViewsResource(this.http);
    this.scores = new ScoresResource(this.http);
    this.scoreConfigs = new ScoreConfigsResource(this.http);
    this.datasets = new DatasetsResource(this.http);
    this.annotationQueues = new AnnotationQueuesResource(this.http);
    this.evaluators = new EvaluatorsResource(this.http);
    this.modelConnections = new ModelConnectionsResource(this.http);
    this.experiments = new ExperimentsResource(this.http);
  }

  /** Replaces a fixed token (a client built with `tokenProvider` reads its token from the provider). */
  setToken(token: string): void {
    this.http.setToken(token);
  }

  /** The expiry the server reported for the token in use (`Sightline-Token-Expires-At`), once a request has shown it. */
  tokenExpiresAt(): Promise<string | undefined> {
    return this.http.tokenExpiresAt();
  }

  /**
   * Runs `task` over a dataset as an experiment (created, or resumed by its name): items that have a
   * result are skipped, each other one is run as a traced run, scored by the evaluators and recorded,
   * with progress; a crash at any point is resumed by calling it again, without duplicates. See
   * `runExperiment` in experiments.ts for the order of the writes.
   */
  runExperiment<Output>(options: RunExperimentOptions<Output>): Promise<ExperimentSummary> {
    return runExperiment(this, options);
  }

  /** A background run recorder for one project: see `Tracer`. */
  tracer(projectId: string, options: TracerOptions = {}): Tracer {
    return new Tracer(this, projectId, options);
  }
}
