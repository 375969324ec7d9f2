import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';
import { allItems, ok, type Json } from '../../../test/helpers/json.js';
import { evaluatorsWorld, rname } from './evaluators.test-support.js';

/** Evaluator rules: created, read with their counts, listed, changed, deleted; validation; who may do what. */
describeEachDialect('evaluator rules', (ctx) => {
  it('creates a rule, reads it back with empty counts, lists rules newest first', async () => {
    const { admin, viewer, project, call, rule } = await evaluatorsWorld(ctx);
    const body = {
      name: 'JSON answers',
      filter: { kind: 'llm', 'metadata.env': 'prod', tag: ['chat'] },
      sampleRate: 0.25,
      evaluator: { type: 'json_schema', schema: { type: 'object', required: ['answer'] } },
      scoreName: 'valid-json',
    };
    const created = await call(admin, 'POST', '', body);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toEqual({
      id: expect.stringMatching(/^evr_[0-9a-z]{26}$/),
      projectId: project.id,
      ...body,
      enabled: true,
      counts: { pending: 0, done: 0, failed: 0, skipped: 0 },
      lastError: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = created.json().id as string;
    expect(ok(await call(viewer, 'GET', `/${id}`))).toEqual(created.json());
    const plain = await rule({ evaluator: { type: 'json_valid' } });
    expect(plain).toMatchObject({ filter: {}, sampleRate: 1, enabled: true });
    const listed = await allItems(ctx.request, viewer.token, `/v1/projects/${project.id}/evaluators`);
    expect(listed.map((r: Json) => r.id)).toEqual([plain.id, id]);
  });

  it('changes a rule; a taken name is a 409; deleting it is a 204 then a 404', async () => {
    const { admin, call, rule } = await evaluatorsWorld(ctx);
    const a = await rule({ name: 'A', evaluator: { type: 'json_valid' } });
    await rule({ name: 'B', evaluator: { type: 'json_valid' } });
    const changed = ok(await call(admin, 'PATCH', `/${a.id}`, { name: 'A2', enabled: false, sampleRate: 0.5, evaluator: { type: 'latency', maxMs: 2000 } }));
    expect(changed).toMatchObject({
      id: a.id,
      name: 'A2',
      enabled: false,
      sampleRate: 0.5,
      evaluator: { type: 'latency', maxMs: 2000 },
      createdAt: a.createdAt,
    });
    expectProblem(await call(admin, 'PATCH', `/${a.id}`, { name: 'B' }), 409, 'conflict', 'The project already has an evaluator rule named "B".');
    expectProblem(await call(admin, 'POST', '', { name: 'B', scoreName: 's', evaluator: { type: 'json_valid' } }), 409, 'conflict');
    expect((await call(admin, 'DELETE', `/${a.id}`)).statusCode).toBe(204);
    expectProblem(await call(admin, 'GET', `/${a.id}`), 404, 'not-found', `Evaluator rule ${a.id} does not exist.`);
    expectProblem(await call(admin, 'DELETE', `/${a.id}`), 404, 'not-found');
  });

  it('refuses bad filters, rates, evaluators, catastrophic patterns and schemas (400 with pointers)', async () => {
    const { admin, call } = await evaluatorsWorld(ctx);
    const create = (body: Json) => call(admin, 'POST', '', { name: rname(), scoreName: 's', evaluator: { type: 'json_valid' }, ...body });
    const pointers = (problem: Record<string, unknown>) => (problem.errors as { pointer: string }[]).map((e) => e.pointer);
    expectProblem(await create({ sampleRate: 1.5 }), 400, 'validation');
    expectProblem(await create({ filter: { status: 'sleeping' } }), 400, 'validation');
    expectProblem(await create({ filter: { nope: 'x' } }), 400, 'validation');
    expect(pointers(expectProblem(await create({ filter: { startedAfter: '2026-13-45T00:00:00Z' } }), 400, 'validation'))).toEqual(['/filter/startedAfter']);
    expectProblem(await create({ evaluator: { type: 'telepathy' } }), 400, 'validation');
    expectProblem(await create({ evaluator: { type: 'latency' } }), 400, 'validation');
    expectProblem(await create({ evaluator: { type: 'regex', pattern: 'x', flags: 'g' } }), 400, 'validation');
    const nested = expectProblem(await create({ evaluator: { type: 'regex', pattern: '^(a+)+$' } }), 400, 'validation');
    expect(nested.errors).toEqual([{ pointer: '/evaluator/pattern', detail: expect.stringMatching(/nests repetition/) }]);
    expect(pointers(expectProblem(await create({ evaluator: { type: 'regex', pattern: '(a)\\1' } }), 400, 'validation'))).toEqual(['/evaluator/pattern']);
    expect(pointers(expectProblem(await create({ evaluator: { type: 'json_schema', schema: { type: 'nonsense' } } }), 400, 'validation'))).toEqual([
      '/evaluator/schema',
    ]);
    expect(pointers(expectProblem(await create({ evaluator: { type: 'length' } }), 400, 'validation'))).toEqual(['/evaluator/min']);
    expect(pointers(expectProblem(await create({ evaluator: { type: 'exact_match', expected: 'a', expectedKey: 'b' } }), 400, 'validation'))).toEqual([
      '/evaluator/expectedKey',
    ]);
    expectProblem(await create({ name: ' padded' }), 400, 'validation');
    expectProblem(await call(admin, 'PATCH', `/evr_missing`, {}), 400, 'validation');
    // An LLM judge names a connection and a prompt.
    expect((await create({ evaluator: { type: 'llm_judge', connectionId: 'mc_x', promptName: 'judge', promptLabel: 'production' } })).statusCode).toBe(201);
    expectProblem(await create({ evaluator: { type: 'llm_judge', promptName: 'judge' } }), 400, 'validation');
  });

  it('viewers and members read; only admins and owners write', async () => {
    const { owner, member, viewer, call, rule } = await evaluatorsWorld(ctx);
    const r = await rule({ evaluator: { type: 'json_valid' } });
    expect((await call(member, 'GET', `/${r.id}`)).statusCode).toBe(200);
    expect((await call(viewer, 'GET', '')).statusCode).toBe(200);
    for (const caller of [member, viewer]) {
      expectProblem(await call(caller, 'POST', '', { name: rname(), scoreName: 's', evaluator: { type: 'json_valid' } }), 403, 'forbidden');
      expectProblem(await call(caller, 'PATCH', `/${r.id}`, { enabled: false }), 403, 'forbidden');
      expectProblem(await call(caller, 'DELETE', `/${r.id}`), 403, 'forbidden');
    }
    expect((await call(owner, 'PATCH', `/${r.id}`, { enabled: false })).statusCode).toBe(200);
  });
});
