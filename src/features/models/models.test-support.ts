// What the models suites (models*.test.ts) share: a valid price body, the calls bound to a context, a full walk of a list.
import { beforeAll, describe } from 'vitest';
import { describeEachDialect, type Caller, type TestContext } from '../../../test/helpers/harness.js';
import { allItems, ok, type Json } from '../../../test/helpers/json.js';

let seq = 0;
/** A model name no other test uses. */
export const umodel = (prefix = 'acme-llm') => `${prefix}-${process.pid}-${Date.now().toString(36)}-${(seq++).toString(36)}`;

export const PRICE_KEYS = [
  'cacheReadPrice',
  'cacheWritePrice',
  'createdAt',
  'createdBy',
  'currency',
  'effectiveFrom',
  'id',
  'inputPrice',
  'model',
  'outputPrice',
  'provider',
  'reasoningPrice',
  'updatedAt',
];

export const validPrice = (body: Json = {}): Json => ({ model: umodel(), inputPrice: 1.5, outputPrice: 6, ...body });

export function helpers(ctx: TestContext) {
  const create = (caller: Caller, body: Json) => ctx.request('POST', '/v1/models', { token: caller.token, body });
  async function price(caller: Caller, body: Json = {}): Promise<Json> {
    return ok(await create(caller, validPrice(body)), 201);
  }
  const get = (caller: Caller, url: string) => ctx.request('GET', url, { token: caller.token });
  const patch = (caller: Caller, id: string, body: Json) => ctx.request('PATCH', `/v1/models/${id}`, { token: caller.token, body });
  const del = (caller: Caller, id: string) => ctx.request('DELETE', `/v1/models/${id}`, { token: caller.token });
  const all = (caller: Caller, url: string, limit = 100) => allItems(ctx.request, caller.token, url, limit);
  return { create, price, get, patch, del, all };
}

export type ModelHelpers = ReturnType<typeof helpers>;

/** What the tests of a models suite share, filled in before they run: an owner of a new organization. */
export interface Owned {
  owner: Caller;
}

/** The models suite of one part (prices, access, effective dates) on each engine. */
export function describeModels(part: string, body: (ctx: TestContext, h: ModelHelpers, s: Owned) => void): void {
  describeEachDialect('models', (ctx) => {
    const s = {} as Owned;
    beforeAll(async () => {
      s.owner = await ctx.make.caller({ role: 'owner' });
    });
    describe(part, () => body(ctx, helpers(ctx), s));
  });
}
