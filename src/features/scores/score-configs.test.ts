import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { scoresWorld } from './scores.test-support.js';

/** Score configs: organization-wide, written by admins, checked as a whole, and what deleting one leaves. */
describeEachDialect('score configs', (ctx) => {
  it('creates, lists, reads, changes, archives and deletes configs', async () => {
    const { admin, member, config } = await scoresWorld(ctx);
    const numeric = await config({ name: 'helpfulness', dataType: 'numeric', min: 0, max: 1, description: 'How much the answer helped' });
    expect(numeric).toEqual({
      id: expect.stringMatching(/^scc_/),
      name: 'helpfulness',
      dataType: 'numeric',
      min: 0,
      max: 1,
      categories: null,
      description: 'How much the answer helped',
      archived: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const tone = await config({ name: 'Tone', dataType: 'categorical', categories: ['friendly', 'rude'] });
    const thumbs = await config({ name: 'thumbs', dataType: 'boolean' });
    const get = (token: string, path = '') => ctx.request('GET', `/v1/score-configs${path}`, { token });
    expect((await get(member.token)).json().items.map((c: Json) => c.name)).toEqual(['thumbs', 'Tone', 'helpfulness']);
    expect((await get(member.token, '?name=TON')).json().items.map((c: Json) => c.id)).toEqual([tone.id]);
    expect((await get(member.token, `/${thumbs.id}`)).json()).toEqual(thumbs);

    const patch = (id: string, body: Json, token = admin.token) => ctx.request('PATCH', `/v1/score-configs/${id}`, { token, body });
    const changed = await patch(tone.id, { categories: ['friendly', 'neutral', 'rude'], archived: true });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ categories: ['friendly', 'neutral', 'rude'], archived: true });
    expect((await get(member.token, '?archived=true')).json().items.map((c: Json) => c.id)).toEqual([tone.id]);
    expect((await get(member.token, '?archived=false')).json().items.map((c: Json) => c.id)).toEqual([thumbs.id, numeric.id]);
    expectProblem(await patch(tone.id, { name: 'helpfulness' }), 409, 'conflict', 'The organization already has a score config named "helpfulness".');
    expectProblem(await patch(tone.id, { dataType: 'numeric' }), 400, 'validation');
    expectProblem(await patch(numeric.id, { min: 2 }), 400, 'validation', undefined);
    expectProblem(await patch(tone.id, { name: 'x' }, member.token), 403, 'forbidden', 'Your role (member) does not allow quality:admin.');

    expect((await ctx.request('DELETE', `/v1/score-configs/${thumbs.id}`, { token: admin.token })).statusCode).toBe(204);
    expectProblem(await get(member.token, `/${thumbs.id}`), 404, 'not-found', `Score config ${thumbs.id} does not exist.`);
  });

  it('refuses configs whose fields disagree, duplicate names and members’ writes', async () => {
    const { admin, member, config } = await scoresWorld(ctx);
    const post = (body: Json, token = admin.token) => ctx.request('POST', '/v1/score-configs', { token, body });
    const faults = async (body: Json) => (expectProblem(await post(body), 400, 'validation').errors as Json[]).map((e) => [e.pointer, e.detail]);
    expect(await faults({ name: 'a', dataType: 'numeric', min: 3, max: 1 })).toEqual([
      ['/min', 'The minimum (3) is more than the maximum (1).'],
      ['/max', 'The maximum (1) is less than the minimum (3).'],
    ]);
    expect(await faults({ name: 'a', dataType: 'categorical' })).toEqual([['/categories', 'A categorical config lists its categories.']]);
    expect(await faults({ name: 'a', dataType: 'boolean', min: 0, categories: ['x'] })).toEqual([
      ['/min', 'A boolean config has no minimum.'],
      ['/categories', 'A boolean config has no categories.'],
    ]);
    expectProblem(await post({ name: 'a', dataType: 'categorical', categories: ['x', 'x'] }), 400, 'validation');
    expectProblem(await post({ name: 'a', dataType: 'categorical', categories: [] }), 400, 'validation');
    expectProblem(await post({ name: 'a', dataType: 'ordinal' }), 400, 'validation');
    await config({ name: 'a', dataType: 'boolean' });
    expectProblem(await post({ name: 'a', dataType: 'numeric' }), 409, 'conflict');
    expectProblem(await post({ name: 'b', dataType: 'numeric' }, member.token), 403, 'forbidden');
  });

  it('keeps the scores a deleted config validated, without their configId; an archived config still validates', async () => {
    const { admin, member, call, config } = await scoresWorld(ctx);
    const helpful = await config({ name: 'helpfulness', dataType: 'numeric', min: 0, max: 1 });
    const score = (await call(member.token, 'POST', '/runs/t1/scores', { name: 'helpfulness', value: 1 })).json();
    expect(score.configId).toBe(helpful.id);
    await ctx.request('PATCH', `/v1/score-configs/${helpful.id}`, { token: admin.token, body: { archived: true } });
    expectProblem(await call(member.token, 'POST', '/runs/t1/scores', { name: 'helpfulness', value: 5 }), 400, 'validation');
    expect((await ctx.request('DELETE', `/v1/score-configs/${helpful.id}`, { token: admin.token })).statusCode).toBe(204);
    expect((await call(member.token, 'GET', `/scores/${score.id}`)).json()).toMatchObject({ value: 1, configId: null });
    expect((await call(member.token, 'POST', '/runs/t1/scores', { name: 'helpfulness', value: 5 })).statusCode).toBe(201);
  });
});
