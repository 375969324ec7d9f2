import { expect, it } from 'vitest';
import { ok } from '../../../test/helpers/json.js';
import { costOf, priceFor } from './models.pricing.js';
import { organizationPrices } from './models.repo.js';
import { BUILTIN_TABLE } from './models.table.js';
import { describeModels } from './models.test-support.js';

const T1 = Date.parse('2026-03-01T00:00:00.000Z');
const T2 = Date.parse('2026-06-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** What ingestion does: the organization's prices from the database, then `priceFor` at a run's start. */
describeModels('prices in force at a run’s start', (ctx, h, s) => {
  const db = () => ctx.database.storage.db;

  it('two prices for one model: a run before the second gets the first, one after it the second, one before both the built-in', async () => {
    const owner = await ctx.make.caller({ role: 'owner' });
    const first = await h.price(owner, { model: 'gpt-4o', inputPrice: 2, outputPrice: 8, effectiveFrom: iso(T1) });
    const second = await h.price(owner, { model: 'gpt-4o', inputPrice: 3, outputPrice: 12, effectiveFrom: iso(T2) });
    const overrides = await organizationPrices(db(), owner.organizationId);
    expect(overrides.map((p) => p.effectiveFrom).sort()).toEqual([T1, T2]);

    expect(priceFor('gpt-4o-2024-08-06', 'openai', T1 - 1, overrides)).toMatchObject({ source: 'builtin', id: null, inputPrice: 2.5, outputPrice: 10 });
    expect(priceFor('gpt-4o-2024-08-06', 'openai', T1, overrides)).toMatchObject({ source: 'organization', id: first.id, inputPrice: 2 });
    expect(priceFor('gpt-4o-2024-08-06', 'openai', T2 - 1, overrides)).toMatchObject({ id: first.id, inputPrice: 2 });
    expect(priceFor('gpt-4o-2024-08-06', 'openai', T2, overrides)).toMatchObject({ id: second.id, inputPrice: 3 });
    expect(priceFor('gpt-4o', 'openai', T2 + 86_400_000, overrides)).toMatchObject({ id: second.id });

    // A price change does not rewrite history: the run of March costs what it cost.
    const usage = { promptTokens: 1_000_000, completionTokens: 1_000_000 };
    expect(costOf(usage, priceFor('gpt-4o', null, T1 + 1, overrides)!)).toBe(10);
    expect(costOf(usage, priceFor('gpt-4o', null, T2 + 1, overrides)!)).toBe(15);
  });

  it("an organization's price beats the built-in one; its provider's price beats one for any provider", async () => {
    const owner = await ctx.make.caller({ role: 'owner' });
    await h.price(owner, { model: 'claude-3-5-sonnet', inputPrice: 2.4, outputPrice: 12, effectiveFrom: iso(T1) });
    const bedrock = await h.price(owner, { model: 'claude-3-5-sonnet', provider: 'aws.bedrock', inputPrice: 3.6, outputPrice: 18, effectiveFrom: iso(T1) });
    const overrides = await organizationPrices(db(), owner.organizationId);
    expect(priceFor('claude-3-5-sonnet-20241022', 'anthropic', T1, overrides)?.inputPrice).toBe(2.4);
    expect(priceFor('anthropic.claude-3-5-sonnet-20241022-v2:0', 'aws.bedrock', T1, overrides)).toMatchObject({ id: bedrock.id, inputPrice: 3.6 });
    // The built-in table still prices what the organization does not.
    expect(priceFor('claude-3-5-haiku-latest', 'anthropic', T1, overrides)).toMatchObject({ source: 'builtin', inputPrice: 0.8 });
  });

  it('prices stay with their organization, and a deleted or changed price is what the next read sees', async () => {
    const owner = await ctx.make.caller({ role: 'owner' });
    const other = await ctx.make.caller({ role: 'owner' });
    const mine = await h.price(owner, { model: 'acme-llm', inputPrice: 1, outputPrice: 1, effectiveFrom: iso(T1) });
    await h.price(other, { model: 'acme-llm', inputPrice: 9, outputPrice: 9, effectiveFrom: iso(T1) });
    expect((await organizationPrices(db(), owner.organizationId)).map((p) => p.id)).toEqual([mine.id]);
    expect(priceFor('acme-llm-2026-01-01', null, T2, await organizationPrices(db(), owner.organizationId))?.inputPrice).toBe(1);
    ok(await h.patch(owner, mine.id, { inputPrice: 1.5, effectiveFrom: iso(T2) }));
    const changed = await organizationPrices(db(), owner.organizationId);
    expect(priceFor('acme-llm', null, T1, changed)).toBeNull();
    expect(priceFor('acme-llm', null, T2, changed)?.inputPrice).toBe(1.5);
    expect((await h.del(owner, mine.id)).statusCode).toBe(204);
    expect(priceFor('acme-llm', null, T2, await organizationPrices(db(), owner.organizationId))).toBeNull();
    expect(await organizationPrices(db(), (await ctx.make.org()).id)).toEqual([]);
  });

  it('the built-in table through the API: every row once, dated, with its source entry, filtered by model and provider', async () => {
    const items = await h.all(s.owner, '/v1/models/builtin', 7);
    expect(items).toHaveLength(BUILTIN_TABLE.models.length);
    expect(new Set(items.map((i) => `${i.provider}/${i.model}`)).size).toBe(items.length);
    const gpt4o = items.find((i) => i.model === 'gpt-4o')!;
    expect(gpt4o).toEqual({
      model: 'gpt-4o',
      provider: 'openai',
      kind: 'chat',
      match: ['gpt-4o'],
      inputPrice: 2.5,
      outputPrice: 10,
      cacheReadPrice: 1.25,
      cacheWritePrice: null,
      reasoningPrice: 10,
      currency: 'USD',
      effectiveFrom: `${BUILTIN_TABLE.date}T00:00:00.000Z`,
      sourceKey: 'gpt-4o',
    });
    const anthropic = await h.all(s.owner, '/v1/models/builtin?provider=anthropic&model=SONNET');
    expect(anthropic.map((i) => i.model)).toEqual([
      'claude-3-5-sonnet',
      'claude-3-7-sonnet',
      'claude-sonnet-4',
      'claude-sonnet-4-5',
      'claude-sonnet-4-6',
      'claude-sonnet-5',
    ]);
    expect(ok(await h.get(s.owner, '/v1/models/builtin?provider=nobody')).items).toEqual([]);
  });
});
