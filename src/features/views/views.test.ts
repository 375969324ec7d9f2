import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { MAX_VIEWS } from './views.schemas.js';

/** Saved views: a user's named filter sets per project, theirs alone, validated like the lists' filters. */
describeEachDialect('saved views', (ctx) => {
  async function setup() {
    const owner = await ctx.make.caller({ role: 'owner' });
    const viewer = await ctx.make.caller({ role: 'viewer', organizationId: owner.organizationId });
    const project = await ctx.make.project(owner.organizationId);
    const base = `/v1/projects/${project.id}/views`;
    const call = (token: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path = '', body?: unknown) =>
      ctx.request(method, `${base}${path}`, { token, ...(body === undefined ? {} : { body }) });
    return { owner, viewer, project, base, call };
  }

  it('saves, lists, renames, replaces and deletes a view; the filters come back as given', async () => {
    const { owner, project, call } = await setup();
    const filters = {
      status: 'failed',
      q: 'refund',
      tag: ['vip', 'beta'],
      'metadata.env': 'prod',
      'metadata.tier!': 'free',
      hasMetadata: ['plan'],
      name: 'Chat*',
      range: '7d',
      hasScore: ['thumbs'],
      'score.helpfulness>': '0.5',
      scoreColumn: 'helpfulness',
    };
    const created = await call(owner.token, 'POST', '', { name: 'Failed refunds', page: 'traces', filters });
    expect(created.statusCode, created.body).toBe(201);
    const view = created.json() as Json;
    expect(view).toEqual({
      id: expect.stringMatching(/^vew_/),
      projectId: project.id,
      name: 'Failed refunds',
      page: 'traces',
      filters,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await call(owner.token, 'GET', `/${view.id}`)).json()).toEqual(view);
    await call(owner.token, 'POST', '', { name: 'All runs', page: 'runs' });
    expect((await call(owner.token, 'GET')).json().items.map((v: Json) => v.name)).toEqual(['All runs', 'Failed refunds']);
    expect((await call(owner.token, 'GET', '?page=runs')).json().items.map((v: Json) => v.name)).toEqual(['All runs']);

    const renamed = await call(owner.token, 'PATCH', `/${view.id}`, { name: 'Refunds that failed', filters: { kind: 'llm' } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ id: view.id, name: 'Refunds that failed', page: 'traces', filters: { kind: 'llm' } });
    expectProblem(await call(owner.token, 'PATCH', `/${view.id}`, { name: 'All runs' }), 409, 'conflict');
    expectProblem(await call(owner.token, 'POST', '', { name: 'All runs', page: 'traces' }), 409, 'conflict');

    expect((await call(owner.token, 'DELETE', `/${view.id}`)).statusCode).toBe(204);
    expectProblem(await call(owner.token, 'GET', `/${view.id}`), 404, 'not-found');
    expectProblem(await call(owner.token, 'DELETE', `/${view.id}`), 404, 'not-found');
  });

  it('keeps each user to their own views (a viewer too); another user’s view is a 404, and another organization’s project too', async () => {
    const { owner, viewer, call, base } = await setup();
    const mine = (await call(owner.token, 'POST', '', { name: 'Mine', page: 'traces' })).json() as Json;
    const theirs = await call(viewer.token, 'POST', '', { name: 'Mine', page: 'sessions', filters: { q: 'invoice' } });
    expect(theirs.statusCode, theirs.body).toBe(201);
    expect((await call(viewer.token, 'GET')).json().items.map((v: Json) => v.id)).toEqual([theirs.json().id]);
    for (const [method, body] of [['GET'], ['PATCH', { name: 'stolen' }], ['DELETE']] as const)
      expectProblem(await call(viewer.token, method, `/${mine.id}`, body), 404, 'not-found');
    expect((await call(owner.token, 'GET', `/${mine.id}`)).json().name).toBe('Mine');
    const stranger = await ctx.make.caller({ role: 'owner' });
    expectProblem(await ctx.request('GET', base, { token: stranger.token }), 404, 'not-found');
    expectProblem(await ctx.request('GET', `${base}/${mine.id}`, { token: stranger.token }), 404, 'not-found');
  });

  it('refuses filters a list would refuse, naming the field, and more than the most views', async () => {
    const { owner, call } = await setup();
    for (const [filters, pointer] of [
      [{ status: 'broken' }, '/filters/status'],
      [{ bogus: 1 }, '/filters/bogus'],
      [{ 'metadata.bad key': 'x' }, '/filters/metadata.bad key'],
      [{ hasMetadata: ['no spaces'] }, '/filters/hasMetadata/0'],
      [{ range: '2y' }, '/filters/range'],
    ] as const) {
      const res = await call(owner.token, 'POST', '', { name: 'bad', page: 'traces', filters });
      const problem = expectProblem(res, 400, 'validation');
      expect((problem.errors as { pointer: string }[]).map((e) => e.pointer)).toContain(pointer);
    }
    for (let i = 0; i < MAX_VIEWS; i++) expect((await call(owner.token, 'POST', '', { name: `view ${i}`, page: 'runs' })).statusCode).toBe(201);
    const over = expectProblem(await call(owner.token, 'POST', '', { name: 'one more', page: 'runs' }), 409, 'conflict');
    expect(over.detail).toBe(`You have ${MAX_VIEWS} views in this project, the most there can be: delete one first.`);
  });
});
