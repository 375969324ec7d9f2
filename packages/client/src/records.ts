import { inBatches, withRunIds } from './batch.js';
import { Exported, type ExportOptions } from './export.js';
import type { ListOptions, Paginated } from './pagination.js';
import { Collection, ProjectCollection, ProjectList, Resource, seg, type CallOptions } from './resource.js';
import type {
  ActivityFilters,
  AddRunToDatasetInput,
  CreateProjectInput,
  CreateSavedViewInput,
  DatasetItem,
  EndUser,
  EndUserDetail,
  FieldValue,
  Project,
  ProjectFilters,
  Run,
  RunBatchResult,
  RunCreate,
  RunFilters,
  RunMetrics,
  RunMetricsQuery,
  RunPatch,
  RunValuesQuery,
  SavedView,
  SavedViewFilters,
  Session,
  SessionDetail,
  Trace,
  TraceDetail,
  TraceFilters,
  TraceMetrics,
  TraceMetricsQuery,
  UpdateProjectInput,
  UpdateSavedViewInput,
} from './types.js';

/** `/v1/projects`. Deleting a project (admins) deletes its runs and monitors. */
export class ProjectsResource extends Collection<Project, CreateProjectInput, UpdateProjectInput, ProjectFilters> {
  protected readonly path = '/projects';
}

/** `/v1/projects/{id}/runs`. */
export class RunsResource extends Resource {
  /** Newest first (`order: 'asc'`: oldest first); filters combine with AND (`tag` all must match, `parentRunId: null` = roots). */
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
   * The distinct values of a run field, in code-point order, for a filter's picker: `name`, `model`, `tag`,
   * `userId`, `sessionId`, `metadataKey`, or `metadataValue` of the metadata key `key`; `prefix` keeps those
   * that start with it (case-sensitive).
   */
  values(projectId: string, query: RunValuesQuery, options: ListOptions = {}): Paginated<FieldValue> {
    return this.paginate<FieldValue>(`/projects/${seg(projectId)}/runs/values`, query, options);
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
  /** Newest first (`order: 'asc'`: oldest first); each trace with its totals and its root's previews. */
  list(projectId: string, filters: TraceFilters = {}, options: ListOptions = {}): Paginated<Trace> {
    return this.paginate<Trace>(`/projects/${seg(projectId)}/traces`, filters, options);
  }
  /** Every trace the filters select, streamed and resumable like `runs.export`. */
  export(projectId: string, filters: TraceFilters = {}, options: ExportOptions = {}): Exported<Trace> {
    return new Exported<Trace>(this.http, `/projects/${seg(projectId)}/traces/export`, filters, (trace) => trace.traceId, options);
  }
  /** Traces that started within [from, to) counted, with those holding a failed run, latency percentiles and their whole runs' tokens and cost. */
  metrics(projectId: string, query: TraceMetricsQuery = {}, options: CallOptions = {}): Promise<TraceMetrics> {
    return this.read(`/projects/${seg(projectId)}/traces/metrics`, options, query);
  }
  /** A trace's totals and its runs in tree order. */
  get(projectId: string, traceId: string, options: CallOptions = {}): Promise<TraceDetail> {
    return this.read(`/projects/${seg(projectId)}/traces/${seg(traceId)}`, options);
  }
}

/**
 * `/v1/projects/{id}/sessions`: conversations, newest activity first (with filters, those with a run that
 * matches them all); one is its totals and its traces, oldest first.
 */
export class SessionsResource extends ProjectList<Session, ActivityFilters, SessionDetail> {
  protected readonly name = 'sessions';
}

/**
 * `/v1/projects/{id}/users`: the end users an application serves, newest activity first (with filters,
 * those with a run that matches them all); one is their totals and their traces, oldest first.
 */
export class EndUsersResource extends ProjectList<EndUser, ActivityFilters, EndUserDetail> {
  protected readonly name = 'users';
}

/** `/v1/projects/{id}/views`: your own named filter sets for a project's lists, newest first (`page` keeps one list's views). */
export class SavedViewsResource extends ProjectCollection<SavedView, CreateSavedViewInput, UpdateSavedViewInput, SavedViewFilters> {
  protected readonly name = 'views';
}
