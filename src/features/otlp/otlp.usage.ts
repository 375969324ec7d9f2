/**
 * Token counts of a span, from whichever convention carries them (exact names in
 * docs/design/otlp-ingestion-research.md). Cache and reasoning counts are parts of the input and output
 * counts, as in the GenAI conventions. Dependency-free.
 */

type Attributes = Record<string, unknown>;

export interface SpanUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cacheReadTokens: number | null;
  cacheCreationTokens: number | null;
  reasoningTokens: number | null;
}

const INPUT = [
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.prompt_tokens',
  'llm.token_count.prompt',
  'ai.usage.inputTokens',
  'ai.usage.promptTokens',
  'ai.usage.tokens',
];
const OUTPUT = [
  'gen_ai.usage.output_tokens',
  'gen_ai.usage.completion_tokens',
  'llm.token_count.completion',
  'ai.usage.outputTokens',
  'ai.usage.completionTokens',
];
const TOTAL = ['gen_ai.usage.total_tokens', 'llm.token_count.total', 'ai.usage.totalTokens', 'llm.usage.total_tokens'];
const CACHE_READ = [
  'gen_ai.usage.cache_read.input_tokens',
  'gen_ai.usage.cache_read_input_tokens',
  'llm.token_count.prompt_details.cache_read',
  'ai.usage.inputTokenDetails.cacheReadTokens',
  'ai.usage.cachedInputTokens',
];
const CACHE_CREATION = [
  'gen_ai.usage.cache_creation.input_tokens',
  'gen_ai.usage.cache_creation_input_tokens',
  'llm.token_count.prompt_details.cache_write',
  'ai.usage.inputTokenDetails.cacheWriteTokens',
];
const REASONING = [
  'gen_ai.usage.reasoning.output_tokens',
  'gen_ai.usage.reasoning_tokens',
  'llm.token_count.completion_details.reasoning',
  'ai.usage.outputTokenDetails.reasoningTokens',
  'ai.usage.reasoningTokens',
];

/** A count: a non-negative safe integer, as a number or as decimal text (64-bit attributes past 2^53 are text). */
function count(value: unknown): number | null {
  const n = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

function first(attributes: Attributes, keys: string[]): number | null {
  for (const key of keys) {
    const n = count(attributes[key]);
    if (n !== null) return n;
  }
  return null;
}

/**
 * The Vercel AI SDK's outer spans (`ai.generateText`, `ai.streamObject`, `ai.embedMany`…) carry the
 * sum of their model calls' usage; counting it there too would count every token twice.
 */
const VERCEL_OUTER = /^ai\.(generate|stream)(Text|Object)$|^ai\.embed(Many)?$/;

/** The span's usage, or null when it reports none (or is a summary of its children's). */
export function usageOf(spanName: string, attributes: Attributes): SpanUsage | null {
  const operation = typeof attributes['ai.operationId'] === 'string' ? attributes['ai.operationId'] : spanName;
  if (VERCEL_OUTER.test(operation)) return null;
  const input = first(attributes, INPUT);
  const output = first(attributes, OUTPUT);
  const total = first(attributes, TOTAL);
  if (input === null && output === null && total === null) return null;
  const inputTokens = input ?? (total !== null && output !== null ? Math.max(0, total - output) : 0);
  const outputTokens = output ?? (total !== null && input !== null ? Math.max(0, total - input) : 0);
  return {
    inputTokens,
    outputTokens,
    totalTokens: total ?? inputTokens + outputTokens,
    cacheReadTokens: first(attributes, CACHE_READ),
    cacheCreationTokens: first(attributes, CACHE_CREATION),
    reasoningTokens: first(attributes, REASONING),
  };
}
