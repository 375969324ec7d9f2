/**
 * Scoped personal access tokens (docs/tokens-and-access.md, Scoped tokens): narrowed when minted to some
 * scopes and to listed projects; on every request the user's current role intersected with them.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, expectProblem, type Caller, type TestContext } from '../../../test/helpers/harness.js';
import type { GrpcReceiver } from '../otlp/otlp.grpc.js';
import { exportSpan, startReceiver } from '../otlp/otlp.grpc.test-support.js';
import { exportRequest, jsonSpan } from '../otlp/otlp.test-support.js';

describeEachDialect('tokens: scoped to scopes and projects', (ctx: TestContext) => {
  let receiver: GrpcReceiver;
  beforeAll(async () => {
    receiver = await startReceiver(ctx.app, ctx.config);
  });
  afterAll(async () => {
    await receiver?.close(1_000);
  });

  const mint = async (caller: { token: string }, body: Record<string, unknown>) => {
    const res = await ctx.request('POST', '/v1/tokens', { token: caller.token, body: { name: 'scoped', ...body } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; token: string; scopes: string[] | null; projectIds: string[] | null };
  };
  const otlp = (token: string, project: string, spanId = 'b7ad6b7169203331') =>
    ctx.request('POST', '/v1/traces', { token, headers: { 'sightline-project': project }, body: exportRequest([jsonSpan({ spanId })]) });
  const projectCount = async (owner: Caller) =>
    ((await ctx.request('GET', '/v1/projects?limit=100', { token: owner.token })).json() as { items: unknown[] }).items.length;

  it('a token narrowed when minted shows its limits in its record, its list and /v1/me; an unnarrowed one shows null', async () => {
    const owner = await ctx.make.caller({ role: 'owner' });
    const project = await ctx.make.project(owner.organizationId);
    // Sent out of order: stored in the permission table's order.
    const narrowed = await mint(owner, { scopes: ['runs:write', 'runs:read'], projectIds: [project.id] });
    expect(narrowed).toMatchObject({ scopes: ['runs:read', 'runs:write'], projectIds: [project.id] });
    const listed = (await ctx.request('GET', '/v1/tokens?limit=100', { token: owner.token })).json().items as Record<string, unknown>[];
    expect(listed.find((t) => t.id === narrowed.id)).toMatchObject({ scopes: ['runs:read', 'runs:write'], projectIds: [project.id] });
    expect(listed.find((t) => t.id === owner.tokenId)).toMatchObject({ scopes: null, projectIds: null });
    const org = (await ctx.request('GET', '/v1/organization/tokens?limit=100', { token: owner.token })).json().items as Record<string, unknown>[];
    expect(org.find((t) => t.id === narrowed.id)).toMatchObject({ scopes: ['runs:read', 'runs:write'], projectIds: [project.id] });

    const me = await ctx.request('GET', '/v1/me', { token: narrowed.token });
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json()).toMatchObject({
      role: 'owner',
      scopes: ['runs:read', 'runs:write'],
      token: { kind: 'personal_access_token', id: narrowed.id, scopes: ['runs:read', 'runs:write'], projectIds: [project.id] },
    });
    const wide = (await ctx.request('GET', '/v1/me', { token: owner.token })).json();
    expect(wide.token).toMatchObject({ scopes: null, projectIds: null });
    expect(wide.scopes).toContain('owners:admin');
    expect(wide.scopes).toHaveLength(21);
  });

  it('an ingest-only token sends runs (batch API, OTLP/HTTP, the real OTLP/gRPC exporter) and reads nothing', async () => {
    const member = await ctx.make.caller({ role: 'member' });
    const project = await ctx.make.project(member.organizationId);
    const ingest = await mint(member, { scopes: ['runs:write'] });

    const batch = await ctx.request('POST', `/v1/projects/${project.id}/runs/batch`, {
      token: ingest.token,
      body: { runs: [{ name: 'ChatOpenAI', kind: 'llm', startTime: '2026-11-02T10:00:00.000Z' }] },
    });
    expect(batch.statusCode, batch.body).toBe(200);
    const http = await otlp(ingest.token, project.id);
    expect(http.statusCode, http.body).toBe(200);
    expect(http.json()).toEqual({});
    const grpc = await exportSpan(receiver.port, ingest.token, project.name);
    expect(grpc.error).toBeUndefined();
    expect(grpc.code).toBe(0);
    const stored = await ctx.request('GET', `/v1/projects/${project.id}/runs`, { token: member.token });
    expect(stored.json().items).toHaveLength(3);

    for (const url of [
      `/v1/projects/${project.id}/runs`,
      `/v1/projects/${project.id}/traces`,
      `/v1/projects/${project.id}/runs/metrics?from=2026-11-01T00:00:00.000Z&to=2026-11-03T00:00:00.000Z`,
      `/v1/projects/${project.id}`,
      '/v1/projects',
      '/v1/prompts',
      '/v1/organization',
    ]) {
      const res = await ctx.request('GET', url, { token: ingest.token });
      const scope =
        url.includes('/runs') || url.includes('/traces')
          ? 'runs:read'
          : url.startsWith('/v1/projects')
            ? 'projects:read'
            : url.includes('prompts')
              ? 'prompts:read'
              : 'organization:read';
      expectProblem(res, 403, 'forbidden', `This token is limited to runs:write; it does not allow ${scope}.`);
    }
    // gRPC refuses a token that may not write runs, as HTTP does.
    const reader = await mint(member, { scopes: ['runs:read'] });
    const refused = await exportSpan(receiver.port, reader.token, project.name);
    expect(refused.code).not.toBe(0);
    expect(refused.error).toMatch(/This token is limited to runs:read; it does not allow runs:write\./);
  });

  it('a read-only token reads and writes nothing', async () => {
    const member = await ctx.make.caller({ role: 'member' });
    const project = await ctx.make.project(member.organizationId);
    await ctx.make.runs(project.id, 2);
    const reader = await mint(member, {
      scopes: ['organization:read', 'projects:read', 'runs:read', 'prompts:read', 'monitors:read', 'models:read', 'scores:read'],
    });
    expect((await ctx.request('GET', `/v1/projects/${project.id}/runs`, { token: reader.token })).json().items).toHaveLength(2);
    const write = await ctx.request('POST', `/v1/projects/${project.id}/runs`, {
      token: reader.token,
      body: { name: 'x', kind: 'llm', startTime: '2026-11-02T10:00:00.000Z' },
    });
    expectProblem(
      write,
      403,
      'forbidden',
      `This token is limited to ${'organization:read, projects:read, runs:read, prompts:read, monitors:read, models:read, scores:read'}; it does not allow runs:write.`,
    );
    expectProblem(await otlp(reader.token, project.id), 403, 'forbidden');
    expect((await ctx.request('GET', `/v1/projects/${project.id}/runs`, { token: member.token })).json().items).toHaveLength(2);
  });

  it('narrowed to a project: the others are a 404 like a missing one, OTLP stores into it alone and creates none, the projects list shows it alone', async () => {
    const owner = await ctx.make.caller({ role: 'owner' });
    const mine = await ctx.make.project(owner.organizationId);
    const other = await ctx.make.project(owner.organizationId);
    const narrowed = await mint(owner, { projectIds: [mine.id] });

    expect((await ctx.request('GET', `/v1/projects/${mine.id}/runs`, { token: narrowed.token })).statusCode).toBe(200);
    const hidden = await ctx.request('GET', `/v1/projects/${other.id}/runs`, { token: narrowed.token });
    expectProblem(hidden, 404, 'not-found', `Project ${other.id} does not exist.`);
    const missing = await ctx.request('GET', `/v1/projects/${owner.organizationId.replace('org_', 'prj_')}/runs`, { token: owner.token });
    expect(hidden.json().title).toBe(missing.json().title);

    // The projects list: its own only, and its answers are never given to a wider caller (or the reverse).
    const wideFirst = await ctx.request('GET', '/v1/projects', { token: owner.token });
    expect(
      wideFirst
        .json()
        .items.map((p: { id: string }) => p.id)
        .sort(),
    ).toEqual([mine.id, other.id].sort());
    const listed = await ctx.request('GET', '/v1/projects', { token: narrowed.token });
    expect(listed.json().items.map((p: { id: string }) => p.id)).toEqual([mine.id]);
    expect((await ctx.request('GET', '/v1/projects', { token: owner.token })).json().items).toHaveLength(2);

    expectProblem(await ctx.request('POST', '/v1/projects', { token: narrowed.token, body: { name: 'new' } }), 403, 'forbidden');
    expectProblem(
      await ctx.request('GET', '/v1/prompts', { token: narrowed.token }),
      403,
      'forbidden',
      'This token is limited to one project: it reaches their routes, not organization-wide ones.',
    );

    const before = await projectCount(owner);
    expect((await otlp(narrowed.token, mine.name)).statusCode).toBe(200);
    for (const name of [other.name, other.id, 'brand-new-project']) {
      const refused = await otlp(narrowed.token, name);
      expectProblem(refused, 404, 'not-found', `Project ${name} is not one of this token's projects.`);
    }
    const grpc = await exportSpan(receiver.port, narrowed.token, other.name);
    expect(grpc.code).not.toBe(0);
    expect(await projectCount(owner)).toBe(before);
    expect((await ctx.request('GET', `/v1/projects/${other.id}/runs`, { token: owner.token })).json().items).toHaveLength(0);
  });

  it('the projects list of a token narrowed to projects, page by page: its projects alone, its cursors bound to them', async () => {
    const owner = await ctx.make.caller({ role: 'owner' });
    const projects = [];
    for (let i = 0; i < 5; i++) projects.push(await ctx.make.project(owner.organizationId, `paged-${i}-${Date.now()}`));
    const mine = [projects[0]!.id, projects[2]!.id, projects[4]!.id];
    const narrowed = await mint(owner, { projectIds: mine });
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await ctx.request('GET', `/v1/projects?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: narrowed.token });
      expect(page.statusCode, page.body).toBe(200);
      walked.push(...page.json().items.map((p: { id: string }) => p.id));
      cursor = page.json().nextCursor;
    } while (cursor);
    expect(walked).toEqual([...mine].reverse());
    // A cursor of the organization's whole list is another list's to the narrowed token, and the reverse.
    const wide = (await ctx.request('GET', '/v1/projects?limit=1', { token: owner.token })).json().nextCursor as string;
    expectProblem(
      await ctx.request('GET', `/v1/projects?cursor=${encodeURIComponent(wide)}`, { token: narrowed.token }),
      400,
      'validation',
      'Cursor is malformed.',
    );
    const own = (await ctx.request('GET', '/v1/projects?limit=1', { token: narrowed.token })).json().nextCursor as string;
    expectProblem(
      await ctx.request('GET', `/v1/projects?cursor=${encodeURIComponent(own)}`, { token: owner.token }),
      400,
      'validation',
      'Cursor is malformed.',
    );
  });

  it('minting: no scope beyond the credential (403), projects of the organization it reaches only (400); a narrowed token mints tokens narrowed as far', async () => {
    const viewer = await ctx.make.caller({ role: 'viewer' });
    expectProblem(
      await ctx.request('POST', '/v1/tokens', { token: viewer.token, body: { name: 'x', scopes: ['runs:read', 'runs:write'] } }),
      403,
      'forbidden',
      'Your role (viewer) does not allow runs:write.',
    );
    const owner = await ctx.make.caller({ role: 'owner' });
    const mine = await ctx.make.project(owner.organizationId);
    const other = await ctx.make.project(owner.organizationId);
    const stranger = await ctx.make.project((await ctx.make.org()).id);
    const bad = await ctx.request('POST', '/v1/tokens', { token: owner.token, body: { name: 'x', projectIds: [mine.id, stranger.id, 'prj_nope'] } });
    expectProblem(bad, 400, 'validation');
    expect(bad.json().errors).toEqual([
      { pointer: '/projectIds/1', detail: `Project ${stranger.id} does not exist.` },
      { pointer: '/projectIds/2', detail: 'Project prj_nope does not exist.' },
    ]);
    for (const body of [{ scopes: [] }, { scopes: ['runs:write', 'runs:write'] }, { scopes: ['runs:admin'] }, { projectIds: [] }]) {
      expectProblem(await ctx.request('POST', '/v1/tokens', { token: owner.token, body: { name: 'x', ...body } }), 400, 'validation');
    }

    const narrowed = await mint(owner, { scopes: ['runs:read', 'runs:write'], projectIds: [mine.id] });
    // Nothing asked: its own limits.
    expect(await mint(narrowed, {})).toMatchObject({ scopes: ['runs:read', 'runs:write'], projectIds: [mine.id] });
    expect(await mint(narrowed, { scopes: ['runs:read'] })).toMatchObject({ scopes: ['runs:read'], projectIds: [mine.id] });
    expectProblem(
      await ctx.request('POST', '/v1/tokens', { token: narrowed.token, body: { name: 'x', scopes: ['tokens:admin'] } }),
      403,
      'forbidden',
      'This token is limited to runs:read, runs:write; it does not allow tokens:admin.',
    );
    const outside = await ctx.request('POST', '/v1/tokens', { token: narrowed.token, body: { name: 'x', projectIds: [other.id] } });
    expectProblem(outside, 400, 'validation');
    expect(outside.json().errors).toEqual([{ pointer: '/projectIds/0', detail: `Project ${other.id} does not exist.` }]);
  });

  it("rotation keeps the limits; a narrowed token rotates and revokes only tokens narrowed as far, never its user's wider ones", async () => {
    const owner = await ctx.make.caller({ role: 'owner' });
    const project = await ctx.make.project(owner.organizationId);
    const narrowed = await mint(owner, { scopes: ['runs:write'], projectIds: [project.id] });
    const rotated = await ctx.request('POST', `/v1/tokens/${narrowed.id}/rotate`, { token: narrowed.token });
    expect(rotated.statusCode, rotated.body).toBe(201);
    expect(rotated.json()).toMatchObject({ scopes: ['runs:write'], projectIds: [project.id] });
    const successor = rotated.json().token as string;
    expect((await ctx.request('GET', '/v1/me', { token: successor })).json().token).toMatchObject({ scopes: ['runs:write'], projectIds: [project.id] });

    const wider = await mint(owner, {});
    expectProblem(
      await ctx.request('POST', `/v1/tokens/${wider.id}/rotate`, { token: successor }),
      403,
      'forbidden',
      'This token may not rotate a token that may do more than it.',
    );
    expectProblem(
      await ctx.request('DELETE', `/v1/tokens/${wider.id}`, { token: successor }),
      403,
      'forbidden',
      'This token may not revoke a token that may do more than it.',
    );
    expect((await ctx.request('GET', '/v1/me', { token: wider.token })).statusCode).toBe(200);
    const sibling = await mint(owner, { scopes: ['runs:write'], projectIds: [project.id] });
    expect((await ctx.request('DELETE', `/v1/tokens/${sibling.id}`, { token: successor })).statusCode).toBe(204);
  });

  it('the role at each request still bounds a narrowed token: demoted to viewer, its runs:write is refused at once, its runs:read still works', async () => {
    const owner = await ctx.make.caller({ role: 'owner' });
    const member = await ctx.make.caller({ role: 'member', organizationId: owner.organizationId });
    const project = await ctx.make.project(owner.organizationId);
    const both = await mint(member, { scopes: ['runs:read', 'runs:write'] });
    const run = { name: 'x', kind: 'llm', startTime: '2026-11-02T10:00:00.000Z' };
    expect((await ctx.request('POST', `/v1/projects/${project.id}/runs`, { token: both.token, body: run })).statusCode).toBe(201);
    const demoted = await ctx.request('PATCH', `/v1/organization/members/${member.userId}`, { token: owner.token, body: { role: 'viewer' } });
    expect(demoted.statusCode, demoted.body).toBe(200);
    expectProblem(
      await ctx.request('POST', `/v1/projects/${project.id}/runs`, { token: both.token, body: run }),
      403,
      'forbidden',
      'Your role (viewer) does not allow runs:write.',
    );
    expect((await ctx.request('GET', `/v1/projects/${project.id}/runs`, { token: both.token })).statusCode).toBe(200);
    expect((await ctx.request('GET', '/v1/me', { token: both.token })).json().scopes).toEqual(['runs:read']);
  });
});
