import { Langfuse } from 'langfuse';
import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { exportTarget, listenForExporters } from '../otlp/otlp.clients.test-support.js';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Langfuse's batch-API SDK (`langfuse` v3), unchanged, pointed at Sightline: the public key a project, the secret key a token. */
describeEachDialect('Langfuse’s batch ingestion API (the `langfuse` SDK v3) at /api/public/ingestion', (ctx) => {
  const server = listenForExporters(ctx);

  async function target() {
    const t = await exportTarget(ctx);
    const token = t.headers.Authorization.replace('Bearer ', '');
    const baseUrl = server.url().replace(/\/v1\/traces$/, '');
    const warnings: string[] = [];
    const client = () => {
      const langfuse = new Langfuse({ publicKey: t.project.id, secretKey: token, baseUrl, flushAt: 1000, flushInterval: 0, fetchRetryCount: 0 });
      langfuse.on('error', (e: unknown) => warnings.push(String(e)));
      return langfuse;
    };
    const post = (batch: unknown[], authorization = basic(t.project.id, token)) =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/public/ingestion',
        headers: { authorization, 'content-type': 'application/json' },
        payload: JSON.stringify({ batch }),
      });
    const get = async (path: string) => {
      const res = await ctx.app.inject({ method: 'GET', url: `/v1/projects/${t.project.id}${path}`, headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as Json;
    };
    return { ...t, token, client, warnings, post, get };
  }

  it('lands a trace as Langfuse’s SDK sends it: the tree, kinds, model and parameters, usage, cost, messages, level, session, user, tags and scores', async () => {
    const t = await target();
    const langfuse = t.client();
    const trace = langfuse.trace({ name: 'support-agent', userId: 'user-7', sessionId: 'sess-42', tags: ['beta'], input: { question: 'Weather in Paris?' } });
    const span = trace.span({ name: 'retrieve', input: { query: 'Paris weather' } });
    span.end({ output: { documents: 2 } });
    const generation = span.generation({
      name: 'chat',
      model: 'gpt-4o-mini',
      modelParameters: { temperature: 0.2, max_tokens: 200 },
      input: [
        { role: 'system', content: 'You are concise.' },
        { role: 'user', content: 'Weather in Paris?' },
      ],
    });
    generation.end({ output: { role: 'assistant', content: 'Sunny, 21°C.' }, usage: { input: 30, output: 8 } });
    trace.event({ name: 'cache-miss', level: 'WARNING', metadata: { key: 'paris' } });
    trace.span({ name: 'moderation' }).end({ level: 'ERROR', statusMessage: 'Blocked by the content policy' });
    generation.score({ name: 'helpful', value: 1, dataType: 'BOOLEAN' });
    trace.score({ name: 'quality', value: 0.9, comment: 'good' });
    trace.update({ output: 'Sunny, 21°C.', tags: ['eu'], metadata: { region: 'eu-west' } });
    await langfuse.shutdownAsync();
    expect(t.warnings).toEqual([]);

    const runs = await t.runs();
    const byName = new Map(runs.map((run) => [run.name as string, run]));
    expect([...byName.keys()].sort()).toEqual(['cache-miss', 'chat', 'moderation', 'retrieve', 'support-agent']);
    const root = byName.get('support-agent')!;
    expect(root).toMatchObject({
      id: trace.id,
      traceId: trace.id,
      parentRunId: null,
      kind: 'chain',
      status: 'succeeded',
      inputs: { question: 'Weather in Paris?' },
      outputs: 'Sunny, 21°C.',
      sessionId: 'sess-42',
      userId: 'user-7',
      tags: ['beta', 'eu'],
    });
    expect(root.metadata).toMatchObject({ region: 'eu-west' });
    for (const run of runs) expect(run.traceId).toBe(trace.id);
    expect(byName.get('retrieve')).toMatchObject({ parentRunId: trace.id, kind: 'custom', status: 'succeeded', outputs: { documents: 2 } });
    const chat = byName.get('chat')!;
    expect(chat).toMatchObject({
      parentRunId: byName.get('retrieve')!.id,
      kind: 'llm',
      status: 'succeeded',
      model: 'gpt-4o-mini',
      usage: { promptTokens: 30, completionTokens: 8, totalTokens: 38 },
      costSource: 'computed',
      inputs: {
        messages: [
          { role: 'system', parts: [{ type: 'text', content: 'You are concise.' }] },
          { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
        ],
      },
      outputs: { messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'Sunny, 21°C.' }] }] },
    });
    expect(chat.cost).toBeGreaterThan(0);
    expect((chat.metadata as Json)['langfuse.observation.model.parameters']).toEqual({ temperature: 0.2, max_tokens: 200 });
    expect((chat.metadata as Json)['langfuse.observation.type']).toBe('generation');
    const event = byName.get('cache-miss')!;
    expect(event).toMatchObject({
      kind: 'custom',
      status: 'succeeded',
      endTime: event.startTime,
      metadata: { key: 'paris', 'langfuse.observation.level': 'WARNING' },
    });
    expect(byName.get('moderation')).toMatchObject({ status: 'failed', error: 'Blocked by the content policy' });
    // The root's time covers its runs'.
    for (const run of runs) expect(Date.parse(root.endTime as string)).toBeGreaterThanOrEqual(Date.parse((run.endTime ?? run.startTime) as string));

    const scores = (await t.get('/scores')).items as Json[];
    expect(scores.map((s) => [s.name, s.target, s.target === 'run' ? s.runId : s.traceId, s.value]).sort()).toEqual([
      ['helpful', 'run', chat.id, true],
      ['quality', 'trace', trace.id, 0.9],
    ]);
    // The session and the end user total every run of their trace, though only the trace named them.
    expect((await t.get('/sessions/sess-42')).session).toMatchObject({ runCount: 5, usage: { totalTokens: 38 }, cost: chat.cost });
    expect((await t.get('/users/user-7')).user).toMatchObject({ runCount: 5, usage: { totalTokens: 38 }, cost: chat.cost });
  });

  it('merges an observation sent in pieces across batches: running, then ended, then amended; a batch sent again changes nothing', async () => {
    const t = await target();
    const langfuse = t.client();
    const trace = langfuse.trace({ name: 'long job' });
    const generation = trace.generation({ name: 'draft', model: 'gpt-4o-mini', input: 'Write a haiku' });
    await langfuse.flushAsync();
    const named = async (name: string) => (await t.runs()).find((run) => run.name === name)!;
    expect(await named('draft')).toMatchObject({ status: 'running', endTime: null, outputs: null });
    generation.end({ output: 'Autumn moon rises', usageDetails: { input: 5, output: 4 } });
    await langfuse.flushAsync();
    generation.update({ metadata: { reviewed: true }, costDetails: { total: 0.5 } });
    await langfuse.flushAsync();
    const ended = await named('draft');
    expect(ended).toMatchObject({
      status: 'succeeded',
      outputs: { messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'Autumn moon rises' }] }] },
      usage: { promptTokens: 5, completionTokens: 4, totalTokens: 9 },
      cost: 0.5,
      costSource: 'client',
      metadata: { reviewed: true },
    });
    expect(Date.parse((await named('long job')).endTime as string)).toBeGreaterThanOrEqual(Date.parse(ended.endTime as string));
    await langfuse.shutdownAsync();
    expect(t.warnings).toEqual([]);
    expect((await t.get(`/traces/${trace.id}`)).trace).toMatchObject({ runCount: 2, usage: { totalTokens: 9 }, cost: 0.5 });

    // The same events again (a retry): every one a success, nothing stored twice, nothing changed.
    const at = new Date().toISOString();
    const events = [
      { id: 'e1', timestamp: at, type: 'trace-create', body: { id: 'retry-trace', name: 'retried', timestamp: at } },
      { id: 'e2', timestamp: at, type: 'span-create', body: { id: 'retry-span', traceId: 'retry-trace', name: 'step', startTime: at, endTime: at } },
    ];
    for (let i = 0; i < 2; i++) {
      const res = await t.post(events);
      expect(res.statusCode, res.body).toBe(207);
      expect(res.json()).toEqual({
        successes: [
          { id: 'e1', status: 201 },
          { id: 'e2', status: 201 },
        ],
        errors: [],
      });
    }
    expect((await t.runs()).filter((run) => run.traceId === 'retry-trace')).toHaveLength(2);
  });

  it('answers each bad event with its own error and stores the rest; refuses a malformed request, a missing project and a bad credential whole', async () => {
    const t = await target();
    const at = '2026-11-29T10:00:00.000Z';
    const res = await t.post([
      { id: 'ok', timestamp: at, type: 'span-create', body: { id: 'good-span', name: 'fine', startTime: at } },
      { id: 'no-type', timestamp: at, body: {} },
      { id: 'bad-time', timestamp: 'yesterday', type: 'span-create', body: {} },
      { id: 'no-id', timestamp: at, type: 'span-update', body: { name: 'x' } },
      { id: 'bad-level', timestamp: at, type: 'span-create', body: { id: 'bad-level-span', startTime: at, level: 'FATAL' } },
      { id: 'long-name', timestamp: at, type: 'span-create', body: { id: 'long-name-span', startTime: at, name: 'x'.repeat(300) } },
      {
        id: 'bad-score',
        timestamp: at,
        type: 'score-create',
        body: { name: 'q', value: 'high', dataType: 'NUMERIC', traceId: 't', observationId: 'good-span' },
      },
      { id: 'lost-score', timestamp: at, type: 'score-create', body: { name: 'q', value: 1, traceId: 'no-such-trace' } },
      { id: 'no-trace', timestamp: at, type: 'score-create', body: { name: 'q', value: 1, observationId: 'good-span' } },
      { id: 'log', timestamp: at, type: 'sdk-log', body: { log: 'hello' } },
    ]);
    expect(res.statusCode, res.body).toBe(207);
    const answer = res.json() as { successes: Json[]; errors: Json[] };
    // SDK log lines are in neither list, as in Langfuse.
    expect(answer.successes).toEqual([{ id: 'ok', status: 201 }]);
    expect(answer.errors.map((e) => [e.id, e.status])).toEqual([
      ['no-type', 400],
      ['bad-time', 400],
      ['no-id', 400],
      ['bad-level', 400],
      ['long-name', 400],
      ['bad-score', 400],
      ['lost-score', 404],
      ['no-trace', 400],
    ]);
    expect(answer.errors[0]).toMatchObject({ message: "Missing required field 'type'.", error: [{ pointer: '/batch/1/type' }] });
    expect(answer.errors[2]).toMatchObject({ message: 'An observation’s event names the observation (its id).', error: [{ pointer: '/batch/3/body/id' }] });
    expect(answer.errors[3]!.error).toMatchObject([{ pointer: '/batch/4/body/level' }]);
    expect(answer.errors[4]!.error).toMatchObject([{ pointer: '/batch/5/body/name' }]);
    expect(answer.errors[5]!.error).toMatchObject([{ pointer: '/batch/6/body/value', detail: "A NUMERIC score's value must be a number." }]);
    expect(answer.errors[6]!.message).toBe('Trace no-such-trace does not exist.');
    expect(answer.errors[7]!.message).toMatch(/^Provide exactly one of the following: traceId \(with optional observationId\)/);
    expect((await t.runs()).map((run) => [run.id, run.status])).toEqual([['good-span', 'running']]);

    expectProblem(await t.post('not a list' as unknown as unknown[]), 400, 'validation');
    expectProblem(await t.post([], basic(t.project.id, 'not-a-token')), 401, 'unauthorized');
    const bearer = await ctx.app.inject({
      method: 'POST',
      url: '/api/public/ingestion',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ batch: [] }),
    });
    expectProblem(bearer, 400, 'validation');
    const anonymous = await ctx.app.inject({
      method: 'POST',
      url: '/api/public/ingestion',
      headers: { 'content-type': 'application/json' },
      payload: '{"batch":[]}',
    });
    expectProblem(anonymous, 401, 'unauthorized');
  });
});
