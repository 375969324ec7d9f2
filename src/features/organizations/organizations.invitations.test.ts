import { expect, it } from 'vitest';
import { acceptInvitations } from './invitations.repo.js';
import { ensureUser, setMembership } from './organizations.repo.js';
import { expectProblem } from '../../../test/helpers/harness.js';
import { expectCleanProblem } from '../../../test/helpers/problems.js';
import { describeOrganization, email, type Invitation, ISO_MS, pointersOf, unique } from './organizations.test-support.js';

/** Invitations: who may invite whom, listing and withdrawing, accepting at sign-in. */
describeOrganization((ctx, { db, team, collect, members, roleOf, invite, invitations, cli }) => {
  // ───────────────────────────── invitations ─────────────────────────────

  it('POST /v1/organization/invitations: an admin invites; the email is lower-cased; GET lists it', async () => {
    const t = await team();
    const address = email('New.Person');
    const res = await invite(t.admin, { email: address.toUpperCase(), role: 'member' });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json() as Invitation;
    expect(Object.keys(body).sort()).toEqual(['createdAt', 'email', 'id', 'invitedBy', 'role']);
    expect(body).toMatchObject({ email: address.toLowerCase(), role: 'member', invitedBy: t.admin.userId });
    expect(body.id).toMatch(/^inv_[0-9a-z]{26}$/);
    expect(body.createdAt).toMatch(ISO_MS);
    expect(await invitations(t.owner)).toEqual([body]);

    for (const role of ['admin', 'viewer'] as const) expect((await invite(t.owner, { email: email(role), role })).statusCode).toBe(201);
  });

  it('inviting as owner needs an owner: an admin gets 403, an owner 201', async () => {
    const t = await team();
    const address = email('future-owner');
    const res = await invite(t.admin, { email: address, role: 'owner' });
    expectProblem(res, 403, 'forbidden');
    expect(await invitations(t.owner)).toEqual([]);
    const ok = await invite(t.owner, { email: address, role: 'owner' });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().role).toBe('owner');
  });

  it('invitations: a member email (any case) or the same email twice is a 409; a bad email or role is a 400', async () => {
    const t = await team();
    const memberEmail = (await db().selectFrom('users').select('email').where('id', '=', t.member.userId).executeTakeFirstOrThrow()).email;
    expectProblem(await invite(t.admin, { email: memberEmail, role: 'viewer' }), 409, 'conflict');
    expectProblem(await invite(t.admin, { email: memberEmail.toUpperCase(), role: 'viewer' }), 409, 'conflict');

    const address = email('twice');
    expect((await invite(t.admin, { email: address, role: 'viewer' })).statusCode).toBe(201);
    const again = await invite(t.owner, { email: address, role: 'admin' });
    expectProblem(again, 409, 'conflict');
    expectCleanProblem(again, [address]);
    expectProblem(await invite(t.owner, { email: address.toUpperCase(), role: 'viewer' }), 409, 'conflict');

    // Another organization may invite the same email.
    const other = await ctx.make.caller({ role: 'admin' });
    expect((await invite(other, { email: address, role: 'viewer' })).statusCode).toBe(201);

    for (const bad of ['not-an-email', '', 'a@', '@b.test', 'two@@b.test', `${'x'.repeat(320)}@b.test`]) {
      expect(pointersOf(await invite(t.admin, { email: bad, role: 'viewer' })), bad).toEqual(['/email']);
    }
    expect(pointersOf(await invite(t.admin, { email: email('x'), role: 'superuser' }))).toEqual(['/role']);
    expect(pointersOf(await invite(t.admin, { email: email('x') }))).toEqual(['/role']);
    expect(pointersOf(await invite(t.admin, { email: email('x'), role: 'viewer', organizationId: other.organizationId }))).toEqual(['/organizationId']);
    expect((await invitations(t.owner)).map((i) => i.email)).toEqual([address]);
  });

  it('invitations: members and viewers get 403 on list, create and delete', async () => {
    const t = await team();
    const inv = (await invite(t.admin, { email: email('x'), role: 'viewer' })).json() as Invitation;
    for (const role of ['member', 'viewer'] as const) {
      expectProblem(await ctx.request('GET', '/v1/organization/invitations', { token: t[role].token }), 403, 'forbidden');
      expectProblem(await invite(t[role], { email: email('y'), role: 'viewer' }), 403, 'forbidden');
      expectProblem(await ctx.request('DELETE', `/v1/organization/invitations/${inv.id}`, { token: t[role].token }), 403, 'forbidden');
    }
    expect((await invitations(t.owner)).map((i) => i.id)).toEqual([inv.id]);
  });

  it('GET /v1/organization/invitations is paginated, newest first, and shows only this organization', async () => {
    const t = await team();
    const other = await ctx.make.caller({ role: 'owner' });
    await invite(other, { email: email('elsewhere'), role: 'viewer' });
    const created: Invitation[] = [];
    for (let i = 0; i < 5; i++) {
      created.push((await invite(t.admin, { email: email(`p${i}`), role: 'viewer' })).json());
      await new Promise((r) => setTimeout(r, 2));
    }
    const { items, pages } = await collect<Invitation>(t.admin, '/v1/organization/invitations', 2);
    expect(pages).toBe(3);
    expect(items.map((i) => i.id)).toEqual(created.map((i) => i.id).reverse());
  });

  it('DELETE /v1/organization/invitations/{id} withdraws: 204, then 404', async () => {
    const t = await team();
    const inv = (await invite(t.admin, { email: email('withdrawn'), role: 'member' })).json() as Invitation;
    const res = await ctx.request('DELETE', `/v1/organization/invitations/${inv.id}`, { token: t.admin.token });
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    expect(await invitations(t.owner)).toEqual([]);
    expectProblem(await ctx.request('DELETE', `/v1/organization/invitations/${inv.id}`, { token: t.admin.token }), 404, 'not-found');
    // Withdrawn, the email can be invited again.
    expect((await invite(t.admin, { email: inv.email, role: 'viewer' })).statusCode).toBe(201);
  });

  it('acceptInvitations: the invited user joins every inviting organization with the invited role; the invitations are gone', async () => {
    const a = await team();
    const b = await team();
    const c = await team();
    const address = email('invitee');
    expect((await invite(a.owner, { email: address, role: 'owner' })).statusCode).toBe(201);
    expect((await invite(b.admin, { email: address.toUpperCase(), role: 'viewer' })).statusCode).toBe(201);
    expect((await invite(c.admin, { email: address, role: 'admin' })).statusCode).toBe(201);

    const now = Date.now();
    const user = await ensureUser(db(), address, 'Invitee', now);
    await setMembership(db(), c.owner.organizationId, user.id, 'member', now); // already in c: left as it is
    await acceptInvitations(db(), user.id, address.toUpperCase(), now, { userId: user.id, credential: null });

    expect(await roleOf(a.viewer, user.id)).toBe('owner');
    expect(await roleOf(b.viewer, user.id)).toBe('viewer');
    expect(await roleOf(c.viewer, user.id)).toBe('member');
    for (const t of [a, b, c]) expect(await invitations(t.owner)).toEqual([]);
    // Accepting again is harmless.
    await acceptInvitations(db(), user.id, address, Date.now(), { userId: user.id, credential: null });
    expect(await roleOf(a.viewer, user.id)).toBe('owner');
  });

  it('sightline token create joins the bootstrapped user to every organization that invited their email', async () => {
    const inviter = await team();
    const address = email('bootstrapped');
    expect((await invite(inviter.admin, { email: address, role: 'admin' })).statusCode).toBe(201);
    const home = unique('cli-home');

    const run = await cli(['token', 'create', '--email', address, '--org', home, '--role', 'owner']);
    expect(run.code, run.err.join('\n')).toBe(0);
    const token = run.out.join('\n').trim().split('\n').at(-1)!;

    const me = await ctx.request('GET', '/v1/me', { token });
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json()).toMatchObject({ organization: { name: home }, role: 'owner', user: { email: address } });
    const userId = me.json().user.id as string;

    expect(await roleOf(inviter.viewer, userId)).toBe('admin');
    expect(await invitations(inviter.owner)).toEqual([]);
    const member = (await members(inviter.owner)).find((m) => m.user.id === userId)!;
    expect(member.user.email).toBe(address);
  });
});
