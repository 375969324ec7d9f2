import { inBatches, withRunIds } from './batch.js';
import { Exported, type ExportOptions } from './export.js';
import type { ListOptions, Paginated } from './pagination.js';
import { Resource, seg, type CallOptions } from './resource.js';
import type {
  ActivityFilters,
  AddRunToDatasetInput,
  CreateProjectInput,
  CreateSavedViewInput,
  DatasetItem,
  EndUser,
  EndUserDetail,
  Project,
  ProjectFilters,
  Run,
  RunBatchResult,
  RunCreate,
  RunFilters,
  RunMetrics,
  RunMetricsQuery,
  RunPatch,
  SavedView,
  SavedViewFilters,
  Session,
  SessionDetail,
  Trace,
  TraceDetail,
  TraceFilters,
  UpdateProjectInput,
  UpdateSavedViewInput,
} from './types.js';

/** `/v1/projects`. */
export class ProjectsResource extends Resource {
  list(filters: ProjectFilters = {}, options: ListOptions = {}): Paginated<Project> {
    return this.paginate<Project>('/projects', filters, options);
  }
  create(body: CreateProjectInput, options: CallOptions = {}): Promise<Project> {
    return this.send('POST', '/projects', body, options);
  }
  get(projectId: string, options: CallOptions = {}): Promise<Project> {
    return this.read(`/projects/${seg(projectId)}`, options);
  }
  update(projectId: string, body: UpdateProjectInput, options: CallOptions = {}): Promise<Project> {
    return this.send('PATCH', `/projects/${seg(projectId)}`, body, options);
  }
  /** Deletes the project with its runs and monitors (admins). */
  async delete(projectId: string, options: CallOptions = {}): Promise<void> {
    await this.deleteAt(`/projects/${seg(projectId)}`, options);
  }
}

/** `/v1/projects/{id}/runs`. */
export class RunsResource extends Resource {
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
    return this.send('POST', `/projects/${seg(projectId)}/runs`, body, options, true);
  }
  /**
   * Creates many runs: one result per run, in order (`created`, `existing` or `rejected` with its own
   * problem). Runs get client ids when they lack one, so a retried batch never creates a run twice;
   * more than 1,000 runs go as several requests, in order (parents before children).
   */
  async batch(projectId: string, runs: readonly RunCreate[], options: CallOptions = {}): Promise<RunBatchResult> {
    const path = `/projects/${seg(projectId)}/runs/batch`;
    return inBatches(withRunIds(runs), (chunk) => this.send<RunBatchResult>('POST', path, { runs: chunk }, options, true), true);
  }
  /** The run with its scores' summaries (`scores`). */
  get(projectId: string, runId: string, options: CallOptions = {}): Promise<Run> {
    return this.read(`/projects/${seg(projectId)}/runs/${seg(runId)}`, options);
  }
  /** Ends or amends a running run (finished runs are final: 409). */
  patch(projectId: string, runId: string, body: RunPatch, options: CallOptions = {}): Promise<Run> {
    return this.send('PATCH', `/projects/${seg(projectId)}/runs/${seg(runId)}`, body, options);
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
    return this.read(`/projects/${seg(projectId)}/runs/metrics`, options, query);
  }
  /**
   * Adds the run to a dataset as a new item (a new version of the dataset): its inputs and outputs as the
   * input and expected output unless `body` gives them.
   */
  addToDataset(projectId: string, runId: string, body: AddRunToDatasetInput, options: CallOptions = {}): Promise<DatasetItem> {
    return this.send('POST', `/projects/${seg(projectId)}/runs/${seg(runId)}/dataset-items`, body, options);
  }
}

/** `/v1/projects/{id}/traces`. */
export class TracesResource extends Resource {
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
    return this.read(`/projects/${seg(projectId)}/traces/${seg(traceId)}`, options);
  }
}

/** `/v1/projects/{id}/sessions`: conversations. */
export class SessionsResource extends Resource {
  /** Newest activity first; with filters, those with a run that matches them all. */
  list(projectId: string, filters: ActivityFilters = {}, options: ListOptions = {}): Paginated<Session> {
    return this.paginate<Session>(`/projects/${seg(projectId)}/sessions`, filters, options);
  }
  /** A session's totals and its traces, oldest first. */
  get(projectId: string, sessionId: string, options: CallOptions = {}): Promise<SessionDetail> {
    return this.read(`/projects/${seg(projectId)}/sessions/${seg(sessionId)}`, options);
  }
}

/** `/v1/projects/{id}/users`: the end users an application serves. */
export class EndUsersResource extends Resource {
  /** Newest activity first; with filters, those with a run that matches them all. */
  list(projectId: string, filters: ActivityFilters = {}, options: ListOptions = {}): Paginated<EndUser> {
    return this.paginate<EndUser>(`/projects/${seg(projectId)}/users`, filters, options);
  }
  /** An end user's totals and their traces, oldest first. */
  get(projectId: string, userId: string, options: CallOptions = {}): Promise<EndUserDetail> {
    return this.read(`/projects/${seg(projectId)}/users/${seg(userId)}`, options);
  }
}

/** `/v1/projects/{id}/views`: your own named filter sets for a project's lists. */
export class SavedViewsResource extends Resource {
  /** Newest first; `page` keeps one list's views. */
  list(projectId: string, filters: SavedViewFilters = {}, options: ListOptions = {}): Paginated<SavedView> {
    return this.paginate<SavedView>(`/projects/${seg(projectId)}/views`, filters, options);
  }
  create(projectId: string, body: CreateSavedViewInput, options: CallOptions = {}): Promise<SavedView> {
    return this.send('POST', `/projects/${seg(projectId)}/views`, body, options);
  }
  get(projectId: string, viewId: string, options: CallOptions = {}): Promise<SavedView> {
    return this.read(`/projects/${seg(projectId)}/views/${seg(viewId)}`, options);
  }
  update(projectId: string, viewId: string, body: UpdateSavedViewInput, options: CallOptions = {}): Promise<SavedView> {
    return this.send('PATCH', `/projects/${seg(projectId)}/views/${seg(viewId)}`, body, options);
  }
  async delete(projectId: string, viewId: string, options: CallOptions = {}): Promise<void> {
    await this.deleteAt(`/projects/${seg(projectId)}/views/${seg(viewId)}`, options);
  }
}
