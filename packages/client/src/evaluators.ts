import type { ListOptions, Paginated } from './pagination.js';
import { Resource, seg, type CallOptions } from './resource.js';
import type {
  CreateEvaluatorRuleInput,
  CreateModelConnectionInput,
  EvaluatorRule,
  ModelConnection,
  ModelConnectionFilters,
  ModelConnectionTest,
  UpdateEvaluatorRuleInput,
  UpdateModelConnectionInput,
} from './types.js';

/**
 * `/v1/projects/{id}/evaluators`: rules that score a project's new runs in the background (a runs
 * filter, a sampling rate, an evaluator); their results are scores with source `evaluator`.
 */
export class EvaluatorsResource extends Resource {
  /** Newest first, each with its jobs counted by status. */
  list(projectId: string, options: ListOptions = {}): Paginated<EvaluatorRule> {
    return this.paginate<EvaluatorRule>(`/projects/${seg(projectId)}/evaluators`, {}, options);
  }
  /** Admins: from now on, new runs are sampled at `sampleRate` and those matching `filter` scored by `evaluator`. */
  create(projectId: string, body: CreateEvaluatorRuleInput, options: CallOptions = {}): Promise<EvaluatorRule> {
    return this.send('POST', `/projects/${seg(projectId)}/evaluators`, body, options);
  }
  /** With its jobs by status (pending, done, failed, skipped) and its latest failure. */
  get(projectId: string, ruleId: string, options: CallOptions = {}): Promise<EvaluatorRule> {
    return this.read(`/projects/${seg(projectId)}/evaluators/${seg(ruleId)}`, options);
  }
  update(projectId: string, ruleId: string, body: UpdateEvaluatorRuleInput, options: CallOptions = {}): Promise<EvaluatorRule> {
    return this.send('PATCH', `/projects/${seg(projectId)}/evaluators/${seg(ruleId)}`, body, options);
  }
  /** Deletes the rule with its jobs (admins); the scores it gave stay. */
  async delete(projectId: string, ruleId: string, options: CallOptions = {}): Promise<void> {
    await this.deleteAt(`/projects/${seg(projectId)}/evaluators/${seg(ruleId)}`, options);
  }
}

/** `/v1/model-connections`: the organization's OpenAI-compatible endpoints for LLM-as-judge evaluators (admins and owners only). */
export class ModelConnectionsResource extends Resource {
  list(filters: ModelConnectionFilters = {}, options: ListOptions = {}): Paginated<ModelConnection> {
    return this.paginate<ModelConnection>('/model-connections', filters, options);
  }
  /** The key and extra headers are sent once and never shown again (`apiKeyHint`, `headerNames`). */
  create(body: CreateModelConnectionInput, options: CallOptions = {}): Promise<ModelConnection> {
    return this.send('POST', '/model-connections', body, options);
  }
  get(connectionId: string, options: CallOptions = {}): Promise<ModelConnection> {
    return this.read(`/model-connections/${seg(connectionId)}`, options);
  }
  update(connectionId: string, body: UpdateModelConnectionInput, options: CallOptions = {}): Promise<ModelConnection> {
    return this.send('PATCH', `/model-connections/${seg(connectionId)}`, body, options);
  }
  async delete(connectionId: string, options: CallOptions = {}): Promise<void> {
    await this.deleteAt(`/model-connections/${seg(connectionId)}`, options);
  }
  /**
   * Sends a tiny JSON-mode request through the connection: `ok`, or the problem and whether it is
   * retryable. One test at a time per connection: a 409 (with `retryAfter`) while another runs.
   */
  test(connectionId: string, options: CallOptions = {}): Promise<ModelConnectionTest> {
    return this.send('POST', `/model-connections/${seg(connectionId)}/test`, undefined, options);
  }
}
