import { beforeEach, expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { clock, DAY, describeRuns, HOUR, iso, minimal, NOW, parametersOf, projectFor, type Query } from './runs.test-support.js';

/** GET /v1/projects/{id}/runs/metrics: totals, buckets and groups against hand-computed values. */
describeRuns('metrics', (ctx) => {
  const M0 = Date.parse('2026-11-20T10:00:00.000Z');
  const MIN = 60_000;
  const ended = (id: string, kind: string, name: string, status: string, at: number, latency: number, extra: Record<string, unknown> = {}) => ({
    id,
    kind,
    name,
    status,
    startTime: iso(at),
    endTime: iso(at + latency),
    ...(status === 'failed' ? { error: 'boom' } : {}),
    ...extra,
  });
  const seedRuns = [
    ended('m1', 'llm', 'ChatOpenAI', 'succeeded', M0 + 5 * MIN, 120, {
      model: 'gpt-4o',
      usage: { promptTokens: 10, completionTokens: 5 },
      cost: 0.25,
      tags: ['t'],
    }),
    ended('m2', 'llm', 'ChatOpenAI', 'failed', M0 + 10 * MIN, 40, { model: 'gpt-4o', usage: { promptTokens: 20, completionTokens: 0 }, cost: 0.5 }),
    ended('m3', 'chain', 'Agent', 'succeeded', M0 + 20 * MIN, 300),
    ended('m4', 'llm', 'ChatOpenAI', 'succeeded', M0 + 2 * HOUR, 80, {
      model: 'gpt-4o-mini',
      usage: { promptTokens: 1, completionTokens: 2, totalTokens: 100 },
      cost: 1.25,
      tags: ['t'],
    }),
    ended('m5', 'tool', 'search', 'failed', M0 + 2 * HOUR + 30 * MIN, 1000),
    ended('m6', 'llm', 'ChatOpenAI', 'succeeded', M0 + 2 * HOUR + 40 * MIN, 60, {
      model: 'gpt-4o',
      usage: { promptTokens: 5, completionTokens: 5 },
      cost: 0,
    }),
    ended('m7', 'tool', 'search', 'succeeded', M0 + 3 * HOUR - 1, 500),
    { id: 'm8', kind: 'chain', name: 'Agent', startTime: iso(M0 + 2 * HOUR + 50 * MIN) },
    // Just outside [10:00, 13:00).
    ended('o1', 'llm', 'ChatOpenAI', 'succeeded', M0 - 1, 5, { model: 'gpt-4o', usage: { promptTokens: 1000, completionTokens: 0 }, cost: 9 }),
    ended('o2', 'tool', 'search', 'failed', M0 + 3 * HOUR, 7),
  ];
  const range = { from: iso(M0), to: iso(M0 + 3 * HOUR) };
  const zero = { count: 0, errorCount: 0, latencyP50: null, latencyP95: null, totalTokens: 0, cost: 0 };
  const total = { count: 8, errorCount: 2, latencyP50: 120, latencyP95: 1000, totalTokens: 145, cost: 2 };
  let p: Awaited<ReturnType<typeof projectFor>>;
  beforeEach(async () => {
    if (p) return;
    p = await projectFor(ctx);
    await p.seed(seedRuns);
  });
  const byKey = (groups: { key: string | null; series: unknown[] }[]) => Object.fromEntries(groups.map((g) => [String(g.key), g.series]));

  it('counts and aggregates over [from, to) against hand-computed values', async () => {
    const res = await p.metrics(range);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      from: range.from,
      to: range.to,
      bucket: null,
      groupBy: null,
      groups: [{ key: null, series: [{ start: range.from, ...total }] }],
      total,
    });
  });

  it('splits the range into UTC-aligned hourly buckets, empty ones filled with zeros', async () => {
    const res = await p.metrics({ ...range, bucket: '1h' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      from: range.from,
      to: range.to,
      bucket: '1h',
      groupBy: null,
      groups: [
        {
          key: null,
          series: [
            { start: iso(M0), count: 3, errorCount: 1, latencyP50: 120, latencyP95: 300, totalTokens: 35, cost: 0.75 },
            { start: iso(M0 + HOUR), ...zero },
            { start: iso(M0 + 2 * HOUR), count: 5, errorCount: 1, latencyP50: 80, latencyP95: 1000, totalTokens: 110, cost: 1.25 },
          ],
        },
      ],
      total,
    });

    // A range that does not start on the hour still gets buckets aligned to the hour.
    const unaligned = (await p.metrics({ from: iso(M0 + 30 * MIN), to: iso(M0 + 2 * HOUR + 30 * MIN), bucket: '1h' })).json();
    expect(unaligned.groups[0].series.map((s: { start: string; count: number }) => [s.start, s.count])).toEqual([
      [iso(M0), 0],
      [iso(M0 + HOUR), 0],
      [iso(M0 + 2 * HOUR), 1],
    ]);
    expect(unaligned.total).toEqual({ count: 1, errorCount: 0, latencyP50: 80, latencyP95: 80, totalTokens: 100, cost: 1.25 });

    const daily = (await p.metrics({ from: iso(M0 - DAY), to: iso(M0 + DAY), bucket: '1d' })).json();
    expect(daily.groups[0].series.map((s: { start: string; count: number }) => [s.start, s.count])).toEqual([
      ['2026-11-19T00:00:00.000Z', 0],
      ['2026-11-20T00:00:00.000Z', 10],
      ['2026-11-21T00:00:00.000Z', 0],
    ]);
  });

  it('groups by status, kind, model and name', async () => {
    const status = (await p.metrics({ ...range, groupBy: 'status' })).json();
    expect(status.groupBy).toBe('status');
    expect(byKey(status.groups)).toEqual({
      succeeded: [{ start: range.from, count: 5, errorCount: 0, latencyP50: 120, latencyP95: 500, totalTokens: 125, cost: 1.5 }],
      failed: [{ start: range.from, count: 2, errorCount: 2, latencyP50: 40, latencyP95: 1000, totalTokens: 20, cost: 0.5 }],
      running: [{ start: range.from, ...zero, count: 1 }],
    });
    expect(status.total).toEqual(total);

    const model = (await p.metrics({ ...range, groupBy: 'model' })).json();
    expect(model.groups.map((g: { key: string | null }) => g.key)).toContain(null);
    expect(byKey(model.groups)).toEqual({
      'gpt-4o': [{ start: range.from, count: 3, errorCount: 1, latencyP50: 60, latencyP95: 120, totalTokens: 45, cost: 0.75 }],
      'gpt-4o-mini': [{ start: range.from, count: 1, errorCount: 0, latencyP50: 80, latencyP95: 80, totalTokens: 100, cost: 1.25 }],
      null: [{ start: range.from, count: 4, errorCount: 1, latencyP50: 500, latencyP95: 1000, totalTokens: 0, cost: 0 }],
    });

    const llm = { count: 4, errorCount: 1, latencyP50: 60, latencyP95: 120, totalTokens: 145, cost: 2 };
    const chain = { count: 2, errorCount: 0, latencyP50: 300, latencyP95: 300, totalTokens: 0, cost: 0 };
    const tool = { count: 2, errorCount: 1, latencyP50: 500, latencyP95: 1000, totalTokens: 0, cost: 0 };
    expect(byKey((await p.metrics({ ...range, groupBy: 'kind' })).json().groups)).toEqual({
      llm: [{ start: range.from, ...llm }],
      chain: [{ start: range.from, ...chain }],
      tool: [{ start: range.from, ...tool }],
    });
    expect(byKey((await p.metrics({ ...range, groupBy: 'name' })).json().groups)).toEqual({
      ChatOpenAI: [{ start: range.from, ...llm }],
      Agent: [{ start: range.from, ...chain }],
      search: [{ start: range.from, ...tool }],
    });

    // Grouped and bucketed: every group has every bucket.
    const both = (await p.metrics({ ...range, groupBy: 'model', bucket: '1h' })).json();
    const series = byKey(both.groups) as Record<string, Record<string, unknown>[]>;
    expect(Object.keys(series).sort()).toEqual(['gpt-4o', 'gpt-4o-mini', 'null']);
    for (const s of Object.values(series)) expect(s.map((x) => x.start)).toEqual([iso(M0), iso(M0 + HOUR), iso(M0 + 2 * HOUR)]);
    expect(series.null).toEqual([
      { start: iso(M0), count: 1, errorCount: 0, latencyP50: 300, latencyP95: 300, totalTokens: 0, cost: 0 },
      { start: iso(M0 + HOUR), ...zero },
      { start: iso(M0 + 2 * HOUR), count: 3, errorCount: 1, latencyP50: 500, latencyP95: 1000, totalTokens: 0, cost: 0 },
    ]);
    expect(series['gpt-4o-mini']).toEqual([
      { start: iso(M0), ...zero },
      { start: iso(M0 + HOUR), ...zero },
      { start: iso(M0 + 2 * HOUR), count: 1, errorCount: 0, latencyP50: 80, latencyP95: 80, totalTokens: 100, cost: 1.25 },
    ]);
    expect(both.total).toEqual(total);
  });

  it('applies the list filters', async () => {
    expect((await p.metrics({ ...range, status: 'failed' })).json().total).toEqual({
      count: 2,
      errorCount: 2,
      latencyP50: 40,
      latencyP95: 1000,
      totalTokens: 20,
      cost: 0.5,
    });
    expect((await p.metrics({ ...range, tag: 't' })).json().total).toEqual({
      count: 2,
      errorCount: 0,
      latencyP50: 80,
      latencyP95: 120,
      totalTokens: 115,
      cost: 1.5,
    });
    expect((await p.metrics({ ...range, model: 'nope' })).json()).toEqual({
      from: range.from,
      to: range.to,
      bucket: null,
      groupBy: null,
      groups: [{ key: null, series: [{ start: range.from, ...zero }] }],
      total: zero,
    });
    expect((await p.metrics({ from: iso(M0 - HOUR), to: iso(M0 + 4 * HOUR), kind: 'tool', startedAfter: iso(M0 + 3 * HOUR) })).json().total.count).toBe(1);
    expect((await p.metrics({ ...range, 'metadata.__proto__': 'x' })).json().total.count).toBe(0);
  });

  it('aligns buckets by flooring, also before 1970', async () => {
    const q = await projectFor(ctx);
    await q.seed([
      { id: 'old', name: 'n', kind: 'llm', status: 'succeeded', startTime: '1969-12-31T12:00:00.000Z', endTime: '1969-12-31T12:00:01.000Z' },
      { id: 'epoch', name: 'n', kind: 'llm', startTime: '1970-01-01T00:00:00.000Z' },
    ]);
    const res = await q.metrics({ from: '1969-12-30T00:00:00.000Z', to: '1970-01-02T00:00:00.000Z', bucket: '1d' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().groups[0].series.map((s: { start: string; count: number; latencyP50: number | null }) => [s.start, s.count, s.latencyP50])).toEqual([
      ['1969-12-30T00:00:00.000Z', 0, null],
      ['1969-12-31T00:00:00.000Z', 1, 1000],
      ['1970-01-01T00:00:00.000Z', 1, null],
    ]);
  });

  it('uses the last 24 hours relative to the clock by default', async () => {
    const q = await projectFor(ctx);
    await q.seed([
      minimal({ id: 'in-1h', startTime: iso(NOW - HOUR) }),
      minimal({ id: 'at-from', startTime: iso(NOW - DAY) }),
      minimal({ id: 'before-from', startTime: iso(NOW - DAY - 1) }),
      minimal({ id: 'at-now', startTime: iso(NOW) }),
      minimal({ id: 'just-before-now', startTime: iso(NOW - 1) }),
    ]);
    const res = await q.metrics();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ from: iso(NOW - DAY), to: iso(NOW), bucket: null, groupBy: null, total: { count: 3 } });
    clock.advance(HOUR);
    expect((await q.metrics()).json()).toMatchObject({ from: iso(NOW - DAY + HOUR), to: iso(NOW + HOUR), total: { count: 3 } });
    // Only `to` given: from defaults to 24 hours before it.
    expect((await q.metrics({ to: iso(NOW - DAY + 1) })).json()).toMatchObject({ from: iso(NOW - 2 * DAY + 1), total: { count: 2 } });
  });

  it('refuses empty or inverted ranges, too many buckets and unknown parameters', async () => {
    expect(parametersOf(expectProblem(await p.metrics({ from: range.from, to: range.from }), 400, 'validation'))).toEqual(['from']);
    expect(parametersOf(expectProblem(await p.metrics({ from: range.to, to: range.from }), 400, 'validation'))).toEqual(['from']);
    expect(
      parametersOf(expectProblem(await p.metrics({ from: '2025-11-20T00:00:00.000Z', to: '2026-11-20T00:00:00.000Z', bucket: '1m' }), 400, 'validation')),
    ).toEqual(['bucket']);
    const cases: [Query, string][] = [
      [{ bucket: '2h' }, 'bucket'],
      [{ groupBy: 'tag' }, 'groupBy'],
      [{ from: 'yesterday' }, 'from'],
      [{ limit: 5 }, 'limit'],
      [{ cursor: 'abc' }, 'cursor'],
      [{ foo: 'bar' }, 'foo'],
    ];
    for (const [query, parameter] of cases) {
      expect(parametersOf(expectProblem(await p.metrics(query), 400, 'validation')), JSON.stringify(query)).toContain(parameter);
    }
    // A year in days is fine.
    expect((await p.metrics({ from: '2025-11-20T00:00:00.000Z', to: '2026-11-20T00:00:00.000Z', bucket: '1d' })).json().groups[0].series).toHaveLength(365);
  });
});
