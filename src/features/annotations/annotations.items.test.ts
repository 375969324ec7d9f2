import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';
import { allItems, ok, type Json } from '../../../test/helpers/json.js';
import { sampled } from './annotations.rules.js';
import { queuesWorld } from './annotations.test-support.js';

/** Putting runs and traces in a queue: by ids, by the runs list's filter, by sampling; listing the items. */
describeEachDialect('annotation items', (ctx) => {
  it('adds by ids in the order given; a target already there is counted as existing; lists items newest first with a status filter', async () => {
    const { member, project, call, queue, add } = await queuesWorld(ctx);
    const q = await queue();
    expect(await add(q.id, { ids: ['r2', 'r0', 'r2'] })).toEqual({ added: 2, existing: 0, examined: 2 });
    expect(await add(q.id, { ids: ['r0', 'r1'] })).toEqual({ added: 1, existing: 1, examined: 2 });
    const items = await allItems(ctx.request, member.token, `/v1/projects/${project.id}/annotation-queues/${q.id}/items`);
    expect(items.map((i: Json) => i.targetId)).toEqual(['r1', 'r0', 'r2']);
    expect(items[0]).toEqual({
      id: expect.stringMatching(/^aqi_[0-9a-z]{26}$/),
      queueId: q.id,
      projectId: project.id,
      target: 'run',
      targetId: 'r1',
      status: 'pending',
      reviewerId: null,
      leaseUntil: null,
      completedBy: null,
      completedAt: null,
      createdAt: expect.any(String),
    });
    expect(ok(await call(member, 'GET', `/${q.id}/items?status=completed`)).items).toEqual([]);
    expect(ok(await call(member, 'GET', `/${q.id}/items?status=pending`)).items).toHaveLength(3);
    expectProblem(await call(member, 'GET', `/${q.id}/items?status=done`), 400, 'validation');
    expect(await ctx.request('GET', `/v1/projects/${project.id}/annotation-queues/${q.id}`, { token: member.token }).then((r) => r.json().counts)).toEqual({
      pending: 3,
      inProgress: 0,
      completed: 0,
      skipped: 0,
    });
  });

  it('refuses ids that are not targets of the queue’s kind in the project: a 400 naming each, and nothing added', async () => {
    const { member, call, queue, counts } = await queuesWorld(ctx);
    const runs = await queue();
    const problem = expectProblem(await call(member, 'POST', `/${runs.id}/items`, { ids: ['r0', 'nope', 'r1', 'gone'] }), 400, 'validation');
    expect(problem.errors).toEqual([
      { pointer: '/ids/1', detail: 'Run nope does not exist in this project.' },
      { pointer: '/ids/3', detail: 'Run gone does not exist in this project.' },
    ]);
    expect(await counts(runs.id)).toEqual({ pending: 0, inProgress: 0, completed: 0, skipped: 0 });
    // Each run is its own trace here; a trace queue takes trace ids.
    const traces = await queue({ target: 'trace' });
    expect(
      await ctx
        .request('POST', `/v1/projects/${runs.projectId}/annotation-queues/${traces.id}/items`, { token: member.token, body: { ids: ['r3'] } })
        .then((r) => r.json()),
    ).toEqual({
      added: 1,
      existing: 0,
      examined: 1,
    });
    const other = await ctx.make.project(member.organizationId);
    await ctx.make.runs(other.id, 1, () => ({ id: 'elsewhere' }));
    expectProblem(await call(member, 'POST', `/${runs.id}/items`, { ids: ['elsewhere'] }), 400, 'validation', 'Run elsewhere does not exist in this project.');
  });

  it('wants exactly one of ids and filter, and rate and limit only with a filter', async () => {
    const { member, call, queue } = await queuesWorld(ctx);
    const q = await queue();
    const fault = async (body: Json) =>
      (expectProblem(await call(member, 'POST', `/${q.id}/items`, body), 400, 'validation').errors as Json[]).map((e) => [e.pointer, e.detail]);
    expect(await fault({})).toEqual([['', 'Give exactly one of ids and filter.']]);
    expect(await fault({ ids: ['r0'], filter: {} })).toEqual([['', 'Give exactly one of ids and filter.']]);
    expect(await fault({ ids: ['r0'], rate: 0.5, limit: 2 })).toEqual([
      ['/rate', 'rate goes with filter, not with ids.'],
      ['/limit', 'limit goes with filter, not with ids.'],
    ]);
    expectProblem(await call(member, 'POST', `/${q.id}/items`, { ids: [] }), 400, 'validation');
    expectProblem(await call(member, 'POST', `/${q.id}/items`, { ids: Array.from({ length: 1001 }, (_, i) => `r${i}`) }), 400, 'validation');
    expectProblem(await call(member, 'POST', `/${q.id}/items`, { filter: {}, rate: 0 }), 400, 'validation');
    expectProblem(await call(member, 'POST', `/${q.id}/items`, { filter: {}, rate: 1.5 }), 400, 'validation');
    expectProblem(await call(member, 'POST', `/${q.id}/items`, { filter: {}, limit: 1001 }), 400, 'validation');
    expectProblem(await call(member, 'POST', `/${q.id}/items`, { filter: { status: 'sideways' } }), 400, 'validation');
    expect(await fault({ filter: { q: '!!' } })).toEqual([['/filter/q', 'Must contain at least one word (letters or digits).']]);
    expect(await fault({ filter: { startedAfter: '2026-02-30T00:00:00Z' } })).toEqual([
      ['/filter/startedAfter', 'Must be an RFC 3339 date-time (for example 2026-11-21T10:15:30.123Z).'],
    ]);
    const traces = await queue({ target: 'trace' });
    const refused = expectProblem(await call(member, 'POST', `/${traces.id}/items`, { filter: { parentRunId: 'null', traceId: 'r0' } }), 400, 'validation');
    expect(refused.errors).toEqual([
      { pointer: '/filter/parentRunId', detail: "A trace queue's filter is the traces list's: it has no parentRunId." },
      { pointer: '/filter/traceId', detail: "A trace queue's filter is the traces list's: it has no traceId." },
    ]);
  });

  it('adds by filter exactly what the runs (or traces) list gives for it, newest first, up to limit', async () => {
    const { member, project, queue, add } = await queuesWorld(ctx, 9);
    const listed = async (list: 'runs' | 'traces', query: string) =>
      (await allItems(ctx.request, member.token, `/v1/projects/${project.id}/${list}?${query}`)).map((r: Json) => (list === 'runs' ? r.id : r.traceId));
    const itemsOf = async (queueId: string) =>
      (await allItems(ctx.request, member.token, `/v1/projects/${project.id}/annotation-queues/${queueId}/items`)).map((i: Json) => i.targetId).reverse();

    const tools = await queue();
    expect(await add(tools.id, { filter: { kind: 'tool' } })).toEqual({ added: 5, existing: 0, examined: 5 });
    expect(await itemsOf(tools.id)).toEqual(await listed('runs', 'kind=tool'));

    const newest = await queue();
    expect(await add(newest.id, { filter: { kind: 'llm', startedAfter: '2026-11-01T00:00:02Z' }, limit: 2 })).toEqual({ added: 2, existing: 0, examined: 2 });
    expect(await itemsOf(newest.id)).toEqual((await listed('runs', 'kind=llm&startedAfter=2026-11-01T00:00:02Z')).slice(0, 2));
    expect(await add(newest.id, { filter: { kind: 'llm' } })).toEqual({ added: 2, existing: 2, examined: 4 });

    const traces = await queue({ target: 'trace' });
    expect(await add(traces.id, { filter: { kind: 'tool', 'metadata.none!': 'x' }, limit: 3 })).toMatchObject({ added: 3 });
    expect(await itemsOf(traces.id)).toEqual((await listed('traces', 'kind=tool')).slice(0, 3));
    expect(await add(traces.id, { filter: { name: 'nothing-is-called-this' } })).toEqual({ added: 0, existing: 0, examined: 0 });
  });

  it('samples the matching runs at the rate asked (within tolerance over 2,000), the same sample each time', async () => {
    const { member, project, queue, add } = await queuesWorld(ctx, 0);
    await ctx.make.runs(project.id, 2000, (i) => ({ id: `s${i}`, kind: i % 4 === 0 ? 'tool' : 'llm' }));
    const q = await queue();
    const added = await add(q.id, { filter: { kind: 'llm' }, rate: 0.2 });
    // 1,500 llm runs at 0.2: 300 expected, σ ≈ 15.5; ±5σ.
    expect(added.examined).toBe(1500);
    expect(added.added).toBeGreaterThan(222);
    expect(added.added).toBeLessThan(378);
    const items = await allItems(ctx.request, member.token, `/v1/projects/${project.id}/annotation-queues/${q.id}/items`);
    expect(items.every((i: Json) => Number(i.targetId.slice(1)) % 4 !== 0 && sampled(q.id, i.targetId, 0.2))).toBe(true);
    expect(items).toHaveLength(added.added);
    // Deterministic: the same request again takes the same targets; a higher rate takes them and more.
    expect(await add(q.id, { filter: { kind: 'llm' }, rate: 0.2 })).toEqual({ added: 0, existing: added.added, examined: 1500 });
    const more = await add(q.id, { filter: { kind: 'llm' }, rate: 0.4 });
    expect(more.existing).toBe(added.added);
    expect(more.added).toBeGreaterThan(0);
    // limit bounds the sample: the newest matching targets that the hash takes.
    const small = await queue();
    const few = await add(small.id, { filter: {}, rate: 0.5, limit: 10 });
    expect(few.added).toBe(10);
    expect(few.examined).toBeLessThan(60);
  });
});
