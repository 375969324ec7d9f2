import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';
import { allItems, ok, type Json } from '../../../test/helpers/json.js';
import { qname, queuesWorld } from './annotations.test-support.js';

/** Annotation queues: created, read with their counts, listed, changed, deleted; who may do what. */
describeEachDialect('annotation queues', (ctx) => {
  it('creates a queue, reads it back with empty counts, lists queues newest first', async () => {
    const { member, viewer, project, call, queue, config } = await queuesWorld(ctx);
    const helpful = await config({ name: qname('helpfulness'), dataType: 'numeric', min: 0, max: 1 });
    const created = await call(member, 'POST', '', { name: 'Support answers', description: 'Weekly review', target: 'trace', scoreConfigIds: [helpful.id] });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toEqual({
      id: expect.stringMatching(/^aq_[0-9a-z]{26}$/),
      projectId: project.id,
      name: 'Support answers',
      description: 'Weekly review',
      target: 'trace',
      scoreConfigIds: [helpful.id],
      counts: { pending: 0, inProgress: 0, completed: 0, skipped: 0 },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = created.json().id as string;
    expect(ok(await call(viewer, 'GET', `/${id}`))).toEqual(created.json());
    const plain = await queue();
    expect(plain).toMatchObject({ target: 'run', description: '', scoreConfigIds: [] });
    const listed = await allItems(ctx.request, viewer.token, `/v1/projects/${project.id}/annotation-queues`);
    expect(listed.map((q: Json) => q.id)).toEqual([plain.id, id]);
  });

  it('refuses score configs the organization does not have (400 naming each), a taken name (409) and bad fields (400)', async () => {
    const { member, call, queue, config } = await queuesWorld(ctx);
    const helpful = await config({ name: qname('helpfulness'), dataType: 'boolean' });
    const elsewhere = await ctx.request('POST', '/v1/score-configs', {
      token: (await ctx.make.caller({ role: 'admin' })).token,
      body: { name: qname('theirs'), dataType: 'boolean' },
    });
    const theirs = ok(elsewhere, 201).id as string;
    const problem = expectProblem(await call(member, 'POST', '', { name: qname(), scoreConfigIds: [helpful.id, 'scc_missing', theirs] }), 400, 'validation');
    expect(problem.errors).toEqual([
      { pointer: '/scoreConfigIds/1', detail: 'Score config scc_missing does not exist.' },
      { pointer: '/scoreConfigIds/2', detail: `Score config ${theirs} does not exist.` },
    ]);
    const first = await queue({ name: 'Taken' });
    expectProblem(await call(member, 'POST', '', { name: 'Taken' }), 409, 'conflict', 'The project already has an annotation queue named "Taken".');
    expectProblem(await call(member, 'POST', '', { name: qname(), target: 'session' }), 400, 'validation');
    expectProblem(await call(member, 'POST', '', { name: ' padded' }), 400, 'validation');
    expectProblem(await call(member, 'POST', '', {}), 400, 'validation');
    expectProblem(await call(member, 'PATCH', `/${first.id}`, { target: 'trace' }), 400, 'validation');
    expectProblem(await call(member, 'PATCH', `/${first.id}`, {}), 400, 'validation');
  });

  it('changes the name, description and score configs; a name another queue has is a 409', async () => {
    const { member, call, queue, config } = await queuesWorld(ctx);
    const a = await queue({ name: 'A' });
    await queue({ name: 'B' });
    const tone = await config({ name: qname('tone'), dataType: 'categorical', categories: ['ok', 'rude'] });
    const changed = ok(await call(member, 'PATCH', `/${a.id}`, { name: 'A2', description: 'now', scoreConfigIds: [tone.id] }));
    expect(changed).toMatchObject({ id: a.id, name: 'A2', description: 'now', scoreConfigIds: [tone.id], target: 'run', createdAt: a.createdAt });
    expectProblem(await call(member, 'PATCH', `/${a.id}`, { name: 'B' }), 409, 'conflict', 'The project already has an annotation queue named "B".');
    const bad = expectProblem(await call(member, 'PATCH', `/${a.id}`, { scoreConfigIds: ['scc_nope'] }), 400, 'validation');
    expect(bad.errors).toEqual([{ pointer: '/scoreConfigIds/0', detail: 'Score config scc_nope does not exist.' }]);
    expectProblem(await call(member, 'PATCH', '/aq_missing', { name: 'x' }), 404, 'not-found', 'Annotation queue aq_missing does not exist.');
  });

  it('deletes a queue with its items (admins only); its scores stay', async () => {
    const { member, admin, call, queue, add, claim } = await queuesWorld(ctx);
    const q = await queue();
    await add(q.id, { ids: ['r0', 'r1'] });
    const item = ok(await claim(q.id, member));
    ok(await call(member, 'POST', `/${q.id}/items/${item.id}/complete`, { scores: [{ name: 'thumbs', value: true }] }));
    expectProblem(await call(member, 'DELETE', `/${q.id}`), 403, 'forbidden', 'Your role (member) does not allow quality:admin.');
    expect((await call(admin, 'DELETE', `/${q.id}`)).statusCode).toBe(204);
    expectProblem(await call(member, 'GET', `/${q.id}`), 404, 'not-found', `Annotation queue ${q.id} does not exist.`);
    expectProblem(await call(member, 'GET', `/${q.id}/items`), 404, 'not-found');
    expectProblem(await call(admin, 'DELETE', `/${q.id}`), 404, 'not-found');
    expect(await ctx.database.storage.db.selectFrom('annotation_items').select('id').where('queue_id', '=', q.id).execute()).toEqual([]);
    const scores = ok(await ctx.request('GET', `/v1/projects/${q.projectId}/scores?queueId=${q.id}`, { token: member.token }));
    expect(scores.items).toHaveLength(1);
  });

  it('lets a viewer read queues and items but not write; another organization sees none of it', async () => {
    const { viewer, call, queue, add } = await queuesWorld(ctx);
    const q = await queue();
    await add(q.id, { ids: ['r0'] });
    expect(ok(await call(viewer, 'GET', `/${q.id}/items`)).items).toHaveLength(1);
    const refused = 'Your role (viewer) does not allow scores:write.';
    expectProblem(await call(viewer, 'POST', '', { name: qname() }), 403, 'forbidden', refused);
    expectProblem(await call(viewer, 'PATCH', `/${q.id}`, { name: 'x' }), 403, 'forbidden', refused);
    expectProblem(await call(viewer, 'POST', `/${q.id}/items`, { ids: ['r1'] }), 403, 'forbidden', refused);
    expectProblem(await call(viewer, 'POST', `/${q.id}/claim`), 403, 'forbidden', refused);
    const stranger = await ctx.make.caller({ role: 'owner' });
    expectProblem(await call(stranger, 'GET', `/${q.id}`), 404, 'not-found');
  });
});
