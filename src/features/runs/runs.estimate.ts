import { MAX_CALL_CHARS, MAX_RUN_CHARS, tokenCounter } from '../models/index.js';
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
 * The usage of each model run of a call that reports none, estimated from its texts (`estimated: true`),
 * by the run's index in the call. Runs past a run's bound or the call's (`models.tokens.ts`), or without
 * any text, are not estimated; none is when the counter cannot count now. Starts nothing when no run needs it.
 */
export async function estimateUsages(raws: readonly unknown[]): Promise<Map<number, UsageInput>> {
  const estimated = new Map<number, UsageInput>();
  const indexes: number[] = [];
  const texts: string[][] = [];
  let budget = MAX_CALL_CHARS;
  for (let i = 0; i < raws.length && budget > 0; i++) {
    if (!needsEstimate(raws[i])) continue;
    const run = raws[i] as { inputs?: unknown; outputs?: unknown };
    const read = textsOf(run.inputs, Math.min(MAX_RUN_CHARS, budget));
    const written = read && textsOf(run.outputs ?? null, Math.min(MAX_RUN_CHARS, budget) - length(read));
    if (read === null || written === null || read.length + written.length === 0) continue;
    budget -= length(read) + length(written);
    indexes.push(i);
    texts.push(read, written);
  }
  if (indexes.length === 0) return estimated;
  const counts = await tokenCounter.count(texts);
  if (counts === null) return estimated;
  indexes.forEach((index, k) => estimated.set(index, { promptTokens: counts[2 * k]!, completionTokens: counts[2 * k + 1]!, estimated: true }));
  return estimated;
}

const length = (texts: readonly string[]) => texts.reduce((sum, text) => sum + text.length, 0);

/**
 * Whether a run's usage is still to be estimated when it is given outputs: it has none, or only an
 * estimate of what it read (nothing written yet: a stream that has not ended). Usage a run reported is never.
 */
export function awaitsEstimate(usage: { estimated?: boolean; completionTokens: number } | null): boolean {
  return usage === null || (usage.estimated === true && usage.completionTokens === 0);
}

/**
 * The usage of a running run given its outputs without usage (a stream that ended), estimated again from
 * its inputs and new outputs when it is a model run whose usage `awaitsEstimate`. Null when it is not to
 * be estimated, or cannot be now.
 */
export async function reestimate(
  run: { kind: string; inputs: unknown; usage: { estimated?: boolean; completionTokens: number } | null },
  outputs: unknown,
): Promise<UsageInput | null> {
  if (!awaitsEstimate(run.usage)) return null;
  const estimated = await estimateUsages([{ kind: run.kind, inputs: run.inputs, outputs }]);
  return estimated.get(0) ?? null;
}
