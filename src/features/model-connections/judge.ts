import type { Deps } from '../../deps.js';
import type { ModelConnectionRow } from '../../db/schema.js';
import { Problem } from '../../lib/problems.js';
import { AnswerTooLarge, postJsonForAnswer, PostTimeout, TargetRefused } from '../../lib/webhook-target.js';
import { costOf, organizationPrices, priceFor, type Prices, type TokenUsage } from '../models/index.js';
import { extractVariables, getVersion, renderTemplate, requirePrompt, type Template } from '../prompts/index.js';
import { MAX_COMMENT } from '../scores/index.js';
import { addSpend, requireModelConnection } from './model-connections.repo.js';
import { chatCompletionsUrl, fromPico, monthOf, quoteSafely, toPico } from './model-connections.rules.js';

/**
 * LLM-as-judge (docs/evaluators-and-model-connections.md: Model connections): a prompt of the prompt store rendered with a run's input,
 * output and expected output, sent to an organization's OpenAI-compatible model connection, and the
 * score read from its JSON answer `{ score, reason }`. Every call goes through the SSRF guard (at the
 * time of the call, with the address it resolved to), is bounded in time (`SIGHTLINE_MODEL_TIMEOUT_SECONDS`)
 * and in the size of its answer (1 MiB), and stops when the caller's signal aborts. What it cost is added
 * to the connection's month; once that reaches the budget, no call is made. The key is never logged and
 * never in an error's message: what the endpoint sent is quoted through `quoteSafely` (secrets
 * replaced, then clipped).
 */

/** What a judge call needs of the service (a route's or a worker's `Deps`). */
export type JudgeDeps = Pick<Deps, 'config' | 'db' | 'clock' | 'keys'>;

export interface JudgeRequest {
  organizationId: string;
  connectionId: string;
  /** A prompt of the organization's prompt store (prompts are organization-wide): its version, else the one its label points at, else its latest. */
  prompt: { name: string; version?: number; label?: string };
  /** The project of the run judged (prompts and connections are the organization's: it does not select them). */
  projectId: string;
  variables: { input: string; output: string; expected: string };
}

export interface JudgeVerdict {
  score: number | boolean | string;
  reason: string | null;
  costUsd: number;
}

/** Why a judge call failed; `retryable`: the same call may succeed later (429, 5xx, a timeout, the network). */
export class JudgeError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'JudgeError';
  }
}

/** The most of an answer that is read. */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** The variables a judge prompt may use. */
const JUDGE_VARIABLES = ['input', 'output', 'expected'] as const;

export interface ChatMessage {
  role: string;
  content: string;
}

/** A chat completion to ask: the model, the messages and other fields of the request (`temperature`, …). */
export interface ChatCall {
  model: string;
  messages: ChatMessage[];
  options?: Record<string, unknown>;
}

/** Quotes what the endpoint sent in a message, at most `max` characters, without the connection's secrets (`quoteSafely`). */
export type Quote = (text: string, max: number) => string;

export interface ChatAnswer {
  /** The first choice's message content. */
  content: string;
  costUsd: number;
  /** Quotes the content (or any text of this answer) in a message. */
  quote: Quote;
}

/** What a call saw, for a report (the connection test): the answer's HTTP status. */
export interface CallTrace {
  status: number | null;
}

/** The price of a call's tokens: the connection's own pricing, else the model price table's (null: none known). */
async function priceOf(deps: JudgeDeps, row: ModelConnectionRow, model: string): Promise<Prices | null> {
  if (row.input_price !== null && row.output_price !== null) {
    return { inputPrice: Number(row.input_price), outputPrice: Number(row.output_price), cacheReadPrice: null, cacheWritePrice: null, reasoningPrice: null };
  }
  return priceFor(model, null, deps.clock.now(), await organizationPrices(deps.db, row.organization_id));
}

/** The usage an OpenAI-compatible answer reports, as the price table counts tokens. */
function usageOf(answer: Record<string, unknown>): TokenUsage {
  const usage = (answer.usage ?? {}) as {
    prompt_tokens?: unknown;
    completion_tokens?: unknown;
    prompt_tokens_details?: { cached_tokens?: unknown };
    completion_tokens_details?: { reasoning_tokens?: unknown };
  };
  const n = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);
  return {
    promptTokens: n(usage.prompt_tokens),
    completionTokens: n(usage.completion_tokens),
    cacheReadTokens: n(usage.prompt_tokens_details?.cached_tokens),
    reasoningTokens: n(usage.completion_tokens_details?.reasoning_tokens),
  };
}

