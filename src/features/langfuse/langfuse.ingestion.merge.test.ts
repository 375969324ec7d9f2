import { expect, it } from 'vitest';
import { describeEachDialect } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { exportTarget } from '../otlp/otlp.clients.test-support.js';

/**
 * A batch exactly as `langfuse` 3.39.2 sent it (captured from the SDK against a recording server): its
 * scores before their trace, a generation's update before its create with the same timestamp, and the
 * trace sent again by `trace.update()` with a later timestamp.
 */
const CAPTURED = [
  {
    id: '3816b79f-7e56-41a2-aa15-4ae252f95e82',
    type: 'score-create',
    timestamp: '2026-11-29T01:10:34.052Z',
    body: {
      id: '65117434-21ea-4e47-9826-61edaa277e5c',
      name: 'quality',
      value: 0.9,
      comment: 'good',
      traceId: '7359132e-d9c4-43e5-8254-6fe288504862',
      observationId: null,
    },
  },
  {
    id: '779ec529-b4d2-44c8-8779-6e12f8984975',
    type: 'score-create',
    timestamp: '2026-11-29T01:10:34.053Z',
    body: {
      id: '7ca62654-6898-4deb-90f8-b14221dbd7e3',
      traceId: '7359132e-d9c4-43e5-8254-6fe288504862',
      name: 'label',
      value: 'positive',
      dataType: 'CATEGORICAL',
    },
  },
  {
    id: 'c44a8a8d-0426-4a92-8ce0-6507a991c17f',
    type: 'score-create',
    timestamp: '2026-11-29T01:10:34.053Z',
    body: {
      id: 'c9873605-a449-46b9-97d2-78ad42a021b6',
      name: 'gen-ok',
      value: 1,
      dataType: 'BOOLEAN',
      traceId: '7359132e-d9c4-43e5-8254-6fe288504862',
      observationId: 'be0d930b-2ba7-46d9-8235-7d603e81157f',
    },
  },
  {
    id: '83cef9fd-bcc4-4a0b-aff2-59e40d92ba1e',
    type: 'trace-create',
    timestamp: '2026-11-29T01:10:34.065Z',
    body: {
      id: '7359132e-d9c4-43e5-8254-6fe288504862',
      release: 'r1',
      timestamp: '2026-11-29T01:10:34.047Z',
      name: 'chat-app',
      userId: 'user-1',
      sessionId: 'sess-1',
      input: {
        q: 'hi',
      },
      metadata: {
        env: 'test',
      },
      tags: ['a', 'b'],
      version: '1.0',
      public: false,
    },
  },
  {
    id: '1a5daaa2-82fe-4367-bccf-cb4bbb92817b',
    type: 'span-create',
    timestamp: '2026-11-29T01:10:34.065Z',
    body: {
      id: '684c4fc7-7183-4104-991d-f292b62268b8',
      startTime: '2026-11-29T01:10:34.049Z',
      name: 'retrieval',
      input: {
        query: 'hi',
      },
      metadata: {
        k: 1,
      },
      traceId: '7359132e-d9c4-43e5-8254-6fe288504862',
      parentObservationId: null,
    },
  },
  {
    id: 'c8b59843-c800-46b1-a518-9fcb11593573',
    type: 'generation-update',
    timestamp: '2026-11-29T01:10:34.065Z',
    body: {
      output: {
        role: 'assistant',
        content: 'hello',
      },
      usage: {
        input: 10,
        output: 5,
        total: 15,
        unit: 'TOKENS',
      },
      id: 'be0d930b-2ba7-46d9-8235-7d603e81157f',
      traceId: '7359132e-d9c4-43e5-8254-6fe288504862',
      endTime: '2026-11-29T01:10:34.049Z',
    },
  },
  {
    id: '12883c08-b7b5-439a-b8be-374cfb5a307c',
    type: 'span-update',
    timestamp: '2026-11-29T01:10:34.065Z',
    body: {
      output: {
        docs: 2,
      },
      id: '684c4fc7-7183-4104-991d-f292b62268b8',
      traceId: '7359132e-d9c4-43e5-8254-6fe288504862',
      endTime: '2026-11-29T01:10:34.049Z',
    },
  },
  {
    id: '7d5b1252-99a2-4b9f-83dd-3c84ac8b5ddb',
    type: 'event-create',
    timestamp: '2026-11-29T01:10:34.065Z',
    body: {
      id: 'cf7f2c26-d68c-4efe-b8b1-ce3a167c8489',
      startTime: '2026-11-29T01:10:34.050Z',
      name: 'user-feedback-shown',
      input: {
        x: 1,
      },
      level: 'DEBUG',
      traceId: '7359132e-d9c4-43e5-8254-6fe288504862',
      parentObservationId: null,
    },
  },
  {
    id: '07c7550f-836c-4cb4-a098-a9f8b04c6308',
    type: 'trace-create',
    timestamp: '2026-11-29T01:10:34.065Z',
    body: {
      id: '7359132e-d9c4-43e5-8254-6fe288504862',
      timestamp: '2026-11-29T01:10:34.050Z',
      output: {
        a: 'hello',
      },
      metadata: {
        done: true,
      },
    },
  },
  {
    id: '829f9230-6a61-469f-a473-429e311c5ee6',
    type: 'generation-create',
    timestamp: '2026-11-29T01:10:34.065Z',
    body: {
      id: 'be0d930b-2ba7-46d9-8235-7d603e81157f',
      startTime: '2026-11-29T01:10:34.049Z',
      name: 'llm-call',
      model: 'gpt-4o',
      modelParameters: {
        temperature: 0.7,
        maxTokens: 100,
      },
      input: [
        {
          role: 'user',
          content: 'hi',
        },
      ],
      traceId: '7359132e-d9c4-43e5-8254-6fe288504862',
      parentObservationId: '684c4fc7-7183-4104-991d-f292b62268b8',
    },
  },
] as const;

