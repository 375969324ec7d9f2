import type { Tracer } from '@opentelemetry/api';
import { embed, generateText, stepCountIs, streamText, tool } from 'ai';
import { convertArrayToReadableStream, MockEmbeddingModelV3, MockLanguageModelV3 } from 'ai/test';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachDialect } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { expectAllExported, listenForExporters, tracedCalls, type ExportTarget } from './otlp.clients.test-support.js';

/** What the mock model reports for every call: cached input and reasoning output are parts of the totals. */
const MODEL_USAGE = { inputTokens: { total: 20, noCache: 15, cacheRead: 5, cacheWrite: 0 }, outputTokens: { total: 7, text: 4, reasoning: 3 } };
/** The same usage as a run keeps it: counted on each model call, never on the call that sums them. */
const USAGE = { promptTokens: 20, completionTokens: 7, totalTokens: 27, cacheReadTokens: 5, cacheCreationTokens: 0, reasoningTokens: 3 };
const TELEMETRY_METADATA = { sessionId: 'sess-1', userId: 'user-9', tags: ['vip', 'beta'] };
const t = (content: string) => ({ type: 'text', content });
const ASKED = [
  { role: 'system', parts: [t('Be brief.')] },
  { role: 'user', parts: [t('Weather in Paris?')] },
];
const CALL = { type: 'tool_call', id: 'call_1', name: 'weather', arguments: { city: 'Paris' } };

