import type { ListOptions, Paginated } from './pagination.js';
import { Collection, Resource, seg, type CallOptions } from './resource.js';
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

/**
 * `/v1/model-connections`: the organization's OpenAI-compatible endpoints for LLM-as-judge evaluators
 * (admins and owners only). The key and extra headers are sent once and never shown again (`apiKeyHint`,
 * `headerNames`).
 */
export class ModelConnectionsResource extends Collection<ModelConnection, CreateModelConnectionInput, UpdateModelConnectionInput, ModelConnectionFilters> {
  protected readonly path = '/model-connections';
  /**
   * Sends a tiny JSON-mode request through the connection: `ok`, or the problem and whether it is
   * retryable. One test at a time per connection: a 409 (with `retryAfter`) while another runs.
   */
  test(connectionId: string, options: CallOptions = {}): Promise<ModelConnectionTest> {
    return this.send('POST', `/model-connections/${seg(connectionId)}/test`, undefined, options);
  }
}
