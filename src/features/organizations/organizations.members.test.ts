import { expect, it } from 'vitest';
import { newId } from '../../lib/ids.js';
import { expectProblem } from '../../../test/helpers/harness.js';
import { expectUnauthorized } from '../../../test/helpers/auth.js';
import type { Json } from '../../../test/helpers/json.js';
import { expectCleanProblem } from '../../../test/helpers/problems.js';
import { describeOrganization, ISO_MS, type Member, pointersOf, ROLES } from './organizations.test-support.js';

/** Members: listing, role changes (the last owner stays), removal. */
describeOrganization((ctx, { db, team, collect, members, roleOf, membershipRole, setRole, remove, createProject }) => {
  // ───────────────────────────── members ─────────────────────────────

  it('GET /v1/organization/members: every role sees every member of its own organization, paginated', async () => {
    const t = await team();
    await ctx.make.caller({ role: 'owner' }); // another organization's member
    const ids = ROLES.map((r) => t[r].userId).sort();
    for (const role of ROLES) {
      const { items, pages } = await collect<Member>(t[role], '/v1/organization/members', 1);
      expect(pages, role).toBe(4);
      expect(items.map((m) => m.user.id).sort()).toEqual(ids);
      for (const m of items) {
        expect(Object.keys(m).sort()).toEqual(['joinedAt', 'role', 'user']);
        expect(Object.keys(m.user).sort()).toEqual(['createdAt', 'email', 'id', 'name']);
        expect(m.user.id).toMatch(/^usr_/);
        expect(m.user.email).toMatch(/@example\.test$/);
        expect(m.user.createdAt).toMatch(ISO_MS);
        expect(m.joinedAt).toMatch(ISO_MS);
        expect(m.role).toBe(ROLES.find((r) => t[r].userId === m.user.id));
      }
    }
    const two = await collect<Member>(t.viewer, '/v1/organization/members', 2);
    expect(two.pages).toBe(2); // a page ending exactly at the end has nextCursor null
    expectUnauthorized(await ctx.request('GET', '/v1/organization/members'), 'missing_token');
  });

  it('PATCH /v1/organization/members/{user_id}: an admin moves a member between member, viewer and admin', async () => {
    const t = await team();
    const target = await ctx.make.caller({ role: 'member', organizationId: t.owner.organizationId });
    for (const role of ['viewer', 'admin', 'member', 'admin', 'viewer'] as const) {
      const res = await setRole(t.admin, target.userId, { role });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as Member;
      expect(Object.keys(body).sort()).toEqual(['joinedAt', 'role', 'user']);
      expect(body.role).toBe(role);
      expect(body.user.id).toBe(target.userId);
      expect(await roleOf(t.viewer, target.userId)).toBe(role);
    }
    // Setting the same role again is fine.
    expect((await setRole(t.admin, target.userId, { role: 'viewer' })).statusCode).toBe(200);
  });

  it('an admin can neither grant owner nor change an owner (403); an owner can grant and take owner', async () => {
    const t = await team();
    const target = await ctx.make.caller({ role: 'member', organizationId: t.owner.organizationId });
    const second = await ctx.make.caller({ role: 'owner', organizationId: t.owner.organizationId });

    expectProblem(await setRole(t.admin, target.userId, { role: 'owner' }), 403, 'forbidden');
    expectProblem(await setRole(t.admin, t.admin.userId, { role: 'owner' }), 403, 'forbidden');
    for (const role of ['admin', 'member', 'viewer'] as const) {
      const res = await setRole(t.admin, second.userId, { role });
      expectProblem(res, 403, 'forbidden');
      expectCleanProblem(res);
    }
    expect(await membershipRole(t.owner.organizationId, target.userId)).toBe('member');
    expect(await membershipRole(t.owner.organizationId, t.admin.userId)).toBe('admin');
    expect(await membershipRole(t.owner.organizationId, second.userId)).toBe('owner');

    const granted = await setRole(t.owner, target.userId, { role: 'owner' });
    expect(granted.statusCode, granted.body).toBe(200);
    expect(granted.json().role).toBe('owner');
    const taken = await setRole(t.owner, target.userId, { role: 'admin' });
    expect(taken.statusCode, taken.body).toBe(200);
    expect(await roleOf(t.owner, target.userId)).toBe('admin');
  });

  it('demoting the last owner is a 409 conflict; of two owners, one can demote the other, then not themself', async () => {
    const owner = await ctx.make.caller({ role: 'owner' });
    for (const role of ['admin', 'member', 'viewer'] as const) {
      const res = await setRole(owner, owner.userId, { role });
      expectProblem(res, 409, 'conflict');
      expectCleanProblem(res);
    }
    expect(await membershipRole(owner.organizationId, owner.userId)).toBe('owner');

    const second = await ctx.make.caller({ role: 'owner', organizationId: owner.organizationId });
    const demoted = await setRole(second, owner.userId, { role: 'admin' });
    expect(demoted.statusCode, demoted.body).toBe(200);
    expect(demoted.json().role).toBe('admin');
    expectProblem(await setRole(second, second.userId, { role: 'admin' }), 409, 'conflict');
    // The demoted owner's token is an admin's now: it may not touch the remaining owner.
    expectProblem(await setRole(owner, second.userId, { role: 'admin' }), 403, 'forbidden');
    expect(await membershipRole(owner.organizationId, second.userId)).toBe('owner');
  });

  it('two owners demoting each other at the same moment: one wins, the loser (no longer an owner) is refused, never a 5xx; one owner is left', async () => {
    for (let round = 0; round < 4; round++) {
      const a = await ctx.make.caller({ role: 'owner' });
      const b = await ctx.make.caller({ role: 'owner', organizationId: a.organizationId });
      const [ra, rb] = await Promise.all([setRole(a, b.userId, { role: 'admin' }), setRole(b, a.userId, { role: 'admin' })]);
      const [won, lost] = ra.statusCode === 200 ? [ra, rb] : [rb, ra];
      expect(won.statusCode, `${ra.body} / ${rb.body}`).toBe(200);
      // 403: by the time its turn came, the caller was an admin; 409 would do too (the last owner).
      expect([403, 409], `${ra.body} / ${rb.body}`).toContain(lost.statusCode);
      expectCleanProblem(lost);
      const owners = await db()
        .selectFrom('memberships')
        .select('user_id')
        .where('organization_id', '=', a.organizationId)
        .where('role', '=', 'owner')
        .execute();
      expect(owners).toHaveLength(1);
    }
  });

  it("a role change applies to the member's existing token on its next request", async () => {
    const t = await team();
    const user = await ctx.make.caller({ role: 'member', organizationId: t.owner.organizationId });
    const me = async () => (await ctx.request('GET', '/v1/me', { token: user.token })).json().role;
    expect((await createProject(user)).statusCode).toBe(201);
    expect(await me()).toBe('member');

    expect((await setRole(t.admin, user.userId, { role: 'viewer' })).statusCode).toBe(200);
    expect(await me()).toBe('viewer');
    expectProblem(await createProject(user), 403, 'forbidden');

    expect((await setRole(t.admin, user.userId, { role: 'admin' })).statusCode).toBe(200);
    expect(await me()).toBe('admin');
    expect((await ctx.request('GET', '/v1/organization/tokens', { token: user.token })).statusCode).toBe(200);

    expect((await setRole(t.owner, user.userId, { role: 'member' })).statusCode).toBe(200);
    expect(await me()).toBe('member');
    expect((await createProject(user)).statusCode).toBe(201);
    expectProblem(await ctx.request('GET', '/v1/organization/tokens', { token: user.token }), 403, 'forbidden');
  });

  it('PATCH members: viewers and members get 403 (even for themselves); nothing changes', async () => {
    const t = await team();
    for (const role of ['member', 'viewer'] as const) {
      for (const [target, newRole] of [
        [t.member.userId, 'viewer'],
        [t.viewer.userId, 'admin'],
        [t[role].userId, 'owner'],
        [t[role].userId, 'admin'],
      ] as const) {
        const res = await setRole(t[role], target, { role: newRole });
        expectProblem(res, 403, 'forbidden');
      }
    }
    for (const role of ROLES) expect(await membershipRole(t.owner.organizationId, t[role].userId)).toBe(role);
  });

  it('PATCH members: an unknown user or a user of another organization is a 404; a bad body is a 400', async () => {
    const t = await team();
    const outsider = await ctx.make.caller({ role: 'member' });
    const unknown = newId('usr');
    const a = await setRole(t.owner, unknown, { role: 'viewer' });
    const b = await setRole(t.owner, outsider.userId, { role: 'viewer' });
    expectProblem(a, 404, 'not-found');
    expectProblem(b, 404, 'not-found');
    expectCleanProblem(b, [outsider.userId]);
    expect(b.json().detail.split(outsider.userId).join('<id>')).toBe(a.json().detail.split(unknown).join('<id>'));
    expect(await membershipRole(outsider.organizationId, outsider.userId)).toBe('member');

    expect(pointersOf(await setRole(t.owner, t.member.userId, { role: 'superuser' }))).toEqual(['/role']);
    expect(pointersOf(await setRole(t.owner, t.member.userId, { role: 'OWNER' }))).toEqual(['/role']);
    expect(pointersOf(await setRole(t.owner, t.member.userId, {}))).toEqual(['/role']);
    expect(pointersOf(await setRole(t.owner, t.member.userId, { role: 'viewer', organizationId: outsider.organizationId }))).toEqual(['/organizationId']);
    expect(await membershipRole(t.owner.organizationId, t.member.userId)).toBe('member');
  });

  // ───────────────────────────── removing members ─────────────────────────────

  it('DELETE members: an admin removes a member: 204, their tokens then get 401 and show revokedAt', async () => {
    const t = await team();
    const gone = await ctx.make.caller({ role: 'member', organizationId: t.owner.organizationId });
    const secondToken = await ctx.make.caller({
      role: 'member',
      organizationId: t.owner.organizationId,
      email: (await db().selectFrom('users').select('email').where('id', '=', gone.userId).executeTakeFirstOrThrow()).email,
    });
    expect(secondToken.userId).toBe(gone.userId);
    expect((await ctx.request('GET', '/v1/me', { token: gone.token })).statusCode).toBe(200);

    const res = await remove(t.admin, gone.userId);
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');

    for (const token of [gone.token, secondToken.token]) {
      const after = await ctx.request('GET', '/v1/me', { token });
      const body = expectProblem(after, 401, 'unauthorized');
      expect(['token_revoked', 'invalid_token']).toContain(body.reason);
      expectProblem(await createProject({ ...gone, token }), 401, 'unauthorized');
    }

    const tokens = (await collect<Json>(t.admin, '/v1/organization/tokens', 100)).items;
    const theirs = tokens.filter((x) => x.userId === gone.userId);
    expect(theirs.map((x) => x.id).sort()).toEqual([gone.tokenId, secondToken.tokenId].sort());
    for (const token of theirs) expect(token.revokedAt).toMatch(ISO_MS);
    for (const token of tokens.filter((x) => x.userId !== gone.userId)) expect(token.revokedAt).toBeNull();

    expect((await members(t.owner)).map((m) => m.user.id)).not.toContain(gone.userId);
    expectProblem(await remove(t.admin, gone.userId), 404, 'not-found');
    // The others are untouched.
    for (const role of ROLES) expect((await ctx.request('GET', '/v1/me', { token: t[role].token })).statusCode).toBe(200);
  });

  it('DELETE members: the last owner cannot be removed (409); an admin cannot remove an owner (403); members and viewers get 403', async () => {
    const t = await team();
    const last = await remove(t.owner, t.owner.userId);
    expectProblem(last, 409, 'conflict');
    expectCleanProblem(last);
    expectProblem(await remove(t.admin, t.owner.userId), 403, 'forbidden');
    for (const role of ['member', 'viewer'] as const) {
      for (const target of [t.viewer.userId, t.member.userId, t.admin.userId]) expectProblem(await remove(t[role], target), 403, 'forbidden');
    }
    for (const role of ROLES) {
      expect(await membershipRole(t.owner.organizationId, t[role].userId)).toBe(role);
      expect((await ctx.request('GET', '/v1/me', { token: t[role].token })).statusCode).toBe(200);
    }

    // With a second owner, an owner may remove an owner (even themself).
    const second = await ctx.make.caller({ role: 'owner', organizationId: t.owner.organizationId });
    expectProblem(await remove(t.admin, second.userId), 403, 'forbidden');
    expect((await remove(t.owner, second.userId)).statusCode).toBe(204);
    expectProblem(await ctx.request('GET', '/v1/me', { token: second.token }), 401, 'unauthorized');
    expectProblem(await remove(t.owner, t.owner.userId), 409, 'conflict');
  });
});
