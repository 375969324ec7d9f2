import type { LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';
import { addOperatorOrigin } from './origins.repo.js';
import { newId } from '../../lib/ids.js';
import { expectProblem } from '../../../test/helpers/harness.js';
import { expectUnauthorized, tokenHash } from '../../../test/helpers/auth.js';
import type { Json } from '../../../test/helpers/json.js';
import { expectCleanProblem, expectValidation } from '../../../test/helpers/problems.js';
import { describeOrganization, email, type Invitation, ISO_MS, pointersOf, ROLES, TOKEN_FIELDS, unique } from './organizations.test-support.js';

/** The organization (docs/api.md; origins by plan: docs/tokens-and-access.md, CORS): its record, name and allowed origins by plan; the tokens of its members; another organization's ids. */
describeOrganization((ctx, { db, team, getOrg, patchOrg, setPlan, collect, members, setRole, remove, invite, invitations }) => {
  // ───────────────────────────── the organization ─────────────────────────────

  it('GET /v1/organization: every role sees {id,name,plan,allowedOrigins,createdAt} of its own organization', async () => {
    const t = await team();
    const other = await ctx.make.caller({ role: 'owner' });
    const expected = await db().selectFrom('organizations').selectAll().where('id', '=', t.owner.organizationId).executeTakeFirstOrThrow();
    for (const role of ROLES) {
      const org = await getOrg(t[role]);
      expect(Object.keys(org).sort(), role).toEqual(['allowedOrigins', 'createdAt', 'id', 'name', 'plan']);
      expect(org).toEqual({
        id: expected.id,
        name: expected.name,
        plan: 'enterprise',
        allowedOrigins: [],
        createdAt: new Date(Number(expected.created_at)).toISOString(),
      });
      expect(org.createdAt).toMatch(ISO_MS);
    }
    expect((await getOrg(other)).id).not.toBe(t.owner.organizationId);
    expectUnauthorized(await ctx.request('GET', '/v1/organization'), 'missing_token');
  });

  it('PATCH /v1/organization renames (admin and owner); a name taken by another organization is a 409 and changes nothing', async () => {
    const t = await team();
    const taken = await ctx.make.org();
    const first = unique('Acme');
    const res = await patchOrg(t.admin, { name: first });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: t.owner.organizationId, name: first, plan: 'enterprise', allowedOrigins: [] });
    expect((await getOrg(t.viewer)).name).toBe(first);

    const second = unique('Acme');
    expect((await patchOrg(t.owner, { name: second })).statusCode).toBe(200);
    expect((await patchOrg(t.owner, { name: second })).statusCode).toBe(200); // its own name again: no conflict

    const conflict = await patchOrg(t.owner, { name: taken.name });
    expectProblem(conflict, 409, 'conflict');
    expectCleanProblem(conflict, [taken.name]);
    expect((await getOrg(t.owner)).name).toBe(second);
    const untouched = await db().selectFrom('organizations').select('name').where('id', '=', taken.id).executeTakeFirstOrThrow();
    expect(untouched.name).toBe(taken.name);

    expect(pointersOf(await patchOrg(t.owner, { name: '' }))).toEqual(['/name']);
    expect(pointersOf(await patchOrg(t.owner, { name: ' padded ' }))).toEqual(['/name']);
    expect((await getOrg(t.owner)).name).toBe(second);
  });

  it('PATCH /v1/organization is all or nothing: a 409 on the name leaves allowedOrigins as they were', async () => {
    const t = await team();
    const taken = await ctx.make.org();
    expect((await patchOrg(t.owner, { allowedOrigins: ['https://before.acme.test'] })).statusCode).toBe(200);
    const before = await getOrg(t.owner);
    expectProblem(await patchOrg(t.owner, { name: taken.name, allowedOrigins: ['https://after.acme.test'] }), 409, 'conflict');
    expect(await getOrg(t.owner)).toEqual(before);
    // And a 400 on the origins leaves the name as it was.
    expectValidation(await patchOrg(t.owner, { name: unique('fresh'), allowedOrigins: ['http://app.acme.test'] }), { pointers: ['/allowedOrigins/0'] });
    expect(await getOrg(t.owner)).toEqual(before);
  });

  it('PATCH /v1/organization: members and viewers get 403 and nothing changes', async () => {
    const t = await team();
    const before = await getOrg(t.owner);
    for (const role of ['member', 'viewer'] as const) {
      for (const body of [{ name: unique('x') }, { allowedOrigins: ['https://app.acme.test'] }]) {
        const res = await patchOrg(t[role], body);
        expectProblem(res, 403, 'forbidden');
        expectCleanProblem(res);
      }
    }
    expect(await getOrg(t.owner)).toEqual(before);
  });

  it('PATCH /v1/organization refuses unknown fields (no mass assignment of plan, id or organizationId)', async () => {
    const t = await team();
    await setPlan(t.owner.organizationId, 'free');
    const before = await getOrg(t.owner);
    expect(pointersOf(await patchOrg(t.owner, { plan: 'enterprise' }))).toEqual(['/plan']);
    expect(pointersOf(await patchOrg(t.owner, { id: newId('org') }))).toEqual(['/id']);
    expect(pointersOf(await patchOrg(t.owner, { organizationId: newId('org') }))).toEqual(['/organizationId']);
    expect(pointersOf(await patchOrg(t.owner, { name: unique('n'), plan: 'team', createdAt: '2020-01-01T00:00:00.000Z' }))).toEqual(['/createdAt', '/plan']);
    expectValidation(await patchOrg(t.owner, {}));
    expectValidation(await patchOrg(t.owner, []));
    expect(await getOrg(t.owner)).toEqual(before);
    expect(before.plan).toBe('free');
  });

  it('allowedOrigins: exact https origins (with a port) and http://localhost:<port> are accepted, stored and replaced as a whole', async () => {
    const t = await team();
    const origins = ['https://app.acme.test', 'https://app.acme.test:8443', 'http://localhost:3000'];
    const res = await patchOrg(t.admin, { allowedOrigins: origins });
    expect(res.statusCode, res.body).toBe(200);
    expect([...res.json().allowedOrigins].sort()).toEqual([...origins].sort());
    expect([...(await getOrg(t.viewer)).allowedOrigins].sort()).toEqual([...origins].sort());

    const replaced = await patchOrg(t.owner, { allowedOrigins: ['https://other.acme.test'] });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect((await getOrg(t.owner)).allowedOrigins).toEqual(['https://other.acme.test']);
    expect((await patchOrg(t.owner, { allowedOrigins: [] })).statusCode).toBe(200);
    expect((await getOrg(t.owner)).allowedOrigins).toEqual([]);
    // Duplicates are a fault, not silently merged.
    expectValidation(await patchOrg(t.owner, { allowedOrigins: ['https://app.acme.test', 'https://app.acme.test'] }), { pointers: ['/allowedOrigins'] });
  });

  const BAD_ORIGINS: [string, string][] = [
    ['http://app.acme.test', 'http for a host other than localhost'],
    ['https://app.acme.test/', 'a trailing slash'],
    ['https://app.acme.test/path', 'a path'],
    ['https://*.acme.test', 'a wildcard'],
    ['null', 'the null origin'],
    ['https://user@app.acme.test', 'credentials'],
    ['https://user:pw@app.acme.test', 'credentials with a password'],
    ['https://APP.acme.test', 'an upper-case host'],
    ['HTTPS://app.acme.test', 'an upper-case scheme'],
    ['https://app.acme.test:443', 'the default port spelled out'],
    ['https://app.acme.test?x=1', 'a query'],
    ['https://app.acme.test#frag', 'a fragment'],
    ['ftp://app.acme.test', 'another scheme'],
    ['app.acme.test', 'no scheme'],
    [' https://app.acme.test', 'leading white space'],
    ['https://app acme.test', 'a space in the host'],
  ];

  for (const [bad, why] of BAD_ORIGINS) {
    it(`allowedOrigins refuses ${JSON.stringify(bad)} (${why}) with a 400 naming its index, and changes nothing`, async () => {
      const t = await team();
      expect((await patchOrg(t.owner, { allowedOrigins: ['https://kept.acme.test'] })).statusCode).toBe(200);
      const res = await patchOrg(t.admin, { allowedOrigins: ['https://app.acme.test', bad] });
      expect(pointersOf(res)).toEqual(['/allowedOrigins/1']);
      expect((await getOrg(t.owner)).allowedOrigins).toEqual(['https://kept.acme.test']);
    });
  }

  it('allowedOrigins lists every fault, each at its own index; a non-string entry is a fault too', async () => {
    const t = await team();
    const res = await patchOrg(t.owner, { allowedOrigins: ['https://*.acme.test', 'https://ok.acme.test', 'http://app.acme.test', 'https://APP.acme.test'] });
    expect(pointersOf(res)).toEqual(['/allowedOrigins/0', '/allowedOrigins/2', '/allowedOrigins/3']);
    expect(pointersOf(await patchOrg(t.owner, { allowedOrigins: ['https://ok.acme.test', null] }))).toEqual(['/allowedOrigins/1']);
    expect(pointersOf(await patchOrg(t.owner, { allowedOrigins: 'https://ok.acme.test' }))).toEqual(['/allowedOrigins']);
    expect((await getOrg(t.owner)).allowedOrigins).toEqual([]);
  });

  for (const [plan, quota] of [
    ['free', 1],
    ['team', 10],
    ['enterprise', 100],
  ] as const) {
    it(`the ${plan} plan allows ${quota} custom origin(s); one more is a 400 naming /allowedOrigins`, async () => {
      const t = await team();
      await setPlan(t.owner.organizationId, plan);
      const origins = (n: number) => Array.from({ length: n }, (_, i) => `https://app${i}.${plan}.test`);
      const ok = await patchOrg(t.admin, { allowedOrigins: origins(quota) });
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json().allowedOrigins).toHaveLength(quota);

      const over = await patchOrg(t.admin, { allowedOrigins: origins(quota + 1) });
      expect(pointersOf(over)).toEqual(['/allowedOrigins']);
      expect(over.json().detail).toContain(String(quota));
      expect([...(await getOrg(t.owner)).allowedOrigins].sort()).toEqual([...origins(quota)].sort());
    });
  }

  it('an origin added by the operator (addOperatorOrigin) does not count against the plan', async () => {
    const t = await team();
    await setPlan(t.owner.organizationId, 'free');
    await addOperatorOrigin(db(), t.owner.organizationId, 'https://ops.acme.test', Date.now());
    const listed = await getOrg(t.owner);
    expect(listed.allowedOrigins).toEqual(['https://ops.acme.test']);

    // The organization's one own origin, alongside the operator's.
    const both = ['https://ops.acme.test', 'https://mine.acme.test'];
    const ok = await patchOrg(t.admin, { allowedOrigins: both });
    expect(ok.statusCode, ok.body).toBe(200);
    expect([...ok.json().allowedOrigins].sort()).toEqual([...both].sort());
    // Sending back what GET shows is always accepted (the operator's origin stays uncounted).
    const roundTrip = await patchOrg(t.owner, { allowedOrigins: (await getOrg(t.owner)).allowedOrigins });
    expect(roundTrip.statusCode, roundTrip.body).toBe(200);

    expect(pointersOf(await patchOrg(t.admin, { allowedOrigins: [...both, 'https://two.acme.test'] }))).toEqual(['/allowedOrigins']);
    expect([...(await getOrg(t.owner)).allowedOrigins].sort()).toEqual([...both].sort());

    // The operator's function validates too.
    await expect(addOperatorOrigin(db(), t.owner.organizationId, 'https://*.acme.test', Date.now())).rejects.toMatchObject({ status: 400 });
  });

  // ───────────────────────────── organization tokens ─────────────────────────────

  it("GET /v1/organization/tokens: admins see every member's tokens with userId, never a token string or hash; members get 403", async () => {
    const t = await team();
    const other = await ctx.make.caller({ role: 'owner' });
    for (const role of ['admin', 'owner'] as const) {
      const res = await ctx.request('GET', '/v1/organization/tokens?limit=100', { token: t[role].token });
      expect(res.statusCode, res.body).toBe(200);
      const items = res.json().items as Json[];
      expect(items.map((x) => x.id).sort()).toEqual(ROLES.map((r) => t[r].tokenId).sort());
      for (const item of items) {
        expect(Object.keys(item).sort()).toEqual(TOKEN_FIELDS);
        expect(item.userId).toBe(ROLES.map((r) => t[r]).find((c) => c.tokenId === item.id)!.userId);
        expect(item.createdAt).toMatch(ISO_MS);
        expect(item.expiresAt).toMatch(ISO_MS);
        expect(item.revokedAt).toBeNull();
      }
      for (const caller of [...ROLES.map((r) => t[r]), other]) {
        expect(res.body.includes(caller.token)).toBe(false);
        expect(res.body.includes(tokenHash(caller.token))).toBe(false);
        for (const part of caller.token.split('.')) expect(res.body.includes(part)).toBe(false);
      }
      expect(res.body.includes(other.tokenId)).toBe(false);
    }
    const paged = await collect<Json>(t.admin, '/v1/organization/tokens', 3);
    expect(paged.pages).toBe(2);
    expect(paged.items).toHaveLength(4);
    for (const role of ['member', 'viewer'] as const) {
      const res = await ctx.request('GET', '/v1/organization/tokens', { token: t[role].token });
      expectProblem(res, 403, 'forbidden');
      expectCleanProblem(res);
    }
  });

  // ───────────────────────────── tenancy ─────────────────────────────

  it("every id-taking organization route answers 404 for another organization's id, exactly as for a missing one, and changes nothing", async () => {
    const victim = await team();
    const attacker = await team();
    const inv = (await invite(victim.owner, { email: email('victim-invitee'), role: 'viewer' })).json() as Invitation;
    const before = { members: await members(victim.owner), invitations: await invitations(victim.owner) };

    const cases: [string, (id: string) => Promise<LightMyRequestResponse>, string, string][] = [
      ['PATCH member', (id) => setRole(attacker.owner, id, { role: 'viewer' }), victim.member.userId, newId('usr')],
      ['PATCH member (owner)', (id) => setRole(attacker.owner, id, { role: 'admin' }), victim.owner.userId, newId('usr')],
      ['DELETE member', (id) => remove(attacker.owner, id), victim.admin.userId, newId('usr')],
      ['DELETE invitation', (id) => ctx.request('DELETE', `/v1/organization/invitations/${id}`, { token: attacker.owner.token }), inv.id, newId('inv')],
    ];
    for (const [name, send, theirs, missing] of cases) {
      const res = await send(theirs);
      const body = expectProblem(res, 404, 'not-found');
      expectCleanProblem(res, [theirs]);
      const res2 = await send(missing);
      const body2 = expectProblem(res2, 404, 'not-found');
      expect(String(body.detail).split(theirs).join('<id>'), name).toBe(String(body2.detail).split(missing).join('<id>'));
    }
    // Also as the attacking organization's admin (the 404 comes before any role rule).
    expectProblem(await setRole(attacker.admin, victim.owner.userId, { role: 'viewer' }), 404, 'not-found');
    expectProblem(await remove(attacker.admin, victim.owner.userId), 404, 'not-found');

    expect({ members: await members(victim.owner), invitations: await invitations(victim.owner) }).toEqual(before);
    for (const role of ROLES) expect((await ctx.request('GET', '/v1/me', { token: victim[role].token })).statusCode).toBe(200);
  });
});
