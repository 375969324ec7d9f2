import { OpenAIInstrumentation } from '@traceloop/instrumentation-openai';
import { SpanStatusCode } from '@opentelemetry/api';
import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import {
  ANSWER,
  answeredModel,
  CHAT_MODEL,
  startOpenAiServer,
  textPart,
  TOOL_CALL,
  WEATHER_TOOLS,
  type OpenAiServer,
} from '../../../test/helpers/openai-server.js';
import { expectAllExported, listenForExporters, tracedCalls } from './otlp.clients.test-support.js';

// OpenLLMetry's instrumentation of the openai client, patched by hand as ESM needs (its require hook never sees an `import`).
const instrumentation = new OpenAIInstrumentation();
instrumentation.manuallyInstrument(OpenAI);

const ASK: OpenAI.Chat.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a concise weather assistant.' },
  { role: 'user', content: 'What is the weather in Paris?' },
];

describeEachDialect('OTLP from OpenLLMetry (@traceloop/instrumentation-openai) instrumenting the openai client', (ctx) => {
  const server = listenForExporters(ctx);
  let api: OpenAiServer;
  beforeAll(async () => {
    api = await startOpenAiServer();
  });
  afterAll(() => api?.close());

  it('a tool round trip under the application’s span: the tree, LLM runs with model, provider, usage, cost, messages and tool calls', async () => {
    const { recording, runs } = await tracedCalls(ctx, server, 'proto', { 'service.name': 'support-bot' }, (provider) => {
      instrumentation.setTracerProvider(provider);
      const client = new OpenAI({ apiKey: 'sk-test', baseURL: api.baseURL, maxRetries: 0 });
      return provider.getTracer('support-bot').startActiveSpan('answer-question', async (span) => {
        const first = await client.chat.completions.create({ model: CHAT_MODEL, messages: ASK, tools: WEATHER_TOOLS });
        expect(first.choices[0]!.message.tool_calls).toHaveLength(1);
        const answered = [...ASK, first.choices[0]!.message, { role: 'tool' as const, tool_call_id: TOOL_CALL.id, content: '14 °C, rain' }];
        const second = await client.chat.completions.create({ model: CHAT_MODEL, messages: answered, tools: WEATHER_TOOLS });
        expect(second.choices[0]!.message.content).toBe(ANSWER);
        span.setStatus({ code: SpanStatusCode.OK });
        span.end();
      });
    });
    expectAllExported(recording, 3);
    expect(runs).toHaveLength(3);
    const root = runs.find((run) => run.name === 'answer-question')!;
    const calls = runs.filter((run) => run !== root);
    expect(root).toMatchObject({ parentRunId: null, status: 'succeeded' });
    const [toolCall, answer] = [...calls].sort((a, b) => (a.inputs as Json).messages.length - (b.inputs as Json).messages.length);
    for (const run of calls) {
      expect(run).toMatchObject({
        parentRunId: root.id,
        traceId: root.traceId,
        kind: 'llm',
        status: 'succeeded',
        provider: 'openai',
        model: answeredModel(CHAT_MODEL),
        usage: { promptTokens: 42, completionTokens: 18, totalTokens: 60 },
        costSource: 'computed',
      });
      expect(run.cost).toBeGreaterThan(0);
      expect(run.metadata).toMatchObject({ 'otel.scope.name': '@traceloop/instrumentation-openai', 'gen_ai.request.model': CHAT_MODEL });
    }
    expect(toolCall!.inputs).toEqual({
      messages: [
        { role: 'system', parts: [textPart('You are a concise weather assistant.')] },
        { role: 'user', parts: [textPart('What is the weather in Paris?')] },
      ],
    });
    expect(toolCall!.outputs).toMatchObject({
      messages: [{ role: 'assistant', parts: [{ type: 'tool_call', id: TOOL_CALL.id, name: TOOL_CALL.name, arguments: { city: 'Paris' } }] }],
    });
    expect(answer!.outputs).toMatchObject({ messages: [{ role: 'assistant', parts: [textPart(ANSWER)] }] });
    expect((answer!.inputs as Json).messages.at(-1)).toEqual({
      role: 'tool',
      parts: [{ type: 'tool_call_response', id: TOOL_CALL.id, response: '14 °C, rain' }],
    });
  });
});
