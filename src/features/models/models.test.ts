import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { ok } from '../../../test/helpers/json.js';
import { expectValidation } from '../../../test/helpers/problems.js';
import { describeModels, PRICE_KEYS, umodel, validPrice } from './models.test-support.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describeModels('prices: create, read, change, delete', (ctx, h, s) => {
  it('creates a price with its defaults (any provider, USD, in force from now) and reads it back', async () => {
    const before = Date.now();
    const created = await h.price(s.owner, { model: 'acme-llm-v1', inputPrice: 0.5, outputPrice: 2 });
    expect(Object.keys(created).sort()).toEqual(PRICE_KEYS);
    expect(created).toMatchObject({
      id: expect.stringMatching(/^mdl_/),
      model: 'acme-llm-v1',
      provider: null,
      inputPrice: 0.5,
      outputPrice: 2,
      cacheReadPrice: null,
      cacheWritePrice: null,
      reasoningPrice: null,
      currency: 'USD',
      createdBy: s.owner.userId,
    });
    expect(created.effectiveFrom).toMatch(ISO);
    expect(Date.parse(created.effectiveFrom)).toBeGreaterThanOrEqual(before - 1000);
    expect(created.createdAt).toMatch(ISO);
    expect(ok(await h.get(s.owner, `/v1/models/${created.id}`))).toEqual(created);
  });

  it('keeps every field as sent, effectiveFrom to the millisecond in UTC', async () => {
    const body = validPrice({
      model: 'openai/gpt-4o',
      provider: 'azure',
      inputPrice: 2.75,
      outputPrice: 11,
      cacheReadPrice: 1.375,
      cacheWritePrice: 0,
      reasoningPrice: 11,
      currency: 'USD',
      effectiveFrom: '2026-03-01T01:00:00.123456+01:00',
    });
    const created = await h.price(s.owner, body);
    expect(created).toMatchObject({ ...body, effectiveFrom: '2026-03-01T00:00:00.123Z' });
  });

  it('lists newest first, filtered by a substring of the model (any case) and by provider', async () => {
    const owner = await ctx.make.caller({ role: 'owner' });
    const a = await h.price(owner, { model: 'Zeta-Alpha-1' });
    const b = await h.price(owner, { model: 'zeta-beta-1', provider: 'groq' });
    const c = await h.price(owner, { model: 'other-1', provider: 'groq' });
    expect((await h.all(owner, '/v1/models')).map((p) => p.id)).toEqual([c.id, b.id, a.id]);
    expect((await h.all(owner, '/v1/models?model=ZETA')).map((p) => p.id)).toEqual([b.id, a.id]);
    expect((await h.all(owner, '/v1/models?provider=groq')).map((p) => p.id)).toEqual([c.id, b.id]);
    expect((await h.all(owner, '/v1/models?model=zeta&provider=groq')).map((p) => p.id)).toEqual([b.id]);
    expect(await h.all(owner, '/v1/models?model=nothing-like-it')).toEqual([]);
  });

  it('changes any field, and only those sent; a null cache or reasoning price clears it', async () => {
    const created = await h.price(s.owner, { cacheReadPrice: 0.1, reasoningPrice: 9 });
    const changed = ok(await h.patch(s.owner, created.id, { outputPrice: 7, cacheReadPrice: null, provider: 'openai', effectiveFrom: '2026-02-01T00:00:00Z' }));
    expect(changed).toMatchObject({
      ...created,
      outputPrice: 7,
      cacheReadPrice: null,
      reasoningPrice: 9,
      provider: 'openai',
      effectiveFrom: '2026-02-01T00:00:00.000Z',
      updatedAt: expect.stringMatching(ISO),
    });
    expect(ok(await h.get(s.owner, `/v1/models/${created.id}`))).toEqual(changed);
    expect(ok(await h.patch(s.owner, created.id, { provider: null })).provider).toBeNull();
  });

  it('refuses a second price for the same model, provider and instant (409), as written or as a run names it', async () => {
    const model = umodel();
    const effectiveFrom = '2026-05-01T00:00:00.000Z';
    await h.price(s.owner, { model, effectiveFrom });
    expectProblem(await h.create(s.owner, validPrice({ model, effectiveFrom })), 409, 'conflict');
    expectProblem(await h.create(s.owner, validPrice({ model: `openai/${model.toUpperCase()}`, effectiveFrom })), 409, 'conflict');
    // Another instant, or another provider, is another price.
    await h.price(s.owner, { model, effectiveFrom: '2026-06-01T00:00:00.000Z' });
    const other = await h.price(s.owner, { model, effectiveFrom, provider: 'azure' });
    expectProblem(await h.patch(s.owner, other.id, { provider: null }), 409, 'conflict');
  });

  it('deletes a price (204), after which it is a 404 everywhere', async () => {
    const created = await h.price(s.owner);
    expect((await h.del(s.owner, created.id)).statusCode).toBe(204);
    for (const res of [
      await h.get(s.owner, `/v1/models/${created.id}`),
      await h.patch(s.owner, created.id, { inputPrice: 1 }),
      await h.del(s.owner, created.id),
    ]) {
      expectProblem(res, 404, 'not-found', `Model price ${created.id} does not exist.`);
    }
    expect((await h.all(s.owner, '/v1/models')).map((p) => p.id)).not.toContain(created.id);
  });

  it('refuses negative or huge prices, another currency, a malformed date and a malformed model, naming each field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ inputPrice: -0.01 }, '/inputPrice'],
      [{ outputPrice: -1 }, '/outputPrice'],
      [{ cacheReadPrice: -1 }, '/cacheReadPrice'],
      [{ cacheWritePrice: '1' }, '/cacheWritePrice'],
      [{ reasoningPrice: 1_000_001 }, '/reasoningPrice'],
      [{ currency: 'EUR' }, '/currency'],
      [{ currency: 'usd' }, '/currency'],
      [{ effectiveFrom: '2026-05-01' }, '/effectiveFrom'],
      [{ effectiveFrom: 'tomorrow' }, '/effectiveFrom'],
      [{ effectiveFrom: 1767225600000 }, '/effectiveFrom'],
      [{ model: '' }, '/model'],
      [{ model: 'has space' }, '/model'],
      [{ model: 'a*b' }, '/model'],
      [{ model: 'x'.repeat(201) }, '/model'],
      [{ provider: 'OpenAI' }, '/provider'],
      [{ provider: '' }, '/provider'],
      [{ inputPrice: undefined }, '/inputPrice'],
      [{ id: 'mdl_x' }, '/id'],
    ];
    for (const [change, pointer] of cases) {
      const body = { ...validPrice(), ...change };
      if ('inputPrice' in change && change.inputPrice === undefined) delete body.inputPrice;
      const errors = expectValidation(await h.create(s.owner, body), {}, [String(Object.values(change)[0])]);
      expect(
        errors.some((e) => e.pointer === pointer),
        `${JSON.stringify(change)}: ${JSON.stringify(errors)}`,
      ).toBe(true);
    }
    const created = await h.price(s.owner);
    expectValidation(await h.patch(s.owner, created.id, {}));
    expectValidation(await h.patch(s.owner, created.id, { currency: 'GBP' }), { pointers: ['/currency'] });
    expectValidation(await h.patch(s.owner, created.id, { inputPrice: -5 }), { pointers: ['/inputPrice'] });
  });
});
