import { expect, it } from 'vitest';
import { ok, type Json } from '../../../test/helpers/json.js';
import { expectValidation } from '../../../test/helpers/problems.js';
import { describePrompts, PROMPT_KEYS } from './prompts.test-support.js';

/** GET /v1/prompts: order, filters, and only the caller organization. */
describePrompts('list', (ctx, h, s) => {
  it('lists newest first by creation; an update does not move a prompt; filters name (substring, literal) and label', async () => {
    const caller = await ctx.make.caller({ role: 'owner' });
    const made: Json[] = [];
    for (const name of ['alpha-one', 'beta', 'alpha-two', 'a_b-lit', 'axb-lit']) {
      made.push(await h.prompt(caller, { name }));
      await new Promise((r) => setTimeout(r, 2));
    }
    const ids = (items: Json[]) => items.map((p) => p.name);
    expect(ids(await h.all(caller, '/v1/prompts'))).toEqual(['axb-lit', 'a_b-lit', 'alpha-two', 'beta', 'alpha-one']);
    // Updating the oldest (description, version, label) does not move it.
    ok(await ctx.request('PATCH', `/v1/prompts/alpha-one`, { token: caller.token, body: { description: 'bumped' } }));
    ok(await h.addVersion(caller, 'alpha-one', { template: 'v2' }), 201);
    ok(await h.putLabel(caller, 'alpha-one', 'production', 2));
    ok(await h.putLabel(caller, 'beta', 'staging', 1));
    const listed = await h.all(caller, '/v1/prompts', 2);
    expect(ids(listed)).toEqual(['axb-lit', 'a_b-lit', 'alpha-two', 'beta', 'alpha-one']);
    expect(listed.find((p) => p.name === 'alpha-one')).toMatchObject({ latestVersion: 2, labels: { production: 2 }, description: 'bumped' });
    for (const item of listed) expect(Object.keys(item).sort()).toEqual(PROMPT_KEYS);

    expect(ids(await h.all(caller, '/v1/prompts?name=alpha'))).toEqual(['alpha-two', 'alpha-one']);
    expect(ids(await h.all(caller, '/v1/prompts?name=pha-t'))).toEqual(['alpha-two']);
    expect(ids(await h.all(caller, '/v1/prompts?name=a_b'))).toEqual(['a_b-lit']);
    expect(ids(await h.all(caller, '/v1/prompts?name=%25'))).toEqual([]);
    expect(ids(await h.all(caller, '/v1/prompts?name=zzz'))).toEqual([]);
    expect(ids(await h.all(caller, '/v1/prompts?label=production'))).toEqual(['alpha-one']);
    expect(ids(await h.all(caller, '/v1/prompts?label=staging'))).toEqual(['beta']);
    expect(ids(await h.all(caller, '/v1/prompts?label=staging&name=alpha'))).toEqual([]);
    expect(ids(await h.all(caller, '/v1/prompts?label=canary'))).toEqual([]);
    // A removed label no longer matches.
    expect((await h.delLabel(caller, 'beta', 'staging')).statusCode).toBe(204);
    expect(ids(await h.all(caller, '/v1/prompts?label=staging'))).toEqual([]);
  });

  it('refuses bad filters (400 naming the parameter)', async () => {
    for (const [query, parameter] of [
      ['name=', 'name'],
      [`name=${'x'.repeat(101)}`, 'name'],
      ['label=123', 'label'],
      ['label=Production', 'label'],
      ['label=', 'label'],
      ['bogus=1', 'bogus'],
      ['limit=abc', 'limit'],
    ] as const) {
      expectValidation(await h.get(s.owner, `/v1/prompts?${query}`), { parameters: [parameter] });
    }
  });

  it("never lists another organization's prompts", async () => {
    const mine = await h.prompt(s.owner);
    const outsider = await ctx.make.caller({ role: 'owner' });
    const theirs = await h.prompt(outsider);
    expect((await h.all(outsider, '/v1/prompts')).map((p) => p.id)).toEqual([theirs.id]);
    expect((await h.all(s.owner, '/v1/prompts')).map((p) => p.id)).not.toContain(theirs.id);
    expect((await h.all(s.owner, '/v1/prompts')).map((p) => p.id)).toContain(mine.id);
  });
});
