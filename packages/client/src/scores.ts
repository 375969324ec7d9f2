import { inBatches, withScoreIds } from './batch.js';
import type { ListOptions, Paginated } from './pagination.js';
import { Collection, Resource, seg, type CallOptions } from './resource.js';
import type {
  AddAnnotationItemsInput,
  AnnotationItem,
  AnnotationItemCompleted,
  AnnotationItemFilters,
  AnnotationItemsAdded,
  AnnotationQueue,
  CompleteAnnotationItemInput,
  CreateAnnotationQueueInput,
  CreateScoreConfigInput,
  FieldValue,
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
  ScoreValuesQuery,
  UpdateAnnotationQueueInput,
  UpdateScoreConfigInput,
} from './types.js';

/** `/v1/projects/{id}/scores`: judgments on runs, traces and sessions. */
export class ScoresResource extends Resource {
  /**
   * Scores a run, a trace or a session. The score gets a client id when it lacks one, so a retried
   * request never scores twice (the same content again answers the stored score).
   */
  create(projectId: string, target: ScoreTarget, score: ScoreCreate, options: CallOptions = {}): Promise<Score> {
    const [path, id] = 'runId' in target ? ['runs', target.runId] : 'traceId' in target ? ['traces', target.traceId] : ['sessions', target.sessionId];
    const [body] = withScoreIds([score]);
    return this.send('POST', `/projects/${seg(projectId)}/${path}/${seg(id)}/scores`, body, options, true);
  }
  /**
   * Creates many scores, each naming its target: one result per score, in order (`created`,
   * `existing` or `rejected` with its own problem); client ids make retries safe; more than 1,000 go as
   * several requests, in order.
   */
  async batch(projectId: string, scores: readonly ScoreBatchItem[], options: CallOptions = {}): Promise<ScoreBatchResult> {
    const path = `/projects/${seg(projectId)}/scores/batch`;
    return inBatches(withScoreIds(scores), (chunk) => this.send<ScoreBatchResult>('POST', path, { scores: chunk }, options, true));
  }
  /** Newest first; `traceId` gives a trace's scores and its runs'. */
  list(projectId: string, filters: ScoreFilters = {}, options: ListOptions = {}): Paginated<Score> {
    return this.paginate<Score>(`/projects/${seg(projectId)}/scores`, filters, options);
  }
  /** Counts, means and label shares of the scores the filters select, within [from, to) of their createdAt, per bucket and group. */
  metrics(projectId: string, query: ScoreMetricsQuery = {}, options: CallOptions = {}): Promise<ScoreMetrics> {
    return this.read(`/projects/${seg(projectId)}/scores/metrics`, options, query);
  }
  /** The distinct score names of the project, in code-point order, for a filter's picker; `prefix` keeps those that start with it (case-sensitive). */
  values(projectId: string, query: ScoreValuesQuery = { field: 'name' }, options: ListOptions = {}): Paginated<FieldValue> {
    return this.paginate<FieldValue>(`/projects/${seg(projectId)}/scores/values`, query, options);
  }
  get(projectId: string, scoreId: string, options: CallOptions = {}): Promise<Score> {
    return this.read(`/projects/${seg(projectId)}/scores/${seg(scoreId)}`, options);
  }
  /** By its author or an admin. */
  update(projectId: string, scoreId: string, body: ScoreUpdate, options: CallOptions = {}): Promise<Score> {
    return this.send('PATCH', `/projects/${seg(projectId)}/scores/${seg(scoreId)}`, body, options);
  }
  async delete(projectId: string, scoreId: string, options: CallOptions = {}): Promise<void> {
    await this.deleteAt(`/projects/${seg(projectId)}/scores/${seg(scoreId)}`, options);
  }
}

/** `/v1/score-configs`: what the scores of a name may be (admins and owners write them). */
export class ScoreConfigsResource extends Collection<ScoreConfig, CreateScoreConfigInput, UpdateScoreConfigInput, ScoreConfigFilters> {
  protected readonly path = '/score-configs';
}

const queuePath = (projectId: string, queueId?: string): string =>
  `/projects/${seg(projectId)}/annotation-queues${queueId === undefined ? '' : `/${seg(queueId)}`}`;

/** `/v1/projects/{id}/annotation-queues/{id}/items`: the runs or traces a queue holds. */
class AnnotationItemsResource extends Resource {
  /** Newest first; `status` keeps one status's items. */
  list(projectId: string, queueId: string, filters: AnnotationItemFilters = {}, options: ListOptions = {}): Paginated<AnnotationItem> {
    return this.paginate<AnnotationItem>(`${queuePath(projectId, queueId)}/items`, filters, options);
  }
  /**
   * Puts runs or traces in the queue: `{ ids }` (all must exist, else a 400 lists the missing and nothing
   * is added), `{ filter, limit? }` (the newest the runs list gives for the filter) or `{ filter, rate }`
   * (a sample that is the same each time). A target already there counts as `existing`, so a retry is safe.
   */
  add(projectId: string, queueId: string, body: AddAnnotationItemsInput, options: CallOptions = {}): Promise<AnnotationItemsAdded> {
    return this.send('POST', `${queuePath(projectId, queueId)}/items`, body, options, true);
  }
}

/** `/v1/projects/{id}/annotation-queues`: runs or traces for people to score, one claimed item at a time. */
export class AnnotationQueuesResource extends Resource {
  readonly items = new AnnotationItemsResource(this.http);
  /** Newest first, each with its counts. */
  list(projectId: string, options: ListOptions = {}): Paginated<AnnotationQueue> {
    return this.paginate<AnnotationQueue>(queuePath(projectId), {}, options);
  }
  create(projectId: string, body: CreateAnnotationQueueInput, options: CallOptions = {}): Promise<AnnotationQueue> {
    return this.send('POST', queuePath(projectId), body, options);
  }
  /** With its counts: pending, inProgress (held under a lease), completed, skipped. */
  get(projectId: string, queueId: string, options: CallOptions = {}): Promise<AnnotationQueue> {
    return this.read(queuePath(projectId, queueId), options);
  }
  update(projectId: string, queueId: string, body: UpdateAnnotationQueueInput, options: CallOptions = {}): Promise<AnnotationQueue> {
    return this.send('PATCH', queuePath(projectId, queueId), body, options);
  }
  /** Deletes the queue with its items (admins); the scores given in it stay. */
  async delete(projectId: string, queueId: string, options: CallOptions = {}): Promise<void> {
    await this.deleteAt(queuePath(projectId, queueId), options);
  }
  /**
   * The next item for you to review, leased to you for 10 minutes (the one you hold already, renewed,
   * so a retry is safe); null when none is left.
   */
  async claim(projectId: string, queueId: string, options: CallOptions = {}): Promise<AnnotationItem | null> {
    return (await this.send<AnnotationItem | null>('POST', `${queuePath(projectId, queueId)}/claim`, undefined, options, true)) ?? null;
  }
  /** Completes an item you hold with its scores (all stored, or none when one is refused); a 409 when you do not hold it. */
  complete(projectId: string, queueId: string, itemId: string, body: CompleteAnnotationItemInput, options: CallOptions = {}): Promise<AnnotationItemCompleted> {
    return this.send('POST', `${queuePath(projectId, queueId)}/items/${seg(itemId)}/complete`, body, options);
  }
  /** Skips an item you hold (no scores); a 409 when you do not hold it. */
  skip(projectId: string, queueId: string, itemId: string, options: CallOptions = {}): Promise<AnnotationItem> {
    return this.send('POST', `${queuePath(projectId, queueId)}/items/${seg(itemId)}/skip`, undefined, options);
  }
}
