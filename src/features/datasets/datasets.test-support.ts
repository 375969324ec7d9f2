// What the datasets suites (datasets*.test.ts) share: an organization with its callers, and calls bound to them.
import { beforeAll, describe } from 'vitest';
import { describeEachDialect, type Caller, type TestContext } from '../../../test/helpers/harness.js';
import { allItems, ok, type Json } from '../../../test/helpers/json.js';

let seq = 0;
/** A dataset name no other test uses. */
export const uname = (prefix = 'golden') => `${prefix} ${process.pid}-${Date.now().toString(36)}-${(seq++).toString(36)}`;

export function helpers(ctx: TestContext) {
  const call = (caller: Caller, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) =>
    ctx.request(method, url, { token: caller.token, ...(body === undefined ? {} : { body }) });
  const dataset = async (caller: Caller, body: Json = {}): Promise<Json> => ok(await call(caller, 'POST', '/v1/datasets', { name: uname(), ...body }), 201);
  const add = async (caller: Caller, datasetId: string, items: Json[]): Promise<Json> =>
    ok(await call(caller, 'POST', `/v1/datasets/${datasetId}/items`, { items }), 201);
  const items = (caller: Caller, datasetId: string, version?: number) =>
    allItems(ctx.request, caller.token, `/v1/datasets/${datasetId}/items${version === undefined ? '' : `?version=${version}`}`);
  return { call, dataset, add, items };
}

export type DatasetHelpers = ReturnType<typeof helpers>;

/** The callers a datasets suite's tests share: an owner, and a member and a viewer of the same organization. */
export interface Callers {
  owner: Caller;
  member: Caller;
  viewer: Caller;
}

/** The datasets suite of one part on each engine. */
export function describeDatasets(part: string, body: (ctx: TestContext, h: DatasetHelpers, s: Callers) => void): void {
  describeEachDialect('datasets', (ctx) => {
    const s = {} as Callers;
    beforeAll(async () => {
      s.owner = await ctx.make.caller({ role: 'owner' });
      s.member = await ctx.make.caller({ role: 'member', organizationId: s.owner.organizationId });
      s.viewer = await ctx.make.caller({ role: 'viewer', organizationId: s.owner.organizationId });
    });
    describe(part, () => body(ctx, helpers(ctx), s));
  });
}
