import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { describeDatasets, uname } from './datasets.test-support.js';

/** Datasets themselves: create, list, read, rename, delete; names, roles and tenancy. */
describeDatasets('the dataset resource', (ctx, h, s) => {
  it('creates a dataset at version 0, reads, lists, changes and deletes it', async () => {
    const name = uname('Support answers');
    const created = await h.call(s.member, 'POST', '/v1/datasets', { name, description: 'Hard tickets', metadata: { owner: 'qa', tier: 1 } });
    const dataset = ok(created, 201);
    expect(dataset).toEqual({
      id: expect.stringMatching(/^ds_[0-9a-z]{26}$/),
      name,
      description: 'Hard tickets',
      metadata: { owner: 'qa', tier: 1 },
      version: 0,
      itemCount: 0,
      createdAt: expect.any(String),
      updatedAt: dataset.createdAt,
    });
    expect(ok(await h.call(s.viewer, 'GET', `/v1/datasets/${dataset.id}`))).toEqual(dataset);

    const changed = ok(await h.call(s.member, 'PATCH', `/v1/datasets/${dataset.id}`, { description: 'Harder tickets', metadata: {} }));
    expect(changed).toMatchObject({ id: dataset.id, name, description: 'Harder tickets', metadata: {}, version: 0 });
    const renamed = ok(await h.call(s.member, 'PATCH', `/v1/datasets/${dataset.id}`, { name: `${name} v2` }));
    expect(renamed).toMatchObject({ name: `${name} v2`, description: 'Harder tickets' });

    expectProblem(await h.call(s.member, 'DELETE', `/v1/datasets/${dataset.id}`), 403, 'forbidden', 'Your role (member) does not allow quality:admin.');
    expect((await h.call(s.owner, 'DELETE', `/v1/datasets/${dataset.id}`)).statusCode).toBe(204);
    expectProblem(await h.call(s.owner, 'GET', `/v1/datasets/${dataset.id}`), 404, 'not-found', `Dataset ${dataset.id} does not exist.`);
    expectProblem(await h.call(s.owner, 'DELETE', `/v1/datasets/${dataset.id}`), 404, 'not-found', `Dataset ${dataset.id} does not exist.`);
  });

  it('keeps names unique in the organization regardless of case (409), and lists newest first, filtered by a substring of the name', async () => {
    const tag = uname('Refunds');
    const first = await h.dataset(s.owner, { name: `${tag} alpha` });
    const second = await h.dataset(s.owner, { name: `${tag} beta` });
    await h.dataset(s.owner);
    const taken = `A dataset named "${tag.toUpperCase()} ALPHA" already exists in this organization.`;
    expectProblem(await h.call(s.member, 'POST', '/v1/datasets', { name: `${tag} alpha`.toUpperCase() }), 409, 'conflict', taken);
    expectProblem(await h.call(s.member, 'PATCH', `/v1/datasets/${second.id}`, { name: `${tag} ALPHA`.toUpperCase() }), 409, 'conflict', taken);

    const filtered = ok(await h.call(s.viewer, 'GET', `/v1/datasets?name=${encodeURIComponent(tag.toLowerCase())}`));
    expect(filtered.items.map((d: Json) => d.id)).toEqual([second.id, first.id]);
    expect(filtered.nextCursor).toBeNull();
    const all = ok(await h.call(s.viewer, 'GET', '/v1/datasets?limit=100'));
    expect(all.items.length).toBeGreaterThanOrEqual(3);
    // Another organization may use the same name.
    const outsider = await ctx.make.caller({ role: 'owner' });
    ok(await h.call(outsider, 'POST', '/v1/datasets', { name: `${tag} alpha` }), 201);
  });

  it('gives viewers reads only, and another organization a 404 on every route, changing nothing', async () => {
    const dataset = await h.dataset(s.owner);
    expectProblem(await h.call(s.viewer, 'POST', '/v1/datasets', { name: uname() }), 403, 'forbidden', 'Your role (viewer) does not allow scores:write.');
    expectProblem(await h.call(s.viewer, 'PATCH', `/v1/datasets/${dataset.id}`, { name: uname() }), 403, 'forbidden');
    expectProblem(await h.call(s.viewer, 'POST', `/v1/datasets/${dataset.id}/items`, { items: [{ input: 1 }] }), 403, 'forbidden');

    const outsider = await ctx.make.caller({ role: 'owner' });
    for (const [method, path, body] of [
      ['GET', ''],
      ['PATCH', '', { name: uname() }],
      ['DELETE', ''],
      ['GET', '/items'],
      ['POST', '/items', { items: [{ input: 'x' }] }],
    ] as const) {
      expectProblem(await h.call(outsider, method, `/v1/datasets/${dataset.id}${path}`, body), 404, 'not-found', `Dataset ${dataset.id} does not exist.`);
    }
    expect(ok(await h.call(outsider, 'GET', '/v1/datasets')).items).toEqual([]);
    expect(ok(await h.call(s.owner, 'GET', `/v1/datasets/${dataset.id}`))).toEqual(dataset);
  });

  it('refuses bad names, metadata and unknown fields with a validation problem naming the field', async () => {
    for (const [body, pointer] of [
      [{ name: '' }, '/name'],
      [{ name: ' padded' }, '/name'],
      [{ name: 'x'.repeat(201) }, '/name'],
      [{ name: 'ok', metadata: [] }, '/metadata'],
      [{ name: 'ok', bogus: 1 }, '/bogus'],
    ] as const) {
      const problem = expectProblem(await h.call(s.owner, 'POST', '/v1/datasets', body), 400, 'validation');
      expect((problem.errors as { pointer: string }[]).map((e) => e.pointer)).toContain(pointer);
    }
    let deep: unknown = 1;
    for (let i = 0; i < 101; i++) deep = { d: deep };
    const problem = expectProblem(await h.call(s.owner, 'POST', '/v1/datasets', { name: uname(), metadata: deep }), 400, 'validation');
    expect(problem.errors).toEqual([{ pointer: '/metadata', detail: 'Must not nest more than 100 levels deep.' }]);
    expectProblem(await h.call(s.owner, 'PATCH', `/v1/datasets/${(await h.dataset(s.owner)).id}`, {}), 400, 'validation');
  });
});
