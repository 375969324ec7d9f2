import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem, manualClock } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { expectCleanProblem, expectValidation } from '../../../test/helpers/problems.js';
import { describePrompts, EVENT_KEYS, helpers, ISO, PROMPT_KEYS } from './prompts.test-support.js';

/** A prompt's labels: setting, moving and removing them, and their history. */
describePrompts('labels', (ctx, h, s) => {
  it('PUT creates a label, PUT moves it, PUT the same version records nothing, DELETE removes it; history lists every move newest first', async () => {
    const p = await h.prompt(s.owner);
    ok(await h.addVersion(s.owner, p.id, { template: 'two' }), 201);
    ok(await h.addVersion(s.owner, p.id, { template: 'three' }), 201);
    const member = await ctx.make.caller({ role: 'member', organizationId: s.owner.organizationId });

    const created = ok(await h.putLabel(s.owner, p.id, 'production', 1));
    expect(Object.keys(created).sort()).toEqual(PROMPT_KEYS);
    expect(created.labels).toEqual({ production: 1 });
    const moved = ok(await h.putLabel(member, p.name, 'production', 3));
    expect(moved.labels).toEqual({ production: 3 });
    ok(await h.putLabel(s.owner, p.id, 'staging', 2));
    const same = ok(await h.putLabel(s.owner, p.id, 'staging', 2));
    expect(same.labels).toEqual({ production: 3, staging: 2 });
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}`)).labels).toEqual({ production: 3, staging: 2 });

    const removed = await h.delLabel(member, p.id, 'staging');
    expect(removed.statusCode, removed.body).toBe(204);
    expect(removed.body).toBe('');
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}`)).labels).toEqual({ production: 3 });
    expectProblem(await h.get(s.owner, `/v1/prompts/${p.id}/versions/staging`), 404, 'not-found');
    expectProblem(await h.delLabel(s.owner, p.id, 'staging'), 404, 'not-found');
    expectProblem(await h.delLabel(s.owner, p.id, 'never-was'), 404, 'not-found');

    const history = ok(await h.get(s.owner, `/v1/prompts/${p.id}/label-history`));
    expect(history.nextCursor).toBeNull();
    for (const e of history.items) {
      expect(Object.keys(e).sort()).toEqual(EVENT_KEYS);
      expect(e.createdAt).toMatch(ISO);
    }
    expect(history.items.map(({ label, fromVersion, toVersion, actor }: Json) => ({ label, fromVersion, toVersion, actor }))).toEqual([
      { label: 'staging', fromVersion: 2, toVersion: null, actor: member.userId },
      { label: 'staging', fromVersion: null, toVersion: 2, actor: s.owner.userId },
      { label: 'production', fromVersion: 1, toVersion: 3, actor: member.userId },
      { label: 'production', fromVersion: null, toVersion: 1, actor: s.owner.userId },
    ]);
    const times = history.items.map((e: Json) => Date.parse(e.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    // By name too.
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.name}/label-history`))).toEqual(history);
  });

  it('a label removed and set again starts over from null', async () => {
    const p = await h.prompt(s.owner);
    ok(await h.putLabel(s.owner, p.id, 'canary', 1));
    expect((await h.delLabel(s.owner, p.id, 'canary')).statusCode).toBe(204);
    ok(await h.putLabel(s.owner, p.id, 'canary', 1));
    const items = ok(await h.get(s.owner, `/v1/prompts/${p.id}/label-history`)).items as Json[];
    expect(items.map((e) => [e.fromVersion, e.toVersion])).toEqual([
      [null, 1],
      [1, null],
      [null, 1],
    ]);
  });

  it('PUT to a version that does not exist is a 400 naming /version; nothing is recorded', async () => {
    const p = await h.prompt(s.owner);
    ok(await h.addVersion(s.owner, p.id, { template: 'two' }), 201);
    for (const version of [3, 99, 2_000_000_000]) {
      const res = await h.putLabel(s.owner, p.id, 'production', version);
      expectValidation(res, { pointers: ['/version'] });
    }
    for (const version of [0, -1, 1.5, '1', null]) {
      const res = await ctx.request('PUT', `/v1/prompts/${p.id}/labels/production`, { token: s.owner.token, body: { version } });
      expectValidation(res, { pointers: ['/version'] });
    }
    expectValidation(await ctx.request('PUT', `/v1/prompts/${p.id}/labels/production`, { token: s.owner.token, body: {} }), { pointers: ['/version'] });
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}`)).labels).toEqual({});
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}/label-history`)).items).toEqual([]);
  });

  it('refuses label names that are numbers, upper case or not slugs (400)', async () => {
    const p = await h.prompt(s.owner);
    for (const label of ['123', '1', '007', 'Production', 'STAGING', 'has%20space', '-x', 'x'.repeat(65)]) {
      const res = await h.putLabel(s.owner, p.id, label, 1);
      expectProblem(res, 400, 'validation');
      expectCleanProblem(res, [label, decodeURIComponent(label)]);
      expectProblem(await h.delLabel(s.owner, p.id, label), 400, 'validation');
    }
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}`)).labels).toEqual({});
    // Any slug is fine.
    expect(ok(await h.putLabel(s.owner, p.id, 'ab-test_2.1', 1)).labels).toEqual({ 'ab-test_2.1': 1 });
    expect(ok(await h.get(s.owner, `/v1/prompts/${p.id}/versions/ab-test_2.1`)).version).toBe(1);
  });

  it('label history paginates newest first', async () => {
    const p = await h.prompt(s.owner);
    for (let i = 2; i <= 4; i++) ok(await h.addVersion(s.owner, p.id, { template: `v${i}` }), 201);
    const moves = [1, 2, 3, 4, 1, 2, 3];
    for (const v of moves) {
      ok(await h.putLabel(s.owner, p.id, 'production', v));
      await new Promise((r) => setTimeout(r, 2));
    }
    const items = await h.all(s.owner, `/v1/prompts/${p.id}/label-history`, 2);
    expect(items.map((e) => e.toVersion)).toEqual([...moves].reverse());
    expect(items.map((e) => e.fromVersion)).toEqual([null, ...moves.slice(0, -1)].reverse());
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
