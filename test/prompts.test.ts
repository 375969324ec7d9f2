/**
 * Prompts (README, Prompts): organization-wide, versioned, labelled, rendered, polled with ETags.
 * Every engine; roles and tenancy as everywhere.
 */
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect, expectProblem, manualClock, type Caller, type TestContext } from './helpers/harness.js';
import { expectCleanProblem, expectValidation } from './helpers/problems.js';

let seq = 0;
const uname = (prefix = 'prompt') => `${prefix}-${process.pid}-${Date.now().toString(36)}-${(seq++).toString(36)}`;

const PROMPT_KEYS = ['createdAt', 'description', 'id', 'labels', 'latestVersion', 'name', 'updatedAt'];
const VERSION_KEYS = ['config', 'createdAt', 'createdBy', 'message', 'promptId', 'template', 'variables', 'version'];
const EVENT_KEYS = ['actor', 'createdAt', 'fromVersion', 'id', 'label', 'toVersion'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Json = Record<string, any>;

function ok(res: LightMyRequestResponse, status = 200): Json {
  expect(res.statusCode, res.body.slice(0, 500)).toBe(status);
  return res.json() as Json;
}

function helpers(ctx: TestContext) {
  const create = (caller: Caller, body: Json) => ctx.request('POST', '/v1/prompts', { token: caller.token, body });
  async function prompt(caller: Caller, body: Json = {}): Promise<Json> {
    return ok(await create(caller, { name: uname(), template: 'Hello {{name}}', ...body }), 201);
  }
  const get = (caller: Caller, url: string, headers?: Record<string, string>) =>
    ctx.request('GET', url, { token: caller.token, ...(headers ? { headers } : {}) });
  const addVersion = (caller: Caller, ref: string, body: Json) => ctx.request('POST', `/v1/prompts/${ref}/versions`, { token: caller.token, body });
  const putLabel = (caller: Caller, ref: string, label: string, version: number) =>
    ctx.request('PUT', `/v1/prompts/${ref}/labels/${label}`, { token: caller.token, body: { version } });
  const delLabel = (caller: Caller, ref: string, label: string) => ctx.request('DELETE', `/v1/prompts/${ref}/labels/${label}`, { token: caller.token });
  const render = (caller: Caller, ref: string, body: Json) => ctx.request('POST', `/v1/prompts/${ref}/render`, { token: caller.token, body });
  async function all(caller: Caller, url: string, limit = 100): Promise<Json[]> {
    const items: Json[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 100; i++) {
      const page: Json = ok(await get(caller, `${url}${url.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`));
      items.push(...page.items);
      cursor = page.nextCursor;
      if (!cursor) return items;
    }
    throw new Error('list did not end');
  }
  return { create, prompt, get, addVersion, putLabel, delLabel, render, all };
}

describeEachDialect('prompts', (ctx) => {
  const db = () => ctx.database.storage.db;
  const h = helpers(ctx);
  let owner: Caller;

  beforeAll(async () => {
    owner = await ctx.make.caller({ role: 'owner' });
  });

  // ------------------------------------------------------------------------------------------ create
  describe('create', () => {
    it('creates a prompt with its version 1 (201, the documented record shape)', async () => {
      const name = uname('support');
      const res = await h.create(owner, { name, description: 'Answers customers', template: 'Hi {{customer}}', config: { model: 'gpt-4o' }, message: 'first' });
      const body = ok(res, 201);
      expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
      expect(Object.keys(body).sort()).toEqual(PROMPT_KEYS);
      expect(body.id).toMatch(/^prm_[0-9a-z]+$/);
      expect(body).toMatchObject({ name, description: 'Answers customers', latestVersion: 1, labels: {} });
      expect(body.createdAt).toMatch(ISO);
      expect(body.updatedAt).toMatch(ISO);

      const v1 = ok(await h.get(owner, `/v1/prompts/${body.id}/versions/1`));
      expect(Object.keys(v1).sort()).toEqual(VERSION_KEYS);
      expect(v1).toMatchObject({
        promptId: body.id,
        version: 1,
        template: 'Hi {{customer}}',
        variables: ['customer'],
        config: { model: 'gpt-4o' },
        message: 'first',
        createdBy: owner.userId,
      });
      expect(v1.createdAt).toMatch(ISO);
    });

    it('defaults description to "", config to {} and message to ""', async () => {
      const p = await h.prompt(owner);
      expect(p.description).toBe('');
      const v1 = ok(await h.get(owner, `/v1/prompts/${p.id}/versions/1`));
      expect(v1.config).toEqual({});
      expect(v1.message).toBe('');
    });

    it('keeps __proto__ and constructor keys of a config as data, exactly as sent', async () => {
      const config = JSON.parse('{"__proto__":{"admin":true},"constructor":{"prototype":1},"model":"gpt-4o"}');
      const p = await h.prompt(owner, { template: 'x', config });
      const res = await h.get(owner, `/v1/prompts/${p.id}/versions/1`);
      expect(res.body).toContain('"config":{"__proto__":{"admin":true},"constructor":{"prototype":1},"model":"gpt-4o"}');
      expect(({} as Record<string, unknown>).admin).toBeUndefined();
    });

    it('accepts a 100-character name and names with digits, dots, dashes and underscores', async () => {
      for (const name of [`a${'b'.repeat(99)}-${seq++}`.slice(0, 100), `0.${uname('x')}_y`]) {
        const res = await h.create(owner, { name, template: 'x' });
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
        const res = await h.create(owner, { name, template: 'x' });
        expectValidation(res, { pointers: ['/name'] });
      }
      expectValidation(await h.create(owner, { template: 'x' }), { pointers: ['/name'] });
      const names = (await h.all(owner, '/v1/prompts')).map((p) => p.name);
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
        const errors = expectValidation(await h.create(owner, body));
        expect(
          errors.some((e) => e.pointer === pointer || e.pointer?.startsWith(`${pointer}/`)),
          `${JSON.stringify(body)} → ${JSON.stringify(errors)}`,
        ).toBe(true);
      }
      expectProblem(await h.get(owner, `/v1/prompts/${name}`), 404, 'not-found');
    });

    it('names are unique per organization (409), and free in another organization', async () => {
      const name = uname('dup');
      await h.prompt(owner, { name });
      const again = await h.create(owner, { name, template: 'other' });
      expectProblem(again, 409, 'conflict');
      expectCleanProblem(again, [name]);
      // The original is untouched: still version 1 with its own template.
      const v = ok(await h.get(owner, `/v1/prompts/${name}/versions/1`));
      expect(v.template).toBe('Hello {{name}}');

      const other = await ctx.make.caller({ role: 'member' });
      const elsewhere = ok(await h.create(other, { name, template: 'theirs' }), 201);
      expect(elsewhere.name).toBe(name);
      expect(ok(await h.get(other, `/v1/prompts/${name}/versions/1`)).template).toBe('theirs');
      expect(ok(await h.get(owner, `/v1/prompts/${name}/versions/1`)).template).toBe('Hello {{name}}');
    });

    it('two concurrent creations of one name: one 201, one 409', async () => {
      const name = uname('race');
      const results = await Promise.all([h.create(owner, { name, template: 'a' }), h.create(owner, { name, template: 'b' })]);
      expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409]);
      expectProblem(
        results.find((r) => r.statusCode === 409)!,
        409,
        'conflict',
      );
    });
  });

  // ------------------------------------------------------------------------------------------ read, update, delete
  describe('get, update, delete', () => {
    it('gets a prompt by id and by name, identically', async () => {
      const p = await h.prompt(owner, { description: 'd' });
      const byId = ok(await h.get(owner, `/v1/prompts/${p.id}`));
      const byName = ok(await h.get(owner, `/v1/prompts/${p.name}`));
      expect(byId).toEqual(p);
      expect(byName).toEqual(p);
    });

    it('unknown ids and names are 404', async () => {
      expectProblem(await h.get(owner, '/v1/prompts/prm_00000000000000000000000000'), 404, 'not-found');
      expectProblem(await h.get(owner, `/v1/prompts/${uname('nobody')}`), 404, 'not-found');
    });

    it('PATCH changes only the description; updatedAt moves, createdAt and everything else stay', async () => {
      const p = await h.prompt(owner, { description: 'before' });
      await new Promise((r) => setTimeout(r, 5));
      const patched = ok(await ctx.request('PATCH', `/v1/prompts/${p.name}`, { token: owner.token, body: { description: 'after' } }));
      expect(patched).toMatchObject({ id: p.id, name: p.name, description: 'after', latestVersion: 1, labels: {}, createdAt: p.createdAt });
      expect(Date.parse(patched.updatedAt)).toBeGreaterThan(Date.parse(p.updatedAt));
      expect(ok(await h.get(owner, `/v1/prompts/${p.id}`))).toEqual(patched);
      const cleared = ok(await ctx.request('PATCH', `/v1/prompts/${p.id}`, { token: owner.token, body: { description: '' } }));
      expect(cleared.description).toBe('');
    });

    it('PATCH refuses every other field (400 naming it) and changes nothing', async () => {
      const p = await h.prompt(owner, { description: 'keep' });
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
        const res = await ctx.request('PATCH', `/v1/prompts/${p.id}`, { token: owner.token, body });
        const errors = expectValidation(res);
        expect(
          errors.some((e) => e.pointer === pointer),
          `${JSON.stringify(body).slice(0, 60)} → ${res.body.slice(0, 300)}`,
        ).toBe(true);
      }
      expectValidation(await ctx.request('PATCH', `/v1/prompts/${p.id}`, { token: owner.token, body: {} }));
      expect(ok(await h.get(owner, `/v1/prompts/${p.id}`))).toEqual(p);
    });

    it('DELETE is admin+: a member and a viewer get 403 and nothing changes', async () => {
      const p = await h.prompt(owner);
      for (const role of ['member', 'viewer'] as const) {
        const caller = await ctx.make.caller({ role, organizationId: owner.organizationId });
        const res = await ctx.request('DELETE', `/v1/prompts/${p.id}`, { token: caller.token });
        expectProblem(res, 403, 'forbidden');
        expectCleanProblem(res, [p.id]);
      }
      expect(ok(await h.get(owner, `/v1/prompts/${p.id}`))).toEqual(p);
    });

    it('DELETE by an admin: 204 with no body, then 404 everywhere, versions, labels and history gone, and the name free again', async () => {
      const p = await h.prompt(owner);
      ok(await h.addVersion(owner, p.id, { template: 'v2' }), 201);
      ok(await h.putLabel(owner, p.id, 'production', 2));
      const admin = await ctx.make.caller({ role: 'admin', organizationId: owner.organizationId });
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
        expectProblem(await h.get(owner, url), 404, 'not-found');
      }
      expectProblem(await h.render(owner, p.id, { variables: { name: 'x' } }), 404, 'not-found');
      expectProblem(await ctx.request('DELETE', `/v1/prompts/${p.id}`, { token: admin.token }), 404, 'not-found');
      expect((await h.all(owner, '/v1/prompts')).map((x) => x.id)).not.toContain(p.id);

      for (const table of ['prompt_versions', 'prompt_labels', 'prompt_label_events'] as const) {
        const left = await db().selectFrom(table).select('prompt_id').where('prompt_id', '=', p.id).execute();
        expect(left, table).toEqual([]);
      }
      const again = ok(await h.create(owner, { name: p.name, template: 'reborn' }), 201);
      expect(again.id).not.toBe(p.id);
      expect(again.latestVersion).toBe(1);
      expect(again.labels).toEqual({});
    });
  });

  // ------------------------------------------------------------------------------------------ versions
  describe('versions', () => {
    it('string templates: variables in order of first appearance, each once, whitespace inside braces allowed', async () => {
      const p = await h.prompt(owner, { template: 'Dear {{ a }}, {{b}} says {{a}} and {{  c_1 }}; {{b}}.' });
      const v1 = ok(await h.get(owner, `/v1/prompts/${p.id}/versions/1`));
      expect(v1.variables).toEqual(['a', 'b', 'c_1']);
      expect(v1.template).toBe('Dear {{ a }}, {{b}} says {{a}} and {{  c_1 }}; {{b}}.');
      const none = ok(await h.addVersion(owner, p.id, { template: 'No variables here, { not } {{}} {{ 1bad }}' }), 201);
      expect(none.variables).toEqual([]);
    });

    it('chat templates: messages stored as given, variables across messages in order, each once', async () => {
      const p = await h.prompt(owner);
      const template = [
        { role: 'system', content: 'You help {{customer}} with {{product}}.' },
        { role: 'user', content: '{{question}} (from {{customer}})' },
        { role: 'assistant', content: 'Sure.' },
      ];
      const v = ok(
        await h.addVersion(owner, p.name, { template, config: { model: 'gpt-4o', temperature: 0.2, nested: { stop: ['\n'], n: 1 } }, message: 'chat form' }),
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
        createdBy: owner.userId,
      });
      expect(ok(await h.get(owner, `/v1/prompts/${p.id}/versions/2`))).toEqual(v);
    });

    it('createdBy is the caller: a member creating a version is named', async () => {
      const p = await h.prompt(owner);
      const member = await ctx.make.caller({ role: 'member', organizationId: owner.organizationId });
      const v = ok(await h.addVersion(member, p.id, { template: 'by member' }), 201);
      expect(v.createdBy).toBe(member.userId);
      expect(ok(await h.get(owner, `/v1/prompts/${p.id}/versions/1`)).createdBy).toBe(owner.userId);
    });

    it('a new version bumps latestVersion and updatedAt but not createdAt; the client cannot choose the number', async () => {
      const p = await h.prompt(owner);
      await new Promise((r) => setTimeout(r, 5));
      ok(await h.addVersion(owner, p.id, { template: 'two' }), 201);
      const after = ok(await h.get(owner, `/v1/prompts/${p.id}`));
      expect(after.latestVersion).toBe(2);
      expect(after.createdAt).toBe(p.createdAt);
      expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(p.updatedAt));
      expectValidation(await h.addVersion(owner, p.id, { template: 'x', version: 7 }), { pointers: ['/version'] });
      expectValidation(await h.addVersion(owner, p.id, {}), { pointers: ['/template'] });
      expectValidation(await h.addVersion(owner, p.id, { template: 'x', config: [] }), { pointers: ['/config'] });
      expect(ok(await h.get(owner, `/v1/prompts/${p.id}`)).latestVersion).toBe(2);
    });

    it('20 concurrent creations get versions 2..21, each exactly once', async () => {
      const p = await h.prompt(owner);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => h.addVersion(owner, p.id, { template: `variant ${i} {{x${i}}}`, message: `m${i}` })),
      );
      for (const r of results) expect(r.statusCode, r.body).toBe(201);
      const bodies = results.map((r) => r.json() as Json);
      expect(bodies.map((b) => b.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
      // Each response is the version stored under its number.
      for (const b of bodies) expect(ok(await h.get(owner, `/v1/prompts/${p.id}/versions/${b.version}`))).toEqual(b);
      expect(ok(await h.get(owner, `/v1/prompts/${p.id}`)).latestVersion).toBe(21);
      const listed = await h.all(owner, `/v1/prompts/${p.id}/versions`);
      expect(listed.map((v) => v.version)).toEqual(Array.from({ length: 21 }, (_, i) => 21 - i));
      expect(new Set(listed.map((v) => v.message)).size).toBe(21);
      const next = ok(await h.addVersion(owner, p.id, { template: 'after the storm' }), 201);
      expect(next.version).toBe(22);
    });

    it('lists versions newest first, paginated', async () => {
      const p = await h.prompt(owner);
      for (let i = 2; i <= 12; i++) ok(await h.addVersion(owner, p.id, { template: `v${i}` }), 201);
      const first = ok(await h.get(owner, `/v1/prompts/${p.name}/versions?limit=5`));
      expect(first.limit).toBe(5);
      expect(first.items.map((v: Json) => v.version)).toEqual([12, 11, 10, 9, 8]);
      expect(typeof first.nextCursor).toBe('string');
      const second = ok(await h.get(owner, `/v1/prompts/${p.name}/versions?limit=5&cursor=${encodeURIComponent(first.nextCursor)}`));
      expect(second.items.map((v: Json) => v.version)).toEqual([7, 6, 5, 4, 3]);
      const third = ok(await h.get(owner, `/v1/prompts/${p.name}/versions?limit=5&cursor=${encodeURIComponent(second.nextCursor)}`));
      expect(third.items.map((v: Json) => v.version)).toEqual([2, 1]);
      expect(third.nextCursor).toBeNull();
      expect(third.items[0].template).toBe('v2');
      expect(Object.keys(third.items[1]).sort()).toEqual(VERSION_KEYS);
      // A cursor of one prompt's versions is refused on another prompt.
      const other = await h.prompt(owner);
      ok(await h.addVersion(owner, other.id, { template: 'x' }), 201);
      expectProblem(
        await h.get(owner, `/v1/prompts/${other.id}/versions?limit=1&cursor=${encodeURIComponent(first.nextCursor)}`),
        400,
        'validation',
        'Cursor is malformed.',
      );
    });

    it('gets a version by number and by label; unknown numbers and labels are 404', async () => {
      const p = await h.prompt(owner, { template: 'one' });
      ok(await h.addVersion(owner, p.id, { template: 'two' }), 201);
      ok(await h.putLabel(owner, p.id, 'staging', 2));
      ok(await h.putLabel(owner, p.id, 'production', 1));
      expect(ok(await h.get(owner, `/v1/prompts/${p.id}/versions/2`)).template).toBe('two');
      expect(ok(await h.get(owner, `/v1/prompts/${p.name}/versions/1`)).template).toBe('one');
      expect(ok(await h.get(owner, `/v1/prompts/${p.id}/versions/staging`))).toEqual(ok(await h.get(owner, `/v1/prompts/${p.id}/versions/2`)));
      expect(ok(await h.get(owner, `/v1/prompts/${p.name}/versions/production`)).version).toBe(1);
      for (const ref of ['3', '0', '99', '999999999', '9999999999', 'canary', 'latest', 'Production']) {
        const res = await h.get(owner, `/v1/prompts/${p.id}/versions/${ref}`);
        expectProblem(res, 404, 'not-found');
        expectCleanProblem(res, [ref, p.id]);
      }
    });

    it('versions are immutable: no route changes or deletes one, and later changes leave version 1 as it was', async () => {
      const p = await h.prompt(owner, { template: 'original {{x}}', config: { t: 1 }, message: 'm' });
      const v1 = ok(await h.get(owner, `/v1/prompts/${p.id}/versions/1`));
      for (const method of ['PATCH', 'PUT', 'DELETE', 'POST'] as const) {
        const res = await ctx.request(method, `/v1/prompts/${p.id}/versions/1`, { token: owner.token, body: { template: 'changed' } });
        expectProblem(res, 405, 'method-not-allowed');
        expect(res.headers.allow).toBe('GET, HEAD');
      }
      ok(await h.addVersion(owner, p.id, { template: 'second' }), 201);
      ok(await h.putLabel(owner, p.id, 'production', 1));
      ok(await ctx.request('PATCH', `/v1/prompts/${p.id}`, { token: owner.token, body: { description: 'new' } }));
      expect(ok(await h.get(owner, `/v1/prompts/${p.id}/versions/1`))).toEqual(v1);
    });
  });

  // ------------------------------------------------------------------------------------------ labels
  describe('labels', () => {
    it('PUT creates a label, PUT moves it, PUT the same version records nothing, DELETE removes it; history lists every move newest first', async () => {
      const p = await h.prompt(owner);
      ok(await h.addVersion(owner, p.id, { template: 'two' }), 201);
      ok(await h.addVersion(owner, p.id, { template: 'three' }), 201);
      const member = await ctx.make.caller({ role: 'member', organizationId: owner.organizationId });

      const created = ok(await h.putLabel(owner, p.id, 'production', 1));
      expect(Object.keys(created).sort()).toEqual(PROMPT_KEYS);
      expect(created.labels).toEqual({ production: 1 });
      const moved = ok(await h.putLabel(member, p.name, 'production', 3));
      expect(moved.labels).toEqual({ production: 3 });
      ok(await h.putLabel(owner, p.id, 'staging', 2));
      const same = ok(await h.putLabel(owner, p.id, 'staging', 2));
      expect(same.labels).toEqual({ production: 3, staging: 2 });
      expect(ok(await h.get(owner, `/v1/prompts/${p.id}`)).labels).toEqual({ production: 3, staging: 2 });

      const removed = await h.delLabel(member, p.id, 'staging');
      expect(removed.statusCode, removed.body).toBe(204);
      expect(removed.body).toBe('');
      expect(ok(await h.get(owner, `/v1/prompts/${p.id}`)).labels).toEqual({ production: 3 });
      expectProblem(await h.get(owner, `/v1/prompts/${p.id}/versions/staging`), 404, 'not-found');
      expectProblem(await h.delLabel(owner, p.id, 'staging'), 404, 'not-found');
      expectProblem(await h.delLabel(owner, p.id, 'never-was'), 404, 'not-found');

      const history = ok(await h.get(owner, `/v1/prompts/${p.id}/label-history`));
      expect(history.nextCursor).toBeNull();
      for (const e of history.items) {
        expect(Object.keys(e).sort()).toEqual(EVENT_KEYS);
        expect(e.createdAt).toMatch(ISO);
      }
      expect(history.items.map(({ label, fromVersion, toVersion, actor }: Json) => ({ label, fromVersion, toVersion, actor }))).toEqual([
        { label: 'staging', fromVersion: 2, toVersion: null, actor: member.userId },
        { label: 'staging', fromVersion: null, toVersion: 2, actor: owner.userId },
        { label: 'production', fromVersion: 1, toVersion: 3, actor: member.userId },
        { label: 'production', fromVersion: null, toVersion: 1, actor: owner.userId },
      ]);
      const times = history.items.map((e: Json) => Date.parse(e.createdAt));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
      // By name too.
      expect(ok(await h.get(owner, `/v1/prompts/${p.name}/label-history`))).toEqual(history);
    });

    it('a label removed and set again starts over from null', async () => {
      const p = await h.prompt(owner);
      ok(await h.putLabel(owner, p.id, 'canary', 1));
      expect((await h.delLabel(owner, p.id, 'canary')).statusCode).toBe(204);
      ok(await h.putLabel(owner, p.id, 'canary', 1));
      const items = ok(await h.get(owner, `/v1/prompts/${p.id}/label-history`)).items as Json[];
      expect(items.map((e) => [e.fromVersion, e.toVersion])).toEqual([
        [null, 1],
        [1, null],
        [null, 1],
      ]);
    });

    it('PUT to a version that does not exist is a 400 naming /version; nothing is recorded', async () => {
      const p = await h.prompt(owner);
      ok(await h.addVersion(owner, p.id, { template: 'two' }), 201);
      for (const version of [3, 99, 2_000_000_000]) {
        const res = await h.putLabel(owner, p.id, 'production', version);
        expectValidation(res, { pointers: ['/version'] });
      }
      for (const version of [0, -1, 1.5, '1', null]) {
        const res = await ctx.request('PUT', `/v1/prompts/${p.id}/labels/production`, { token: owner.token, body: { version } });
        expectValidation(res, { pointers: ['/version'] });
      }
      expectValidation(await ctx.request('PUT', `/v1/prompts/${p.id}/labels/production`, { token: owner.token, body: {} }), { pointers: ['/version'] });
      expect(ok(await h.get(owner, `/v1/prompts/${p.id}`)).labels).toEqual({});
      expect(ok(await h.get(owner, `/v1/prompts/${p.id}/label-history`)).items).toEqual([]);
    });

    it('refuses label names that are numbers, upper case or not slugs (400)', async () => {
      const p = await h.prompt(owner);
      for (const label of ['123', '1', '007', 'Production', 'STAGING', 'has%20space', '-x', 'x'.repeat(65)]) {
        const res = await h.putLabel(owner, p.id, label, 1);
        expectProblem(res, 400, 'validation');
        expectCleanProblem(res, [label, decodeURIComponent(label)]);
        expectProblem(await h.delLabel(owner, p.id, label), 400, 'validation');
      }
      expect(ok(await h.get(owner, `/v1/prompts/${p.id}`)).labels).toEqual({});
      // Any slug is fine.
      expect(ok(await h.putLabel(owner, p.id, 'ab-test_2.1', 1)).labels).toEqual({ 'ab-test_2.1': 1 });
      expect(ok(await h.get(owner, `/v1/prompts/${p.id}/versions/ab-test_2.1`)).version).toBe(1);
    });

    it('label history paginates newest first', async () => {
      const p = await h.prompt(owner);
      for (let i = 2; i <= 4; i++) ok(await h.addVersion(owner, p.id, { template: `v${i}` }), 201);
      const moves = [1, 2, 3, 4, 1, 2, 3];
      for (const v of moves) {
        ok(await h.putLabel(owner, p.id, 'production', v));
        await new Promise((r) => setTimeout(r, 2));
      }
      const items = await h.all(owner, `/v1/prompts/${p.id}/label-history`, 2);
      expect(items.map((e) => e.toVersion)).toEqual([...moves].reverse());
      expect(items.map((e) => e.fromVersion)).toEqual([null, ...moves.slice(0, -1)].reverse());
    });
  });

  // ------------------------------------------------------------------------------------------ render
  describe('render', () => {
    it('renders the latest version by default, a version by number, or the version a label points at', async () => {
      const p = await h.prompt(owner, { template: 'v1: {{name}}' });
      ok(await h.addVersion(owner, p.id, { template: 'v2: {{name}}!' }), 201);
      ok(await h.putLabel(owner, p.id, 'production', 1));
      const latest = ok(await h.render(owner, p.id, { variables: { name: 'Ada' } }));
      expect(latest).toEqual({ template: 'v2: {{name}}!', rendered: 'v2: Ada!' });
      expect(ok(await h.render(owner, p.name, { version: 1, variables: { name: 'Ada' } }))).toEqual({ template: 'v1: {{name}}', rendered: 'v1: Ada' });
      expect(ok(await h.render(owner, p.id, { label: 'production', variables: { name: 'Bob' } }))).toEqual({ template: 'v1: {{name}}', rendered: 'v1: Bob' });
      // A version or label that does not exist is a fault of the body, named like every other.
      expect(expectProblem(await h.render(owner, p.id, { version: 3, variables: { name: 'x' } }), 400, 'validation').errors).toEqual([
        { pointer: '/version', detail: 'Version 3 does not exist on this prompt.' },
      ]);
      expect(expectProblem(await h.render(owner, p.id, { label: 'staging', variables: { name: 'x' } }), 400, 'validation').errors).toEqual([
        { pointer: '/label', detail: 'Label staging does not exist on this prompt.' },
      ]);
    });

    it('refuses version and label together (400)', async () => {
      const p = await h.prompt(owner);
      ok(await h.putLabel(owner, p.id, 'production', 1));
      expectValidation(await h.render(owner, p.id, { version: 1, label: 'production', variables: { name: 'x' } }));
    });

    it('fills every occurrence, with whitespace inside braces; numbers and booleans rendered as text; values are not re-expanded', async () => {
      const p = await h.prompt(owner, { template: '{{ who }} x{{n}} {{flag}} {{zero}} {{f}} {{who}} {{s}}' });
      const r = ok(await h.render(owner, p.id, { variables: { who: 'Ada', n: 3, flag: false, zero: 0, f: 1.5, s: '{{who}}' } }));
      expect(r.rendered).toBe('Ada x3 false 0 1.5 Ada {{who}}');
      const empty = await h.prompt(owner, { template: 'no variables' });
      expect(ok(await h.render(owner, empty.id, { variables: {} })).rendered).toBe('no variables');
    });

    it('renders chat templates message by message', async () => {
      const template = [
        { role: 'system', content: 'You help {{customer}}.' },
        { role: 'user', content: '{{question}} — {{customer}}' },
        { role: 'assistant', content: 'Plain.' },
      ];
      const p = await h.prompt(owner, { template });
      const r = ok(await h.render(owner, p.id, { variables: { customer: 'Ada', question: 'Where?' } }));
      expect(r.template).toEqual(template);
      expect(r.rendered).toEqual([
        { role: 'system', content: 'You help Ada.' },
        { role: 'user', content: 'Where? — Ada' },
        { role: 'assistant', content: 'Plain.' },
      ]);
    });

    it('refuses missing and unknown variables with a 400 naming each at /variables/<name>', async () => {
      const p = await h.prompt(owner, {
        template: [
          { role: 'system', content: '{{a}} {{b}}' },
          { role: 'user', content: '{{c}}' },
        ],
      });
      const pointers = (res: LightMyRequestResponse) =>
        expectValidation(res)
          .map((e) => e.pointer)
          .sort();
      expect(pointers(await h.render(owner, p.id, { variables: {} }))).toEqual(['/variables/a', '/variables/b', '/variables/c']);
      expect(pointers(await h.render(owner, p.id, { variables: { a: 1, c: 'x' } }))).toEqual(['/variables/b']);
      expect(pointers(await h.render(owner, p.id, { variables: { a: 1, b: 2, c: 3, extra: 'x', more: true } }))).toEqual([
        '/variables/extra',
        '/variables/more',
      ]);
      expect(pointers(await h.render(owner, p.id, { variables: { b: 2, nope: 1 } }))).toEqual(['/variables/a', '/variables/c', '/variables/nope']);
      const res = await h.render(owner, p.id, { variables: { a: 1, b: 2 } });
      const errors = expectValidation(res);
      expect(errors).toHaveLength(1);
      expect(errors[0]!.detail).toContain('c');
    });

    it('refuses malformed render bodies (400)', async () => {
      const p = await h.prompt(owner);
      for (const body of [
        {},
        { variables: 'x' },
        { variables: { name: null } },
        { variables: { name: { deep: 1 } } },
        { variables: { name: 'x' }, version: 0 },
        { variables: { name: 'x' }, label: '123' },
        { variables: { name: 'x' }, extra: 1 },
      ]) {
        expectValidation(await h.render(owner, p.id, body));
      }
    });
  });

  // ------------------------------------------------------------------------------------------ ETags
  describe('ETag and If-None-Match', () => {
    async function etagOf(url: string): Promise<{ etag: string; body: Json }> {
      const res = await h.get(owner, url);
      const body = ok(res);
      const etag = res.headers.etag;
      expect(typeof etag, `${url} has an ETag`).toBe('string');
      expect(etag as string).toMatch(/^"[^"]+"$/);
      return { etag: etag as string, body };
    }

    async function expect304(url: string, ifNoneMatch: string, etag = ifNoneMatch) {
      const res = await h.get(owner, url, { 'if-none-match': ifNoneMatch });
      expect(res.statusCode, res.body).toBe(304);
      expect(res.body).toBe('');
      expect(res.headers.etag).toBe(etag);
    }

    it('GET prompt: stable ETag, 304 on a match, 200 with a new ETag after a new version, a label move and a description change', async () => {
      const p = await h.prompt(owner);
      const url = `/v1/prompts/${p.id}`;
      const first = await etagOf(url);
      expect((await etagOf(url)).etag).toBe(first.etag);
      expect((await etagOf(`/v1/prompts/${p.name}`)).etag).toBe(first.etag);
      await expect304(url, first.etag);
      await expect304(url, `"nope", ${first.etag}`, first.etag);
      await expect304(url, `W/${first.etag}`, first.etag);
      expect(ok(await h.get(owner, url, { 'if-none-match': '"something-else"' }))).toEqual(first.body);

      const seen = [first.etag];
      const changes: Array<() => Promise<unknown>> = [
        () => h.addVersion(owner, p.id, { template: 'v2' }),
        () => h.putLabel(owner, p.id, 'production', 2),
        () => h.putLabel(owner, p.id, 'production', 1),
        () => ctx.request('PATCH', url, { token: owner.token, body: { description: 'changed' } }),
        () => h.delLabel(owner, p.id, 'production'),
      ];
      for (const change of changes) {
        await new Promise((r) => setTimeout(r, 2));
        const res = (await change()) as LightMyRequestResponse;
        expect(res.statusCode, res.body).toBeLessThan(300);
        const stale = await h.get(owner, url, { 'if-none-match': seen[seen.length - 1]! });
        expect(stale.statusCode, stale.body).toBe(200);
        const fresh = stale.headers.etag as string;
        expect(seen).not.toContain(fresh);
        expect(stale.json()).toEqual(ok(await h.get(owner, url)));
        seen.push(fresh);
        await expect304(url, fresh);
      }
    });

    it('GET version: ETag and 304; by label, a label move makes the old ETag stale', async () => {
      const p = await h.prompt(owner, { template: 'one' });
      ok(await h.addVersion(owner, p.id, { template: 'two' }), 201);
      const v1 = await etagOf(`/v1/prompts/${p.id}/versions/1`);
      const v2 = await etagOf(`/v1/prompts/${p.id}/versions/2`);
      expect(v1.etag).not.toBe(v2.etag);
      await expect304(`/v1/prompts/${p.id}/versions/1`, v1.etag);
      // A version never changes, so its ETag survives later versions.
      ok(await h.addVersion(owner, p.id, { template: 'three' }), 201);
      await expect304(`/v1/prompts/${p.id}/versions/1`, v1.etag);

      ok(await h.putLabel(owner, p.id, 'production', 1));
      const byLabel = await etagOf(`/v1/prompts/${p.id}/versions/production`);
      expect(byLabel.body.version).toBe(1);
      await expect304(`/v1/prompts/${p.id}/versions/production`, byLabel.etag);
      ok(await h.putLabel(owner, p.id, 'production', 2));
      const moved = await h.get(owner, `/v1/prompts/${p.id}/versions/production`, { 'if-none-match': byLabel.etag });
      expect(moved.statusCode).toBe(200);
      expect(moved.json().version).toBe(2);
      expect(moved.headers.etag).toBe(v2.etag);
    });

    it('If-None-Match never hides a refusal: 404 for a missing prompt, 404 for another organization', async () => {
      const p = await h.prompt(owner);
      const { etag } = await etagOf(`/v1/prompts/${p.id}`);
      const outsider = await ctx.make.caller({ role: 'owner' });
      expectProblem(await ctx.request('GET', `/v1/prompts/${p.id}`, { token: outsider.token, headers: { 'if-none-match': etag } }), 404, 'not-found');
      expectProblem(await ctx.request('GET', `/v1/prompts/${p.id}`, { token: outsider.token, headers: { 'if-none-match': '*' } }), 404, 'not-found');
    });
  });

  // ------------------------------------------------------------------------------------------ list
  describe('list', () => {
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
        expectValidation(await h.get(owner, `/v1/prompts?${query}`), { parameters: [parameter] });
      }
    });

    it("never lists another organization's prompts", async () => {
      const mine = await h.prompt(owner);
      const outsider = await ctx.make.caller({ role: 'owner' });
      const theirs = await h.prompt(outsider);
      expect((await h.all(outsider, '/v1/prompts')).map((p) => p.id)).toEqual([theirs.id]);
      expect((await h.all(owner, '/v1/prompts')).map((p) => p.id)).not.toContain(theirs.id);
      expect((await h.all(owner, '/v1/prompts')).map((p) => p.id)).toContain(mine.id);
    });
  });

  // ------------------------------------------------------------------------------------------ roles and tenancy
  describe('roles and tenancy', () => {
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
      const p = await h.prompt(owner);
      ok(await h.putLabel(owner, p.id, 'production', 1));
      return p;
    }
    const state = async (p: Json) => ({
      prompt: ok(await h.get(owner, `/v1/prompts/${p.id}`)),
      versions: (await h.all(owner, `/v1/prompts/${p.id}/versions`)).length,
      history: (await h.all(owner, `/v1/prompts/${p.id}/label-history`)).length,
      count: (await h.all(owner, '/v1/prompts')).length,
    });

    for (const role of ['viewer', 'member', 'admin'] as const) {
      it(`a ${role} gets each route's answer when the role allows it, else 403 with nothing changed`, async () => {
        const caller = await ctx.make.caller({ role, organizationId: owner.organizationId });
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
      const p = await h.prompt(owner, { template: 'mine {{name}}' });
      const outsider = await ctx.make.caller({ role: 'owner' });
      const theirs = ok(await h.create(outsider, { name: p.name, template: 'theirs {{name}}' }), 201);
      expect(ok(await h.get(outsider, `/v1/prompts/${p.name}`)).id).toBe(theirs.id);
      expect(ok(await h.render(outsider, p.name, { variables: { name: 'x' } })).rendered).toBe('theirs x');
      expectProblem(await h.get(outsider, `/v1/prompts/${p.id}`), 404, 'not-found');
      ok(await h.putLabel(outsider, p.name, 'production', 1));
      expect(ok(await h.get(owner, `/v1/prompts/${p.id}`)).labels).toEqual({});
    });

    it('without a token every prompt route is a 401', async () => {
      const p = await h.prompt(owner);
      for (const r of routes(p.id)) {
        const res = await ctx.request(r.method, r.url, { ...('body' in r ? { body: r.body() } : {}) });
        expectProblem(res, 401, 'unauthorized');
      }
    });
  });
});

