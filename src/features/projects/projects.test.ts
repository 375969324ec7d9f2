import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';

describeEachDialect('projects', (ctx) => {
  it('creates, reads, renames and deletes a project', async () => {
    const owner = await ctx.make.caller({ role: 'owner' });
    const created = await ctx.request('POST', '/v1/projects', { token: owner.token, body: { name: 'Support bot', description: 'prod' } });
    expect(created.statusCode).toBe(201);
    const project = created.json();
    expect(project).toMatchObject({ name: 'Support bot', description: 'prod' });
    expect(project.id).toMatch(/^prj_[0-9a-z]{26}$/);
    expect(project.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const got = await ctx.request('GET', `/v1/projects/${project.id}`, { token: owner.token });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(project);

    const patched = await ctx.request('PATCH', `/v1/projects/${project.id}`, { token: owner.token, body: { name: 'Support bot v2' } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ id: project.id, name: 'Support bot v2', description: 'prod' });

    const deleted = await ctx.request('DELETE', `/v1/projects/${project.id}`, { token: owner.token });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expectProblem(await ctx.request('GET', `/v1/projects/${project.id}`, { token: owner.token }), 404, 'not-found');
  });

  it('keeps names unique per organization, case-insensitively, but not across organizations', async () => {
    const a = await ctx.make.caller();
    const b = await ctx.make.caller();
    expect((await ctx.request('POST', '/v1/projects', { token: a.token, body: { name: 'Checkout' } })).statusCode).toBe(201);
    expectProblem(await ctx.request('POST', '/v1/projects', { token: a.token, body: { name: 'checkout' } }), 409, 'conflict');
    expect((await ctx.request('POST', '/v1/projects', { token: b.token, body: { name: 'Checkout' } })).statusCode).toBe(201);
    const other = (await ctx.request('POST', '/v1/projects', { token: a.token, body: { name: 'Other' } })).json();
    expectProblem(await ctx.request('PATCH', `/v1/projects/${other.id}`, { token: a.token, body: { name: 'CHECKOUT' } }), 409, 'conflict');
  });

  it('filters the list by a case-insensitive substring, treating % and _ literally', async () => {
    const a = await ctx.make.caller();
    for (const name of ['Alpha_1', 'alphabet', 'Beta', '100% sure']) {
      expect((await ctx.request('POST', '/v1/projects', { token: a.token, body: { name } })).statusCode).toBe(201);
    }
    const names = async (q: string) =>
      (await ctx.request('GET', `/v1/projects?name=${encodeURIComponent(q)}`, { token: a.token }))
        .json()
        .items.map((p: { name: string }) => p.name)
        .sort();
    expect(await names('ALPHA')).toEqual(['Alpha_1', 'alphabet']);
    expect(await names('a_')).toEqual(['Alpha_1']);
    expect(await names('%')).toEqual(['100% sure']);
  });

  it('refuses unknown fields and bad names with every fault listed', async () => {
    const a = await ctx.make.caller();
    const res = await ctx.request('POST', '/v1/projects', { token: a.token, body: { name: ' padded', organizationId: 'org_x', role: 'owner' } });
    const body = expectProblem(res, 400, 'validation');
    const pointers = (body.errors as { pointer: string }[]).map((e) => e.pointer).sort();
    expect(pointers).toEqual(['/name', '/organizationId', '/role']);
  });
});