function errorMessageOf(body: string): string {
  try {
    const json = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof json.error === 'string' ? json.error : (json.error?.message ?? json.message);
    if (typeof message === 'string' && message !== '') return message;
  } catch {
    // not JSON: the text itself
  }
  return body.trim();
}

function networkFault(error: unknown, timeoutSeconds: number, signal: AbortSignal): JudgeError {
  if (error instanceof TargetRefused) return new JudgeError(`The model endpoint is refused: ${error.message}`, false);
  if (error instanceof AnswerTooLarge) return new JudgeError(`The model endpoint's answer is larger than ${MAX_ANSWER_BYTES} bytes.`, false);
  if (error instanceof PostTimeout) return new JudgeError(`The model endpoint did not answer within ${timeoutSeconds} s.`, true);
  if (signal.aborted) return new JudgeError('The call to the model endpoint was aborted.', true);
  const code = (error as { code?: unknown }).code;
  return new JudgeError(`Could not reach the model endpoint: ${typeof code === 'string' ? code : (error as Error).message}.`, true);
}

/**
 * One chat completion through a connection, in JSON mode: refused without a call when the month's
 * spend has reached the budget (or no price is known for the model); its cost added to the month.
 */
export async function callModel(
  deps: JudgeDeps,
  organizationId: string,
  connectionId: string,
  call: (row: ModelConnectionRow) => ChatCall,
  signal: AbortSignal,
  trace: CallTrace = { status: null },
): Promise<ChatAnswer> {
  const row = await requireModelConnection(deps.db, organizationId, connectionId).catch((error: unknown) => {
    throw error instanceof Problem && error.status === 404 ? new JudgeError(error.detail, false) : error;
  });
  const month = monthOf(deps.clock.now());
  const spent = row.spent_month === month ? Number(row.spent_picousd) : 0;
  const budget = Number(row.monthly_budget_usd);
  if (spent >= toPico(budget)) {
    throw new JudgeError(`Budget exhausted: the model connection "${row.name}" has spent $${fromPico(spent)} of its $${budget} budget for ${month}.`, false);
  }
  const { model, messages, options } = call(row);
  const price = await priceOf(deps, row, model);
  if (!price) throw new JudgeError(`No price is known for the model "${model}": give the model connection "${row.name}" its pricing.`, false);

  const apiKey = row.api_key === null ? null : await deps.keys.unseal(row.api_key);
  const extra = row.headers === null ? {} : (JSON.parse(await deps.keys.unseal(row.headers)) as Record<string, string>);
  const secrets = [...(apiKey === null ? [] : [apiKey]), ...Object.values(extra)];
  const quote: Quote = (text, max) => quoteSafely(text, secrets, max);
  const headers: Record<string, string> = { ...extra, accept: 'application/json', ...(apiKey === null ? {} : { authorization: `Bearer ${apiKey}` }) };
  const body = JSON.stringify({ ...options, model, messages, response_format: { type: 'json_object' } });
  const timeoutSeconds = deps.config.modelTimeoutSeconds;
  const answer = await postJsonForAnswer(chatCompletionsUrl(row.base_url), body, headers, {
    timeoutMs: timeoutSeconds * 1000,
    allowPrivate: deps.config.modelAllowPrivate,
    signal,
    maxResponseBytes: MAX_ANSWER_BYTES,
    userAgent: 'Sightline-Judge/1',
  }).catch((error: unknown) => {
    throw networkFault(error, timeoutSeconds, signal);
  });
  trace.status = answer.status;
  const text = answer.body.toString('utf8');
  if (answer.status < 200 || answer.status > 299) {
    const retryable = answer.status === 408 || answer.status === 429 || answer.status >= 500;
    throw new JudgeError(`The model endpoint answered ${answer.status}: ${quote(errorMessageOf(text) || '(no body)', 300)}`, retryable);
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
    if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new Error('not an object');
  } catch {
    throw new JudgeError(`The model endpoint's answer is not a chat completion (JSON): ${quote(text, 300)}`, false);
  }
  // Paid for once answered: the cost counts whatever the content turns out to be.
  const pico = toPico(costOf(usageOf(json), price));
  if (pico > 0) await addSpend(deps.db, organizationId, connectionId, monthOf(deps.clock.now()), pico);
  const content = (json.choices as { message?: { content?: unknown } }[] | undefined)?.[0]?.message?.content;
  if (typeof content !== 'string') throw new JudgeError('The model endpoint’s answer has no message content.', false);
  return { content, costUsd: fromPico(pico), quote };
}

