import { describe, expect, it } from 'vitest';
import { priceFor } from './models.pricing.js';
import { BUILTIN_DATE, BUILTIN_TABLE, listBuiltinPrices, loadPriceTable } from './models.table.js';

describe('the built-in price table', () => {
  it('is dated, names its source at a commit, and prices the common models of each provider', () => {
    expect(BUILTIN_TABLE.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(new Date(BUILTIN_DATE).toISOString().slice(0, 10)).toBe(BUILTIN_TABLE.date);
    expect(BUILTIN_TABLE.source).toMatchObject({ repository: 'https://github.com/BerriAI/litellm', path: 'model_prices_and_context_window.json' });
    expect(BUILTIN_TABLE.source.url).toContain(BUILTIN_TABLE.source.commit);
    const providers = new Set(BUILTIN_TABLE.models.map((row) => row.provider));
    for (const p of ['openai', 'anthropic', 'google', 'mistral', 'groq', 'deepseek', 'xai', 'cohere']) expect(providers, p).toContain(p);
    expect(BUILTIN_TABLE.models.length).toBeGreaterThan(80);
  });

  it('prices every name of every row by that row, and only by it', () => {
    for (const row of BUILTIN_TABLE.models) {
      for (const name of row.match) {
        const found = priceFor(name, row.provider, Date.now());
        expect(found, name).toMatchObject({ source: 'builtin', model: name, provider: row.provider, inputPrice: row.inputPrice, outputPrice: row.outputPrice });
      }
    }
  });

  it('has a reasoning price for every chat model (the output price where the source names none) and none for embeddings', () => {
    for (const row of BUILTIN_TABLE.models) {
      if (row.kind === 'embedding') expect([row.reasoningPrice, row.cacheReadPrice], row.model).toEqual([null, null]);
      else expect(row.reasoningPrice, row.model).not.toBeNull();
      expect(row.inputPrice, row.model).toBeGreaterThan(0);
    }
  });

  it('refuses a malformed table, or one that names a model twice, saying where', () => {
    const good = structuredClone(BUILTIN_TABLE);
    expect(() => loadPriceTable({ ...good, date: 'yesterday' })).toThrow(/malformed: \/date/);
    const negative = structuredClone(good);
    negative.models[0]!.inputPrice = -1;
    expect(() => loadPriceTable(negative)).toThrow(/malformed: \/models\/0\/inputPrice/);
    const twice = structuredClone(good);
    twice.models[1]!.match.push(good.models[0]!.match[0]!);
    expect(() => loadPriceTable(twice)).toThrow(`names ${good.models[0]!.match[0]} twice`);
  });

  it('lists by provider then model, continues after a position, and filters', () => {
    const all = listBuiltinPrices({}, null, 1000).rows;
    expect(all).toHaveLength(BUILTIN_TABLE.models.length);
    const keys = all.map((row) => `${row.provider}/${row.model}`);
    expect(keys).toEqual([...keys].sort());
    const first = listBuiltinPrices({}, null, 3);
    const next = listBuiltinPrices({}, first.positionOf(first.rows[2]!), 2).rows;
    expect(next).toEqual(all.slice(3, 5));
    expect(listBuiltinPrices({ provider: 'deepseek' }, null, 100).rows.map((r) => r.model)).toEqual(['deepseek-chat', 'deepseek-reasoner']);
    expect(listBuiltinPrices({ model: 'SONNET-4-5' }, null, 100).rows.map((r) => r.model)).toEqual(['claude-sonnet-4-5']);
    // A name it prices counts: claude-4-opus is a name of claude-opus-4.
    expect(listBuiltinPrices({ model: 'claude-4-opus' }, null, 100).rows.map((r) => r.model)).toEqual(['claude-opus-4']);
  });
});
