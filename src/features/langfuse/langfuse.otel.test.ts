import { LangfuseSpanProcessor } from '@langfuse/otel';
import { propagateAttributes, setLangfuseTracerProvider, startActiveObservation, startObservation } from '@langfuse/tracing';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { exportTarget, listenForExporters } from '../otlp/otlp.clients.test-support.js';

/** Langfuse's own SDKs, unchanged, pointed at Sightline: the public key a project, the secret key a token. */
describeEachDialect('Langfuse’s OpenTelemetry SDK (@langfuse/otel, @langfuse/tracing) sending to /api/public/otel/v1/traces', (ctx) => {
  // The suite's server on a real port, the exporters' warnings kept (the OTLP client suites' setup).
  const server = listenForExporters(ctx);
  const warnings = server.warnings;

  /** What the application does, traced by Langfuse's SDK into the project `publicKey` names with `secretKey`. */
  async function traced(publicKey: string, secretKey: string, calls: () => Promise<void>): Promise<void> {
    const baseUrl = server.url().replace(/\/v1\/traces$/, '');
    const processor = new LangfuseSpanProcessor({ publicKey, secretKey, baseUrl, exportMode: 'immediate' });
    const provider = new NodeTracerProvider({ spanProcessors: [processor] });
    provider.register();
    setLangfuseTracerProvider(provider);
    try {
      await calls();
      await processor.forceFlush();
    } finally {
      await provider.shutdown();
      setLangfuseTracerProvider(null);
    }
  }

  it('lands an agent’s trace: kinds, model and its parameters, usage and cost details, chat messages, level, session, user and tags', async () => {
    const target = await exportTarget(ctx);
    const token = target.headers.Authorization.replace('Bearer ', '');
    await traced(target.project.id, token, () =>
      propagateAttributes({ userId: 'user-7', sessionId: 'sess-42', tags: ['beta', 'eu'] }, () =>
        startActiveObservation(
          'support-agent',
          async (agent) => {
            agent.update({ input: { question: 'Weather in Paris?' } });
            const generation = startObservation(
              'chat gpt-4o-mini',
              {
                model: 'gpt-4o-mini',
                modelParameters: { temperature: 0.2, max_tokens: 200 },
                input: [
                  { role: 'system', content: 'You are concise.' },
                  { role: 'user', content: 'Weather in Paris?' },
                ],
              },
              { asType: 'generation' },
            );
            generation
              .update({
                output: { role: 'assistant', content: 'Sunny, 21°C.' },
                usageDetails: { input: 30, output: 8, total: 38 },
                costDetails: { input: 0.0000045, output: 0.0000048, total: 0.0000093 },
              })
              .end();
            startObservation('get_weather', { input: { city: 'Paris' } }, { asType: 'tool' })
              .update({ output: { temperature: 21 } })
              .end();
            startObservation('moderation', { level: 'ERROR', statusMessage: 'Blocked by the content policy' }, { asType: 'guardrail' }).end();
            agent.update({ output: 'Sunny, 21°C.' });
          },
          { asType: 'agent' },
        ),
      ),
    );
    expect(warnings).toEqual([]);

    const runs = await target.runs();
    const byName = new Map(runs.map((run) => [run.name as string, run]));
    expect([...byName.keys()].sort()).toEqual(['chat gpt-4o-mini', 'get_weather', 'moderation', 'support-agent']);
    const agent = byName.get('support-agent')!;
    const chat = byName.get('chat gpt-4o-mini')!;
    const tool = byName.get('get_weather')!;
    const guardrail = byName.get('moderation')!;
    // One trace, the agent its root.
    expect(new Set(runs.map((run) => run.traceId))).toEqual(new Set([agent.traceId]));
    expect(agent.parentRunId).toBeNull();
    for (const child of [chat, tool, guardrail]) expect(child.parentRunId).toBe(agent.id);

    expect(agent).toMatchObject({ kind: 'agent', status: 'succeeded', inputs: { question: 'Weather in Paris?' }, outputs: 'Sunny, 21°C.' });
    expect(chat).toMatchObject({
      kind: 'llm',
      status: 'succeeded',
      model: 'gpt-4o-mini',
      usage: { promptTokens: 30, completionTokens: 8, totalTokens: 38 },
      cost: 0.0000093,
      costSource: 'client',
      inputs: {
        messages: [
          { role: 'system', parts: [{ type: 'text', content: 'You are concise.' }] },
          { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
        ],
      },
      outputs: { messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'Sunny, 21°C.' }] }] },
    });
    expect((chat.metadata as Json)['langfuse.observation.model.parameters']).toEqual({ temperature: 0.2, max_tokens: 200 });
    expect((chat.metadata as Json)['langfuse.observation.type']).toBe('generation');
    expect(tool).toMatchObject({ kind: 'tool', status: 'succeeded', inputs: { city: 'Paris' }, outputs: { temperature: 21 } });
    // No kind of its own: custom, its type in metadata; level ERROR fails it with its status message.
    expect(guardrail).toMatchObject({ kind: 'custom', status: 'failed', error: 'Blocked by the content policy' });
    expect((guardrail.metadata as Json)['langfuse.observation.type']).toBe('guardrail');
    for (const run of runs) expect(run).toMatchObject({ sessionId: 'sess-42', userId: 'user-7', tags: ['beta', 'eu'] });
  });

  it('takes the project by name as the public key, and refuses a wrong secret key (401), an unknown project (404) and a malformed credential', async () => {
    const target = await exportTarget(ctx);
    const token = target.headers.Authorization.replace('Bearer ', '');
    await traced(target.project.name, token, async () => {
      startObservation('by name', { input: 'hello' }, { asType: 'span' }).end();
    });
    expect((await target.runs()).map((run) => run.name)).toEqual(['by name']);

    const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    const send = (authorization: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/public/otel/v1/traces',
        headers: { authorization, 'content-type': 'application/json' },
        payload: JSON.stringify({ resourceSpans: [] }),
      });
    expectProblem(await send(basic(target.project.id, 'not-a-token')), 401, 'unauthorized');
    expectProblem(
      await send(basic(target.project.id, '')),
      401,
      'unauthorized',
      'The Basic credential has no secret key: send a Sightline token as the password.',
    );
    for (const malformed of [
      'Basic',
      'Basic !!!',
      `Basic ${Buffer.from('no colon').toString('base64')}`,
      `Basic ${Buffer.from([0xff, 0x3a, 0x41]).toString('base64')}`,
    ]) {
      const body = expectProblem(await send(malformed), 401, 'unauthorized');
      expect(body.detail).toMatch(/^The Authorization header must be "Bearer <token>", or "Basic "/);
    }
    const unknown = await ctx.app.inject({
      method: 'POST',
      url: '/api/public/otel/v1/traces',
      headers: { authorization: basic('prj_00000000000000000000000000', token), 'content-type': 'application/json' },
      payload: JSON.stringify({
        resourceSpans: [
          {
            resource: { attributes: [] },
            scopeSpans: [
              { spans: [{ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', name: 'x', startTimeUnixNano: '1700000000000000000' }] },
            ],
          },
        ],
      }),
    });
    expectProblem(unknown, 404, 'not-found', 'Project prj_00000000000000000000000000 does not exist.');
    // Basic is for Langfuse's paths only: /v1 still takes bearer tokens alone.
    const v1 = await ctx.app.inject({ method: 'GET', url: '/v1/projects', headers: { authorization: basic(target.project.id, token) } });
    expectProblem(v1, 401, 'unauthorized', 'The Authorization header must be "Bearer <token>".');
  });
});
