import { describe, expect, it } from 'vitest';
import { costOf, normalizeModel, priceFor, type PriceOverride } from './models.pricing.js';

/** The built-in name that prices `model` (as a run names it), or null. */
const name = (model: string, provider: string | null = null) => priceFor(model, provider, Date.now())?.model ?? null;
const prices = (model: string) => {
  const p = priceFor(model, null, Date.now());
  return p && [p.inputPrice, p.outputPrice, p.cacheReadPrice, p.cacheWritePrice, p.reasoningPrice];
};

describe('model name matching against the built-in table', () => {
  it('OpenAI: dated snapshots, -latest, the 4.1, 5 and o families, embeddings', () => {
    expect(name('gpt-4o')).toBe('gpt-4o');
    expect(name('gpt-4o-2024-08-06')).toBe('gpt-4o');
    expect(name('gpt-4o-2024-11-20')).toBe('gpt-4o');
    // A snapshot the source prices apart is its own row.
    expect(prices('gpt-4o-2024-05-13')).toEqual([5, 15, null, null, 15]);
    expect(name('gpt-4o-mini-2024-07-18')).toBe('gpt-4o-mini');
    expect(name('gpt-4.1-2025-04-14')).toBe('gpt-4.1');
    expect(name('gpt-4.1-mini')).toBe('gpt-4.1-mini');
    expect(name('gpt-4.1-nano-2025-04-14')).toBe('gpt-4.1-nano');
    expect(name('gpt-4-turbo-2024-04-09')).toBe('gpt-4-turbo');
    expect(name('gpt-4-0125-preview')).toBe('gpt-4-0125-preview');
    expect(name('gpt-4-0613')).toBe('gpt-4');
    expect(name('gpt-3.5-turbo-0125')).toBe('gpt-3.5-turbo');
    expect(name('gpt-5-2025-08-07')).toBe('gpt-5');
    expect(name('gpt-5-chat-latest')).toBe('gpt-5-chat');
    expect(name('gpt-5-mini-2025-08-07')).toBe('gpt-5-mini');
    expect(name('gpt-5-nano')).toBe('gpt-5-nano');
    expect(name('o1-2024-12-17')).toBe('o1');
    expect(name('o3-mini-2025-01-31')).toBe('o3-mini');
    expect(name('o4-mini-2025-04-16')).toBe('o4-mini');
    expect(name('codex-mini-latest')).toBe('codex-mini');
    expect(prices('gpt-4o')).toEqual([2.5, 10, 1.25, null, 10]);
    expect(prices('text-embedding-3-small')).toEqual([0.02, 0, null, null, null]);
    expect(prices('text-embedding-3-large')).toEqual([0.13, 0, null, null, null]);
  });

  it('Anthropic: dates, -latest, v2, Bedrock and Vertex names, dotted versions', () => {
    expect(name('claude-3-5-sonnet-20241022')).toBe('claude-3-5-sonnet');
    expect(name('claude-3-5-sonnet-latest')).toBe('claude-3-5-sonnet');
    expect(name('anthropic.claude-3-5-sonnet-20241022-v2:0')).toBe('claude-3-5-sonnet');
    expect(name('us.anthropic.claude-3-5-haiku-20241022-v1:0')).toBe('claude-3-5-haiku');
    expect(name('claude-3-5-sonnet-v2@20241022')).toBe('claude-3-5-sonnet');
    expect(name('anthropic/claude-3.5-sonnet')).toBe('claude-3-5-sonnet');
    expect(name('claude-3-7-sonnet-20250219')).toBe('claude-3-7-sonnet');
    expect(name('claude-sonnet-4-20250514')).toBe('claude-sonnet-4');
    expect(name('claude-4-sonnet-20250514')).toBe('claude-4-sonnet');
    expect(name('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5');
    expect(name('claude-sonnet-4.5')).toBe('claude-sonnet-4-5');
    expect(name('claude-opus-4-1-20250805')).toBe('claude-opus-4-1');
    expect(name('claude-opus-4-20250514')).toBe('claude-opus-4');
    expect(name('claude-haiku-4-5-20251001')).toBe('claude-haiku-4-5');
    expect(name('claude-3-haiku-20240307')).toBe('claude-3-haiku');
    expect(name('claude-3-opus-latest')).toBe('claude-3-opus');
    expect(prices('claude-3-5-sonnet-20241022')).toEqual([3, 15, 0.3, 3.75, 15]);
    expect(prices('claude-opus-4-5')).toEqual([5, 25, 0.5, 6.25, 25]);
  });

  it('Google: numbered releases, previews, the models/ path', () => {
    expect(name('gemini-2.0-flash-001')).toBe('gemini-2.0-flash');
    expect(name('models/gemini-2.0-flash')).toBe('gemini-2.0-flash');
    expect(name('gemini-2.0-flash-lite-001')).toBe('gemini-2.0-flash-lite');
    expect(name('gemini-2.5-flash-preview-09-2025')).toBe('gemini-2.5-flash');
    expect(name('gemini-2.5-flash-lite-preview-09-2025')).toBe('gemini-2.5-flash-lite');
    expect(name('publishers/google/models/gemini-2.5-pro')).toBe('gemini-2.5-pro');
    expect(name('gemini-3-pro-preview')).toBe('gemini-3-pro');
    expect(prices('gemini-2.5-flash')).toEqual([0.3, 2.5, 0.03, null, 2.5]);
  });

  it('Mistral, Llama on Groq, DeepSeek, xAI, Cohere, Qwen', () => {
    expect(name('mistral-large-latest')).toBe('mistral-large');
    expect(name('mistral-large-2512')).toBe('mistral-large');
    expect(prices('mistral-large-2411')).toEqual([2, 6, null, null, 6]);
    expect(name('mistral-medium-2508')).toBe('mistral-medium-2508');
    expect(name('mistral-small-latest')).toBe('mistral-small');
    expect(name('groq/llama-3.3-70b-versatile')).toBe('llama-3.3-70b-versatile');
    expect(name('meta-llama/llama-4-scout-17b-16e-instruct')).toBe('llama-4-scout-17b-16e-instruct');
    expect(name('deepseek-chat')).toBe('deepseek-chat');
    expect(name('deepseek/deepseek-reasoner')).toBe('deepseek-reasoner');
    expect(name('grok-2-1212')).toBe('grok-2');
    expect(name('grok-3-beta')).toBe('grok-3');
    expect(name('xai/grok-3-mini-latest')).toBe('grok-3-mini');
    expect(name('grok-4-0709')).toBe('grok-4');
    expect(name('command-r-plus-08-2024')).toBe('command-r-plus');
    expect(name('command-r-08-2024')).toBe('command-r');
    expect(name('command-a-03-2025')).toBe('command-a');
    expect(name('qwen-max')).toBe('qwen-max');
  });

  it('the most specific name wins; a word or a single digit is another model, never a suffix', () => {
    expect(name('gpt-4o-mini')).toBe('gpt-4o-mini');
    expect(name('gpt-5.1-codex-mini')).toBe('gpt-5.1-codex-mini');
    expect(name('gemini-2.5-flash-lite')).toBe('gemini-2.5-flash-lite');
    expect(name('claude-sonnet-4-6')).toBe('claude-sonnet-4-6');
    expect(name('claude-opus-4-9')).toBeNull();
    expect(name('gpt-4o-realtime-preview')).toBeNull();
    expect(name('grok-3-fast-beta')).toBeNull();
    expect(name('gpt-4.5-preview')).toBeNull();
  });

  it('unknown models, empty names and fine-tunes have no price', () => {
    for (const model of ['my-own-model', '', '   ', 'ft:gpt-4o-mini-2024-07-18:acme::abc123', 'gemini-1.5-pro-002', 'gpt', 'o']) {
      expect(priceFor(model, 'openai', Date.now()), model).toBeNull();
    }
  });

  it('normalizes provider paths, Bedrock regions and revisions, Vertex versions and case', () => {
    expect(normalizeModel(' OpenAI/GPT-4o ')).toBe('gpt-4o');
    expect(normalizeModel('eu.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe('claude-sonnet-4-5-20250929-v1');
    expect(normalizeModel('claude-3-5-haiku@20241022')).toBe('claude-3-5-haiku');
  });
});

const price = (
  model: string,
  effectiveFrom: number,
  inputPrice: number,
  provider: string | null = null,
  id = `mdl_${model}_${effectiveFrom}`,
): PriceOverride => ({
  id,
  model,
  provider,
  effectiveFrom,
  inputPrice,
  outputPrice: inputPrice * 4,
  cacheReadPrice: null,
  cacheWritePrice: null,
  reasoningPrice: null,
});

describe('organization prices', () => {
  const T = Date.parse('2026-01-01T00:00:00.000Z');

  it('beat the built-in table, from their effective instant on, the latest in force winning', () => {
    const overrides = [price('gpt-4o', T, 2), price('gpt-4o', T + 1000, 3)];
    expect(priceFor('gpt-4o-2024-08-06', 'openai', T - 1, overrides)).toMatchObject({ source: 'builtin', id: null, inputPrice: 2.5 });
    expect(priceFor('gpt-4o-2024-08-06', 'openai', T, overrides)).toMatchObject({ source: 'organization', id: overrides[0]!.id, inputPrice: 2 });
    expect(priceFor('gpt-4o', 'openai', T + 999, overrides)?.inputPrice).toBe(2);
    expect(priceFor('gpt-4o', 'openai', T + 1000, overrides)?.inputPrice).toBe(3);
    // Even where the table names the snapshot apart: the organization priced gpt-4o.
    expect(priceFor('gpt-4o-2024-05-13', null, T, overrides)?.source).toBe('organization');
  });

  it("add models the table lacks, by name or by a prefix ending in '*'", () => {
    const overrides = [price('gemini-1.5-pro', T, 1.25), price('ft:gpt-4o-mini:acme:*', T, 0.3), price('acme-llm', T, 9)];
    expect(priceFor('gemini-1.5-pro-002', 'google', T, overrides)?.inputPrice).toBe(1.25);
    expect(priceFor('ft:gpt-4o-mini:acme::abc123', 'openai', T, overrides)?.inputPrice).toBe(0.3);
    expect(priceFor('ACME-LLM', null, T, overrides)?.inputPrice).toBe(9);
    expect(priceFor('acme-llm-large', null, T, overrides)).toBeNull();
  });

  it("with a provider apply to that provider's runs only, and beat a price for any provider", () => {
    const overrides = [price('gpt-4o', T, 2), price('gpt-4o', T, 2.75, 'azure')];
    expect(priceFor('gpt-4o', 'Azure', T, overrides)?.inputPrice).toBe(2.75);
    expect(priceFor('gpt-4o', 'openai', T, overrides)?.inputPrice).toBe(2);
    expect(priceFor('gpt-4o', null, T, [price('gpt-4o', T, 2.75, 'azure')])?.source).toBe('builtin');
  });

  it('the most specific name wins among them too', () => {
    const overrides = [price('gpt-4o', T, 2), price('gpt-4o-mini', T, 0.1), price('gpt-4o*', T, 7)];
    expect(priceFor('gpt-4o-mini-2024-07-18', null, T, overrides)?.inputPrice).toBe(0.1);
    expect(priceFor('gpt-4o-2024-08-06', null, T, overrides)?.inputPrice).toBe(2);
    expect(priceFor('gpt-4o-audio-preview', null, T, overrides)?.inputPrice).toBe(7);
  });
});

describe('costOf', () => {
  const p = { inputPrice: 3, outputPrice: 15, cacheReadPrice: 0.3, cacheWritePrice: 3.75, reasoningPrice: 10 };

  it('prices plain, cached and written prompt tokens, and output less reasoning apart from reasoning', () => {
    // 1,000 prompt tokens of which 600 read and 100 written; 500 completion tokens of which 200 reasoning.
    const usage = { promptTokens: 1000, completionTokens: 500, cacheReadTokens: 600, cacheCreationTokens: 100, reasoningTokens: 200 };
    expect(costOf(usage, p)).toBeCloseTo((300 * 3 + 600 * 0.3 + 100 * 3.75 + 300 * 15 + 200 * 10) / 1e6, 12);
    expect(costOf({ promptTokens: 1_000_000, completionTokens: 1_000_000 }, p)).toBeCloseTo(18, 12);
  });

  it('falls back to the input and output prices where a price is null, and clamps parts to their wholes', () => {
    const q = { ...p, cacheReadPrice: null, cacheWritePrice: null, reasoningPrice: null };
    const usage = { promptTokens: 100, completionTokens: 10, cacheReadTokens: 50, cacheCreationTokens: 50, reasoningTokens: 5 };
    expect(costOf(usage, q)).toBeCloseTo((100 * 3 + 10 * 15) / 1e6, 12);
    expect(costOf({ promptTokens: 10, completionTokens: 1, cacheReadTokens: 50, reasoningTokens: 9 }, p)).toBeCloseTo((10 * 0.3 + 1 * 10) / 1e6, 12);
    expect(costOf({ promptTokens: 0, completionTokens: 0, cacheReadTokens: null }, p)).toBe(0);
  });
});