/** How Langfuse's merge rules land: event order, fixed starts, deep metadata, and what the traces list shows after a change. */
describeEachDialect('Langfuse’s batch ingestion API: merging as Langfuse merges', (ctx) => {
  async function target() {
    const t = await exportTarget(ctx);
    const authorization = `Basic ${Buffer.from(`${t.project.id}:${t.headers.Authorization.replace('Bearer ', '')}`).toString('base64')}`;
    const post = async (batch: unknown) => {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/public/ingestion',
        headers: { authorization, 'content-type': 'application/json' },
        payload: { batch },
      });
      expect(res.statusCode, res.body).toBe(207);
      return res.json() as { successes: Json[]; errors: Json[] };
    };
    const get = async (path: string) => {
      const res = await ctx.app.inject({ method: 'GET', url: `/v1/projects/${t.project.id}${path}`, headers: t.headers });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as Json;
    };
    return { ...t, post, get };
  }

  it('lands the SDK’s own batch as Langfuse would: the create first among events of one time, the trace’s start fixed, metadata merged deeply', async () => {
    const t = await target();
    const answer = await t.post(CAPTURED);
    expect(answer.errors).toEqual([]);
    expect(answer.successes).toHaveLength(CAPTURED.length);
    const byId = await t.byId();
    const [trace, span, generation, event] = [CAPTURED[3], CAPTURED[4], CAPTURED[9], CAPTURED[7]].map((e) => byId.get(e.body.id)!);
    expect(trace).toMatchObject({
      name: 'chat-app',
      kind: 'chain',
      startTime: '2026-11-29T01:10:34.047Z',
      inputs: { q: 'hi' },
      outputs: { a: 'hello' },
      sessionId: 'sess-1',
      userId: 'user-1',
      tags: ['a', 'b'],
      metadata: { env: 'test', done: true, 'langfuse.trace.release': 'r1', 'langfuse.trace.version': '1.0', 'langfuse.trace.public': false },
    });
    expect(span).toMatchObject({ name: 'retrieval', parentRunId: trace!.id, status: 'succeeded', outputs: { docs: 2 }, metadata: { k: 1 } });
    expect(generation).toMatchObject({
      name: 'llm-call',
      kind: 'llm',
      parentRunId: span!.id,
      model: 'gpt-4o',
      status: 'succeeded',
      startTime: '2026-11-29T01:10:34.049Z',
      usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
      outputs: { messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'hello' }] }] },
      metadata: { 'langfuse.observation.model.parameters': { temperature: 0.7, maxTokens: 100 } },
    });
    expect(event).toMatchObject({ kind: 'custom', status: 'succeeded', metadata: { 'langfuse.observation.level': 'DEBUG' } });
    const scores = (await t.get('/scores')).items as Json[];
    expect(scores.map((s) => [s.name, s.target, s.value]).sort()).toEqual([
      ['gen-ok', 'run', true],
      ['label', 'trace', 'positive'],
      ['quality', 'trace', 0.9],
    ]);
  });

  it('merges metadata at every depth and shows a finished trace’s change in the traces list at once', async () => {
    const t = await target();
    const at = (ms: number) => new Date(Date.parse('2026-11-29T10:00:00.000Z') + ms).toISOString();
    const traceEvent = (id: string, ms: number, body: Record<string, unknown>) => ({
      id,
      timestamp: at(ms),
      type: 'trace-create',
      body: { id: 'tr', ...body },
    });
    expect(
      (await t.post([traceEvent('e1', 0, { name: 'turn', timestamp: at(0), input: 'Where is my order?', metadata: { app: { region: 'eu', tier: 1 } } })]))
        .errors,
    ).toEqual([]);
    // Listed once finished: what the list shows of it is kept by the instance.
    expect(((await t.get('/traces')).items as Json[])[0]).toMatchObject({ traceId: 'tr', output: null });
    const later = traceEvent('e2', 1000, { timestamp: at(1000), output: 'It ships today.', tags: ['vip'], metadata: { app: { tier: 2 } } });
    expect((await t.post([later])).errors).toEqual([]);
    expect(((await t.get('/traces')).items as Json[])[0]).toMatchObject({ traceId: 'tr', output: 'It ships today.', tags: ['vip'], startTime: at(0) });
    expect((await t.byId()).get('tr')!.metadata).toMatchObject({ app: { region: 'eu', tier: 2 } });
  });
});