/** A model's JSON content: the object itself, or one inside a Markdown code fence (some models add one). */
export function parseJsonContent(content: string): Record<string, unknown> | null {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(content);
  try {
    const value = JSON.parse(fenced ? fenced[1]! : content) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The verdict in a model's content `{ score, reason }`: a number, a boolean or a category (1..100 characters). */
function verdictOf({ content, costUsd, quote }: ChatAnswer): JudgeVerdict {
  const json = parseJsonContent(content);
  if (!json) throw new JudgeError(`The model's answer is not a JSON object: ${quote(content, 200)}`, false);
  const { score, reason } = json;
  const valid =
    (typeof score === 'number' && Number.isFinite(score)) ||
    typeof score === 'boolean' ||
    (typeof score === 'string' && score.trim() !== '' && score.length <= 100);
  if (!valid) {
    throw new JudgeError(
      score === undefined
        ? `The model's answer has no score: ${quote(content, 200)}`
        : `The model's score must be a number, true or false, or a category of 1 to 100 characters: ${quote(JSON.stringify(score), 200)}`,
      false,
    );
  }
  const why =
    typeof reason === 'string' ? reason.slice(0, MAX_COMMENT) : reason === undefined || reason === null ? null : JSON.stringify(reason).slice(0, MAX_COMMENT);
  return { score: score as number | boolean | string, reason: why, costUsd };
}

/** The prompt's messages with the run's values in `{{input}}`, `{{output}}` and `{{expected}}`. */
function render(template: Template, variables: JudgeRequest['variables'], promptName: string): ChatMessage[] {
  const used = extractVariables(template);
  const unknown = used.filter((name) => !(JUDGE_VARIABLES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new JudgeError(
      `The prompt "${promptName}" uses ${unknown.map((name) => `{{${name}}}`).join(', ')}: a judge prompt may use only {{input}}, {{output}} and {{expected}}.`,
      false,
    );
  }
  const rendered = renderTemplate(template, Object.fromEntries(used.map((name) => [name, variables[name as keyof typeof variables]])));
  return typeof rendered === 'string' ? [{ role: 'user', content: rendered }] : rendered;
}

/** The prompt version a request names (by version, else label, else the latest), as the prompt store resolves it. */
async function promptOf(deps: JudgeDeps, request: JudgeRequest) {
  const { name, version, label } = request.prompt;
  try {
    const prompt = await requirePrompt(deps.db, request.organizationId, name);
    const row = await getVersion(deps.db, prompt.id, String(version ?? label ?? prompt.latest_version));
    return { template: JSON.parse(row.template) as Template, config: JSON.parse(row.config) as Record<string, unknown> };
  } catch (error) {
    if (error instanceof Problem && error.status === 404) {
      const which = version !== undefined ? `version ${version} of ` : label !== undefined ? `label "${label}" of ` : '';
      throw new JudgeError(`The judge prompt ${which}"${name}" does not exist.`, false);
    }
    throw error;
  }
}

/** The prompt config's model settings that go into the request (its `model` replaces the connection's). */
function optionsOf(config: Record<string, unknown>): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const key of ['temperature', 'top_p', 'max_tokens', 'max_completion_tokens', 'seed'] as const)
    if (typeof config[key] === 'number') options[key] = config[key];
  return options;
}

/** Judges one output: see the module comment. Throws only `JudgeError`s for what the call met (and errors of the database). */
export async function runJudge(deps: JudgeDeps, request: JudgeRequest, signal: AbortSignal): Promise<JudgeVerdict> {
  const { template, config } = await promptOf(deps, request);
  const messages = render(template, request.variables, request.prompt.name);
  const answer = await callModel(
    deps,
    request.organizationId,
    request.connectionId,
    (row) => ({ model: typeof config.model === 'string' && config.model !== '' ? config.model : row.model, messages, options: optionsOf(config) }),
    signal,
  );
  return verdictOf(answer);
}
