/**
 * What Langfuse's SDKs say of a span in their own attributes (`langfuse.observation.*`,
 * `langfuse.trace.*`; docs/langfuse.md has the whole mapping): the observation's type as a run kind,
 * its usage and cost details, its level, its input and output. Dependency-free: attributes in, values out.
 */
import type { RUN_KINDS } from '../../schemas/records.js';
import { chatMessages } from './otlp.messages.js';
import type { SpanUsage } from './otlp.usage.js';
import { fromJsonText, jsonObject } from './otlp.values.js';

type Attributes = Record<string, unknown>;
type RunKind = (typeof RUN_KINDS)[number];

export const LANGFUSE_TYPE = 'langfuse.observation.type';
export const LANGFUSE_MODEL = 'langfuse.observation.model.name';
export const LANGFUSE_MODEL_PARAMETERS = 'langfuse.observation.model.parameters';
const USAGE_DETAILS = 'langfuse.observation.usage_details';
const COST_DETAILS = 'langfuse.observation.cost_details';
const LEVEL = 'langfuse.observation.level';
const STATUS_MESSAGE = 'langfuse.observation.status_message';

/** The attributes whose values become the run's inputs and outputs (not repeated in its metadata). */
const OBSERVATION_INPUT = 'langfuse.observation.input';
const OBSERVATION_OUTPUT = 'langfuse.observation.output';
const TRACE_INPUT = 'langfuse.trace.input';
const TRACE_OUTPUT = 'langfuse.trace.output';
export const LANGFUSE_IO_KEYS = [OBSERVATION_INPUT, OBSERVATION_OUTPUT, TRACE_INPUT, TRACE_OUTPUT];

/**
 * Observation types as run kinds. `span` and `event` are Langfuse's untyped observations, and
 * `evaluator` and `guardrail` have no kind of their own: another convention the span speaks decides,
 * else `custom` (the type stays in metadata).
 */
const KINDS: Record<string, RunKind> = {
  generation: 'llm',
  embedding: 'embedding',
  agent: 'agent',
  tool: 'tool',
  chain: 'chain',
  retriever: 'retriever',
};

/** The run kind Langfuse's observation type names, or null. */
export function langfuseKind(attributes: Attributes): RunKind | null {
  const type = attributes[LANGFUSE_TYPE];
  // Exact lowercase values only, as Langfuse maps them.
  return typeof type === 'string' && Object.hasOwn(KINDS, type) ? KINDS[type]! : null;
}

/** A token count as Langfuse takes one: a non-negative integer, or text of one. */
function count(value: unknown): number | null {
  const n = typeof value === 'string' && /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

const ONLY = (keys: string[], allowed: readonly string[]) => keys.every((key) => allowed.includes(key));
const OPENAI_CHAT = ['prompt_tokens', 'completion_tokens', 'total_tokens', 'prompt_tokens_details', 'completion_tokens_details'];
const OPENAI_RESPONSES = ['input_tokens', 'output_tokens', 'total_tokens', 'input_tokens_details', 'output_tokens_details'];

/** The first count of `details` under one of `keys`. */
function firstCount(details: Record<string, unknown> | null, keys: readonly string[]): number | null {
  for (const key of keys) {
    const n = count(details?.[key]);
    if (n !== null) return n;
  }
  return null;
}

/**
 * The usage of `langfuse.observation.usage_details` (JSON text of an object), read as Langfuse reads it.
 * OpenAI's usage objects (Chat Completions' `prompt_tokens`, `completion_tokens`, `total_tokens` and
 * their details; the Responses API's `input_tokens`, …) as OpenAI means them: the prompt count includes
 * the cached tokens, and their details give the cache reads and the reasoning tokens. Any other object
 * is Langfuse's own: every key whose name holds `input` counts as input (`input`, `input_cached_tokens`,
 * `cache_read_input_tokens`, …), every key holding `output` as output, and `total` is the total, else
 * the sum of every count. Cache reads, cache writes and reasoning are the keys Langfuse's integrations
 * write them under.
 */
export function langfuseUsage(attributes: Attributes): SpanUsage | null {
  const details = jsonObject(attributes[USAGE_DETAILS]);
  if (!details) return null;
  const keys = Object.keys(details);
  const chat = ONLY(keys, OPENAI_CHAT) && keys.includes('prompt_tokens');
  if (chat || (ONLY(keys, OPENAI_RESPONSES) && keys.includes('input_tokens'))) {
    const input = count(details[chat ? 'prompt_tokens' : 'input_tokens']) ?? 0;
    const output = count(details[chat ? 'completion_tokens' : 'output_tokens']) ?? 0;
    const inputDetails = jsonObject(details[chat ? 'prompt_tokens_details' : 'input_tokens_details']);
    const outputDetails = jsonObject(details[chat ? 'completion_tokens_details' : 'output_tokens_details']);
    return {
      inputTokens: input,
      outputTokens: output,
      totalTokens: count(details.total_tokens) ?? input + output,
      cacheReadTokens: firstCount(inputDetails, ['cached_tokens']),
      cacheCreationTokens: null,
      reasoningTokens: firstCount(outputDetails, ['reasoning_tokens']),
    };
  }
  let input: number | null = null;
  let output: number | null = null;
  let sum = 0;
  for (const key of keys) {
    const n = count(details[key]);
    if (n === null || key === 'total') continue;
    sum += n;
    if (/input/i.test(key)) input = (input ?? 0) + n;
    else if (/output/i.test(key)) output = (output ?? 0) + n;
  }
  const total = count(details.total);
  if (input === null && output === null && total === null) return null;
  return {
    inputTokens: input ?? 0,
    outputTokens: output ?? 0,
    totalTokens: total ?? sum,
    cacheReadTokens: firstCount(details, ['input_cached_tokens', 'input_cache_read', 'cache_read_input_tokens']),
    cacheCreationTokens: firstCount(details, ['input_cache_creation', 'input_cache_write', 'cache_creation_input_tokens']),
    reasoningTokens: firstCount(details, ['output_reasoning_tokens', 'output_reasoning']),
  };
}

/**
 * The cost of `langfuse.observation.cost_details` (JSON text, USD), as Langfuse totals it: its `total`,
 * else `input` + `output` when those are all it has; null otherwise (the run is then priced from its
 * model and usage, when it can be).
 */
export function langfuseCost(attributes: Attributes): number | null {
  const details = jsonObject(attributes[COST_DETAILS]);
  if (!details) return null;
  const amount = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null);
  const total = amount(details.total);
  if (total !== null) return total;
  const kept = Object.keys(details).filter((key) => amount(details[key]) !== null);
  if (kept.length === 0 || !ONLY(kept, ['input', 'output'])) return null;
  return (amount(details.input) ?? 0) + (amount(details.output) ?? 0);
}

