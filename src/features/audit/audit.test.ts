/**
 * The audit log (docs/tokens-and-access.md, Audit log): every recorded action produces exactly one event,
 * with its actor, target and details, and none carries a secret; the list is admin+, newest first, filtered
 * by action, actor and time; a change that fails records nothing; old events go after the retention.
 */
import { expect, it } from 'vitest';
import { AUDIT_ACTIONS, type AuditAction } from '../../db/audit.js';
import { describeEachDialect, expectProblem, type Caller, type TestContext } from '../../../test/helpers/harness.js';
import { purgeAudit } from './audit.repo.js';

interface AuditEvent {
  id: string;
  createdAt: string;
  action: AuditAction;
  actor: { userId: string | null; credential: { kind: string; id: string | null } | null };
  target: { type: string; id: string };
  details: Record<string, unknown>;
}

const MODEL_KEY = 'sk-audit-model-connection-key-0123456789';

describeEachDialect('audit log', (ctx: TestContext) => {
  const events = async (owner: Caller, query = ''): Promise<AuditEvent[]> => {
    const all: AuditEvent[] = [];
    let cursor: string | null = null;
    do {
      const res = await ctx.request('GET', `/v1/organization/audit-log?limit=100${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        token: owner.token,
      });
      expect(res.statusCode, res.body).toBe(200);
      all.push(...(res.json().items as AuditEvent[]));
      cursor = res.json().nextCursor;
    } while (cursor);
    return all;
  };
  const call = async (caller: Caller, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, status = method === 'POST' ? 201 : 200) => {
    const res = await ctx.request(method, url, { token: caller.token, ...(body === undefined ? {} : { body }) });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
    return res.statusCode === 204 ? null : res.json();
  };

  it('each action produces exactly one event, with its actor, target and details, and no event carries a secret', async () => {
    const owner = await ctx.make.caller({ role: 'owner' });
    const member = await ctx.make.caller({ role: 'member', organizationId: owner.organizationId });
    const actor = { userId: owner.userId, credential: { kind: 'personal_access_token', id: owner.tokenId } };
    const expected: Partial<AuditEvent>[] = [];
    const secrets: string[] = [owner.token, member.token, MODEL_KEY];

    const minted = await call(owner, 'POST', '/v1/tokens', { name: 'deploy', scopes: ['runs:write'] });
    secrets.push(minted.token);
    expected.push({
      action: 'token.created',
      actor,
      target: { type: 'token', id: minted.id },
      details: expect.objectContaining({ name: 'deploy', scopes: ['runs:write'] }),
    });
    const rotated = await call(owner, 'POST', `/v1/tokens/${minted.id}/rotate`);
    secrets.push(rotated.token);
    expected.push({ action: 'token.rotated', actor, target: { type: 'token', id: rotated.id }, details: expect.objectContaining({ rotatedFrom: minted.id }) });
    // The rotated-away token used again: its whole family is revoked, once.
    expect((await ctx.request('GET', '/v1/me', { token: minted.token })).statusCode).toBe(401);
    expect((await ctx.request('GET', '/v1/me', { token: minted.token })).statusCode).toBe(401);
    expected.push({
      action: 'token.reuse_detected',
      actor: { userId: owner.userId, credential: { kind: 'personal_access_token', id: minted.id } },
      target: { type: 'token', id: minted.id },
      details: { usedTokenId: minted.id, revoked: 1 },
    });
    const spare = await call(owner, 'POST', '/v1/tokens', { name: 'spare' });
    secrets.push(spare.token);
    expected.push({ action: 'token.created', target: { type: 'token', id: spare.id } });
    await call(owner, 'DELETE', `/v1/tokens/${spare.id}`, undefined, 204);
    expected.push({ action: 'token.revoked', actor, target: { type: 'token', id: spare.id }, details: expect.objectContaining({ name: 'spare' }) });
    await call(owner, 'DELETE', `/v1/tokens/${spare.id}`, undefined, 204); // again: nothing changes, nothing recorded

    await call(owner, 'PATCH', `/v1/organization/members/${member.userId}`, { role: 'viewer' });
    expected.push({ action: 'member.role_changed', actor, target: { type: 'user', id: member.userId }, details: { from: 'member', to: 'viewer' } });
    await call(owner, 'PATCH', `/v1/organization/members/${member.userId}`, { role: 'viewer' }); // unchanged: nothing recorded
    await call(owner, 'DELETE', `/v1/organization/members/${member.userId}`, undefined, 204);
    expected.push({ action: 'member.removed', actor, target: { type: 'user', id: member.userId }, details: { role: 'viewer', tokensRevoked: 1 } });

    const invitation = await call(owner, 'POST', '/v1/organization/invitations', { email: 'new.colleague@example.test', role: 'member' });
    expected.push({
      action: 'invitation.created',
      actor,
      target: { type: 'invitation', id: invitation.id },
      details: { email: 'new.colleague@example.test', role: 'member' },
    });
    await call(owner, 'DELETE', `/v1/organization/invitations/${invitation.id}`, undefined, 204);
    expected.push({
      action: 'invitation.deleted',
      actor,
      target: { type: 'invitation', id: invitation.id },
      details: { email: 'new.colleague@example.test', role: 'member' },
    });

    await call(owner, 'PATCH', '/v1/organization', { allowedOrigins: ['https://app.example.com'] });
    expected.push({
      action: 'organization.updated',
      actor,
      target: { type: 'organization', id: owner.organizationId },
      details: { allowedOrigins: { added: ['https://app.example.com'], removed: [] } },
    });

    const connection = await call(owner, 'POST', '/v1/model-connections', {
      name: 'judge',
      baseUrl: 'https://models.example.com/v1',
      model: 'gpt-4o-mini',
      apiKey: MODEL_KEY,
      headers: { 'x-team': 'secret-header-value' },
      monthlyBudgetUsd: 0,
    });
    secrets.push('secret-header-value');
    expected.push({
      action: 'model_connection.created',
      actor,
      target: { type: 'model_connection', id: connection.id },
      details: { name: 'judge', baseUrl: 'https://models.example.com/v1', model: 'gpt-4o-mini', headerNames: ['x-team'] },
    });
    await call(owner, 'PATCH', `/v1/model-connections/${connection.id}`, { apiKey: `${MODEL_KEY}-2`, monthlyBudgetUsd: 5 });
    expected.push({
      action: 'model_connection.updated',
      actor,
      target: { type: 'model_connection', id: connection.id },
      details: { name: 'judge', fields: ['apiKey', 'monthlyBudgetUsd'] },
    });
    await call(owner, 'DELETE', `/v1/model-connections/${connection.id}`, undefined, 204);
    expected.push({ action: 'model_connection.deleted', actor, target: { type: 'model_connection', id: connection.id }, details: { name: 'judge' } });

    const project = await ctx.make.project(owner.organizationId, `audited-${Date.now()}`);
    await call(owner, 'DELETE', `/v1/projects/${project.id}`, undefined, 204);
    expected.push({ action: 'project.deleted', actor, target: { type: 'project', id: project.id }, details: { name: project.name } });

    const session = await ctx.make.session({ userId: owner.userId, organizationId: owner.organizationId });
    expected.push({
      action: 'session.created',
      actor: { userId: owner.userId, credential: { kind: 'session', id: session.id } },
      target: { type: 'user', id: owner.userId },
      details: {},
    });

    const log = await events(owner);
    // Newest first, exactly the expected events.
    expect(log.map((e) => e.action)).toEqual(expected.map((e) => e.action).reverse());
    expect(log).toEqual(expected.reverse().map((e) => expect.objectContaining(e)));
    expect(new Set(log.map((e) => e.action))).toEqual(new Set(AUDIT_ACTIONS.filter((a) => a !== 'member.added')));
    const text = JSON.stringify(log);
    for (const secret of [...secrets, `${MODEL_KEY}-2`]) expect(text).not.toContain(secret);
    for (const event of log) expect(event.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('member.added: an invitation accepted at sign-in, and the bootstrap command; a first sign-in owns a new organization', async () => {
    const { resolveSignIn } = await import('../auth/signin.js');
    const owner = await ctx.make.caller({ role: 'owner' });
    const email = `invitee-${Date.now()}@example.test`;
    const invitation = await call(owner, 'POST', '/v1/organization/invitations', { email, role: 'viewer' });
    const signedIn = await resolveSignIn(ctx.database.storage.db, { email, name: 'Invitee' }, 'team', ctx.clock.now());
    expect(signedIn.organizationId).toBe(owner.organizationId);
    const added = await events(owner, '&action=member.added');
    expect(added).toEqual([
      expect.objectContaining({
        actor: { userId: signedIn.userId, credential: null },
        target: { type: 'user', id: signedIn.userId },
        details: { role: 'viewer', invitationId: invitation.id },
      }),
    ]);
    const alone = await resolveSignIn(ctx.database.storage.db, { email: `alone-${Date.now()}@example.test`, name: 'Alone' }, 'team', ctx.clock.now());
    const rows = await ctx.database.storage.db.selectFrom('audit_events').selectAll().where('organization_id', '=', alone.organizationId).execute();
    expect(rows.map((r) => [r.action, r.actor_user_id, r.target_id, JSON.parse(r.details)])).toEqual([
      ['member.added', alone.userId, alone.userId, { role: 'owner' }],
    ]);
  });

  it('a change refused records nothing: a taken name, a missing invitation, the last owner', async () => {
    const owner = await ctx.make.caller({ role: 'owner' });
    await call(owner, 'POST', '/v1/organization/invitations', { email: 'twice@example.test', role: 'member' });
    await call(owner, 'POST', '/v1/organization/invitations', { email: 'twice@example.test', role: 'member' }, 409);
    await call(owner, 'DELETE', '/v1/organization/invitations/inv_00000000000000000000000000', undefined, 404);
    await call(owner, 'PATCH', `/v1/organization/members/${owner.userId}`, { role: 'admin' }, 409);
    expect((await events(owner)).map((e) => e.action)).toEqual(['invitation.created']);
  });

  it('admin+ only, another organization sees none of it, filters by action, actor and time, and pages by the contract', async () => {
    const owner = await ctx.make.caller({ role: 'owner' });
    const admin = await ctx.make.caller({ role: 'admin', organizationId: owner.organizationId });
    const member = await ctx.make.caller({ role: 'member', organizationId: owner.organizationId });
    for (let i = 0; i < 3; i++) await call(owner, 'POST', '/v1/tokens', { name: `t${i}` });
    await call(admin, 'POST', '/v1/tokens', { name: 'admin-token' });
    expectProblem(
      await ctx.request('GET', '/v1/organization/audit-log', { token: member.token }),
      403,
      'forbidden',
      'Your role (member) does not allow organization:admin.',
    );
    const outsider = await ctx.make.caller({ role: 'owner' });
    expect(await events(outsider)).toEqual([]);

    expect((await events(admin)).length).toBe(4);
    expect((await events(owner, `&actorId=${admin.userId}`)).map((e) => e.details.name)).toEqual(['admin-token']);
    expect(await events(owner, '&action=token.revoked')).toEqual([]);
    const all = await events(owner);
    const oldest = all.at(-1)!;
    const from = encodeURIComponent(all[0]!.createdAt);
    expect((await events(owner, `&from=${from}`)).map((e) => e.id)).toContain(all[0]!.id);
    expect(await events(owner, `&to=${encodeURIComponent(oldest.createdAt)}`)).toEqual([]);
    const reversed = await ctx.request('GET', `/v1/organization/audit-log?from=${from}&to=${from}`, { token: owner.token });
    expect(expectProblem(reversed, 400, 'validation').errors).toEqual([{ parameter: 'from', detail: 'from must be before to.' }]);
    expectProblem(await ctx.request('GET', '/v1/organization/audit-log?action=token.stolen', { token: owner.token }), 400, 'validation');

    // Page by page: every event once, newest first; a cursor is bound to its filters.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await ctx.request('GET', `/v1/organization/audit-log?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        token: owner.token,
      });
      paged.push(...res.json().items.map((e: AuditEvent) => e.id));
      cursor = res.json().nextCursor;
    } while (cursor);
    expect(paged).toEqual(all.map((e) => e.id));
    const first = (await ctx.request('GET', '/v1/organization/audit-log?limit=1', { token: owner.token })).json().nextCursor as string;
    expectProblem(
      await ctx.request('GET', `/v1/organization/audit-log?action=token.created&cursor=${encodeURIComponent(first)}`, { token: owner.token }),
      400,
      'validation',
      'Cursor is malformed.',
    );
  });

  it('retention: events older than the cutoff go, a batch at a time; newer ones stay', async () => {
    const owner = await ctx.make.caller({ role: 'owner' });
    for (let i = 0; i < 3; i++) await call(owner, 'POST', '/v1/tokens', { name: `r${i}` });
    const db = ctx.database.storage.db;
    const rows = await db
      .selectFrom('audit_events')
      .select(['id', 'created_at'])
      .where('organization_id', '=', owner.organizationId)
      .orderBy('created_at')
      .execute();
    await db.updateTable('audit_events').set({ created_at: 1_000 }).where('id', 'in', [rows[0]!.id, rows[1]!.id]).execute();
    expect(await purgeAudit(db, 2_000, 1)).toBe(1);
    expect(await purgeAudit(db, 2_000, 1)).toBe(1);
    expect(await purgeAudit(db, 2_000, 1)).toBe(0);
    expect((await events(owner)).map((e) => e.id)).toEqual([rows[2]!.id]);
  });
});
