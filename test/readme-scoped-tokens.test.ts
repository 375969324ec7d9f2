/**
 * The README's "Scoped tokens" example (and "Audit log" after it) runs as written (bash, curl, node): against this suite's server, with
 * an owner's token as `$TOKEN`, it mints an ingest-only token for a new project, sends a run with it (200)
 * and is refused a read (403 naming the scope); the run is there for the owner.
 */
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect, PROBLEM_BASE } from './helpers/harness.js';
import { blocks, section } from './helpers/readme.js';

const run = promisify(execFile);

describeEachDialect('the README’s “Scoped tokens” and “Audit log” examples, run as written', (ctx) => {
  let baseUrl = '';
  beforeAll(async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  });

  it('mints an ingest-only token for one project: it sends runs, and reading is a 403', async () => {
    const [script] = blocks(section('Scoped tokens'), 'sh');
    expect(script).toContain('API=http://localhost:8080/v1;');
    const owner = await ctx.make.caller({ role: 'owner' });
    const { stdout, stderr } = await run('bash', ['--norc', '--noprofile', '-eo', 'pipefail', '-c', script!.replace('http://localhost:8080', baseUrl)], {
      env: { PATH: process.env.PATH ?? '', TOKEN: owner.token },
      timeout: 60_000,
    });
    expect(stderr).toBe('');
    const [status, refusal, ...rest] = stdout.trim().split('\n');
    expect(rest).toEqual([]);
    expect(status).toBe('200');
    expect(JSON.parse(refusal!)).toMatchObject({
      type: `${PROBLEM_BASE}/forbidden`,
      status: 403,
      detail: 'This token is limited to runs:write; it does not allow runs:read.',
    });
    const projects = (await ctx.request('GET', '/v1/projects?name=nightly-evals', { token: owner.token })).json().items as { id: string }[];
    expect(projects).toHaveLength(1);
    const runs = await ctx.request('GET', `/v1/projects/${projects[0]!.id}/runs`, { token: owner.token });
    expect(runs.json().items.map((r: { name: string }) => r.name)).toEqual(['nightly-eval']);
    const tokens = (await ctx.request('GET', '/v1/tokens', { token: owner.token })).json().items as Record<string, unknown>[];
    expect(tokens.find((t) => t.name === 'ci-exporter')).toMatchObject({ scopes: ['runs:write'], projectIds: [projects[0]!.id] });

    // The "Audit log" example, after it: the token just minted is the newest `token.created`.
    const [audit] = blocks(section('Audit log'), 'sh');
    const listed = await run('bash', ['--norc', '--noprofile', '-eo', 'pipefail', '-c', audit!.replace('http://localhost:8080', baseUrl)], {
      env: { PATH: process.env.PATH ?? '', TOKEN: owner.token },
      timeout: 60_000,
    });
    const page = JSON.parse(listed.stdout) as { items: { action: string; details: { name: string } }[]; limit: number };
    expect(page.limit).toBe(10);
    expect(page.items.map((e) => [e.action, e.details.name])).toEqual([['token.created', 'ci-exporter']]);
  });
});
