import { Transport, type ClientOptions } from './http.js';
import { Tracer, type TracerOptions } from './tracer.js';
import { runExperiment, type ExperimentSummary, type RunExperimentOptions } from './experiments.js';
import { MeResource, ModelsResource, OrganizationResource, TokensResource } from './organization.js';
import { EndUsersResource, ProjectsResource, RunsResource, SavedViewsResource, SessionsResource, TracesResource } from './records.js';
import { PromptsResource } from './prompts.js';
import { MonitorsResource } from './monitors.js';
import { AnnotationQueuesResource, ScoreConfigsResource, ScoresResource } from './scores.js';
import { DatasetsResource, ExperimentsResource } from './datasets.js';
import { EvaluatorsResource, ModelConnectionsResource } from './evaluators.js';

export type { CallOptions } from './resource.js';
export type { ClientOptions } from './http.js';

/**
 * The Sightline API client: one property per resource (`client.runs`, `client.prompts.versions`, …),
 * each method one endpoint, every call through one transport (retries, token renewal).
 *
 * ```ts
 * const client = new Sightline({ baseUrl: 'https://sightline.example.com', token: process.env.SIGHTLINE_TOKEN! });
 * for await (const run of client.runs.list(projectId, { status: 'failed' })) console.log(run.id);
 * ```
 */
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
