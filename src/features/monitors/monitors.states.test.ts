import { expect, it } from 'vitest';
import { ok, type Json } from '../../../test/helpers/json.js';
import { clock, describeMonitors, iso, MINUTE, NOW } from './monitors.test-support.js';

/** A monitor over time: "fewer than" on a silent project, pause and resume, its events. */
describeMonitors('states over time', (ctx, h, s) => {
  it('a "fewer than" monitor on a silent project alerts; a run brings it back to ok', async () => {
    clock.set(NOW);
    const silent = (await ctx.make.project(s.owner.organizationId)).id;
    const m = await h.monitor(s.owner, silent, { metric: 'count', window: '5m', threshold: { op: '<', value: 1 } });
    expect(m.state).toBe('alerting');
    await ctx.make.runs(silent, 1, () => ({ startTime: iso(NOW - MINUTE) }));
    clock.advance(61_000); // the next scheduled evaluation is due
    expect(await ctx.app.monitoring.evaluateDue()).toContain(m.id);
    expect(ok(await h.get(s.owner, `${h.base(silent)}/${m.id}`)).state).toBe('ok');
    clock.advance(5 * MINUTE); // the run leaves the window
    expect(ok(await h.get(s.owner, `${h.base(silent)}/${m.id}`)).state).toBe('alerting'); // evaluated on read
    const events = ok(await h.get(s.owner, `${h.base(silent)}/${m.id}/events`)).items as Json[];
    expect(events.map((e) => [e.from, e.to, e.value, e.count, e.reason])).toEqual([
      ['ok', 'alerting', 0, 0, 'evaluated'],
      ['alerting', 'ok', 1, 1, 'evaluated'],
      ['no_data', 'alerting', 0, 0, 'evaluated'],
    ]);
    expect(events[0]!.threshold).toEqual({ op: '<', value: 1 });
    clock.set(NOW);
  });

  it('pausing gives no_data at once (an event "paused"); resuming re-evaluates ("resumed")', async () => {
    clock.set(NOW);
    const m = await h.monitor(s.owner, s.projectId, { metric: 'error_count', threshold: { op: '>=', value: 1 } });
    expect(m.state).toBe('alerting');
    const paused = ok(await h.patch(s.owner, s.projectId, m.id, { enabled: false }));
    expect(paused).toMatchObject({ enabled: false, state: 'no_data' });
    clock.advance(2 * MINUTE);
    expect(await ctx.app.monitoring.evaluateDue()).not.toContain(m.id);
    expect(ok(await h.get(s.owner, `${h.base(s.projectId)}/${m.id}`)).state).toBe('no_data');
    expect(ok(await h.get(s.owner, `${h.base(s.projectId)}/${m.id}/metrics`)).current.state).toBe('no_data');
    const resumed = ok(await h.patch(s.owner, s.projectId, m.id, { enabled: true }));
    expect(resumed).toMatchObject({ enabled: true, state: 'alerting' });
    const events = ok(await h.get(s.owner, `${h.base(s.projectId)}/${m.id}/events`)).items as Json[];
    expect(events.map((e) => [e.from, e.to, e.reason])).toEqual([
      ['no_data', 'alerting', 'resumed'],
      ['alerting', 'no_data', 'paused'],
      ['no_data', 'alerting', 'evaluated'],
    ]);
    clock.set(NOW);
  });

  it('a monitor is evaluated once per interval, not on every pass', async () => {
    clock.set(NOW);
    const m = await h.monitor(s.owner, s.projectId, { metric: 'count' });
    expect(await ctx.app.monitoring.evaluateDue()).not.toContain(m.id);
    clock.advance(59_000);
    expect(await ctx.app.monitoring.evaluateDue()).not.toContain(m.id);
    clock.advance(1_000);
    expect(await ctx.app.monitoring.evaluateDue()).toContain(m.id);
    expect(await ctx.app.monitoring.evaluateDue()).not.toContain(m.id);
    clock.set(NOW);
  });
});
