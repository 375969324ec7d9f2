import type { LightMyRequestResponse } from 'fastify';
import { expect, it, vi } from 'vitest';
import type { Role } from '../src/auth/permissions.js';
import { main } from '../src/cli.js';
import { acceptInvitations } from '../src/features/organizations/invitations.repo.js';
import { ensureUser, setMembership } from '../src/features/organizations/organizations.repo.js';
import { addOperatorOrigin } from '../src/features/organizations/origins.repo.js';
import { newId } from '../src/lib/ids.js';
import { describeEachDialect, expectProblem, PUBLIC_URL, type Caller, type TestContext } from './helpers/harness.js';
import { expectUnauthorized, tokenHash } from './helpers-auth.js';
import { expectCleanProblem, expectValidation } from './helpers-problems.js';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];
const TOKEN_FIELDS = ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'revokedAt', 'userId'];

let sequence = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${(sequence++).toString(36)}`;
const email = (prefix = 'someone') => `${unique(prefix)}@example.test`;

/** The 400 validation problem, and the exact set of pointers it names (a field may have several faults). */
function pointersOf(res: LightMyRequestResponse): string[] {
  return [...new Set(expectValidation(res).map((e) => e.pointer ?? `?${e.parameter}`))].sort();
}

describeEachDialect('organization, members, invitations', (ctx: TestContext) => {
  const db = () => ctx.database.storage.db;

  /** An organization with one caller per role (the owner first). */
  async function team(): Promise<Record<Role, Caller>> {
    const owner = await ctx.make.caller({ role: 'owner' });
    const organizationId = owner.organizationId;
    const [admin, member, viewer] = await Promise.all((['admin', 'member', 'viewer'] as const).map((role) => ctx.make.caller({ role, organizationId })));
    return { owner, admin: admin!, member: member!, viewer: viewer! };
  }

  const getOrg = async (caller: Caller) => {
    const res = await ctx.request('GET', '/v1/organization', { token: caller.token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { id: string; name: string; plan: string; allowedOrigins: string[]; createdAt: string };
  };
  const patchOrg = (caller: Caller, body: unknown) => ctx.request('PATCH', '/v1/organization', { token: caller.token, body });
  const setPlan = (organizationId: string, plan: string) => db().updateTable('organizations').set({ plan }).where('id', '=', organizationId).execute();

  /** Every item of a paginated list, following `nextCursor`; checks the envelope on every page. */
  async function collect<T>(caller: Caller, path: string, limit: number): Promise<{ items: T[]; pages: number }> {
    const items: T[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url = `${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await ctx.request('GET', url, { token: caller.token });
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json() as { items: T[]; nextCursor?: string | null; limit: number };
      expect(Object.keys(page).sort()).toEqual(['items', 'limit', 'nextCursor']);
      expect(page.limit).toBe(limit);
      expect(page.items.length).toBeLessThanOrEqual(limit);
      if (page.nextCursor !== null) expect(page.items.length).toBe(limit);
      items.push(...page.items);
      cursor = page.nextCursor ?? null;
      pages += 1;
      expect(pages).toBeLessThan(50);
    } while (cursor);
    return { items, pages };
  }

  type Member = { user: { id: string; email: string; name: string; createdAt: string }; role: Role; joinedAt: string };
  const members = async (caller: Caller) => (await collect<Member>(caller, '/v1/organization/members', 100)).items;
  const roleOf = async (caller: Caller, userId: string) => (await members(caller)).find((m) => m.user.id === userId)?.role;
  const membershipRole = async (organizationId: string, userId: string) =>
    (await db().selectFrom('memberships').select('role').where('organization_id', '=', organizationId).where('user_id', '=', userId).executeTakeFirst())?.role;
  const setRole = (caller: Caller, userId: string, body: unknown) => ctx.request('PATCH', `/v1/organization/members/${userId}`, { token: caller.token, body });
  const remove = (caller: Caller, userId: string) => ctx.request('DELETE', `/v1/organization/members/${userId}`, { token: caller.token });
  const invite = (caller: Caller, body: unknown) => ctx.request('POST', '/v1/organization/invitations', { token: caller.token, body });
  type Invitation = { id: string; email: string; role: Role; invitedBy: string; createdAt: string };
  const invitations = async (caller: Caller) => (await collect<Invitation>(caller, '/v1/organization/invitations', 100)).items;
  const createProject = (caller: Caller) => ctx.request('POST', '/v1/projects', { token: caller.token, body: { name: unique('p') } });

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

  // ───────────────────────────── the command line, in process ─────────────────────────────

  /** Runs the real CLI entry point against this suite's database and the app's issuer. */
  async function cli(args: string[], env: Record<string, string> = {}) {
    const config = ctx.database.config;
    const vars: Record<string, string> = {
      DATABASE_URL: config.kind === 'sqlite' ? `sqlite:${config.path}` : config.url,
      SIGHTLINE_PUBLIC_URL: PUBLIC_URL,
      LOG_LEVEL: 'silent',
      ...env,
    };
    const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
    Object.assign(process.env, vars);
    const out: string[] = [];
    const err: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
    const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
    try {
      const code = await main(args);
      return { code, out, err };
    } finally {
      log.mockRestore();
      error.mockRestore();
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  }

  it('sightline org allow-origin <org> <origin> allow-lists an origin beyond the plan', async () => {
    const t = await team();
    await setPlan(t.owner.organizationId, 'free');
    const { name } = await getOrg(t.owner);
    expect((await patchOrg(t.owner, { allowedOrigins: ['https://mine.acme.test'] })).statusCode).toBe(200);

    const run = await cli(['org', 'allow-origin', name, 'https://cli.acme.test']);
    expect(run.code, run.err.join('\n')).toBe(0);
    expect([...(await getOrg(t.owner)).allowedOrigins].sort()).toEqual(['https://cli.acme.test', 'https://mine.acme.test']);
    expect((await patchOrg(t.owner, { allowedOrigins: ['https://cli.acme.test', 'https://mine.acme.test'] })).statusCode).toBe(200);

    const bad = await cli(['org', 'allow-origin', name, 'https://*.acme.test']);
    expect(bad.code).not.toBe(0);
    const missing = await cli(['org', 'allow-origin', unique('no-such-org'), 'https://x.acme.test']);
    expect(missing.code).not.toBe(0);
    expect([...(await getOrg(t.owner)).allowedOrigins].sort()).toEqual(['https://cli.acme.test', 'https://mine.acme.test']);
  });

  it('sightline token create gives a new organization the configured default plan', async () => {
    const name = unique('cli-free');
    const run = await cli(['token', 'create', '--email', email('cli'), '--org', name, '--role', 'owner'], { SIGHTLINE_DEFAULT_PLAN: 'free' });
    expect(run.code, run.err.join('\n')).toBe(0);
    const org = await db().selectFrom('organizations').select('plan').where('name', '=', name).executeTakeFirstOrThrow();
    expect(org.plan).toBe('free');
  });

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

    const tokens = (await collect<Record<string, unknown>>(t.admin, '/v1/organization/tokens', 100)).items;
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
    await acceptInvitations(db(), user.id, address.toUpperCase(), now);

    expect(await roleOf(a.viewer, user.id)).toBe('owner');
    expect(await roleOf(b.viewer, user.id)).toBe('viewer');
    expect(await roleOf(c.viewer, user.id)).toBe('member');
    for (const t of [a, b, c]) expect(await invitations(t.owner)).toEqual([]);
    // Accepting again is harmless.
    await acceptInvitations(db(), user.id, address, Date.now());
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

  // ───────────────────────────── organization tokens ─────────────────────────────

  it("GET /v1/organization/tokens: admins see every member's tokens with userId, never a token string or hash; members get 403", async () => {
    const t = await team();
    const other = await ctx.make.caller({ role: 'owner' });
    for (const role of ['admin', 'owner'] as const) {
      const res = await ctx.request('GET', '/v1/organization/tokens?limit=100', { token: t[role].token });
      expect(res.statusCode, res.body).toBe(200);
      const items = res.json().items as Record<string, unknown>[];
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
    const paged = await collect<Record<string, unknown>>(t.admin, '/v1/organization/tokens', 3);
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
