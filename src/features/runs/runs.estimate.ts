import { type EstimateBudget, estimateTokens, MAX_RUN_CHARS } from '../models/index.js';
import type { UsageInput } from './runs.rules.js';

/** Runs a model ran: what a run without usage has its tokens estimated for. */
const MODEL_KINDS: ReadonlySet<unknown> = new Set(['llm', 'embedding']);

/** Whether a run as sent (not yet validated) would have its tokens estimated: a model run with inputs or outputs and no usage. */
export function needsEstimate(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null) return false;
  const run = raw as { kind?: unknown; usage?: unknown; inputs?: unknown; outputs?: unknown };
  return MODEL_KINDS.has(run.kind) && (run.usage === undefined || run.usage === null) && (run.inputs !== undefined || run.outputs !== undefined);
}

/**
 * The texts a model read or wrote in a run's inputs or outputs: a conversation's text parts and tool-call
 * arguments (its roles and part types are not text the model read); anything else, every string in it.
 * Null past `limit` characters (walked with a stack: any depth is safe).
 */
function textsOf(value: unknown, limit: number): string[] | null {
  const texts: string[] = [];
  let chars = 0;
  const add = (text: string) => {
    texts.push(text);
    chars += text.length;
    return chars <= limit;
  };
  const messages = (value as { messages?: unknown } | null)?.messages;
  if (Array.isArray(messages)) {
    for (const message of messages) {
      const parts = (message as { parts?: unknown } | null)?.parts;
      if (!Array.isArray(parts)) continue;
      for (const part of parts as { type?: unknown; content?: unknown; arguments?: unknown }[]) {
        if (part?.type === 'text' && typeof part.content === 'string' && !add(part.content)) return null;
        if (part?.type === 'tool_call' && part.arguments !== undefined && !add(JSON.stringify(part.arguments) ?? '')) return null;
      }
    }
    return texts;
  }
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next === 'string') {
      if (!add(next)) return null;
    } else if (typeof next === 'object' && next !== null) {
      for (const item of Array.isArray(next) ? next : Object.values(next)) stack.push(item);
    }
  }
  return texts.reverse();
}

/**
 * Whether a run as sent would be estimated: a model run without usage whose texts are within a run's
 * bound. What decides whether the tokenizer is loaded at all: runs too large to estimate never load it.
 */
export function estimable(raw: unknown): boolean {
  if (!needsEstimate(raw)) return false;
  const run = raw as { inputs?: unknown; outputs?: unknown };
  const read = textsOf(run.inputs, MAX_RUN_CHARS);
  const written = textsOf(run.outputs ?? null, MAX_RUN_CHARS);
  return read !== null && written !== null && read.length + written.length > 0;
}

/**
 * A model run's usage estimated from its texts (`estimated: true`), or null when it cannot be: no
 * tokenizer loaded, texts past the bounds (`models.tokens.ts`), or no text at all.
 */
export function estimatedUsage(run: { inputs?: unknown; outputs?: unknown }, budget: EstimateBudget): UsageInput | null {
  const read = textsOf(run.inputs, MAX_RUN_CHARS);
  const written = textsOf(run.outputs ?? null, MAX_RUN_CHARS);
  if (read === null || written === null || (read.length === 0 && written.length === 0)) return null;
  const promptTokens = estimateTokens(read, budget);
  const completionTokens = estimateTokens(written, budget);
  if (promptTokens === null || completionTokens === null) return null;
  return { promptTokens, completionTokens, estimated: true };
}
