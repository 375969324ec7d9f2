import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { exportTarget } from '../otlp/otlp.clients.test-support.js';
import { MAX_EVENTS } from './langfuse.schemas.js';

/** The hostile tests of every way in, for Langfuse's batch ingestion API: count, amplification, content types, retries of a partial failure. */
describeEachDialect('Langfuse’s batch ingestion API under hostile input', (ctx) => {
  async function target() {
    const t = await exportTarget(ctx);
    const authorization = `Basic ${Buffer.from(`${t.project.id}:${t.headers.Authorization.replace('Bearer ', '')}`).toString('base64')}`;
    const post = (payload: string, contentType = 'application/json') =>
      ctx.app.inject({ method: 'POST', url: '/api/public/ingestion', headers: { authorization, 'content-type': contentType }, payload });
    return { ...t, post };
  }
  const at = '2026-11-29T10:00:00.000Z';

  it(`refuses more than ${MAX_EVENTS.toLocaleString('en-US')} events, and a body that is not JSON, whole and storing nothing`, async () => {
    const t = await target();
    const events = Array.from({ length: MAX_EVENTS + 1 }, (_, i) => ({
      id: `e${i}`,
      timestamp: at,
      type: 'span-create',
      body: { id: `s${i}`, startTime: at },
    }));
    const body = expectProblem(await t.post(JSON.stringify({ batch: events })), 400, 'validation');
    expect((body.errors as Json[])[0]).toMatchObject({ pointer: '/batch' });
    expectProblem(await t.post('batch=1', 'application/x-www-form-urlencoded'), 415, 'unsupported-media-type');
    expectProblem(await t.post('{"batch": ['), 400, 'validation');
    expect(await t.runs()).toEqual([]);
  });

  it('folds a thousand events of 200 metadata keys each (the body’s 250,000-value bound) about one observation in linear work, into one run with every key', async () => {
    const t = await target();
    const keys = 200;
    const events = Array.from({ length: MAX_EVENTS }, (_, i) => ({
      id: `e${i}`,
      timestamp: at,
      type: i === 0 ? 'span-create' : 'span-update',
      body: { id: 'one', startTime: at, metadata: Object.fromEntries(Array.from({ length: keys }, (_, k) => [`k${i}_${k}`, k])) },
    }));
    const started = performance.now();
    const res = await t.post(JSON.stringify({ batch: events }));
    expect(res.statusCode, res.body).toBe(207);
    // Generous: a busy machine folds it in well under a second; a copy of the metadata per event took minutes.
    expect(performance.now() - started).toBeLessThan(30_000);
    expect((res.json() as { successes: Json[] }).successes).toHaveLength(MAX_EVENTS);
    const [run] = await t.runs();
    expect(Object.keys(run!.metadata as Json)).toHaveLength(MAX_EVENTS * keys + 1); // and the observation's type
  });

  it('answers a batch sent again after a partial failure with the same successes, and the failed event again', async () => {
    const t = await target();
    const batch = JSON.stringify({
      batch: [
        { id: 'a', timestamp: at, type: 'trace-create', body: { id: 'tr', name: 'turn', sessionId: 's-1' } },
        {
          id: 'b',
          timestamp: at,
          type: 'generation-create',
          body: { id: 'gen', traceId: 'tr', startTime: at, model: 'gpt-4o-mini', usage: { input: 3, output: 2 } },
        },
        { id: 'c', timestamp: at, type: 'generation-update', body: { id: 'gen', traceId: 'tr', name: 'x'.repeat(300) } },
      ],
    });
    const first = await t.post(batch);
    const second = await t.post(batch);
    for (const res of [first, second]) {
      expect(res.statusCode, res.body).toBe(207);
      const answer = res.json() as { successes: Json[]; errors: Json[] };
      expect(answer.successes).toEqual([{ id: 'a', status: 201 }]);
      // The generation's events fold into one run whose name is too long: each of them says so.
      expect(answer.errors.map((e) => [e.id, e.status])).toEqual([
        ['b', 400],
        ['c', 400],
      ]);
    }
    expect((await t.runs()).map((run) => run.id)).toEqual(['tr']);
  });

  it('completes a run whose update came before its create, in another batch: its name, kind and parent, its times as Langfuse keeps them', async () => {
    const t = await target();
    const post = async (batch: unknown[]) => {
      const res = await t.post(JSON.stringify({ batch }));
      expect(res.statusCode, res.body).toBe(207);
      expect((res.json() as { errors: Json[] }).errors).toEqual([]);
    };
    const end = '2026-11-29T10:00:02.000Z';
    await post([
      { id: 'u', timestamp: '2026-11-29T10:00:02.100Z', type: 'generation-update', body: { id: 'gen', traceId: 'tr', endTime: end, output: 'done' } },
    ]);
    expect((await t.runs())[0]).toMatchObject({ id: 'gen', name: 'generation', kind: 'llm', parentRunId: 'tr', status: 'succeeded' });
    await post([
      { id: 't', timestamp: at, type: 'trace-create', body: { id: 'tr', name: 'turn', timestamp: at } },
      { id: 's', timestamp: at, type: 'span-create', body: { id: 'step', traceId: 'tr', name: 'step', startTime: at, endTime: end } },
      {
        id: 'c',
        timestamp: '2026-11-29T10:00:00.100Z',
        type: 'generation-create',
        body: { id: 'gen', traceId: 'tr', parentObservationId: 'step', name: 'chat', startTime: '2026-11-29T10:00:00.100Z', model: 'gpt-4o-mini' },
      },
    ]);
    const byId = await t.byId();
    expect(byId.get('gen')).toMatchObject({
      name: 'chat',
      kind: 'llm',
      parentRunId: 'step',
      traceId: 'tr',
      status: 'succeeded',
      // As Langfuse keeps it: the start is the first event's (the update's timestamp; a start never moves),
      // and the end it reported, before that, is the start.
      startTime: '2026-11-29T10:00:02.100Z',
      endTime: '2026-11-29T10:00:02.100Z',
      model: 'gpt-4o-mini',
      outputs: { messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'done' }] }] },
    });
    expect(byId.get('tr')).toMatchObject({ parentRunId: null, endTime: '2026-11-29T10:00:02.100Z' });
    expect((await ctx.app.inject({ method: 'GET', url: `/v1/projects/${t.project.id}/traces/tr`, headers: t.headers })).json().trace).toMatchObject({
      runCount: 3,
    });
  });
});
