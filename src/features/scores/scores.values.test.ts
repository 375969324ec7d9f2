import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';
import { allItems, ok } from '../../../test/helpers/json.js';
import { scoresWorld } from './scores.test-support.js';

/** GET /v1/projects/{id}/scores/values: the project's distinct score names, in code-point order, a page at a time. */
describeEachDialect('score values', (ctx) => {
  async function scored(names: string[]) {
    const world = await scoresWorld(ctx);
    const scores = names.map((name, i) => ({ name, value: i % 2 === 0 ? 1 : 0.5, runId: ['t1', 't1-llm', 't2'][i % 3] }));
    const res = await world.call(world.member.token, 'POST', '/scores/batch', { scores });
    expect(ok(res).results.filter((r: { status: string }) => r.status !== 'created')).toEqual([]);
    return world;
  }
  const names = async (world: Awaited<ReturnType<typeof scored>>, query = '', limit = 100) =>
    (await allItems(ctx.request, world.viewer.token, `/v1/projects/${world.project.id}/scores/values?field=name${query}`, limit)).map((item) => {
      expect(Object.keys(item)).toEqual(['value']);
      return item.value as string;
    });

  it('lists each score name once, in code-point order, to every reader; a prefix narrows them case-sensitively', async () => {
    const world = await scored(['helpfulness', 'Helpfulness', 'tone', 'helpfulness', 'help', 'é-score', 'tone', 'hallucination']);
    // A trace's and a session's scores have names too.
    ok(await world.call(world.member.token, 'POST', '/traces/t1/scores', { name: 'thumbs', value: true }), 201);
    ok(await world.call(world.member.token, 'POST', '/sessions/chat-1/scores', { name: 'csat', value: 'good' }), 201);
    expect(await names(world)).toEqual(['Helpfulness', 'csat', 'hallucination', 'help', 'helpfulness', 'thumbs', 'tone', 'é-score']);
    expect(await names(world, '&prefix=help')).toEqual(['help', 'helpfulness']);
    expect(await names(world, '&prefix=Help')).toEqual(['Helpfulness']);
    expect(await names(world, '&prefix=h', 1)).toEqual(['hallucination', 'help', 'helpfulness']);
    expect(await names(world, `&prefix=${encodeURIComponent('é')}`)).toEqual(['é-score']);
    expect(await names(world, '&prefix=x')).toEqual([]);
  });

  it('walks every page to the end at any limit', async () => {
    const all = Array.from({ length: 31 }, (_, i) => `metric-${String(i).padStart(2, '0')}`);
    const world = await scored([...all].reverse().concat(all));
    for (const limit of [1, 4, 25, 100]) expect(await names(world, '', limit), `limit ${limit}`).toEqual(all);
    const first = ok(await ctx.request('GET', `/v1/projects/${world.project.id}/scores/values?field=name&limit=30`, { token: world.viewer.token }));
    const last = ok(
      await ctx.request('GET', `/v1/projects/${world.project.id}/scores/values?field=name&limit=30&cursor=${first.nextCursor}`, { token: world.viewer.token }),
    );
    expect(last).toEqual({ items: [{ value: 'metric-30' }], nextCursor: null, limit: 30 });
  });

  it('keeps each project’s names to itself and other organizations out; refuses what it does not take', async () => {
    const world = await scored(['mine']);
    const other = await scored(['theirs']);
    expect(await names(world)).toEqual(['mine']);
    const url = `/v1/projects/${world.project.id}/scores/values`;
    expectProblem(await ctx.request('GET', `${url}?field=name`, { token: other.owner.token }), 404, 'not-found', `Project ${world.project.id} does not exist.`);
    // A cursor of another project of the organization is not this list's.
    const sibling = await scored(['a', 'b']);
    const page = ok(await ctx.request('GET', `/v1/projects/${sibling.project.id}/scores/values?field=name&limit=1`, { token: sibling.owner.token }));
    expectProblem(
      await ctx.request('GET', `${url}?field=name&cursor=${page.nextCursor}`, { token: world.owner.token }),
      400,
      'validation',
      'Cursor is malformed.',
    );

    for (const [query, parameter, detail] of [
      ['?field=label', 'field', 'Must be one of: "name".'],
      ['', 'field', "Missing required field 'field'."],
      ['?field=name&key=x', 'key', "Unknown field 'key'."],
      ['?field=name&prefix=', 'prefix', 'Must NOT have fewer than 1 characters.'],
    ]) {
      const body = expectProblem(await ctx.request('GET', `${url}${query}`, { token: world.viewer.token }), 400, 'validation', detail);
      expect(body.errors).toEqual([{ parameter, detail }]);
    }
  });
});
