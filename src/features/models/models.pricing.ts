import type { BuiltinRow } from './models.schemas.js';
import { BUILTIN_TABLE } from './models.table.js';
import { providerFamily } from './models.providers.js';

/**
 * Which price a model's tokens cost, and what a run's usage comes to (docs/prices-and-costs.md: Model prices). No I/O:
 * the caller hands in the organization's prices (`organizationPrices` in models.repo.ts).
 *
 * A run's model name is first reduced to the model: lower case, without a provider path
 * (`openai/gpt-4o`, `models/gemini-2.0-flash`), a Bedrock region and vendor (`us.anthropic.…`), a Bedrock
 * revision (`…-v2:0`) or a Vertex version (`…@20241022`). A price's name then matches it exactly, or
 * followed by version suffixes only: dates (`-2024-08-06`, `-20241022`, `-08-2024`), numbered releases
 * (`-002`, `-2411`), `-latest`, `-preview`, `-exp`, `-beta` and `-v2`. Words (`-mini`, `-pro`,
 * `-realtime`) and single digits (`claude-sonnet-4` → `-5`) are other models, never suffixes, so
 * `gpt-4o-mini` is never priced as `gpt-4o`; of several names that match, the longest wins.
 */

/** Prices in USD per million tokens; null cache and reasoning prices fall back to the input and output price. */
export interface Prices {
  inputPrice: number;
  outputPrice: number;
  cacheReadPrice: number | null;
  cacheWritePrice: number | null;
  reasoningPrice: number | null;
}

/** An organization's price, as `organizationPrices` gives it. */
export interface PriceOverride extends Prices {
  id: string;
  /** The model name or pattern, as entered (a trailing `*` matches any rest). */
  model: string;
  /** Only runs of this provider; null for any. */
  provider: string | null;
  /** Epoch milliseconds from which it applies. */
  effectiveFrom: number;
}

export interface PriceMatch extends Prices {
  /** `builtin`: the built-in table; `organization`: one of the organization's prices, `id`. */
  source: 'builtin' | 'organization';
  id: string | null;
  /** The name (or pattern) that matched. */
  model: string;
  provider: string | null;
}

/** Token counts as runs record them: cache and reasoning tokens are parts of prompt and completion tokens. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens?: number | null | undefined;
  cacheCreationTokens?: number | null | undefined;
  reasoningTokens?: number | null | undefined;
}

const BEDROCK_PREFIX = /^(?:(?:us|us-gov|eu|apac|au|jp|ca|global)\.)?(?:anthropic|meta|mistral|cohere|amazon|ai21|deepseek|openai|qwen|google|xai|writer)\./;
const VERSION_TOKEN = /^(?:latest|preview|exp|beta|v\d+|\d{2,})$/;

/**
 * Names already reduced, and the built-in table's best row for a (model, provider): ingestion prices
 * every run that has a model and no cost, and runs name few models. Bounded: emptied when full.
 */
const MEMO_ENTRIES = 10_000;
const normalizedNames = new Map<string, string>();
const builtinMatches = new Map<string, { row: BuiltinRow; name: string } | null>();

function remember<V>(memo: Map<string, V>, key: string, value: V): V {
  if (memo.size >= MEMO_ENTRIES) memo.clear();
  memo.set(key, value);
  return value;
}

/** The model a run's model name names: see the module comment. */
export function normalizeModel(name: string): string {
  const known = normalizedNames.get(name);
  return known ?? remember(normalizedNames, name, reduce(name));
}

function reduce(name: string): string {
  let model = name.trim().toLowerCase();
  const slash = model.lastIndexOf('/');
  if (slash >= 0) model = model.slice(slash + 1);
  model = model.replace(BEDROCK_PREFIX, '').replace(/:\d+$/, '');
  const at = model.indexOf('@');
  if (at > 0) model = model.slice(0, at);
  // OpenRouter and others write Claude versions with dots: claude-3.5-sonnet, claude-sonnet-4.5.
  if (model.startsWith('claude-')) model = model.replace(/(\d)\.(\d)/g, '$1-$2');
  return model;
}

/**
 * How specifically `pattern` names the normalized `model`: its length when it matches (exactly, with
 * version suffixes, or as a prefix when it ends in `*`), else -1. An exact name outranks a prefix of
 * the same length.
 */
