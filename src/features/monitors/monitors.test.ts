import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { clock, describeMonitors, iso, MINUTE, MONITOR_KEYS, NOW } from './monitors.test-support.js';

/** * Monitors (docs/monitors-and-webhooks.md): CRUD, every metric and operator against hand-computed values, "fewer than" on a silent project, pause/resume, events, the monitor metrics endpoint. Every engine; a manual clock so windows are exact. Webhooks and several evaluators have their own suites. Here: the monitor records. */
describeMonitors('create, get, list, patch, delete', (ctx, h, s) => {
  it('creates a monitor (201): the documented record plus the webhook secret shown once, evaluated at once', async () => {
    clock.set(NOW);
    const body = await h.monitor(s.owner, s.projectId, {
      name: 'Errors',
      description: 'd',
      metric: 'error_count',
      threshold: { op: '>', value: 1 },
      filter: { kind: 'llm' },
    });
    expect(Object.keys(body).sort()).toEqual([...MONITOR_KEYS, 'webhookSecret'].sort());
    expect(body.webhookSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(body).toMatchObject({
      projectId: s.projectId,
      name: 'Errors',
      description: 'd',
      metric: 'error_count',
      window: '1h',
      threshold: { op: '>', value: 1 },
      enabled: true,
      state: 'alerting',
      filter: { kind: 'llm' },
      webhookUrls: [],
    });
    expect(body.lastEvaluatedAt).toBe(iso(NOW));
    const got = ok(await h.get(s.owner, `${h.base(s.projectId)}/${body.id}`));
    expect(Object.keys(got).sort()).toEqual(MONITOR_KEYS);
    expect(got).toEqual(Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'webhookSecret')));
  });

  it('stores the secret sealed, never in clear', async () => {
    const body = await h.monitor(s.owner, s.projectId, { metric: 'count' });
    const row = await ctx.database.storage.db.selectFrom('monitors').select('webhook_secret').where('id', '=', body.id).executeTakeFirstOrThrow();
    expect(row.webhook_secret).not.toContain(body.webhookSecret);
    expect(row.webhook_secret).not.toContain(body.webhookSecret.slice(6));
  });

  it('rotates the secret: a new one, shown once', async () => {
    const body = await h.monitor(s.owner, s.projectId, { metric: 'count' });
    const rotated = ok(await ctx.request('POST', `${h.base(s.projectId)}/${body.id}/rotate-secret`, { token: s.owner.token }));
    expect(rotated.webhookSecret).toMatch(/^whsec_/);
    expect(rotated.webhookSecret).not.toBe(body.webhookSecret);
    const got = ok(await h.get(s.owner, `${h.base(s.projectId)}/${body.id}`));
    expect(got.webhookSecret).toBeUndefined();
  });

  it('lists newest first, filtered by state and enabled', async () => {
    const project = (await ctx.make.project(s.owner.organizationId)).id;
    await ctx.make.runs(project, 3, (i) => ({
      startTime: iso(NOW - 10 * MINUTE + i * 1000),
      status: 'succeeded',
      endTime: iso(NOW - 10 * MINUTE + i * 1000 + 5),
    }));
    const a = await h.monitor(s.owner, project, { name: 'a', metric: 'count', threshold: { op: '>', value: 1 } }); // alerting
    clock.advance(1);
    const b = await h.monitor(s.owner, project, { name: 'b', metric: 'count', threshold: { op: '>', value: 10 } }); // ok
    clock.advance(1);
    const c = await h.monitor(s.owner, project, { name: 'c', metric: 'count', enabled: false }); // paused: no_data
    clock.set(NOW);
    const all = ok(await h.get(s.owner, h.base(project)));
    expect(all.items.map((m: Json) => m.name)).toEqual(['c', 'b', 'a']);
    expect(all.nextCursor).toBeNull();
    expect(ok(await h.get(s.owner, `${h.base(project)}?state=alerting`)).items.map((m: Json) => m.id)).toEqual([a.id]);
    expect(ok(await h.get(s.owner, `${h.base(project)}?state=ok`)).items.map((m: Json) => m.id)).toEqual([b.id]);
    expect(ok(await h.get(s.owner, `${h.base(project)}?state=no_data`)).items.map((m: Json) => m.id)).toEqual([c.id]);
    expect(ok(await h.get(s.owner, `${h.base(project)}?enabled=false`)).items.map((m: Json) => m.id)).toEqual([c.id]);
    expect(ok(await h.get(s.owner, `${h.base(project)}?enabled=true`)).items.map((m: Json) => m.id)).toEqual([b.id, a.id]);
    expectProblem(await h.get(s.owner, `${h.base(project)}?enabled=yes`), 400, 'validation');
    expectProblem(await h.get(s.owner, `${h.base(project)}?state=firing`), 400, 'validation');
  });

  it('patches fields; a changed definition is re-evaluated at once', async () => {
    const m = await h.monitor(s.owner, s.projectId, { metric: 'count', threshold: { op: '>', value: 100 } });
    expect(m.state).toBe('ok');
    const patched = ok(await h.patch(s.owner, s.projectId, m.id, { threshold: { op: '>', value: 5 }, name: 'renamed' }));
    expect(patched).toMatchObject({ name: 'renamed', threshold: { op: '>', value: 5 }, state: 'alerting' });
    const cleared = ok(await h.patch(s.owner, s.projectId, m.id, { threshold: null }));
    expect(cleared).toMatchObject({ threshold: null, state: 'ok' });
  });

  it('deletes (admin+) with its events; then 404', async () => {
    const m = await h.monitor(s.owner, s.projectId, { metric: 'count', threshold: { op: '>', value: 1 } });
    const res = await ctx.request('DELETE', `${h.base(s.projectId)}/${m.id}`, { token: s.owner.token });
    expect(res.statusCode).toBe(204);
    expectProblem(await h.get(s.owner, `${h.base(s.projectId)}/${m.id}`), 404, 'not-found');
    expectProblem(await ctx.request('DELETE', `${h.base(s.projectId)}/${m.id}`, { token: s.owner.token }), 404, 'not-found');
    const events = await ctx.database.storage.db.selectFrom('monitor_events').select('id').where('monitor_id', '=', m.id).execute();
    expect(events).toEqual([]);
  });

  it('refuses bad bodies with every fault named', async () => {
    const res = await h.create(s.owner, s.projectId, {
      name: '',
      metric: 'p99',
      window: '2h',
      threshold: { op: '!=', value: 'x' },
      filter: { startedAfter: iso(NOW), bogus: 1 },
      webhookUrls: ['ftp://x'],
    });
    const body = expectProblem(res, 400, 'validation');
    const pointers = (body.errors as { pointer: string }[]).map((e) => e.pointer);
    for (const p of ['/name', '/metric', '/window', '/threshold/op', '/threshold/value', '/filter'])
      expect(
        pointers.some((x) => x.startsWith(p)),
        `${p} in ${pointers}`,
      ).toBe(true);
    expectProblem(await h.create(s.owner, s.projectId, { name: 'x', metric: 'count', window: '1h', extra: true }), 400, 'validation');
    expectProblem(await h.patch(s.owner, s.projectId, 'mon_nope', {}), 400, 'validation');
  });

  it('roles: viewers read but cannot create; members cannot delete', async () => {
    const viewer = await ctx.make.caller({ role: 'viewer', organizationId: s.owner.organizationId });
    const member = await ctx.make.caller({ role: 'member', organizationId: s.owner.organizationId });
    expectProblem(await h.create(viewer, s.projectId, { name: 'v', metric: 'count', window: '1h' }), 403, 'forbidden');
    const m = await h.monitor(member, s.projectId, { metric: 'count' });
    ok(await h.get(viewer, `${h.base(s.projectId)}/${m.id}`));
    expectProblem(await h.patch(viewer, s.projectId, m.id, { name: 'x' }), 403, 'forbidden');
    expectProblem(await ctx.request('DELETE', `${h.base(s.projectId)}/${m.id}`, { token: member.token }), 403, 'forbidden');
  });

  it("another organization's monitor is a 404", async () => {
    const stranger = await ctx.make.caller();
    const m = await h.monitor(s.owner, s.projectId, { metric: 'count' });
    expectProblem(await h.get(stranger, `${h.base(s.projectId)}/${m.id}`), 404, 'not-found');
    const strangerProject = (await ctx.make.project(stranger.organizationId)).id;
    expectProblem(await h.get(stranger, `${h.base(strangerProject)}/${m.id}`), 404, 'not-found');
  });
});