/** A model that first calls the weather tool, then answers. */
const toolThenAnswer = () =>
  new MockLanguageModelV3({
    provider: 'mock-provider',
    modelId: 'mock-model',
    doGenerate: [
      {
        content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'weather', input: '{"city":"Paris"}' }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: MODEL_USAGE,
        warnings: [],
      },
      {
        content: [{ type: 'text', text: 'Rainy, 14 °C.' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: MODEL_USAGE,
        warnings: [],
        response: { id: 'resp-2', modelId: 'mock-model-2025-01', timestamp: new Date(0) },
      },
    ],
  });

describeEachDialect('OTLP from the Vercel AI SDK telemetry', (ctx) => {
  const server = listenForExporters(ctx);

  /** Calls of the AI SDK with telemetry on, through a tracer of a registered provider (its context manager parents the inner spans), exported (protobuf, gzip) as each span ends. */
  async function traced(calls: (tracer: Tracer) => Promise<void>) {
    const traced = await tracedCalls(ctx, server, 'proto+gzip', { 'service.name': 'vercel-app' }, (provider) => calls(provider.getTracer('ai')));
    /** The runs of this name, oldest first. */
    const named = (name: string) => traced.runs.filter((run) => run.name === name);
    return { ...traced, named };
  }

  /** The project's token total, as the metrics endpoint sums it over every run. */
  const totalTokens = async (target: ExportTarget, query = '') => {
    const res = await ctx.request('GET', `/v1/projects/${target.project.id}/runs/metrics${query}`, { token: target.headers.Authorization.slice(7) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().total as { count: number; totalTokens: number };
  };

  it('generateText with a tool: the outer call, two model calls and the tool call, tokens counted once', async () => {
    let text = '';
    const { target, recording, runs, named } = await traced(async (tracer) => {
      const result = await generateText({
        model: toolThenAnswer(),
        system: 'Be brief.',
        prompt: 'Weather in Paris?',
        stopWhen: stepCountIs(3),
        tools: {
          weather: tool({ description: 'Get the weather', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => ({ city, temp: 14 }) }),
        },
        experimental_telemetry: { isEnabled: true, functionId: 'support-chat', metadata: TELEMETRY_METADATA, tracer },
      });
      text = result.text;
      expect(result.totalUsage.totalTokens).toBe(54);
    });
    expect(text).toBe('Rainy, 14 °C.');
    // Children end (and are exported) before their parent.
    expect(recording.calls.flat()).toEqual(['ai.generateText.doGenerate', 'ai.toolCall', 'ai.generateText.doGenerate', 'ai.generateText']);
    expectAllExported(recording, 4);
    expect(runs).toHaveLength(4);
    const [outer] = named('ai.generateText') as [Json];
    // The model calls told apart by how they finished (mock calls may start within the same millisecond).
    const calls = named('ai.generateText.doGenerate');
    const [first, second] = ['tool-calls', 'stop'].map((reason) => calls.find((run) => run.metadata['ai.response.finishReason'] === reason)!) as [Json, Json];
    const [toolCall] = named('ai.toolCall') as [Json];
    for (const run of runs) {
      expect(run).toMatchObject({ traceId: outer.traceId, status: 'succeeded', error: null, ...TELEMETRY_METADATA });
      expect(run.metadata).toMatchObject({ 'ai.telemetry.functionId': 'support-chat', 'service.name': 'vercel-app', 'otel.scope.name': 'ai' });
      if (run !== outer) expect(run.parentRunId).toBe(outer.id);
    }
    expect(outer).toMatchObject({
      parentRunId: null,
      kind: 'chain',
      model: 'mock-model',
      provider: 'mock-provider',
      // The sum of the model calls' usage, which they carry themselves: none here.
      usage: null,
      inputs: { messages: ASKED },
      outputs: { messages: [{ role: 'assistant', parts: [t('Rainy, 14 °C.')], finish_reason: 'stop' }] },
    });
    expect(outer.metadata).toMatchObject({ 'ai.operationId': 'ai.generateText', 'ai.usage.totalTokens': 54 });
    expect(first).toMatchObject({
      kind: 'llm',
      model: 'mock-model',
      provider: 'mock-provider',
      usage: USAGE,
      inputs: { messages: ASKED },
      outputs: { messages: [{ role: 'assistant', parts: [CALL], finish_reason: 'tool-calls' }] },
    });
    expect(second).toMatchObject({
      kind: 'llm',
      // The model the response names, before the one asked for.
      model: 'mock-model-2025-01',
      provider: 'mock-provider',
      usage: USAGE,
      inputs: {
        messages: [
          ...ASKED,
          { role: 'assistant', parts: [CALL] },
          { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: { city: 'Paris', temp: 14 } }] },
        ],
      },
      outputs: { messages: [{ role: 'assistant', parts: [t('Rainy, 14 °C.')], finish_reason: 'stop' }] },
    });
    expect(second.metadata).toMatchObject({ 'gen_ai.response.id': 'resp-2', 'ai.response.finishReason': 'stop' });
    expect(toolCall).toMatchObject({
      kind: 'tool',
      model: null,
      usage: null,
      inputs: { city: 'Paris' },
      outputs: { city: 'Paris', temp: 14 },
    });
    expect(toolCall.metadata).toMatchObject({ 'ai.toolCall.name': 'weather', 'ai.toolCall.id': 'call_1' });
    // Field keys are not repeated in metadata.
    for (const run of runs)
      expect(Object.keys(run.metadata).filter((k) => /^ai\.(prompt$|prompt\.messages|response\.(text|toolCalls)|toolCall\.(args|result))/.test(k))).toEqual([]);
    expect(await totalTokens(target)).toMatchObject({ count: 4, totalTokens: 54 });
    expect(await totalTokens(target, '?sessionId=sess-1&userId=user-9')).toMatchObject({ count: 4, totalTokens: 54 });
  });

  it('streamText: the outer stream and its model call, with the streamed text', async () => {
    const { recording, runs, named } = await traced(async (tracer) => {
      const model = new MockLanguageModelV3({
        provider: 'mock-provider',
        modelId: 'mock-model',
        doStream: {
          stream: convertArrayToReadableStream([
            { type: 'text-start', id: 't1' },
            { type: 'text-delta', id: 't1', delta: 'Hel' },
            { type: 'text-delta', id: 't1', delta: 'lo!' },
            { type: 'text-end', id: 't1' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: MODEL_USAGE },
          ]),
        },
      });
      const result = streamText({
        model,
        prompt: 'Say hello',
        experimental_telemetry: { isEnabled: true, functionId: 'greeter', metadata: TELEMETRY_METADATA, tracer },
      });
      expect(await result.text).toBe('Hello!');
    });
    expectAllExported(recording, 2);
    expect(runs).toHaveLength(2);
    const [outer] = named('ai.streamText') as [Json];
    const [inner] = named('ai.streamText.doStream') as [Json];
    const said = { messages: [{ role: 'user', parts: [t('Say hello')] }] };
    const answered = { messages: [{ role: 'assistant', parts: [t('Hello!')], finish_reason: 'stop' }] };
    expect(outer).toMatchObject({ parentRunId: null, kind: 'chain', usage: null, inputs: said, outputs: answered, ...TELEMETRY_METADATA });
    expect(inner).toMatchObject({
      parentRunId: outer.id,
      traceId: outer.traceId,
      kind: 'llm',
      model: 'mock-model',
      provider: 'mock-provider',
      usage: USAGE,
      inputs: said,
      outputs: answered,
      ...TELEMETRY_METADATA,
    });
    expect(inner.metadata).toMatchObject({ 'ai.operationId': 'ai.streamText.doStream', 'ai.telemetry.functionId': 'greeter' });
    expect(typeof inner.metadata['ai.response.msToFirstChunk']).toBe('number');
  });

  it('embed: the outer embedding and its model call, the value embedded as input, tokens counted once', async () => {
    const { target, recording, runs, named } = await traced(async (tracer) => {
      const model = new MockEmbeddingModelV3({
        provider: 'mock-provider',
        modelId: 'embed-model',
        doEmbed: async () => ({ embeddings: [[0.1, 0.2, 0.3]], usage: { tokens: 3 }, warnings: [] }),
      });
      const result = await embed({ model, value: 'hello world', experimental_telemetry: { isEnabled: true, tracer } });
      expect(result.embedding).toEqual([0.1, 0.2, 0.3]);
    });
    expectAllExported(recording, 2);
    expect(runs).toHaveLength(2);
    const [outer] = named('ai.embed') as [Json];
    const [inner] = named('ai.embed.doEmbed') as [Json];
    // The call wraps its model call, which counted the tokens: a chain without usage of its own, nothing estimated.
    expect(outer).toMatchObject({ parentRunId: null, kind: 'chain', model: 'embed-model', provider: 'mock-provider', usage: null, inputs: 'hello world' });
    expect(outer.metadata).toMatchObject({ 'ai.embedding': '[0.1,0.2,0.3]', 'ai.usage.tokens': 3 });
    expect(inner).toMatchObject({
      parentRunId: outer.id,
      kind: 'embedding',
      model: 'embed-model',
      provider: 'mock-provider',
      usage: { promptTokens: 3, completionTokens: 0, totalTokens: 3 },
      inputs: ['hello world'],
      outputs: null,
      sessionId: null,
      userId: null,
      tags: [],
    });
    expect(inner.metadata).toMatchObject({ 'ai.embeddings': ['[0.1,0.2,0.3]'] });
    expect(await totalTokens(target)).toMatchObject({ count: 2, totalTokens: 3 });
  });
});
