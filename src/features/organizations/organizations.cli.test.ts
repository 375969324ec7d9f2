import { expect, it } from 'vitest';
import { describeOrganization, email, unique } from './organizations.test-support.js';

/** The operator's command line, run in process against the suite's database: allow-listing an origin, the default plan. */
describeOrganization((_ctx, { db, team, getOrg, patchOrg, setPlan, cli }) => {
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
});

/** `token create --scopes --projects`: a scoped token for an exporter, bootstrapped; the audit log says who made it. */
describeOrganization((ctx, { team, cli }) => {
  it('sightline token create --scopes runs:write --projects <id> mints a narrowed token; scopes beyond the role or unknown projects are refused', async () => {
    const t = await team();
    const project = await ctx.make.project(t.owner.organizationId);
    const { name } = (await ctx.request('GET', '/v1/organization', { token: t.owner.token })).json() as { name: string };
    const who = email('exporter');
    const run = await cli(['token', 'create', '--email', who, '--org', name, '--role', 'member', '--scopes', 'runs:write', '--projects', project.id]);
    expect(run.code, run.err.join('\n')).toBe(0);
    const token = run.out.at(-1)!;
    const me = await ctx.request('GET', '/v1/me', { token });
    expect(me.json()).toMatchObject({ role: 'member', scopes: ['runs:write'], token: { scopes: ['runs:write'], projectIds: [project.id] } });
    expect((await ctx.request('GET', `/v1/projects/${project.id}/runs`, { token })).statusCode).toBe(403);

    for (const args of [
      ['--scopes', 'tokens:admin'],
      ['--scopes', 'runs:nope'],
      ['--scopes', ','],
      ['--projects', 'prj_00000000000000000000000000'],
    ]) {
      const refused = await cli(['token', 'create', '--email', who, '--org', name, '--role', 'member', ...args]);
      expect(refused.code, args.join(' ')).not.toBe(0);
    }
    const audit = (await ctx.request('GET', '/v1/organization/audit-log?action=token.created', { token: t.owner.token })).json().items as {
      actor: unknown;
      target: { id: string };
      details: Record<string, unknown>;
    }[];
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: { credential: { kind: 'cli', id: null } }, details: { scopes: ['runs:write'], projectIds: [project.id] } });
  });
});
