import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { contentHash } from '../../lib/content-hash.js';
import { clock, describeRuns, GENERATED_RUN_ID, iso, ISO_MS, minimal, NOW, pointersOf, projectFor, RUN_FIELDS } from './runs.test-support.js';

/** POST /v1/projects/{id}/runs: the stored record, defaults, idempotency on a client id, parents and traces, the state rules. */
describeRuns('create', (ctx) => {
  it('answers 201 with the full record, defaults filled in, and GET returns the same', async () => {
    const p = await projectFor(ctx);
    const input = {
      name: 'ChatOpenAI',
      kind: 'llm',
      status: 'succeeded',
      startTime: '2026-11-21T10:00:00.000Z',
      endTime: '2026-11-21T10:00:01.250Z',
      inputs: { messages: [{ role: 'user', content: 'Hi — ünïcode ✓' }], temperature: 0.2 },
      outputs: { text: 'Hello', finish: null },
      model: 'gpt-4o',
      usage: { promptTokens: 10, completionTokens: 5 },
      cost: 0.0012,
      tags: ['prod', 'v2'],
      metadata: { userId: 'u_1', attempt: 2, flag: true, nested: { list: [1, 'two', null] } },
      provider: 'openai',
      sessionId: 'conversation-7',
      userId: 'user-42',
    };
    const res = await p.create(input);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const run = res.json();
    expect(run.id).toMatch(GENERATED_RUN_ID);
    expect(Object.keys(run).sort()).toEqual(RUN_FIELDS);
    expect(run).toEqual({
      id: run.id,
      projectId: p.id,
      traceId: run.id,
      parentRunId: null,
      name: 'ChatOpenAI',
      kind: 'llm',
      status: 'succeeded',
      startTime: '2026-11-21T10:00:00.000Z',
      endTime: '2026-11-21T10:00:01.250Z',
      latencyMs: 1250,
      inputs: input.inputs,
      outputs: input.outputs,
      error: null,
      model: 'gpt-4o',
      usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
      cost: 0.0012,
      tags: ['prod', 'v2'],
      metadata: input.metadata,
      createdAt: iso(NOW),
      provider: 'openai',
      sessionId: 'conversation-7',
      userId: 'user-42',
      costSource: 'client',
      price: null,
      scores: [],
    });
    const got = await p.get(run.id);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(run);
  });

  it('fills the defaults of a minimal running run', async () => {
    const p = await projectFor(ctx);
    const res = await p.create({ name: 'Agent', kind: 'chain', startTime: '2026-11-21T10:00:00Z' });
    expect(res.statusCode, res.body).toBe(201);
    const run = res.json();
    expect(run).toEqual({
      id: expect.stringMatching(GENERATED_RUN_ID),
      projectId: p.id,
      traceId: run.id,
      parentRunId: null,
      name: 'Agent',
      kind: 'chain',
      status: 'running',
      startTime: '2026-11-21T10:00:00.000Z',
      endTime: null,
      latencyMs: null,
      inputs: {},
      outputs: null,
      error: null,
      model: null,
      usage: null,
      cost: null,
      tags: [],
      metadata: {},
      createdAt: iso(NOW),
      provider: null,
      sessionId: null,
      userId: null,
      costSource: null,
      price: null,
      scores: [],
    });
  });

  it('keeps an explicit totalTokens and stores a failed run with its error', async () => {
    const p = await projectFor(ctx);
    const res = await p.create(
      minimal({
        status: 'failed',
        endTime: '2026-11-21T10:00:00.000Z',
        error: 'RateLimitError: slow down',
        usage: { promptTokens: 1, completionTokens: 2, totalTokens: 100 },
      }),
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      status: 'failed',
      latencyMs: 0,
      error: 'RateLimitError: slow down',
      usage: { promptTokens: 1, completionTokens: 2, totalTokens: 100 },
    });
  });

  it('normalises timestamps with an offset (and sub-millisecond digits) to UTC with milliseconds', async () => {
    const p = await projectFor(ctx);
    const res = await p.create(minimal({ status: 'succeeded', startTime: '2026-11-21T12:15:30.5+02:00', endTime: '2026-11-21T05:15:31.123456-05:00' }));
    expect(res.statusCode, res.body).toBe(201);
    const run = res.json();
    expect(run.startTime).toBe('2026-11-21T10:15:30.500Z');
    expect(run.endTime).toBe('2026-11-21T10:15:31.123Z');
    expect(run.latencyMs).toBe(623);
    for (const field of ['startTime', 'endTime', 'createdAt']) expect(run[field]).toMatch(ISO_MS);
    expect((await p.get(run.id)).json()).toEqual(run);
  });

  it('is idempotent on a client id: same content → 200 with the stored run, other content → 409', async () => {
    const p = await projectFor(ctx);
    const input = minimal({ id: 'my-app:run.0001', tags: ['a'], metadata: { k: 'v' }, inputs: { q: 'x' } });
    const first = await p.create(input);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({ id: 'my-app:run.0001', traceId: 'my-app:run.0001', createdAt: iso(NOW) });

    clock.advance(60_000);
    const again = await p.create(input);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first.json()); // the stored run, createdAt included

    // Same fields in another key order are the same content.
    const reordered = Object.fromEntries(Object.entries(input).reverse());
    const third = await p.create(reordered);
    expect(third.statusCode, third.body).toBe(200);

    const changed = await p.create({ ...input, inputs: { q: 'y' } });
    expectProblem(changed, 409, 'conflict');
    expect((await p.get('my-app:run.0001')).json()).toEqual(first.json());
    expect(await p.ids()).toEqual(['my-app:run.0001']);
  });

  it('compares a retry by what it stores: nested keys in any order, and what the client wrote another way, are the same run', async () => {
    const p = await projectFor(ctx);
    const input = minimal({
      id: 'nested-1',
      inputs: { messages: [{ role: 'user', content: 'hi' }], options: { temperature: 0.2, top_p: 1 } },
      metadata: { b: 1, a: { y: 2, x: 1 } },
      usage: { promptTokens: 3, completionTokens: 4 },
    });
    const first = await p.create(input);
    expect(first.statusCode, first.body).toBe(201);
    clock.advance(1000);
    // Every object's keys reversed, at every depth: its record's text differs, its content does not.
    const reversed = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reversed)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reversed(x)]),
            )
          : v;
    const again = await p.create(reversed(input));
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first.json());
    // The same instant with an offset, the defaults spelled out, the total the server would add: the same run.
    const spelled = {
      ...input,
      startTime: '2026-11-21T11:00:00+01:00',
      status: 'running',
      tags: [],
      usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 },
    };
    const third = await p.create(spelled);
    expect(third.statusCode, third.body).toBe(200);
    expect(third.json()).toEqual(first.json());
    expectProblem(await p.create({ ...input, metadata: { b: 1, a: { y: 2, x: 2 } } }), 409, 'conflict');
    expectProblem(await p.create({ ...input, usage: { promptTokens: 3, completionTokens: 5 } }), 409, 'conflict');
  });

  it('compares a retry of a run stored before record digests by the hash of its input, as it was stored', async () => {
    const p = await projectFor(ctx);
    const input = minimal({ id: 'older-1', inputs: { q: 'x', r: { a: 1, b: 2 } } });
    expect((await p.create(input)).statusCode).toBe(201);
    await ctx.database.storage.db
      .updateTable('runs')
      .set({ content_hash: contentHash(input) })
      .where('project_id', '=', p.id)
      .where('id', '=', 'older-1')
      .execute();
    expect((await p.create({ ...input, inputs: { r: { b: 2, a: 1 }, q: 'x' } })).statusCode).toBe(200);
    expectProblem(await p.create({ ...input, inputs: { q: 'y', r: { a: 1, b: 2 } } }), 409, 'conflict');
  });

  it('lets a child inherit the trace of its parent, down several levels', async () => {
    const p = await projectFor(ctx);
    expect((await p.create(minimal({ id: 'root-1', kind: 'chain' }))).statusCode).toBe(201);
    const child = await p.create(minimal({ id: 'child-1', parentRunId: 'root-1' }));
    expect(child.statusCode, child.body).toBe(201);
    expect(child.json()).toMatchObject({ id: 'child-1', parentRunId: 'root-1', traceId: 'root-1' });
    const grandchild = await p.create(minimal({ parentRunId: 'child-1' }));
    expect(grandchild.statusCode, grandchild.body).toBe(201);
    expect(grandchild.json()).toMatchObject({ parentRunId: 'child-1', traceId: 'root-1' });

    // A root with an explicit trace id passes it on; a child naming the same trace is fine.
    expect((await p.create(minimal({ id: 'root-2', traceId: 'trace-2' }))).json()).toMatchObject({ traceId: 'trace-2' });
    expect((await p.create(minimal({ parentRunId: 'root-2' }))).json()).toMatchObject({ traceId: 'trace-2' });
    const explicit = await p.create(minimal({ parentRunId: 'root-2', traceId: 'trace-2' }));
    expect(explicit.statusCode, explicit.body).toBe(201);
    expect(explicit.json().traceId).toBe('trace-2');
  });

  it('refuses a run that is its own parent (400 at /parentRunId)', async () => {
    const p = await projectFor(ctx);
    const self = expectProblem(await p.create(minimal({ id: 'self', parentRunId: 'self' })), 400, 'validation');
    expect(pointersOf(self)).toEqual(['/parentRunId']);
    expect(await p.ids()).toEqual([]);
  });

  it("refuses an explicit traceId that contradicts the parent's (400 at /traceId)", async () => {
    const p = await projectFor(ctx);
    expect((await p.create(minimal({ id: 'parent' }))).statusCode).toBe(201);
    const res = expectProblem(await p.create(minimal({ parentRunId: 'parent', traceId: 'another-trace' })), 400, 'validation');
    expect(pointersOf(res)).toEqual(['/traceId']);
    expect(await p.ids()).toEqual(['parent']);
  });

  it('enforces the state rules on status, endTime and error', async () => {
    const p = await projectFor(ctx);
    const cases: [Record<string, unknown>, string[]][] = [
      [{ status: 'succeeded' }, ['/endTime']],
      [{ status: 'failed', error: 'x' }, ['/endTime']],
      [{ status: 'running', endTime: '2026-11-21T10:00:01.000Z' }, ['/endTime']],
      [{ endTime: '2026-11-21T10:00:01.000Z' }, ['/endTime']],
      [{ status: 'succeeded', endTime: '2026-11-21T09:59:59.999Z' }, ['/endTime']],
      [{ status: 'succeeded', endTime: '2026-11-21T10:00:01.000Z', error: 'boom' }, ['/error']],
      [{ error: 'boom' }, ['/error']],
    ];
    for (const [overrides, pointers] of cases) {
      const body = expectProblem(await p.create(minimal(overrides)), 400, 'validation');
      expect(pointersOf(body), JSON.stringify(overrides)).toEqual(pointers);
    }
    expect(await p.ids()).toEqual([]);
  });

  it('answers 404 for an unknown project or run, and 403 for a viewer creating a run', async () => {
    const p = await projectFor(ctx);
    expectProblem(await ctx.request('POST', '/v1/projects/prj_nope/runs', { token: p.caller.token, body: minimal() }), 404, 'not-found');
    expectProblem(await p.get('no-such-run'), 404, 'not-found');
    const viewer = await ctx.make.caller({ role: 'viewer', organizationId: p.caller.organizationId });
    const denied = expectProblem(
      await ctx.request('POST', p.base, { token: viewer.token, body: minimal() }),
      403,
      'forbidden',
      'Your role (viewer) does not allow runs:write.',
    );
    expect(denied.title).toBe('Forbidden');
    expect(await p.ids()).toEqual([]);
  });
});
