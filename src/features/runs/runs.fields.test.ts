import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { describeRuns, minimal, pointersOf, projectFor } from './runs.test-support.js';

/** What each field of a run accepts: ids, the bounds the engines store, nesting, text the engines parse, any key as data. */
describeRuns('create', (ctx) => {
  it('refuses ids that are words of the API or not URL-safe, and lists every schema fault', async () => {
    const p = await projectFor(ctx);
    for (const id of ['null', 'metrics', 'batch', 'values', 'a/b', '', 'x'.repeat(129), '-leading']) {
      const body = expectProblem(await p.create(minimal({ id })), 400, 'validation');
      expect(pointersOf(body), id).toEqual(['/id']);
    }
    for (const parentRunId of ['null', 'metrics']) {
      expect(new Set(pointersOf(expectProblem(await p.create(minimal({ parentRunId })), 400, 'validation')))).toEqual(new Set(['/parentRunId']));
    }
    // Words are refused only as the whole id.
    expect((await p.create(minimal({ id: 'metrics-1' }))).statusCode).toBe(201);
    expect((await p.get('metrics-1')).json()).toMatchObject({ id: 'metrics-1' });
    expect((await p.create(minimal({ id: 'values.v2' }))).statusCode).toBe(201);
    expect((await p.get('values.v2')).json()).toMatchObject({ id: 'values.v2' });

    const many = expectProblem(
      await p.create({ kind: 'robot', startTime: 'yesterday', usage: { promptTokens: -1, completionTokens: 1 }, extra: 1 }),
      400,
      'validation',
    );
    expect(pointersOf(many)).toEqual(expect.arrayContaining(['/extra', '/kind', '/name', '/startTime', '/usage/promptTokens']));
    for (const pointer of pointersOf(many)) expect(['/extra', '/kind', '/name', '/startTime', '/usage/promptTokens', '/usage']).toContain(pointer);
  });

  it('refuses token counts and costs beyond what the engines store (400, never a 500)', async () => {
    const p = await projectFor(ctx);
    const tokens = expectProblem(await p.create(minimal({ usage: { promptTokens: 1e20, completionTokens: 1 } })), 400, 'validation');
    expect(pointersOf(tokens)).toContain('/usage/promptTokens');
    const total = expectProblem(await p.create(minimal({ usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 ** 63 } })), 400, 'validation');
    expect(pointersOf(total)).toContain('/usage/totalTokens');
    expect(pointersOf(expectProblem(await p.create(minimal({ cost: 1.7e308 })), 400, 'validation'))).toContain('/cost');
    const batch = (await p.batch({ runs: [minimal({ cost: 1e300 }), minimal({ cost: 1e300 })] })).json();
    expect(batch.results.map((r: { status: string }) => r.status)).toEqual(['rejected', 'rejected']);
    expect((await p.create(minimal({ id: 'bounded', usage: { promptTokens: 1_000_000, completionTokens: 1 }, cost: 12.5 }))).statusCode).toBe(201);
    expect(pointersOf(expectProblem(await p.patch('bounded', { usage: { promptTokens: 2 ** 60, completionTokens: 0 } }), 400, 'validation'))).toContain(
      '/usage/promptTokens',
    );
    expect(pointersOf(expectProblem(await p.patch('bounded', { cost: 1e300 }), 400, 'validation'))).toContain('/cost');
    const metrics = await p.metrics({ from: '2026-11-21T00:00:00.000Z', to: '2026-11-22T00:00:00.000Z' });
    expect(metrics.statusCode, metrics.body).toBe(200);
    expect(metrics.json().total).toMatchObject({ count: 1, totalTokens: 1_000_001, cost: 12.5 });
  });

  it('refuses inputs, outputs and metadata nested deeper than 100 levels (400 at the field, never a 500)', async () => {
    const p = await projectFor(ctx);
    const nestText = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const send = (method: 'POST' | 'PATCH', url: string, payload: string) =>
      ctx.request(method, url, { token: p.caller.token, payload, headers: { 'content-type': 'application/json' } });
    const run = (extra: string) => `{"name":"deep","kind":"llm","startTime":"2026-11-21T10:00:00.000Z"${extra}}`;
    const ok = await send('POST', p.base, run(`,"id":"deep-ok","inputs":${nestText(100)},"metadata":${nestText(100)}`));
    expect(ok.statusCode, ok.body).toBe(201);
    expect((await p.get('deep-ok')).json().inputs).toEqual(JSON.parse(nestText(100)));
    for (const depth of [101, 5_000, 50_000]) {
      for (const field of ['inputs', 'outputs', 'metadata']) {
        const res = await send('POST', p.base, run(`,"${field}":${nestText(depth)}`));
        expect(pointersOf(expectProblem(res, 400, 'validation')), `${field} ${depth}`).toEqual([`/${field}`]);
      }
      const batch = await send('POST', `${p.base}/batch`, `{"runs":[${run('')},${run(`,"inputs":${nestText(depth)}`)}]}`);
      expect(batch.statusCode, batch.body).toBe(200);
      expect(batch.json().results[0].status).toBe('created');
      expect(pointersOf(batch.json().results[1].problem)).toEqual(['/runs/1/inputs']);
      expect((await p.create(minimal({ id: `deep-${depth}` }))).statusCode).toBe(201);
      for (const field of ['outputs', 'metadata']) {
        const res = await send('PATCH', `${p.base}/deep-${depth}`, `{"${field}":${nestText(depth)}}`);
        expect(pointersOf(expectProblem(res, 400, 'validation'))).toEqual([`/${field}`]);
      }
    }
  });

  it('refuses metadata the engines cannot parse (U+0000, unpaired surrogates), but not such inputs', async () => {
    const p = await projectFor(ctx);
    for (const metadata of [{ user: 'a\u0000b' }, { 'a\u0000b': 1 }, { deep: [{ s: 'x\ud800y' }] }, { s: '\udc00' }]) {
      expect(pointersOf(expectProblem(await p.create(minimal({ metadata })), 400, 'validation'))).toEqual(['/metadata']);
    }
    expect((await p.create(minimal({ id: 'emoji', metadata: { s: 'ok \ud83d\ude00' } }))).statusCode).toBe(201);
    expect(pointersOf(expectProblem(await p.patch('emoji', { metadata: { user: 'a\u0000b' } }), 400, 'validation'))).toEqual(['/metadata']);
    const inputs = await p.create(minimal({ inputs: { q: 'a\u0000b', s: 'x\ud800y' } }));
    expect(inputs.statusCode, inputs.body).toBe(201);
    expect(inputs.json().inputs).toEqual({ q: 'a\u0000b', s: 'x\ud800y' });
    expect(await p.ids({ 'metadata.s': 'ok \ud83d\ude00' })).toEqual(['emoji']);
    // No text parameter accepts NUL (PostgreSQL cannot compare it): the filter is refused, not ignored.
    expect(expectProblem(await p.list({ 'metadata.user': 'a\u0000b' }), 400, 'validation').errors).toEqual([
      { parameter: 'metadata.user', detail: 'Must not contain the NUL character (U+0000).' },
    ]);
  });

  it('stores __proto__ and constructor keys in inputs, outputs and metadata as data, exactly as sent', async () => {
    const p = await projectFor(ctx);
    // JSON.parse keeps both as own properties: the bodies below carry them as the client's JSON does.
    const inputs = JSON.parse('{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}},"q":"hi"}');
    const metadata = JSON.parse('{"__proto__":"m","constructor":"c"}');
    const created = await p.create(minimal({ id: 'proto', inputs, metadata }));
    expect(created.statusCode, created.body).toBe(201);
    for (const res of [created, await p.get('proto')]) {
      expect(res.body).toContain('"inputs":{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}},"q":"hi"}');
      expect(Object.keys(res.json().metadata)).toEqual(['__proto__', 'constructor']);
    }
    const batch = await p.batch({ runs: [minimal({ id: 'proto-batch', status: 'running', outputs: null, metadata })] });
    expect(batch.json().results[0].status, batch.body).toBe('created');
    const patched = await p.patch('proto-batch', { status: 'succeeded', outputs: JSON.parse('{"__proto__":[1,2]}') });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.body).toContain('"outputs":{"__proto__":[1,2]}');
    expect(await p.ids({ 'metadata.__proto__': 'm' })).toEqual(['proto-batch', 'proto']);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});