const LEVELS: Record<string, 'DEBUG' | 'DEFAULT' | 'WARNING' | 'ERROR'> = {
  DEBUG: 'DEBUG',
  TRACE: 'DEBUG',
  VERBOSE: 'DEBUG',
  DEFAULT: 'DEFAULT',
  INFO: 'DEFAULT',
  LOG: 'DEFAULT',
  NOTICE: 'DEFAULT',
  OK: 'DEFAULT',
  SUCCESS: 'DEFAULT',
  WARNING: 'WARNING',
  WARN: 'WARNING',
  ERROR: 'ERROR',
  FATAL: 'ERROR',
  CRITICAL: 'ERROR',
};

/** `langfuse.observation.level` as Langfuse reads it (aliases such as `WARN` or `FATAL` included), or null. */
export function langfuseLevel(attributes: Attributes): 'DEBUG' | 'DEFAULT' | 'WARNING' | 'ERROR' | null {
  const level = attributes[LEVEL];
  const name = typeof level === 'string' ? level.trim().toUpperCase() : '';
  return Object.hasOwn(LEVELS, name) ? LEVELS[name]! : null;
}

/**
 * What Langfuse's level says of the outcome, where it says something: a level decides over the span's
 * status, as in Langfuse (`ERROR` fails the run with the status message, else the span's; any other
 * level is a success). Undefined without a level.
 */
export function langfuseOutcome(
  attributes: Attributes,
  statusMessage: string | null,
): { status: 'succeeded' } | { status: 'failed'; error: string } | undefined {
  const level = langfuseLevel(attributes);
  if (level === null) return undefined;
  if (level !== 'ERROR') return { status: 'succeeded' };
  const message = attributes[STATUS_MESSAGE];
  const error = typeof message === 'string' && message !== '' ? message : statusMessage;
  return { status: 'failed', error: error || 'The observation ended with level ERROR.' };
}

/**
 * The span's input or output in Langfuse's attributes: the observation's, else the trace's (set on the
 * span that carries it, usually the root); a model call's chat messages as messages, its text answer as
 * one assistant message. Undefined when Langfuse's SDK sent none.
 */
export function langfuseIo(attributes: Attributes, side: 'input' | 'output', kind: RunKind): unknown {
  // Constant keys: a key built per call is hashed per lookup, in attributes that are dictionaries.
  const raw = side === 'input' ? (attributes[OBSERVATION_INPUT] ?? attributes[TRACE_INPUT]) : (attributes[OBSERVATION_OUTPUT] ?? attributes[TRACE_OUTPUT]);
  if (raw === undefined) return undefined;
  const value = fromJsonText(raw, raw);
  if (kind !== 'llm') return value;
  const messages = chatMessages(value);
  if (messages) return { messages };
  if (side === 'output' && typeof value === 'string') return { messages: [{ role: 'assistant', parts: [{ type: 'text', content: value }] }] };
  return value;
}

/** `langfuse.observation.model.parameters` as the object it is (Langfuse's SDKs send it as JSON text), for metadata. */
export function langfuseModelParameters(attributes: Attributes): Record<string, unknown> | null {
  return jsonObject(attributes[LANGFUSE_MODEL_PARAMETERS]);
}
