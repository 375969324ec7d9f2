import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect, expectProblem, type Caller } from '../../../test/helpers/harness.js';
import { allItems, ok, type Json } from '../../../test/helpers/json.js';

let seq = 0;
const uname = (prefix: string) => `${prefix} ${process.pid}-${Date.now().toString(36)}-${(seq++).toString(36)}`;

/** Experiments: the resource, its results (one per item), counts and aggregates, and the comparison item by item. */
describeEachDialect('experiments', (ctx) => {
  let owner: Caller;
  let member: Caller;
  let viewer: Caller;
  let projectId: string;
  const call = (caller: Caller, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) =>
    ctx.request(method, url, { token: caller.token, ...(body === undefined ? {} : { body }) });

  /** A dataset of items a, b, c (version 1), then d added (version 2) and a edited (version 3). */
  async function dataset(): Promise<Json> {
    const created = ok(await call(owner, 'POST', '/v1/datasets', { name: uname('qa') }), 201);
    ok(
      await call(owner, 'POST', `/v1/datasets/${created.id}/items`, {
        items: ['a', 'b', 'c'].map((id) => ({ id, input: { question: `q-${id}` }, expectedOutput: { answer: `A-${id}` } })),
      }),
      201,
    );
    return created;
  }
  const experiment = async (body: Json): Promise<Json> => ok(await call(member, 'POST', '/v1/experiments', { name: uname('run'), projectId, ...body }), 201);
  const record = (experimentId: string, results: Json[], caller = member) => call(caller, 'POST', `/v1/experiments/${experimentId}/results`, { results });
  const score = async (runId: string, name: string, value: unknown) =>
    ok(await call(member, 'POST', `/v1/projects/${projectId}/runs/${runId}/scores`, { name, value }), 201);

  beforeAll(async () => {
    owner = await ctx.make.caller({ role: 'owner' });
    member = await ctx.make.caller({ role: 'member', organizationId: owner.organizationId });
    viewer = await ctx.make.caller({ role: 'viewer', organizationId: owner.organizationId });
    projectId = (await ctx.make.project(owner.organizationId)).id;
  });

  it('creates an experiment over the current dataset version, reads, lists, completes and deletes it', async () => {
    const ds = await dataset();
    const name = uname('gpt-4o baseline');
    const created = ok(await call(member, 'POST', '/v1/experiments', { name, datasetId: ds.id, projectId, metadata: { model: 'gpt-4o' } }), 201);
    expect(created).toEqual({
      id: expect.stringMatching(/^exp_[0-9a-z]{26}$/),
      name,
      datasetId: ds.id,
      datasetVersion: 1,
      projectId,
      metadata: { model: 'gpt-4o' },
      status: 'running',
      counts: { items: 3, done: 0, failed: 0 },
      aggregates: { latency: { mean: null, p50: null, p95: null }, tokens: 0, cost: 0, scores: {} },
      createdAt: expect.any(String),
      updatedAt: created.createdAt,
      completedAt: null,
    });
    expect(ok(await call(viewer, 'GET', `/v1/experiments/${created.id}`))).toEqual(created);
    // A name is unique per dataset (exactly): another dataset may use it.
    expectProblem(
      await call(member, 'POST', '/v1/experiments', { name, datasetId: ds.id, projectId }),
      409,
      'conflict',
      `The dataset already has an experiment named "${name}".`,
    );
    const other = await dataset();
    await experiment({ name, datasetId: other.id });

    const byName = ok(await call(viewer, 'GET', `/v1/experiments?datasetId=${ds.id}&name=${encodeURIComponent(name)}`));
    expect(byName.items.map((e: Json) => e.id)).toEqual([created.id]);
    const second = await experiment({ datasetId: ds.id, datasetVersion: 0 });
    expect(second.counts.items).toBe(0);
    expect((await allItems(ctx.request, viewer.token, `/v1/experiments?datasetId=${ds.id}`)).map((e) => e.id)).toEqual([second.id, created.id]);

    const completed = ok(await call(member, 'PATCH', `/v1/experiments/${created.id}`, { status: 'completed', metadata: { model: 'gpt-4o', note: 'x' } }));
    expect(completed).toMatchObject({ status: 'completed', metadata: { model: 'gpt-4o', note: 'x' }, completedAt: expect.any(String) });
    expect(ok(await call(member, 'PATCH', `/v1/experiments/${created.id}`, { status: 'running' })).completedAt).toBeNull();

    expectProblem(await call(member, 'DELETE', `/v1/experiments/${created.id}`), 403, 'forbidden', 'Your role (member) does not allow quality:admin.');
    expectProblem(await call(viewer, 'POST', '/v1/experiments', { name: uname('x'), datasetId: ds.id, projectId }), 403, 'forbidden');
    expect((await call(owner, 'DELETE', `/v1/experiments/${created.id}`)).statusCode).toBe(204);
    expectProblem(await call(owner, 'GET', `/v1/experiments/${created.id}`), 404, 'not-found', `Experiment ${created.id} does not exist.`);
  });

  it('refuses a version the dataset has not reached, and a dataset or project of another organization', async () => {
    const ds = await dataset();
    const problem = expectProblem(
      await call(member, 'POST', '/v1/experiments', { name: uname('x'), datasetId: ds.id, projectId, datasetVersion: 2 }),
      400,
      'validation',
    );
    expect(problem.errors).toEqual([{ pointer: '/datasetVersion', detail: 'The dataset is at version 1: give 0 to 1.' }]);
    const outsider = await ctx.make.caller({ role: 'owner' });
    const foreignProject = (await ctx.make.project(outsider.organizationId)).id;
    expectProblem(await call(member, 'POST', '/v1/experiments', { name: uname('x'), datasetId: ds.id, projectId: foreignProject }), 404, 'not-found');
    expectProblem(
      await call(outsider, 'POST', '/v1/experiments', { name: uname('x'), datasetId: ds.id, projectId: foreignProject }),
      404,
      'not-found',
      `Dataset ${ds.id} does not exist.`,
    );
    const exp = await experiment({ datasetId: ds.id });
    for (const [method, path, body] of [
      ['GET', ''],
      ['PATCH', '', { status: 'completed' }],
      ['DELETE', ''],
      ['GET', '/results'],
      ['POST', '/results', { results: [{ itemId: 'a', runId: 'r', latencyMs: 1 }] }],
    ] as const)
      expectProblem(await call(outsider, method, `/v1/experiments/${exp.id}${path}`, body), 404, 'not-found', `Experiment ${exp.id} does not exist.`);
    expectProblem(await call(outsider, 'GET', `/v1/experiments/compare?ids=${exp.id},${exp.id}x`), 404, 'not-found');
    expect(ok(await call(outsider, 'GET', '/v1/experiments')).items).toEqual([]);
  });

  it('records one result per item: a repeat is existing, a different one a 409, an item outside the version a 400; counts and aggregates add up', async () => {
    const ds = await dataset();
    const exp = await experiment({ datasetId: ds.id });
    // Version 2 adds d: not in the experiment's version 1.
    ok(await call(owner, 'POST', `/v1/datasets/${ds.id}/items`, { items: [{ id: 'd', input: 'late' }] }), 201);
    const runs = await ctx.make.runs(projectId, 3, (i) => ({ id: `${exp.id}-run-${i}`, traceId: `${exp.id}-trace-${i}` }));
    const results = [
      { itemId: 'a', runId: runs[0], output: { answer: 'A-a' }, latencyMs: 100, usage: { promptTokens: 10, completionTokens: 5 }, cost: 0.01 },
      { itemId: 'b', runId: runs[1], traceId: 'given-trace', output: { answer: 'wrong' }, latencyMs: 300, cost: 0.02 },
    ];
    expect(ok(await record(exp.id, results)).results).toEqual([
      { index: 0, itemId: 'a', status: 'created' },
      { index: 1, itemId: 'b', status: 'created' },
    ]);
    const again = ok(await record(exp.id, [results[1]!, { itemId: 'c', runId: runs[2], error: 'Timeout', latencyMs: 200 }]));
    expect(again.results).toEqual([
      { index: 0, itemId: 'b', status: 'existing' },
      { index: 1, itemId: 'c', status: 'created' },
    ]);
    expectProblem(
      await record(exp.id, [{ ...results[0]!, output: { answer: 'other' } }]),
      409,
      'conflict',
      'The experiment already has a different result for item a.',
    );
    const refused = expectProblem(
      await record(exp.id, [
        { itemId: 'd', runId: runs[0], latencyMs: 1 },
        { itemId: 'zz', runId: runs[0], latencyMs: 1 },
        { itemId: 'zz', runId: runs[0], latencyMs: 1 },
      ]),
      400,
      'validation',
    );
    expect(refused.errors).toEqual([
      { pointer: '/results/2/itemId', detail: 'Item zz is given twice (first at /results/1/itemId).' },
      { pointer: '/results/0/itemId', detail: "Item d is not in version 1 of the experiment's dataset." },
      { pointer: '/results/1/itemId', detail: "Item zz is not in version 1 of the experiment's dataset." },
    ]);
    expectProblem(await record(exp.id, [{ itemId: 'a', runId: runs[0], latencyMs: 1 }], viewer), 403, 'forbidden');

    await score(runs[0]!, 'correct', true);
    await score(runs[1]!, 'correct', false);
    await score(runs[0]!, 'helpfulness', 0.9);
    await score(runs[1]!, 'helpfulness', 0.4);
    await score(runs[1]!, 'tone', 'curt');
    const read = ok(await call(viewer, 'GET', `/v1/experiments/${exp.id}`));
    expect(read.counts).toEqual({ items: 3, done: 3, failed: 1 });
    // Latencies 100, 200, 300: nearest-rank p50 is the 2nd, p95 the 3rd.
    expect(read.aggregates).toEqual({
      latency: { mean: 200, p50: 200, p95: 300 },
      tokens: 15,
      cost: 0.03,
      scores: { correct: { count: 2, mean: 0.5 }, helpfulness: { count: 2, mean: expect.closeTo(0.65, 10) }, tone: { count: 1, mean: null } },
    });
    expect(ok(await call(viewer, 'GET', `/v1/experiments?datasetId=${ds.id}`)).items[0]).toEqual(read);

    // The results: newest first, each with its item at version 1 (edited later: still as it was) and its run's scores.
    ok(await call(owner, 'PATCH', `/v1/datasets/${ds.id}/items/a`, { expectedOutput: { answer: 'changed' } }));
    const listed = await allItems(ctx.request, viewer.token, `/v1/experiments/${exp.id}/results`, 2);
    expect(listed.map((r) => r.itemId)).toEqual(['c', 'b', 'a']);
    const a = listed.find((r) => r.itemId === 'a')!;
    expect(a).toMatchObject({
      experimentId: exp.id,
      runId: runs[0],
      traceId: `${exp.id}-trace-0`,
      output: { answer: 'A-a' },
      error: null,
      latencyMs: 100,
      usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
      cost: 0.01,
      item: { input: { question: 'q-a' }, expectedOutput: { answer: 'A-a' } },
    });
    expect(a.scores.map((s: Json) => [s.name, s.value]).sort()).toEqual([
      ['correct', true],
      ['helpfulness', 0.9],
    ]);
    expect(listed.find((r) => r.itemId === 'b')).toMatchObject({ traceId: 'given-trace', usage: null });
    expect(listed.find((r) => r.itemId === 'c')).toMatchObject({ output: null, error: 'Timeout', cost: null, scores: [] });
  });

  it('compares experiments item by item: outputs, scores, differences from the baseline and regressions, as recorded', async () => {
    const ds = await dataset();
    const [base, next, third] = [await experiment({ datasetId: ds.id }), await experiment({ datasetId: ds.id }), await experiment({ datasetId: ds.id })];
    const recorded: Record<string, Record<string, { output: unknown; latencyMs: number; runId: string; scores: Record<string, number | boolean> }>> = {};
    const plan: [Json, string, number, Record<string, number | boolean>][] = [
      [base, 'a', 100, { correct: true, quality: 0.8 }],
      [base, 'b', 110, { correct: false, quality: 0.5 }],
      [base, 'c', 120, { correct: true, quality: 0.7 }],
      [next, 'a', 90, { correct: true, quality: 0.9 }],
      [next, 'b', 95, { correct: true, quality: 0.6 }],
      [next, 'c', 80, { correct: false, quality: 0.7 }],
      [third, 'a', 70, { quality: 0.2 }],
    ];
    for (const [exp, itemId, latencyMs, scores] of plan) {
      const [runId] = await ctx.make.runs(projectId, 1, () => ({ id: `${exp.id}-${itemId}` }));
      const output = { answer: `${exp.name}/${itemId}` };
      ok(await record(exp.id, [{ itemId, runId, output, latencyMs }]));
      for (const [name, value] of Object.entries(scores)) await score(runId!, name, value);
      (recorded[exp.id] ??= {})[itemId] = { output, latencyMs, runId: runId!, scores };
    }

    const rows = await allItems(ctx.request, viewer.token, `/v1/experiments/compare?ids=${base.id},${next.id},${third.id}`, 2);
    // The items at the baseline's version, in the items list's order.
    const items = await allItems(ctx.request, viewer.token, `/v1/datasets/${ds.id}/items?version=1`);
    expect(rows.map((r) => r.itemId)).toEqual(items.map((i) => i.id));
    for (const row of rows) {
      const item = items.find((i) => i.id === row.itemId)!;
      expect(row.input).toEqual(item.input);
      expect(row.expectedOutput).toEqual(item.expectedOutput);
      const cells = [base, next, third].map((exp) => {
        const r = recorded[exp.id]![row.itemId];
        if (!r)
          return { experimentId: exp.id, recorded: false, runId: null, traceId: null, output: null, error: null, latencyMs: null, cost: null, scores: {} };
        const scores = Object.fromEntries(
          Object.entries(r.scores).map(([name, value]) => [name, { count: 1, mean: typeof value === 'boolean' ? Number(value) : value, values: [value] }]),
        );
        return {
          experimentId: exp.id,
          recorded: true,
          runId: r.runId,
          traceId: r.runId,
          output: r.output,
          error: null,
          latencyMs: r.latencyMs,
          cost: null,
          scores,
        };
      });
      expect(row.results).toEqual(cells);
      const expected: Json[] = [];
      for (const cell of cells.slice(1)) {
        const names = [...new Set([...Object.keys(cells[0]!.scores), ...Object.keys(cell.scores)])].sort();
        for (const name of names) {
          const before = (cells[0]!.scores as Json)[name]?.mean ?? null;
          const after = (cell.scores as Json)[name]?.mean ?? null;
          const difference = before === null || after === null ? null : after - before;
          expected.push({ name, experimentId: cell.experimentId, difference, regression: difference !== null && difference < 0 });
        }
      }
      expect(row.differences).toEqual(expected);
      expect(row.newErrors).toEqual([]);
      expect(row.regression).toBe(expected.some((d) => d.regression));
    }
    // Spelled out: b improved (false → true), c regressed on correctness; the third experiment regressed on a's quality.
    const byItem = Object.fromEntries(rows.map((r) => [r.itemId, r]));
    expect(byItem.b!.differences.filter((d: Json) => d.experimentId === next.id)).toEqual([
      { name: 'correct', experimentId: next.id, difference: 1, regression: false },
      { name: 'quality', experimentId: next.id, difference: expect.closeTo(0.1, 10), regression: false },
    ]);
    expect(byItem.c!.differences.find((d: Json) => d.experimentId === next.id && d.name === 'correct')).toEqual({
      name: 'correct',
      experimentId: next.id,
      difference: -1,
      regression: true,
    });
    expect(byItem.a!.differences.find((d: Json) => d.experimentId === third.id && d.name === 'quality').regression).toBe(true);
    expect(byItem.b!.regression).toBe(false);

    // 2..5 distinct experiments of one dataset.
    const otherDs = await dataset();
    const elsewhere = await experiment({ datasetId: otherDs.id });
    for (const [ids, detail] of [
      [base.id, 'Give 2 to 5 experiment ids; 1 were given.'],
      [`${base.id},${base.id}`, 'An experiment is named twice.'],
      [`${base.id},`, 'Give experiment ids separated by commas, none empty.'],
      [`${base.id},${elsewhere.id}`, 'The experiments must be of one dataset.'],
    ] as const) {
      const problem = expectProblem(await call(viewer, 'GET', `/v1/experiments/compare?ids=${ids}`), 400, 'validation', detail);
      expect(problem.errors).toEqual([{ parameter: 'ids', detail }]);
    }
  });
  it('counts a new failure as a regression, and only a drop of the chosen metric beyond the threshold', async () => {
    const ds = await dataset();
    const [base, next] = [await experiment({ datasetId: ds.id }), await experiment({ datasetId: ds.id })];
    // a: quality falls 0.05 and correct holds; b: quality falls 0.3 and correct falls; c: the candidate errored (no scores).
    const plan: [Json, string, string | null, Record<string, number | boolean>][] = [
      [base, 'a', null, { correct: true, quality: 0.8 }],
      [base, 'b', null, { correct: true, quality: 0.9 }],
      [base, 'c', null, { correct: true, quality: 0.7 }],
      [next, 'a', null, { correct: true, quality: 0.75 }],
      [next, 'b', null, { correct: false, quality: 0.6 }],
      [next, 'c', 'RateLimitError: 429', {}],
    ];
    for (const [exp, itemId, error, scores] of plan) {
      const [runId] = await ctx.make.runs(projectId, 1, () => ({ id: `${exp.id}-${itemId}` }));
      ok(await record(exp.id, [{ itemId, runId, latencyMs: 10, ...(error === null ? { output: 'ok' } : { error }) }]));
      for (const [name, value] of Object.entries(scores)) await score(runId!, name, value);
    }
    const compare = async (query: string) =>
      Object.fromEntries(
        (await allItems(ctx.request, viewer.token, `/v1/experiments/compare?ids=${base.id},${next.id}${query}`)).map((r) => [
          r.itemId,
          { regression: r.regression, newErrors: r.newErrors, flagged: r.differences.filter((d: Json) => d.regression).map((d: Json) => d.name) },
        ]),
      );
    // By default any drop counts, and the errored item is a regression although it has no score to compare.
    expect(await compare('')).toEqual({
      a: { regression: true, newErrors: [], flagged: ['quality'] },
      b: { regression: true, newErrors: [], flagged: ['correct', 'quality'] },
      c: { regression: true, newErrors: [next.id], flagged: [] },
    });
    // A threshold: quality's drop of 0.05 is within it, 0.3 is not; the new error still counts.
    expect(await compare('&threshold=0.1')).toEqual({
      a: { regression: false, newErrors: [], flagged: [] },
      b: { regression: true, newErrors: [], flagged: ['correct', 'quality'] },
      c: { regression: true, newErrors: [next.id], flagged: [] },
    });
    // A drop of exactly the threshold is not beyond it (0.8 − 0.75 in floating point is 0.05000000000000004); JSON's exponents are numbers.
    expect((await compare('&metric=quality&threshold=5e-2')).a).toEqual({ regression: false, newErrors: [], flagged: [] });
    // One metric: only its drops count.
    expect(await compare('&metric=correct')).toEqual({
      a: { regression: false, newErrors: [], flagged: [] },
      b: { regression: true, newErrors: [], flagged: ['correct'] },
      c: { regression: true, newErrors: [next.id], flagged: [] },
    });
    // The baseline failing too is not a new failure.
    const third = await experiment({ datasetId: ds.id });
    const [runId] = await ctx.make.runs(projectId, 1, () => ({ id: `${third.id}-c` }));
    ok(await record(third.id, [{ itemId: 'c', runId, latencyMs: 10, error: 'Timeout' }]));
    const rows = await allItems(ctx.request, viewer.token, `/v1/experiments/compare?ids=${third.id},${next.id}`);
    expect(rows.find((r) => r.itemId === 'c')).toMatchObject({ newErrors: [], regression: false });

    for (const [query, detail] of [
      ['threshold=-1', 'Must be >= 0.'],
      ['threshold=much', 'Must be of type number.'],
      ['metric=', 'Must NOT have fewer than 1 characters.'],
    ] as const) {
      const problem = expectProblem(await call(viewer, 'GET', `/v1/experiments/compare?ids=${base.id},${next.id}&${query}`), 400, 'validation');
      expect(problem.errors).toEqual([{ parameter: query.split('=')[0], detail }]);
    }
  });
});
