import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { expectCleanProblem, expectValidation } from '../../../test/helpers/problems.js';
import { describePrompts, ISO, PROMPT_KEYS, uname, VERSION_KEYS } from './prompts.test-support.js';

/** Prompts (docs/prompts.md): organization-wide, versioned, labelled, rendered, polled with ETags. Here: creation, reading, the description, deletion. */
describePrompts('create', (ctx, h, s) => {
  it('creates a prompt with its version 1 (201, the documented record shape)', async () => {
    const name = uname('support');
    const res = await h.create(s.owner, { name, description: 'Answers customers', template: 'Hi {{customer}}', config: { model: 'gpt-4o' }, message: 'first' });
    const body = ok(res, 201);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    expect(Object.keys(body).sort()).toEqual(PROMPT_KEYS);
    expect(body.id).toMatch(/^prm_[0-9a-z]+$/);
    expect(body).toMatchObject({ name, description: 'Answers customers', latestVersion: 1, labels: {} });
    expect(body.createdAt).toMatch(ISO);
    expect(body.updatedAt).toMatch(ISO);

    const v1 = ok(await h.get(s.owner, `/v1/prompts/${body.id}/versions/1`));
    expect(Object.keys(v1).sort()).toEqual(VERSION_KEYS);
    expect(v1).toMatchObject({
      promptId: body.id,
      version: 1,
      template: 'Hi {{customer}}',
      variables: ['customer'],
      config: { model: 'gpt-4o' },
      message: 'first',
      createdBy: s.owner.userId,
    });
    expect(v1.createdAt).toMatch(ISO);
  });

  it('defaults description to "", config to {} and message to ""', async () => {
    const p = await h.prompt(s.owner);
    expect(p.description).toBe('');
    const v1 = ok(await h.get(s.owner, `/v1/prompts/${p.id}/versions/1`));
    expect(v1.config).toEqual({});
    expect(v1.message).toBe('');
  });

  it('keeps __proto__ and constructor keys of a config as data, exactly as sent', async () => {
    const config = JSON.parse('{"__proto__":{"admin":true},"constructor":{"prototype":1},"model":"gpt-4o"}');
    const p = await h.prompt(s.owner, { template: 'x', config });
    const res = await h.get(s.owner, `/v1/prompts/${p.id}/versions/1`);
    expect(res.body).toContain('"config":{"__proto__":{"admin":true},"constructor":{"prototype":1},"model":"gpt-4o"}');
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('accepts a 100-character name and names with digits, dots, dashes and underscores', async () => {
    for (const name of [`a${'b'.repeat(99)}`, `0.${uname('x')}_y`]) {
      const res = await h.create(s.owner, { name, template: 'x' });
      expect(res.statusCode, `${name}: ${res.body}`).toBe(201);
    }
  });

  it('refuses bad names with a 400 naming /name', async () => {
    for (const name of [
      'Upper',
      'UPPER-case',
      'has space',
      ' lead',
      'trail ',
      'prm_x',
      'prm_01jabc',
      '',
      'x'.repeat(101),
      '-dash-first',
      '.dot',
      'a/b',
      'é',
      1,
      null,
    ]) {
      const res = await h.create(s.owner, { name, template: 'x' });
      expectValidation(res, { pointers: ['/name'] });
    }
    expectValidation(await h.create(s.owner, { template: 'x' }), { pointers: ['/name'] });
    const names = (await h.all(s.owner, '/v1/prompts')).map((p) => p.name);
    expect(names).not.toContain('prm_x');
    expect(names).not.toContain('Upper');
  });

  it('refuses bad templates, configs and messages, and fields the server owns', async () => {
    const name = uname();
    const cases: [Json, string][] = [
      [{ name }, '/template'],
      [{ name, template: 1 }, '/template'],
      [{ name, template: [] }, '/template'],
      [{ name, template: [{ role: 'wizard', content: 'x' }] }, '/template'],
      [{ name, template: [{ role: 'user' }] }, '/template'],
      [{ name, template: 'x', config: 'gpt-4o' }, '/config'],
      [{ name, template: 'x', message: 5 }, '/message'],
      [{ name, template: 'x', latestVersion: 7 }, '/latestVersion'],
      [{ name, template: 'x', id: 'prm_mine' }, '/id'],
      [{ name, template: 'x', organizationId: 'org_x' }, '/organizationId'],
    ];
    for (const [body, pointer] of cases) {
      const errors = expectValidation(await h.create(s.owner, body));
      expect(
        errors.some((e) => e.pointer === pointer || e.pointer?.startsWith(`${pointer}/`)),
        `${JSON.stringify(body)} → ${JSON.stringify(errors)}`,
      ).toBe(true);
    }
    expectProblem(await h.get(s.owner, `/v1/prompts/${name}`), 404, 'not-found');
  });

  it('names are unique per organization (409), and free in another organization', async () => {
    const name = uname('dup');
    await h.prompt(s.owner, { name });
    const again = await h.create(s.owner, { name, template: 'other' });
    expectProblem(again, 409, 'conflict');
    expectCleanProblem(again, [name]);
    // The original is untouched: still version 1 with its own template.
    const v = ok(await h.get(s.owner, `/v1/prompts/${name}/versions/1`));
    expect(v.template).toBe('Hello {{name}}');

    const other = await ctx.make.caller({ role: 'member' });
    const elsewhere = ok(await h.create(other, { name, template: 'theirs' }), 201);
    expect(elsewhere.name).toBe(name);
    expect(ok(await h.get(other, `/v1/prompts/${name}/versions/1`)).template).toBe('theirs');
    expect(ok(await h.get(s.owner, `/v1/prompts/${name}/versions/1`)).template).toBe('Hello {{name}}');
  });

  it('two concurrent creations of one name: one 201, one 409', async () => {
    const name = uname('race');
    const results = await Promise.all([h.create(s.owner, { name, template: 'a' }), h.create(s.owner, { name, template: 'b' })]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    expectProblem(
      results.find((r) => r.statusCode === 409)!,
      409,
      'conflict',
    );
  });
});

describePrompts('get, update, delete', (ctx, h, s) => {
  const db = () => ctx.database.storage.db;

  it('gets a prompt by id and by name, identically', async () => {
    const p = await h.prompt(s.owner, { description: 'd' });
    const byId = ok(await h.get(s.owner, `/v1/prompts/${p.id}`));
    const byName = ok(await h.get(s.owner, `/v1/prompts/${p.name}`));
    expect(byId).toEqual(p);
    expect(byName).toEqual(p);
  });

  it('unknown ids and names are 404', async () => {
    expectProblem(await h.get(s.owner, '/v1/prompts/prm_00000000000000000000000000'), 404, 'not-found');
    expectProblem(await h.get(s.owner, `/v1/prompts/${uname('nobody')}`), 404, 'not-found');
  });

  it('PATCH changes only the description; updatedAt moves, createdAt and everything else stay', async () => {
    const p = await h.prompt(s.owner, { description: 'before' });
    await new Promise((r) => setTimeout(r, 5));
    const patched = ok(await ctx.request('PATCH', `/v1/prompts/${p.name}`, { token: s.owner.token, body: { description: 'after' } }));
    expect(patched).toMatchObject({ id: p.id, name: p.name, description: 'after', latestVersion: 1, labels: {}, createdAt: p.createdAt });
    expect(Date.parse(patched.updatedAt)).toBeGreaterThan(Date.parse(p.updatedAt));
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}`))).toEqual(patched);
    const cleared = ok(await ctx.request('PATCH', `/v1/prompts/${p.id}`, { token: s.owner.token, body: { description: '' } }));
    expect(cleared.description).toBe('');
  });

  it('PATCH refuses every other field (400 naming it) and changes nothing', async () => {
    const p = await h.prompt(s.owner, { description: 'keep' });
    const cases: [Json, string][] = [
      [{ name: uname('renamed') }, '/name'],
      [{ description: 'x', name: uname('renamed') }, '/name'],
      [{ latestVersion: 9 }, '/latestVersion'],
      [{ labels: { production: 1 } }, '/labels'],
      [{ template: 'x' }, '/template'],
      [{ description: 5 }, '/description'],
      [{ description: null }, '/description'],
      [{ description: 'x'.repeat(2001) }, '/description'],
    ];
    for (const [body, pointer] of cases) {
      const res = await ctx.request('PATCH', `/v1/prompts/${p.id}`, { token: s.owner.token, body });
      const errors = expectValidation(res);
      expect(
        errors.some((e) => e.pointer === pointer),
        `${JSON.stringify(body).slice(0, 60)} → ${res.body.slice(0, 300)}`,
      ).toBe(true);
    }
    expectValidation(await ctx.request('PATCH', `/v1/prompts/${p.id}`, { token: s.owner.token, body: {} }));
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}`))).toEqual(p);
  });

  it('DELETE is admin+: a member and a viewer get 403 and nothing changes', async () => {
    const p = await h.prompt(s.owner);
    for (const role of ['member', 'viewer'] as const) {
      const caller = await ctx.make.caller({ role, organizationId: s.owner.organizationId });
      const res = await ctx.request('DELETE', `/v1/prompts/${p.id}`, { token: caller.token });
      expectProblem(res, 403, 'forbidden');
      expectCleanProblem(res, [p.id]);
    }
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}`))).toEqual(p);
  });

  it('DELETE by an admin: 204 with no body, then 404 everywhere, versions, labels and history gone, and the name free again', async () => {
    const p = await h.prompt(s.owner);
    ok(await h.addVersion(s.owner, p.id, { template: 'v2' }), 201);
    ok(await h.putLabel(s.owner, p.id, 'production', 2));
    const admin = await ctx.make.caller({ role: 'admin', organizationId: s.owner.organizationId });
    const res = await ctx.request('DELETE', `/v1/prompts/${p.name}`, { token: admin.token });
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');

    for (const url of [
      `/v1/prompts/${p.id}`,
      `/v1/prompts/${p.name}`,
      `/v1/prompts/${p.id}/versions`,
      `/v1/prompts/${p.id}/versions/1`,
      `/v1/prompts/${p.id}/versions/production`,
      `/v1/prompts/${p.id}/label-history`,
    ]) {
      expectProblem(await h.get(s.owner, url), 404, 'not-found');
    }
    expectProblem(await h.render(s.owner, p.id, { variables: { name: 'x' } }), 404, 'not-found');
    expectProblem(await ctx.request('DELETE', `/v1/prompts/${p.id}`, { token: admin.token }), 404, 'not-found');
    expect((await h.all(s.owner, '/v1/prompts')).map((x) => x.id)).not.toContain(p.id);

    for (const table of ['prompt_versions', 'prompt_labels', 'prompt_label_events'] as const) {
      const left = await db().selectFrom(table).select('prompt_id').where('prompt_id', '=', p.id).execute();
      expect(left, table).toEqual([]);
    }
    const again = ok(await h.create(s.owner, { name: p.name, template: 'reborn' }), 201);
    expect(again.id).not.toBe(p.id);
    expect(again.latestVersion).toBe(1);
    expect(again.labels).toEqual({});
  });
});