/** A clock that stands still: moves within one millisecond must still be listed in the order they happened. */
const frozen = manualClock(Date.parse('2026-11-21T10:00:00.000Z'));
describeEachDialect(
  'prompts under a frozen clock',
  (ctx) => {
    const h = helpers(ctx);
    it('label moves within the same millisecond are listed newest first, in the order they happened', async () => {
      const owner = await ctx.make.caller({ role: 'owner' });
      const p = await h.prompt(owner);
      for (let i = 2; i <= 4; i++) ok(await h.addVersion(owner, p.id, { template: `v${i}` }), 201);
      const moves = [1, 2, 3, 4, 1, 3, 2, 4];
      for (const v of moves) ok(await h.putLabel(owner, p.id, 'production', v));
      expect((await h.delLabel(owner, p.id, 'production')).statusCode).toBe(204);
      for (const limit of [100, 1, 3]) {
        const items = await h.all(owner, `/v1/prompts/${p.id}/label-history`, limit);
        expect(
          items.map((e) => [e.fromVersion, e.toVersion]),
          `limit ${limit}`,
        ).toEqual([[4, null], ...moves.map((v, i) => [i === 0 ? null : moves[i - 1]!, v]).reverse()]);
      }
    });

    it('versions created within the same millisecond are still numbered and listed in order', async () => {
      const owner = await ctx.make.caller({ role: 'owner' });
      const p = await h.prompt(owner);
      await Promise.all(Array.from({ length: 10 }, (_, i) => h.addVersion(owner, p.id, { template: `t${i}` })));
      const items = await h.all(owner, `/v1/prompts/${p.id}/versions`, 3);
      expect(items.map((v) => v.version)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    });
  },
  { clock: frozen },
);