export function matchLength(pattern: string, model: string): number {
  if (pattern.endsWith('*')) {
    const prefix = normalizeModel(pattern.slice(0, -1));
    return prefix !== '' && model.startsWith(prefix) ? prefix.length * 2 : -1;
  }
  const name = normalizeModel(pattern);
  if (model === name) return name.length * 2 + 1;
  if (!model.startsWith(name) || !/[-:]/.test(model[name.length] ?? '')) return -1;
  const rest = model.slice(name.length + 1).split(/[-:]/);
  return rest.every((token) => VERSION_TOKEN.test(token)) ? name.length * 2 : -1;
}

function bestBuiltin(model: string, provider: string | null, rows: readonly BuiltinRow[]): { row: BuiltinRow; name: string } | null {
  if (rows !== BUILTIN_TABLE.models) return bestRow(model, provider, rows);
  const key = `${provider ?? ''}\n${model}`;
  const known = builtinMatches.get(key);
  return known !== undefined ? known : remember(builtinMatches, key, bestRow(model, provider, rows));
}

function bestRow(model: string, provider: string | null, rows: readonly BuiltinRow[]): { row: BuiltinRow; name: string } | null {
  let best: { row: BuiltinRow; name: string; score: number } | null = null;
  for (const row of rows) {
    for (const name of row.match) {
      const length = matchLength(name, model);
      if (length < 0) continue;
      // At equal length, the row of the run's own provider (compared by family: models.providers.ts).
      const score = length * 2 + (provider !== null && row.provider !== null && providerFamily(row.provider) === provider ? 1 : 0);
      if (best === null || score > best.score) best = { row, name, score };
    }
  }
  return best;
}

function bestOverride(model: string, provider: string | null, at: number, overrides: readonly PriceOverride[]): PriceOverride | null {
  let best: { price: PriceOverride; score: number } | null = null;
  for (const price of overrides) {
    if (price.effectiveFrom > at) continue;
    if (price.provider !== null && providerFamily(price.provider) !== provider) continue;
    const length = matchLength(price.model, model);
    if (length < 0) continue;
    // The longest name, then a provider's own price, then the latest in force.
    const score = length * 2 + (price.provider !== null ? 1 : 0);
    if (best === null || score > best.score || (score === best.score && price.effectiveFrom > best.price.effectiveFrom)) best = { price, score };
  }
  return best?.price ?? null;
}

const pricesOf = (p: Prices): Prices => ({
  inputPrice: p.inputPrice,
  outputPrice: p.outputPrice,
  cacheReadPrice: p.cacheReadPrice,
  cacheWritePrice: p.cacheWritePrice,
  reasoningPrice: p.reasoningPrice,
});

/**
 * The price of `model` (as a run names it) for a run of `provider` that started at `at` (epoch ms):
 * the organization's price in force then, if one matches (its prices beat the built-in table), else
 * the built-in table's, else null.
 */
export function priceFor(
  model: string,
  provider: string | null | undefined,
  at: number,
  overrides: readonly PriceOverride[] = [],
  builtin: readonly BuiltinRow[] = BUILTIN_TABLE.models,
): PriceMatch | null {
  const name = normalizeModel(model);
  if (name === '') return null;
  // Providers compared by family, however the run and the price spell them (`mistral`, `mistralai`, `mistral_ai`).
  const runProvider = provider && provider.trim() !== '' ? providerFamily(provider) : null;
  const override = bestOverride(name, runProvider, at, overrides);
  if (override) return { source: 'organization', id: override.id, model: override.model, provider: override.provider, ...pricesOf(override) };
  const found = bestBuiltin(name, runProvider, builtin);
  if (found) return { source: 'builtin', id: null, model: found.name, provider: found.row.provider, ...pricesOf(found.row) };
  return null;
}

const count = (n: number | null | undefined) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0);

/**
 * What `usage` costs at `price`, in USD: prompt tokens less cache reads and writes at the input price,
 * cache reads and writes at theirs, completion tokens less reasoning tokens at the output price and
 * reasoning tokens at the reasoning price (each falling back as `Prices` says).
 */
export function costOf(usage: TokenUsage, price: Prices): number {
  const prompt = count(usage.promptTokens);
  const completion = count(usage.completionTokens);
  const cacheRead = Math.min(count(usage.cacheReadTokens), prompt);
  const cacheWrite = Math.min(count(usage.cacheCreationTokens), prompt - cacheRead);
  const reasoning = Math.min(count(usage.reasoningTokens), completion);
  const micro =
    (prompt - cacheRead - cacheWrite) * price.inputPrice +
    cacheRead * (price.cacheReadPrice ?? price.inputPrice) +
    cacheWrite * (price.cacheWritePrice ?? price.inputPrice) +
    (completion - reasoning) * price.outputPrice +
    reasoning * (price.reasoningPrice ?? price.outputPrice);
  return micro / 1_000_000;
}
