import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { expectCleanProblem } from '../../../test/helpers/problems.js';
import { describeModels, validPrice } from './models.test-support.js';

/** Who may call each models route: roles, other organizations, no token. */
describeModels('roles and tenancy', (ctx, h, s) => {
  function routes(id: string) {
    return [
      { method: 'GET', url: '/v1/models', need: 'viewer', ok: 200 },
      { method: 'GET', url: '/v1/models/builtin', need: 'viewer', ok: 200 },
      { method: 'POST', url: '/v1/models', body: () => validPrice(), need: 'admin', ok: 201 },
      { method: 'GET', url: `/v1/models/${id}`, need: 'viewer', ok: 200 },
      { method: 'PATCH', url: `/v1/models/${id}`, body: () => ({ inputPrice: 0.25 }), need: 'admin', ok: 200 },
      { method: 'DELETE', url: `/v1/models/${id}`, need: 'admin', ok: 204 },
    ] as const;
  }
  const RANK = { viewer: 0, member: 1, admin: 2, owner: 3 } as const;
  const state = async () => (await h.all(s.owner, '/v1/models')).map((p) => [p.id, p.inputPrice]);

  for (const role of ['viewer', 'member', 'admin', 'owner'] as const) {
    it(`a ${role} reads prices${RANK[role] >= RANK.admin ? ' and writes them' : '; writing is a 403 that changes nothing'}`, async () => {
      const caller = role === 'owner' ? s.owner : await ctx.make.caller({ role, organizationId: s.owner.organizationId });
      for (const r of routes('ID')) {
        const target = await h.price(s.owner);
        const before = await state();
        const url = r.url.replace('ID', target.id);
        const res = await ctx.request(r.method, url, { token: caller.token, ...('body' in r ? { body: r.body() } : {}) });
        if (RANK[role] >= RANK[r.need]) {
          expect(res.statusCode, `${role} ${r.method} ${url}: ${res.body.slice(0, 300)}`).toBe(r.ok);
        } else {
          expectProblem(res, 403, 'forbidden', `Your role (${role}) does not allow models:write.`);
          expectCleanProblem(res, [target.id]);
          expect(await state(), `${role} ${r.method} ${url} changed nothing`).toEqual(before);
        }
      }
    });
  }

  it("another organization's price is a 404 on every route, as a missing one, and nothing changes", async () => {
    const outsider = await ctx.make.caller({ role: 'owner' });
    const target = await h.price(s.owner);
    const before = await state();
    for (const r of routes('ID').filter((x) => x.url.includes('ID'))) {
      for (const id of [target.id, 'mdl_0000000000zzzzzzzzzzzzzzzz']) {
        const res = await ctx.request(r.method, r.url.replace('ID', id), { token: outsider.token, ...('body' in r ? { body: r.body() } : {}) });
        expectProblem(res, 404, 'not-found', `Model price ${id} does not exist.`);
      }
    }
    expect(await state()).toEqual(before);
    // The outsider's own list holds none of them, and their prices are theirs alone.
    expect(await h.all(outsider, '/v1/models')).toEqual([]);
    const theirs = await h.price(outsider, { model: target.model, effectiveFrom: target.effectiveFrom });
    expect((await h.all(s.owner, '/v1/models')).map((p: Json) => p.id)).not.toContain(theirs.id);
  });

  it('a cursor of one list is refused on the other, and on the same list of another organization', async () => {
    for (let i = 0; i < 3; i++) await h.price(s.owner);
    const mine = ok(await h.get(s.owner, '/v1/models?limit=1')).nextCursor as string;
    const builtin = ok(await h.get(s.owner, '/v1/models/builtin?limit=1')).nextCursor as string;
    expectProblem(await h.get(s.owner, `/v1/models/builtin?limit=1&cursor=${mine}`), 400, 'validation', 'Cursor is malformed.');
    expectProblem(await h.get(s.owner, `/v1/models?limit=1&cursor=${builtin}`), 400, 'validation', 'Cursor is malformed.');
    expectProblem(await h.get(s.owner, `/v1/models/builtin?limit=1&provider=openai&cursor=${builtin}`), 400, 'validation', 'Cursor is malformed.');
    const outsider = await ctx.make.caller({ role: 'owner' });
    expectProblem(await h.get(outsider, `/v1/models/builtin?limit=1&cursor=${builtin}`), 400, 'validation', 'Cursor is malformed.');
    expect(ok(await h.get(s.owner, `/v1/models/builtin?limit=1&cursor=${builtin}`)).items).toHaveLength(1);
  });

  it('without a token every models route is a 401', async () => {
    const target = await h.price(s.owner);
    for (const r of routes(target.id)) {
      expectProblem(await ctx.request(r.method, r.url, { ...('body' in r ? { body: r.body() } : {}) }), 401, 'unauthorized');
    }
  });
});
