/** Rotating personal access tokens: a new token of the same lifetime, reuse detection revoking the family, the grace period. */
import { expect, it } from 'vitest';
import { newId } from '../../lib/ids.js';
import { expectProblem } from '../../../test/helpers/harness.js';
import { expectUnauthorized } from '../../../test/helpers/auth.js';
import { DAY, describeTokens, expectOk, iso, JWT, NEW_TOKEN_KEYS, type NewToken, toSecond } from './tokens.test-support.js';

describeTokens('tokens: rotation', (ctx, h) => {
  it('rotate: 201 with a new token of the same name and lifetime; the old one is refused at once, the new one works', async () => {
    const caller = await ctx.make.caller({ role: 'member' });
    h.atFraction(900);
    const original = await h.mint(caller.token, { name: 'deploy bot', expiresInDays: 7 });
    expect(original.expiresAt).toBe(iso(toSecond(Date.parse(original.createdAt) + 7 * DAY)));
    expectOk(await h.me(original.token), original.id);

    h.clock().advance(3_600_000);
    h.atFraction(100);
    const now = h.clock().now();
    const res = await h.rotate(caller.token, original.id);
    expect(res.statusCode, res.body).toBe(201);
    const rotated = res.json() as NewToken;
    expect(Object.keys(rotated).sort()).toEqual(NEW_TOKEN_KEYS);
    expect(rotated).toEqual({
      id: expect.stringMatching(/^tok_/),
      name: 'deploy bot',
      createdAt: iso(now),
      // Same lifetime (7 days) counted from the rotation, like a token minted now with expiresInDays 7.
      expiresAt: iso(toSecond(now + 7 * DAY)),
      lastUsedAt: null,
      revokedAt: null,
      scopes: null,
      projectIds: null,
      token: expect.stringMatching(JWT),
    });
    expect(rotated.id).not.toBe(original.id);
    expect(rotated.token).not.toBe(original.token);

    expectOk(await h.me(rotated.token), rotated.id);
    expectOk(await h.me(caller.token), caller.tokenId);
    const old = await h.record(caller.token, original.id);
    expect(old.revokedAt).toBe(iso(now));
    expectUnauthorized(await h.me(original.token), 'token_revoked', original.token);
  });

  it('a token rotates itself (the automated client flow), and the successor rotates again with the same lifetime', async () => {
    const caller = await ctx.make.caller();
    const first = await h.mint(caller.token, { name: 'self', expiresInDays: 30 });
    h.atFraction(50);
    const second = await h.rotateOk(first.token, first.id);
    expect(second.expiresAt).toBe(iso(toSecond(Date.parse(second.createdAt) + 30 * DAY)));
    expectOk(await h.me(second.token), second.id);
    h.clock().advance(1_000);
    h.atFraction(999);
    const third = await h.rotateOk(second.token, second.id);
    expect(third.name).toBe('self');
    expect(third.expiresAt).toBe(iso(toSecond(Date.parse(third.createdAt) + 30 * DAY)));
    expectOk(await h.me(third.token), third.id);
    expectUnauthorized(await h.me(second.token), 'token_revoked', second.token);
  });

  it('rotating the rotated-away token again: 401, and the whole family (the new token too) is revoked', async () => {
    const caller = await ctx.make.caller();
    const original = await h.mint(caller.token, { name: 'family' });
    const successor = await h.rotateOk(caller.token, original.id);
    expectOk(await h.me(successor.token), successor.id);

    const res = await h.rotate(caller.token, original.id);
    const problem = expectProblem(res, 401, 'unauthorized');
    expect(problem.reason).toBe('token_revoked');
    expect(res.body).not.toContain('"token":"');

    expectUnauthorized(await h.me(successor.token), 'token_revoked', successor.token);
    expect((await h.record(caller.token, successor.id)).revokedAt).not.toBeNull();
    // Tokens outside the family are untouched.
    expectOk(await h.me(caller.token), caller.tokenId);
    // No token was minted by the refused rotation.
    expect((await h.list(caller.token)).items.map((t) => t.id).sort()).toEqual([caller.tokenId, original.id, successor.id].sort());
  });

  it('a rotated-away token used on GET /v1/me: 401, and every token of its family is revoked (reuse detection)', async () => {
    const caller = await ctx.make.caller();
    const sibling = await h.mint(caller.token, { name: 'sibling' });
    const a = await h.mint(caller.token, { name: 'chain' });
    const b = await h.rotateOk(a.token, a.id);
    const c = await h.rotateOk(b.token, b.id);
    expectOk(await h.me(c.token), c.id);

    expectUnauthorized(await h.me(a.token), 'token_revoked', a.token);
    expectUnauthorized(await h.me(c.token), 'token_revoked', c.token);
    expectUnauthorized(await h.me(b.token), 'token_revoked', b.token);
    expect((await h.record(caller.token, c.id)).revokedAt).not.toBeNull();
    expectOk(await h.me(sibling.token), sibling.id);
    expectOk(await h.me(caller.token), caller.tokenId);
  });

  it('the middle of a chain reused: the family is revoked as well', async () => {
    const caller = await ctx.make.caller();
    const a = await h.mint(caller.token, { name: 'chain' });
    const b = await h.rotateOk(caller.token, a.id);
    const c = await h.rotateOk(caller.token, b.id);
    const res = await h.rotate(caller.token, b.id);
    expect(expectProblem(res, 401, 'unauthorized').reason).toBe('token_revoked');
    expectUnauthorized(await h.me(c.token), 'token_revoked', c.token);
  });

  it('rotating a revoked token: 401 token_revoked, no new token', async () => {
    const caller = await ctx.make.caller();
    const minted = await h.mint(caller.token, { name: 'gone' });
    expect((await h.revoke(caller.token, minted.id)).statusCode).toBe(204);
    expect(expectProblem(await h.rotate(caller.token, minted.id), 401, 'unauthorized').reason).toBe('token_revoked');
    expect((await h.list(caller.token)).items).toHaveLength(2);
  });

  it("rotating another user's token: 404 (for a member and for the owner), and that token keeps working", async () => {
    const owner = await ctx.make.caller({ role: 'owner' });
    const target = await ctx.make.caller({ role: 'member', organizationId: owner.organizationId });
    const member = await ctx.make.caller({ role: 'member', organizationId: owner.organizationId });
    const stranger = await ctx.make.caller({ role: 'owner' });
    for (const caller of [member, owner, stranger]) {
      expectProblem(await h.rotate(caller.token, target.tokenId), 404, 'not-found');
    }
    expectOk(await h.me(target.token), target.tokenId);
    expect((await h.list(target.token)).items.map((t) => t.id)).toEqual([target.tokenId]);
    // …and a later rotation by its owner is a normal one, not reuse.
    const rotated = await h.rotateOk(target.token, target.tokenId);
    expectOk(await h.me(rotated.token), rotated.id);
  });

  it('rotating an unknown id: 404', async () => {
    const caller = await ctx.make.caller();
    expectProblem(await h.rotate(caller.token, newId('tok')), 404, 'not-found');
    expectProblem(await h.rotate(caller.token, 'tok_nope'), 404, 'not-found');
    expectOk(await h.me(caller.token), caller.tokenId);
  });

  it('with SIGHTLINE_PAT_ROTATION_GRACE_SECONDS=60 the old token keeps working for 60 s, then stops', async () => {
    const app = await h.extraApp({ SIGHTLINE_PAT_ROTATION_GRACE_SECONDS: '60' });
    try {
      const caller = await ctx.make.caller();
      const old = await h.mint(caller.token, { name: 'graceful' }, app);
      const rotatedAt = h.clock().now();
      const fresh = await h.rotateOk(caller.token, old.id, app);
      expectOk(await h.me(old.token, app), old.id);
      expectOk(await h.me(fresh.token, app), fresh.id);
      h.clock().advance(59_000);
      expectOk(await h.me(old.token, app), old.id);
      // Using the old token within the grace is not reuse: the new one is unaffected.
      expectOk(await h.me(fresh.token, app), fresh.id);
      h.clock().set(rotatedAt + 60_000);
      expectUnauthorized(await h.me(old.token, app), 'token_revoked', old.token);
    } finally {
      await app.close();
    }
  });

  it('with a rotation grace, DELETE of the rotated-away token ends its grace at once', async () => {
    const app = await h.extraApp({ SIGHTLINE_PAT_ROTATION_GRACE_SECONDS: '60' });
    try {
      const caller = await ctx.make.caller();
      const old = await h.mint(caller.token, { name: 'leaked' }, app);
      const fresh = await h.rotateOk(caller.token, old.id, app);
      expectOk(await h.me(old.token, app), old.id);
      const res = await app.inject({ method: 'DELETE', url: `/v1/tokens/${old.id}`, headers: { authorization: `Bearer ${caller.token}` } });
      expect(res.statusCode, res.body).toBe(204);
      expect((await h.record(caller.token, old.id)).revokedAt).toBe(iso(h.clock().now()));
      expectOk(await h.me(fresh.token, app), fresh.id);
      expectUnauthorized(await h.me(old.token, app), 'token_revoked', old.token);
    } finally {
      await app.close();
    }
  });
});
