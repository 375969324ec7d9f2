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
