import { expect, it } from 'vitest';
import { Sightline } from '../src/index.js';
import { describeSdk, expectProblem } from './client.test-support.js';

describeSdk((sdk) => {
  it('round-trips model prices: create, get, update, list with filters, the built-in table, delete', async () => {
    const price = await sdk.client.models.create({
      model: 'acme-llm',
      provider: 'azure',
      inputPrice: 1.5,
      outputPrice: 6,
      cacheReadPrice: 0.15,
      effectiveFrom: '2026-03-01T00:00:00Z',
    });
    expect(price).toMatchObject({ model: 'acme-llm', provider: 'azure', currency: 'USD', reasoningPrice: null, effectiveFrom: '2026-03-01T00:00:00.000Z' });
    expect(await sdk.client.models.get(price.id)).toEqual(price);
    const changed = await sdk.client.models.update(price.id, { outputPrice: 7, provider: null });
    expect(changed).toMatchObject({ outputPrice: 7, provider: null });
    const other = await sdk.client.models.create({ model: 'zeta-llm', inputPrice: 0, outputPrice: 0 });
    expect((await sdk.client.models.list().toArray()).map((p) => p.id)).toEqual([other.id, price.id]);
    expect((await sdk.client.models.list({ model: 'ACME' }).toArray()).map((p) => p.id)).toEqual([price.id]);

    const builtin = await sdk.client.models.builtin({ provider: 'openai' }, { limit: 5 }).toArray();
    expect(builtin.length).toBeGreaterThan(5);
    expect(builtin.every((row) => row.provider === 'openai' && row.currency === 'USD')).toBe(true);
    expect(builtin.find((row) => row.model === 'gpt-4o-mini')).toMatchObject({ inputPrice: 0.15, outputPrice: 0.6, match: ['gpt-4o-mini'] });

    await sdk.client.models.delete(price.id);
    await expectProblem(sdk.client.models.get(price.id), 404, 'not-found');
    await expectProblem(sdk.client.models.create({ model: 'x', inputPrice: -1, outputPrice: 0 }), 400, 'validation');
  });

  it('a member reads prices but may not write them (403)', async () => {
    const member = await sdk.server.make.caller({ role: 'member', organizationId: sdk.owner.organizationId });
    const client = new Sightline(sdk.options({ token: member.token }));
    expect(Array.isArray(await client.models.list().toArray())).toBe(true);
    await expectProblem(client.models.create({ model: 'acme-llm', inputPrice: 1, outputPrice: 1 }), 403, 'forbidden');
  });
});
