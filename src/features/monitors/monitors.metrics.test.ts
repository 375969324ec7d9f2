import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { clock, describeMonitors, HOUR, iso, MINUTE, NOW } from './monitors.test-support.js';

/** Each metric and operator over the seeded runs, and the monitor metrics endpoint. */
describeMonitors('every metric and operator against hand-computed values', (ctx, h, s) => {
  // Over the seeded hour: 13 runs; 2 failed; latencies (ended runs) 100..1000, 2000, 3000 (12 values);
  // tokens 10+20+…+100 + 5 + 7 = 562; cost 10*0.25 + 0.5 + 0.5 = 3.5.
  // Nearest rank over 12 sorted latencies: p50 rank 6 → 600; p95 rank ceil(11.4)=12 → 3000; p99 rank 12 → 3000.
  const expected: Record<string, number> = {
    count: 13,
    error_count: 2,
    error_rate: 2 / 13,
    latency_p50: 600,
    latency_p95: 3000,
    latency_p99: 3000,
    total_tokens: 562,
    cost: 3.5,
  };
  for (const [metric, value] of Object.entries(expected)) {
    it(`${metric} = ${value}`, async () => {
      clock.set(NOW);
      const m = await h.monitor(s.owner, s.projectId, { metric });
      const metrics = ok(await h.get(s.owner, `${h.base(s.projectId)}/${m.id}/metrics`));
      expect(metrics.current.count).toBe(13);
      expect(metrics.current.value).toBeCloseTo(value, 9);
      expect(metrics.current.state).toBe('ok');
      for (const [op, threshold, state] of [
        ['>', value, 'ok'],
        ['>=', value, 'alerting'],
        ['<', value, 'ok'],
        ['<=', value, 'alerting'],
        ['>', value - 0.001, 'alerting'],
        ['<', value + 0.001, 'alerting'],
      ] as const) {
        const patched = ok(await h.patch(s.owner, s.projectId, m.id, { threshold: { op, value: threshold } }));
        expect(patched.state, `${metric} ${op} ${threshold}`).toBe(state);
      }
    });
  }

  it('filters with the list grammar: kind, model, tags, metadata, status, roots', async () => {
    const cases: [Json, number][] = [
      [{ kind: 'chain' }, 1],
      [{ model: 'm2' }, 2],
      [{ status: 'failed' }, 2],
      [{ tag: ['prod'] }, 12],
      [{ 'metadata.env': 'even' }, 7],
      [{ parentRunId: null }, 13],
      [{ kind: 'llm', tag: ['prod'], status: 'failed' }, 1],
    ];
    for (const [filter, count] of cases) {
      const m = await h.monitor(s.owner, s.projectId, { metric: 'count', filter });
      const metrics = ok(await h.get(s.owner, `${h.base(s.projectId)}/${m.id}/metrics`));
      expect(metrics.current.count, JSON.stringify(filter)).toBe(count);
      // …the same number a full walk of the list gives for that filter.
      const query = Object.entries(filter)
        .flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => `${k}=${x}`) : [`${k}=${v === null ? 'null' : v}`]))
        .join('&');
      const list = ok(await h.get(s.owner, `/v1/projects/${s.projectId}/runs?limit=100&startedAfter=${iso(NOW - HOUR)}&${query}`));
      expect(list.items.length, JSON.stringify(filter)).toBe(count);
    }
  });

  it('error_rate and latency metrics over no runs are null (no_data); additive ones are 0', async () => {
    const empty = (await ctx.make.project(s.owner.organizationId)).id;
    for (const metric of ['error_rate', 'latency_p50', 'latency_p95', 'latency_p99']) {
      const m = await h.monitor(s.owner, empty, { metric, threshold: { op: '<', value: 1 } });
      expect(m.state).toBe('no_data');
      expect(ok(await h.get(s.owner, `${h.base(empty)}/${m.id}/metrics`)).current).toMatchObject({ value: null, count: 0, state: 'no_data' });
    }
    for (const metric of ['count', 'error_count', 'total_tokens', 'cost']) {
      const m = await h.monitor(s.owner, empty, { metric });
      expect(ok(await h.get(s.owner, `${h.base(empty)}/${m.id}/metrics`)).current).toMatchObject({ value: 0, count: 0, state: 'no_data' });
    }
  });
});

describeMonitors('GET …/monitors/{id}/metrics', (_ctx, h, s) => {
  it('defaults to the last 24 windows, UTC-aligned, empty buckets filled; counts equal the list', async () => {
    clock.set(NOW + 30 * MINUTE); // 12:30: the hour buckets are 13:00 the day before … 12:00 today
    const m = await h.monitor(s.owner, s.projectId, { metric: 'count' });
    const body = ok(await h.get(s.owner, `${h.base(s.projectId)}/${m.id}/metrics`));
    expect(Object.keys(body).sort()).toEqual(['bucket', 'current', 'from', 'metric', 'monitorId', 'series', 'to']);
    expect(body).toMatchObject({ monitorId: m.id, metric: 'count', bucket: '1h', from: iso(NOW - 23 * HOUR), to: iso(NOW + 30 * MINUTE) });
    expect(body.series).toHaveLength(24);
    expect(body.series[0]).toEqual({ start: iso(NOW - 23 * HOUR), value: 0, count: 0 });
    // Seeded runs start 11:10 … 11:22: all in the 11:00 bucket.
    expect(body.series[22]).toEqual({ start: iso(NOW - HOUR), value: 13, count: 13 });
    expect(body.series[23]).toEqual({ start: iso(NOW), value: 0, count: 0 });
    // The latest window (11:30 … 12:30) holds none of them.
    expect(body.current).toEqual({ value: 0, count: 0, state: 'no_data', windowStart: iso(NOW - 30 * MINUTE), windowEnd: iso(NOW + 30 * MINUTE) });
    clock.set(NOW);
  });

  it('takes from, to and bucket; a percentile per bucket; bad ranges are 400s', async () => {
    const m = await h.monitor(s.owner, s.projectId, { metric: 'latency_p50', filter: { kind: 'llm' } });
    const body = ok(await h.get(s.owner, `${h.base(s.projectId)}/${m.id}/metrics?from=${iso(NOW - 50 * MINUTE)}&to=${iso(NOW - 35 * MINUTE)}&bucket=5m`));
    // llm runs start at 11:10 + i min (i = 0..11): buckets 11:10 (i 0..4), 11:15 (5..9), 11:20 (10, 11).
    expect(body.series).toEqual([
      { start: iso(NOW - 50 * MINUTE), value: 300, count: 5 },
      { start: iso(NOW - 45 * MINUTE), value: 800, count: 5 },
      { start: iso(NOW - 40 * MINUTE), value: 2000, count: 2 },
    ]);
    expectProblem(await h.get(s.owner, `${h.base(s.projectId)}/${m.id}/metrics?from=${iso(NOW)}&to=${iso(NOW)}`), 400, 'validation');
    expectProblem(await h.get(s.owner, `${h.base(s.projectId)}/${m.id}/metrics?bucket=2h`), 400, 'validation');
    expectProblem(await h.get(s.owner, `${h.base(s.projectId)}/${m.id}/metrics?from=2000-01-01T00:00:00.000Z&bucket=1m`), 400, 'validation');
    expectProblem(await h.get(s.owner, `${h.base(s.projectId)}/${m.id}/metrics?from=yesterday`), 400, 'validation');
  });
});
