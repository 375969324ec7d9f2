import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { expectCleanProblem, expectValidation } from '../../../test/helpers/problems.js';
import { describePrompts, VERSION_KEYS } from './prompts.test-support.js';

/** A prompt's versions: variables, numbering under concurrency, the list, reading by number or label, immutability. */
describePrompts('versions', (ctx, h, s) => {
  it('string templates: variables in order of first appearance, each once, whitespace inside braces allowed', async () => {
    const p = await h.prompt(s.owner, { template: 'Dear {{ a }}, {{b}} says {{a}} and {{  c_1 }}; {{b}}.' });
    const v1 = ok(await h.get(s.owner, `/v1/prompts/${p.id}/versions/1`));
    expect(v1.variables).toEqual(['a', 'b', 'c_1']);
    expect(v1.template).toBe('Dear {{ a }}, {{b}} says {{a}} and {{  c_1 }}; {{b}}.');
    const none = ok(await h.addVersion(s.owner, p.id, { template: 'No variables here, { not } {{}} {{ 1bad }}' }), 201);
    expect(none.variables).toEqual([]);
  });

  it('chat templates: messages stored as given, variables across messages in order, each once', async () => {
    const p = await h.prompt(s.owner);
    const template = [
      { role: 'system', content: 'You help {{customer}} with {{product}}.' },
      { role: 'user', content: '{{question}} (from {{customer}})' },
      { role: 'assistant', content: 'Sure.' },
    ];
    const v = ok(
      await h.addVersion(s.owner, p.name, { template, config: { model: 'gpt-4o', temperature: 0.2, nested: { stop: ['\n'], n: 1 } }, message: 'chat form' }),
      201,
    );
    expect(Object.keys(v).sort()).toEqual(VERSION_KEYS);
    expect(v).toMatchObject({
      promptId: p.id,
      version: 2,
      template,
      variables: ['customer', 'product', 'question'],
      config: { model: 'gpt-4o', temperature: 0.2, nested: { stop: ['\n'], n: 1 } },
      message: 'chat form',
      createdBy: s.owner.userId,
    });
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}/versions/2`))).toEqual(v);
  });

  it('createdBy is the caller: a member creating a version is named', async () => {
    const p = await h.prompt(s.owner);
    const member = await ctx.make.caller({ role: 'member', organizationId: s.owner.organizationId });
    const v = ok(await h.addVersion(member, p.id, { template: 'by member' }), 201);
    expect(v.createdBy).toBe(member.userId);
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}/versions/1`)).createdBy).toBe(s.owner.userId);
  });

  it('a new version bumps latestVersion and updatedAt but not createdAt; the client cannot choose the number', async () => {
    const p = await h.prompt(s.owner);
    await new Promise((r) => setTimeout(r, 5));
    ok(await h.addVersion(s.owner, p.id, { template: 'two' }), 201);
    const after = ok(await h.get(s.owner, `/v1/prompts/${p.id}`));
    expect(after.latestVersion).toBe(2);
    expect(after.createdAt).toBe(p.createdAt);
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(p.updatedAt));
    expectValidation(await h.addVersion(s.owner, p.id, { template: 'x', version: 7 }), { pointers: ['/version'] });
    expectValidation(await h.addVersion(s.owner, p.id, {}), { pointers: ['/template'] });
    expectValidation(await h.addVersion(s.owner, p.id, { template: 'x', config: [] }), { pointers: ['/config'] });
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}`)).latestVersion).toBe(2);
  });

  it('20 concurrent creations get versions 2..21, each exactly once', async () => {
    const p = await h.prompt(s.owner);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => h.addVersion(s.owner, p.id, { template: `variant ${i} {{x${i}}}`, message: `m${i}` })),
    );
    for (const r of results) expect(r.statusCode, r.body).toBe(201);
    const bodies = results.map((r) => r.json() as Json);
    expect(bodies.map((b) => b.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    // Each response is the version stored under its number.
    for (const b of bodies) expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}/versions/${b.version}`))).toEqual(b);
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}`)).latestVersion).toBe(21);
    const listed = await h.all(s.owner, `/v1/prompts/${p.id}/versions`);
    expect(listed.map((v) => v.version)).toEqual(Array.from({ length: 21 }, (_, i) => 21 - i));
    expect(new Set(listed.map((v) => v.message)).size).toBe(21);
    const next = ok(await h.addVersion(s.owner, p.id, { template: 'after the storm' }), 201);
    expect(next.version).toBe(22);
  });

  it('lists versions newest first, paginated', async () => {
    const p = await h.prompt(s.owner);
    for (let i = 2; i <= 12; i++) ok(await h.addVersion(s.owner, p.id, { template: `v${i}` }), 201);
    const first = ok(await h.get(s.owner, `/v1/prompts/${p.name}/versions?limit=5`));
    expect(first.limit).toBe(5);
    expect(first.items.map((v: Json) => v.version)).toEqual([12, 11, 10, 9, 8]);
    expect(typeof first.nextCursor).toBe('string');
    const second = ok(await h.get(s.owner, `/v1/prompts/${p.name}/versions?limit=5&cursor=${encodeURIComponent(first.nextCursor)}`));
    expect(second.items.map((v: Json) => v.version)).toEqual([7, 6, 5, 4, 3]);
    const third = ok(await h.get(s.owner, `/v1/prompts/${p.name}/versions?limit=5&cursor=${encodeURIComponent(second.nextCursor)}`));
    expect(third.items.map((v: Json) => v.version)).toEqual([2, 1]);
    expect(third.nextCursor).toBeNull();
    expect(third.items[0].template).toBe('v2');
    expect(Object.keys(third.items[1]).sort()).toEqual(VERSION_KEYS);
    // A cursor of one prompt's versions is refused on another prompt.
    const other = await h.prompt(s.owner);
    ok(await h.addVersion(s.owner, other.id, { template: 'x' }), 201);
    expectProblem(
      await h.get(s.owner, `/v1/prompts/${other.id}/versions?limit=1&cursor=${encodeURIComponent(first.nextCursor)}`),
      400,
      'validation',
      'Cursor is malformed.',
    );
  });

  it('gets a version by number and by label; unknown numbers and labels are 404', async () => {
    const p = await h.prompt(s.owner, { template: 'one' });
    ok(await h.addVersion(s.owner, p.id, { template: 'two' }), 201);
    ok(await h.putLabel(s.owner, p.id, 'staging', 2));
    ok(await h.putLabel(s.owner, p.id, 'production', 1));
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}/versions/2`)).template).toBe('two');
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.name}/versions/1`)).template).toBe('one');
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}/versions/staging`))).toEqual(ok(await h.get(s.owner, `/v1/prompts/${p.id}/versions/2`)));
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.name}/versions/production`)).version).toBe(1);
    for (const ref of ['3', '0', '99', '999999999', '9999999999', 'canary', 'latest', 'Production']) {
      const res = await h.get(s.owner, `/v1/prompts/${p.id}/versions/${ref}`);
      expectProblem(res, 404, 'not-found');
      expectCleanProblem(res, [ref, p.id]);
    }
  });

  it('versions are immutable: no route changes or deletes one, and later changes leave version 1 as it was', async () => {
    const p = await h.prompt(s.owner, { template: 'original {{x}}', config: { t: 1 }, message: 'm' });
    const v1 = ok(await h.get(s.owner, `/v1/prompts/${p.id}/versions/1`));
    for (const method of ['PATCH', 'PUT', 'DELETE', 'POST'] as const) {
      const res = await ctx.request(method, `/v1/prompts/${p.id}/versions/1`, { token: s.owner.token, body: { template: 'changed' } });
      expectProblem(res, 405, 'method-not-allowed');
      expect(res.headers.allow).toBe('GET, HEAD');
    }
    ok(await h.addVersion(s.owner, p.id, { template: 'second' }), 201);
    ok(await h.putLabel(s.owner, p.id, 'production', 1));
    ok(await ctx.request('PATCH', `/v1/prompts/${p.id}`, { token: s.owner.token, body: { description: 'new' } }));
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}/versions/1`))).toEqual(v1);
  });
});
