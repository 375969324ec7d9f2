/**
 * The client SDK (packages/client) against a real server on a free port (SQLite): typed calls,
 * pagination, problems, token renewal and rotation, retries, the tracer, and the CLI's remote commands. Here:
 * the typed calls, problems, pagination and the runtime-agnostic core; the rest have files of their own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { newRunId, Sightline, SightlineNetworkError, SightlineProblem, type RunCreate } from '../src/index.js';
import { PROBLEM_BASE } from '../../../test/helpers/harness.js';
import { freePort } from '../../../test/helpers/services.js';
import { countingFetch, describeSdk, expectProblem, startProxy } from './client.test-support.js';

describeSdk((sdk) => {
  it('round-trips every typed call: identity, tokens, organization, members, invitations', async () => {
    const me = await sdk.client.me.get();
    expect(me).toMatchObject({
      role: 'owner',
      organization: { id: sdk.owner.organizationId },
      token: { kind: 'personal_access_token', id: sdk.owner.tokenId },
    });
    expect(await sdk.client.tokenExpiresAt()).toBe(me.token.expiresAt);

    const minted = await sdk.client.tokens.create({ name: 'sdk', expiresInDays: 30 });
    expect(minted.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const listed = await sdk.client.tokens.list().toArray();
    expect(listed.map((t) => t.id)).toContain(minted.id);
    expect(listed.every((t) => !('token' in t))).toBe(true);
    const other = new Sightline(sdk.options({ token: minted.token }));
    const rotated = await other.tokens.rotate(minted.id);
    expect(rotated).toMatchObject({ name: 'sdk' });
    expect(rotated.id).not.toBe(minted.id);
    await sdk.client.tokens.revoke(rotated.id);
    expect((await sdk.client.tokens.list().toArray()).find((t) => t.id === rotated.id)?.revokedAt).not.toBeNull();
    expect((await sdk.client.organization.tokens.list().toArray()).map((t) => t.id)).toContain(rotated.id);
    // The audit log recorded each of them, newest first.
    const audit = await sdk.client.organization.auditLog.list({ actorId: sdk.owner.userId }).toArray();
    expect(audit.slice(0, 3).map((e) => [e.action, e.target.id])).toEqual([
      ['token.revoked', rotated.id],
      ['token.rotated', rotated.id],
      ['token.created', minted.id],
    ]);

    const org = await sdk.client.organization.get();
    expect(org).toMatchObject({ id: sdk.owner.organizationId, allowedOrigins: [] });
    const renamed = await sdk.client.organization.update({ name: `${org.name}-renamed`, allowedOrigins: ['https://app.example.com'] });
    expect(renamed).toMatchObject({ name: `${org.name}-renamed`, allowedOrigins: ['https://app.example.com'] });

    const member = await sdk.server.make.caller({ role: 'member', organizationId: sdk.owner.organizationId });
    const members = await sdk.client.organization.members.list().toArray();
    expect(members.map((m) => m.user.id).sort()).toEqual([sdk.owner.userId, member.userId].sort());
    expect(await sdk.client.organization.members.update(member.userId, { role: 'viewer' })).toMatchObject({ role: 'viewer', user: { id: member.userId } });
    await sdk.client.organization.members.remove(member.userId);
    expect((await sdk.client.organization.members.list().toArray()).map((m) => m.user.id)).toEqual([sdk.owner.userId]);

    const invitation = await sdk.client.organization.invitations.create({ email: 'new@example.test', role: 'member' });
    expect(invitation).toMatchObject({ email: 'new@example.test', role: 'member' });
    expect((await sdk.client.organization.invitations.list().toArray()).map((i) => i.id)).toEqual([invitation.id]);
    await sdk.client.organization.invitations.delete(invitation.id);
    expect(await sdk.client.organization.invitations.list().toArray()).toEqual([]);
  });

  it('a scoped token: minted ingest-only for one project, its tracer sends runs there, and every read is a 403 problem', async () => {
    const project = await sdk.client.projects.create({ name: 'sdk-scoped' });
    const minted = await sdk.client.tokens.create({ name: 'exporter', scopes: ['runs:write'], projectIds: [project.id] });
    expect(minted).toMatchObject({ scopes: ['runs:write'], projectIds: [project.id] });
    const exporter = new Sightline(sdk.options({ token: minted.token }));
    expect(await exporter.me.get()).toMatchObject({ scopes: ['runs:write'], token: { scopes: ['runs:write'], projectIds: [project.id] } });
    const tracer = exporter.tracer(project.id);
    await tracer.trace('scoped', () => 'sent', { kind: 'chain' });
    await tracer.shutdown();
    expect((await sdk.client.runs.list(project.id).toArray()).map((r) => r.name)).toEqual(['scoped']);
    const read = await exporter.runs
      .list(project.id)
      .toArray()
      .catch((error: unknown) => error);
    expect(read).toBeInstanceOf(SightlineProblem);
    expect(read).toMatchObject({ status: 403, detail: 'This token is limited to runs:write; it does not allow runs:read.' });
  });

  it('round-trips projects, runs (create, idempotent retry, batch, get, patch, list, metrics)', async () => {
    const project = await sdk.client.projects.create({ name: 'sdk-runs', description: 'runs' });
    expect(await sdk.client.projects.get(project.id)).toEqual(project);
    const updated = await sdk.client.projects.update(project.id, { description: 'changed' });
    expect(updated.description).toBe('changed');
    expect((await sdk.client.projects.list({ name: 'sdk-run' }).toArray()).map((p) => p.id)).toEqual([project.id]);

    const input: RunCreate = {
      name: 'ChatOpenAI',
      kind: 'llm',
      status: 'succeeded',
      startTime: '2026-11-21T10:15:30.123Z',
      endTime: '2026-11-21T10:15:31.020Z',
      model: 'gpt-4o',
      usage: { promptTokens: 812, completionTokens: 95 },
      inputs: { question: 'Where is my order?' },
      outputs: { answer: '…' },
      tags: ['prod'],
      metadata: { customer: 'c_17' },
    };
    const run = await sdk.client.runs.create(project.id, input);
    expect(run.id).toMatch(/^run_[0-9a-z]{26}$/); // the SDK's client id
    expect(run).toMatchObject({ projectId: project.id, traceId: run.id, latencyMs: 897, usage: { totalTokens: 907 } });
    // The same content under the same id again is the stored run (the server's idempotent 200).
    expect(await sdk.client.runs.create(project.id, { ...input, id: run.id })).toEqual(run);

    const batch = await sdk.client.runs.batch(project.id, [
      { id: 'child-1', parentRunId: 'root-1', name: 'retriever', kind: 'retriever', startTime: '2026-11-21T10:15:30.200Z' },
      { id: 'root-1', name: 'chain', kind: 'chain', startTime: '2026-11-21T10:15:30.100Z' },
      // @ts-expect-error a kind outside the enum, sent anyway: the server rejects this one run on its own
      { name: 'bad', kind: 'nonsense', startTime: 'yesterday' },
    ]);
    expect(batch.results.map((r) => r.status)).toEqual(['created', 'created', 'rejected']);
    expect(batch.results[2]!.problem).toMatchObject({ status: 400, type: `${PROBLEM_BASE}/validation` });

    const child = await sdk.client.runs.get(project.id, 'child-1');
    expect(child).toMatchObject({ parentRunId: 'root-1', traceId: 'root-1', status: 'running' });
    const ended = await sdk.client.runs.patch(project.id, 'child-1', { status: 'succeeded', endTime: '2026-11-21T10:15:30.700Z', outputs: { documents: 3 } });
    expect(ended).toMatchObject({ status: 'succeeded', latencyMs: 500, outputs: { documents: 3 } });

    const roots = await sdk.client.runs.list(project.id, { parentRunId: null }).toArray();
    expect(roots.map((r) => r.id).sort()).toEqual([run.id, 'root-1'].sort());
    const tagged = await sdk.client.runs.list(project.id, { tag: ['prod'], 'metadata.customer': 'c_17', status: 'succeeded' }).toArray();
    expect(tagged.map((r) => r.id)).toEqual([run.id]);

    const metrics = await sdk.client.runs.metrics(project.id, { from: '2026-11-21T00:00:00Z', to: '2026-11-22T00:00:00Z', groupBy: 'kind' });
    expect(metrics.total.count).toBe(3);
    expect(metrics.groups.map((g) => g.key).sort()).toEqual(['chain', 'llm', 'retriever']);

    await sdk.client.projects.delete(project.id);
    await expectProblem(sdk.client.projects.get(project.id), 404, 'not-found');
  });

  it('round-trips prompts: versions, labels, label history, conditional reads, render', async () => {
    const prompt = await sdk.client.prompts.create({
      name: 'support-reply',
      config: { model: 'gpt-4o' },
      message: 'first',
      template: [
        { role: 'system', content: 'You help {{customer}}.' },
        { role: 'user', content: '{{question}}' },
      ],
    });
    expect(prompt).toMatchObject({ name: 'support-reply', latestVersion: 1, labels: {} });
    expect(await sdk.client.prompts.get('support-reply')).toEqual(prompt);
    expect((await sdk.client.prompts.update(prompt.id, { description: 'replies' })).description).toBe('replies');
    const v2 = await sdk.client.prompts.versions.create('support-reply', { template: 'Hi {{customer}}', message: 'plain' });
    expect(v2).toMatchObject({ version: 2, variables: ['customer'] });
    expect((await sdk.client.prompts.versions.list('support-reply').toArray()).map((v) => v.version)).toEqual([2, 1]);
    expect((await sdk.client.prompts.labels.set('support-reply', 'production', 2)).labels).toEqual({ production: 2 });
    expect((await sdk.client.prompts.list({ label: 'production' }).toArray()).map((p) => p.id)).toEqual([prompt.id]);
    expect(await sdk.client.prompts.versions.get('support-reply', 'production')).toEqual(v2);
    expect((await sdk.client.prompts.versions.get(prompt.id, 1)).message).toBe('first');

    const first = await sdk.client.prompts.versions.poll('support-reply', 'production');
    expect(first.changed).toBe(true);
    const again = await sdk.client.prompts.versions.poll('support-reply', 'production', first.etag);
    expect(again).toEqual({ changed: false, etag: first.etag });

    expect(await sdk.client.prompts.render('support-reply', { label: 'production', variables: { customer: 'Ada' } })).toEqual({
      template: 'Hi {{customer}}',
      rendered: 'Hi Ada',
    });
    const missing = await expectProblem(sdk.client.prompts.render('support-reply', { version: 1, variables: { customer: 'Ada' } }), 400, 'validation');
    expect(missing.errors.map((e) => e.detail).join(' ')).toContain('question');

    await sdk.client.prompts.labels.remove('support-reply', 'production');
    const history = await sdk.client.prompts.labelHistory('support-reply').toArray();
    expect(history.map((h) => [h.label, h.fromVersion, h.toVersion])).toEqual([
      ['production', 2, null],
      ['production', null, 2],
    ]);
    await sdk.client.prompts.delete('support-reply');
    await expectProblem(sdk.client.prompts.get('support-reply'), 404, 'not-found');
  });

  it('round-trips monitors: create, get, update, list, metrics, events, deliveries, rotate the secret, delete', async () => {
    const project = await sdk.client.projects.create({ name: 'sdk-monitors' });
    const monitor = await sdk.client.monitors.create(project.id, {
      name: 'traffic',
      filter: { kind: 'llm', parentRunId: null },
      metric: 'count',
      window: '1h',
      threshold: { op: '<', value: 10 },
    });
    expect(monitor.webhookSecret).toMatch(/^whsec_/);
    const { webhookSecret: _secret, ...stored } = monitor;
    expect(await sdk.client.monitors.get(project.id, monitor.id)).toMatchObject({
      ...stored,
      state: expect.any(String),
      updatedAt: expect.any(String),
      lastEvaluatedAt: expect.anything(),
    });
    const paused = await sdk.client.monitors.update(project.id, monitor.id, { enabled: false });
    expect(paused).toMatchObject({ enabled: false, state: 'no_data' });
    expect((await sdk.client.monitors.list(project.id, { enabled: false }).toArray()).map((m) => m.id)).toEqual([monitor.id]);
    expect(await sdk.client.monitors.list(project.id, { enabled: true }).toArray()).toEqual([]);
    const metrics = await sdk.client.monitors.metrics(project.id, monitor.id, { bucket: '1h' });
    expect(metrics).toMatchObject({ monitorId: monitor.id, metric: 'count', bucket: '1h' });
    expect(metrics.series).toHaveLength(24);
    const events = await sdk.client.monitors.events(project.id, monitor.id).toArray();
    expect(events[0]).toMatchObject({ monitorId: monitor.id, to: 'no_data', reason: 'paused' });
    expect(await sdk.client.monitors.deliveries(project.id, monitor.id).toArray()).toEqual([]);
    const rotated = await sdk.client.monitors.rotateSecret(project.id, monitor.id);
    expect(rotated.webhookSecret).toMatch(/^whsec_/);
    expect(rotated.webhookSecret).not.toBe(monitor.webhookSecret);
    await sdk.client.monitors.delete(project.id, monitor.id);
    await expectProblem(sdk.client.monitors.get(project.id, monitor.id), 404, 'not-found');
  });

  it('turns every problem document into a SightlineProblem, and an unreachable server into a SightlineNetworkError', async () => {
    const notFound = await expectProblem(sdk.client.projects.get('prj_doesnotexist'), 404, 'not-found');
    expect(notFound.requestId).toMatch(/\S/);
    expect(notFound.title).toBe('Not found');
    expect(notFound.request).toBe('GET /v1/projects/prj_doesnotexist');
    expect(notFound.message).toContain(notFound.requestId!);

    const invalid = await expectProblem(sdk.client.projects.create({ name: ' padded ' }), 400, 'validation');
    expect(invalid.errors).toEqual([expect.objectContaining({ pointer: '/name' })]);

    const cursor = await expectProblem(sdk.client.projects.list({}, { cursor: 'garbage' }).toArray(), 400, 'validation');
    expect(cursor.detail).toBe('Cursor is malformed.');

    const anonymous = new Sightline(sdk.options({ token: 'not-a-jwt' }));
    const unauthorized = await expectProblem(anonymous.me.get(), 401, 'unauthorized');
    expect(unauthorized.reason).toBe('invalid_token');

    const port = await freePort();
    const nowhere = new Sightline(sdk.options({ baseUrl: `http://127.0.0.1:${port}`, retries: 2 }));
    const error = await nowhere.me.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SightlineNetworkError);
    expect(error).not.toBeInstanceOf(SightlineProblem);
    expect((error as SightlineNetworkError).attempts).toBe(3);
    expect((error as SightlineNetworkError).kind).toBe('connection');

    // A problem-less answer (a proxy's HTML page) still becomes a SightlineProblem with its status.
    const proxy = await startProxy(sdk.server.url, () => ({ status: 502, headers: { 'content-type': 'text/html' }, body: '<h1>Bad gateway</h1>' }));
    try {
      const gateway = new Sightline(sdk.options({ baseUrl: proxy.url, retries: 0 }));
      const bad = (await gateway.me.get().catch((e: unknown) => e)) as SightlineProblem;
      expect(bad).toBeInstanceOf(SightlineProblem);
      expect(bad).toMatchObject({ status: 502, type: 'about:blank' });
      expect(bad.detail).toContain('Bad gateway');
    } finally {
      await proxy.close();
    }
  });

  describe('pagination', () => {
    const sizes = [0, 1, 25, 26, 1000];
    const projects = new Map<number, string>();
    beforeAll(async () => {
      for (const n of sizes) {
        const project = await sdk.server.make.project(sdk.owner.organizationId);
        await sdk.server.make.runs(project.id, n);
        projects.set(n, project.id);
      }
    }, 60_000);

    for (const n of sizes) {
      for (const limit of n === 1000 ? [undefined, 100] : [undefined]) {
        it(`walks ${n} items${limit ? ` at limit ${limit}` : ''} in exactly the pages it takes, each asked once`, async () => {
          const projectId = projects.get(n)!;
          const counting = countingFetch();
          const c = new Sightline(sdk.options({ fetch: counting.fetch }));
          const ids: string[] = [];
          for await (const run of c.runs.list(projectId, {}, limit ? { limit } : {})) ids.push(run.id);
          const perPage = limit ?? 25;
          expect(ids).toHaveLength(n);
          expect(new Set(ids).size).toBe(n);
          expect(counting.seen).toHaveLength(Math.max(1, Math.ceil(n / perPage)));
          const cursors = counting.seen.map((s) => s.url.searchParams.get('cursor'));
          expect(cursors[0]).toBeNull();
          expect(new Set(cursors).size).toBe(cursors.length); // never the same page twice

          // pages(): the envelope of each page, in order, the last without a cursor
          const pages = [];
          for await (const page of c.runs.list(projectId, {}, limit ? { limit } : {}).pages()) pages.push(page);
          expect(pages.map((p) => p.items.length)).toEqual(
            n === 0 ? [0] : Array.from({ length: Math.ceil(n / perPage) }, (_, i) => Math.min(perPage, n - i * perPage)),
          );
          expect(pages.at(-1)!.nextCursor).toBeNull();
          expect(pages.every((p) => p.limit === perPage)).toBe(true);
          expect(pages.slice(1).map((p) => p.cursor)).toEqual(pages.slice(0, -1).map((p) => p.nextCursor));
        });
      }
    }

    it('starts nothing before iteration, restarts each walk, resumes from a cursor, and stops early', async () => {
      const projectId = projects.get(26)!;
      const counting = countingFetch();
      const c = new Sightline(sdk.options({ fetch: counting.fetch }));
      const list = c.runs.list(projectId);
      expect(counting.seen).toHaveLength(0);
      expect(await list.first()).toBeDefined();
      expect(counting.seen).toHaveLength(1);
      expect(await list.toArray()).toHaveLength(26);
      expect(counting.seen).toHaveLength(3);
      const firstPage = (await c.runs.list(projectId, {}, { limit: 10 }).pages().next()).value!;
      const rest = await c.runs.list(projectId, {}, { limit: 10, cursor: firstPage.nextCursor! }).toArray();
      expect([...firstPage.items, ...rest].map((r) => r.id)).toEqual((await list.toArray()).map((r) => r.id));
      expect(await c.runs.list(projectId).toArray(5)).toHaveLength(5);
      // Oldest first: the same runs in the reverse order, page by page (its cursors bound to that order).
      const oldest = await c.runs.list(projectId, { order: 'asc' }, { limit: 10 }).toArray();
      expect(oldest.map((r) => r.id)).toEqual((await list.toArray()).map((r) => r.id).reverse());
    });

    it('ends on an absent nextCursor as on null, and refuses to follow a cursor twice', async () => {
      const answer = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      let calls = 0;
      const absent = new Sightline({ baseUrl: 'http://api.test', token: 't', fetch: async () => (calls++, answer({ items: [1, 2], limit: 25 })) });
      expect(await absent.projects.list().toArray()).toEqual([1, 2]);
      expect(calls).toBe(1);
      let n = 0;
      const looping = new Sightline({
        baseUrl: 'http://api.test',
        token: 't',
        fetch: async () => answer({ items: [n++], limit: 1, nextCursor: n % 2 ? 'a' : 'b' }),
      });
      await expect(looping.projects.list().toArray()).rejects.toThrow(/already followed/);
      expect(n).toBe(3);
    });
  });

  it('keeps the SDK core runtime-agnostic: no Node module or global outside the lazy async-context import', () => {
    const dir = new URL('../src/', import.meta.url);
    for (const file of readdirSync(dir)) {
      const text = readFileSync(new URL(file, dir), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect(text, file).not.toMatch(/from ['"]node:|require\(|\bprocess\.|\bBuffer\b|\b__dirname\b/);
    }
    expect(newRunId()).toMatch(/^run_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(newRunId(1) < newRunId(2)).toBe(true);
  });
});
