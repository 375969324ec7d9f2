import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { expectCleanProblem } from '../../../test/helpers/problems.js';
import { describePrompts, uname } from './prompts.test-support.js';

/** Who may call each prompt route: roles, other organizations, no token. */
describePrompts('roles and tenancy', (ctx, h, s) => {
  /** Every prompt route, with the role it needs and what it answers when allowed. */
  function routes(ref: string) {
    return [
      { method: 'GET', url: '/v1/prompts', need: 'viewer', ok: 200 },
      { method: 'POST', url: '/v1/prompts', body: () => ({ name: uname('rc'), template: 'x' }), need: 'member', ok: 201 },
      { method: 'GET', url: `/v1/prompts/${ref}`, need: 'viewer', ok: 200 },
      { method: 'PATCH', url: `/v1/prompts/${ref}`, body: () => ({ description: 'x' }), need: 'member', ok: 200 },
      { method: 'GET', url: `/v1/prompts/${ref}/versions`, need: 'viewer', ok: 200 },
      { method: 'POST', url: `/v1/prompts/${ref}/versions`, body: () => ({ template: 'Hello {{name}}' }), need: 'member', ok: 201 },
      { method: 'GET', url: `/v1/prompts/${ref}/versions/1`, need: 'viewer', ok: 200 },
      { method: 'GET', url: `/v1/prompts/${ref}/versions/production`, need: 'viewer', ok: 200 },
      { method: 'PUT', url: `/v1/prompts/${ref}/labels/staging`, body: () => ({ version: 1 }), need: 'member', ok: 200 },
      { method: 'DELETE', url: `/v1/prompts/${ref}/labels/production`, need: 'member', ok: 204 },
      { method: 'GET', url: `/v1/prompts/${ref}/label-history`, need: 'viewer', ok: 200 },
      { method: 'POST', url: `/v1/prompts/${ref}/render`, body: () => ({ variables: { name: 'x' } }), need: 'viewer', ok: 200 },
      { method: 'DELETE', url: `/v1/prompts/${ref}`, need: 'admin', ok: 204 },
    ] as const;
  }
  const RANK = { viewer: 0, member: 1, admin: 2, owner: 3 } as const;

  async function labelled(): Promise<Json> {
    const p = await h.prompt(s.owner);
    ok(await h.putLabel(s.owner, p.id, 'production', 1));
    return p;
  }
  const state = async (p: Json) => ({
    prompt: ok(await h.get(s.owner, `/v1/prompts/${p.id}`)),
    versions: (await h.all(s.owner, `/v1/prompts/${p.id}/versions`)).length,
    history: (await h.all(s.owner, `/v1/prompts/${p.id}/label-history`)).length,
    count: (await h.all(s.owner, '/v1/prompts')).length,
  });

  for (const role of ['viewer', 'member', 'admin'] as const) {
    it(`a ${role} gets each route's answer when the role allows it, else 403 with nothing changed`, async () => {
      const caller = await ctx.make.caller({ role, organizationId: s.owner.organizationId });
      for (const refKind of ['id', 'name'] as const) {
        for (const r of routes('REF')) {
          const p = await labelled();
          const before = await state(p);
          const url = r.url.replace('REF', p[refKind]);
          const res = await ctx.request(r.method, url, { token: caller.token, ...('body' in r ? { body: r.body() } : {}) });
          if (RANK[role] >= RANK[r.need]) {
            expect(res.statusCode, `${role} ${r.method} ${url}: ${res.body.slice(0, 300)}`).toBe(r.ok);
          } else {
            const body = expectProblem(res, 403, 'forbidden');
            expectCleanProblem(res, [p.id, p.name]);
            expect(body.status).toBe(403);
            expect(await state(p), `${role} ${r.method} ${url} changed nothing`).toEqual(before);
          }
        }
      }
    }, 60_000);
  }

  it("every route on another organization's prompt is a 404, by id and by name, indistinguishable from a missing one, and nothing changes", async () => {
    const outsider = await ctx.make.caller({ role: 'owner' });
    const p = await labelled();
    const before = await state(p);
    for (const r of routes('REF').filter((x) => x.url.includes('REF'))) {
      for (const [ref, ghost] of [
        [p.id, 'prm_0000000000zzzzzzzzzzzzzzzz'],
        [p.name, uname('ghost')],
      ] as const) {
        const res = await ctx.request(r.method, r.url.replace('REF', ref), { token: outsider.token, ...('body' in r ? { body: r.body() } : {}) });
        const body = expectProblem(res, 404, 'not-found');
        expectCleanProblem(res, [ref]);
        const missing = await ctx.request(r.method, r.url.replace('REF', ghost), { token: outsider.token, ...('body' in r ? { body: r.body() } : {}) });
        const body2 = expectProblem(missing, 404, 'not-found');
        expect(String(body.detail).split(ref).join('<ref>')).toBe(String(body2.detail).split(ghost).join('<ref>'));
      }
    }
    expect(await state(p)).toEqual(before);
  }, 60_000);

  it("an outsider's own prompt of the same name is theirs: the name resolves per organization", async () => {
    const p = await h.prompt(s.owner, { template: 'mine {{name}}' });
    const outsider = await ctx.make.caller({ role: 'owner' });
    const theirs = ok(await h.create(outsider, { name: p.name, template: 'theirs {{name}}' }), 201);
    expect(ok(await h.get(outsider, `/v1/prompts/${p.name}`)).id).toBe(theirs.id);
    expect(ok(await h.render(outsider, p.name, { variables: { name: 'x' } })).rendered).toBe('theirs x');
    expectProblem(await h.get(outsider, `/v1/prompts/${p.id}`), 404, 'not-found');
    ok(await h.putLabel(outsider, p.name, 'production', 1));
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}`)).labels).toEqual({});
  });

  it('without a token every prompt route is a 401', async () => {
    const p = await h.prompt(s.owner);
    for (const r of routes(p.id)) {
      const res = await ctx.request(r.method, r.url, { ...('body' in r ? { body: r.body() } : {}) });
      expectProblem(res, 401, 'unauthorized');
    }
  });
});
