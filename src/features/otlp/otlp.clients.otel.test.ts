import { context, SpanKind, SpanStatusCode, trace, type Attributes, type HrTime, type Span, type Tracer } from '@opentelemetry/api';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import {
  expectAllExported,
  exportOnce,
  exportTarget,
  listenForExporters,
  otlpExporter,
  recordedProvider,
  resourceMetadata,
  SUCCESS,
  type ExporterKind,
} from './otlp.clients.test-support.js';

/** Seconds of the trace's clock: every span starts and ends at an explicit time (HrTime), kept to the millisecond. */
const T = 1_700_000_000;
const at = (offsetMs: number, extraNanos = 0): HrTime => [T + Math.floor(offsetMs / 1000), (offsetMs % 1000) * 1_000_000 + extraNanos];
const iso = (offsetMs: number) => new Date(T * 1000 + offsetMs).toISOString();

const INPUT = [
  { role: 'user', parts: [{ type: 'text', content: 'What is the weather in Paris?' }] },
  { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] },
  { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: { temp: 14, sky: 'rain' } }] },
];
const SYSTEM = [{ type: 'text', content: 'You are a concise weather assistant.' }];
const OUTPUT = [{ role: 'assistant', parts: [{ type: 'text', content: 'It is 14 °C and raining in Paris.' }], finish_reason: 'stop' }];

/** The attributes of the successful chat call, exactly as sent. */
const CHAT = {
  'gen_ai.operation.name': 'chat',
  'gen_ai.provider.name': 'openai',
  'gen_ai.request.model': 'gpt-4o',
  'gen_ai.response.model': 'gpt-4o-2024-08-06',
  'gen_ai.request.temperature': 0.2,
  'gen_ai.response.id': 'chatcmpl-42',
  'gen_ai.response.finish_reasons': ['stop'],
  'gen_ai.usage.input_tokens': 1200,
  'gen_ai.usage.output_tokens': 85,
  'gen_ai.usage.cache_read.input_tokens': 1024,
  'gen_ai.usage.reasoning.output_tokens': 40,
  'gen_ai.conversation.id': 'conv-42',
  'user.id': 'user-7',
  'gen_ai.system_instructions': JSON.stringify(SYSTEM),
  'gen_ai.input.messages': JSON.stringify(INPUT),
  'gen_ai.output.messages': JSON.stringify(OUTPUT),
};
const AGENT = {
  'gen_ai.operation.name': 'invoke_agent',
  'gen_ai.agent.name': 'weather-bot',
  'session.id': 'conv-42',
  'user.id': 'user-7',
  'langfuse.trace.tags': ['support', 'vip'],
};
const TOOL = {
  'gen_ai.operation.name': 'execute_tool',
  'gen_ai.tool.name': 'get_weather',
  'gen_ai.tool.call.id': 'call_1',
  'gen_ai.tool.call.arguments': '{"city":"Paris"}',
  'gen_ai.tool.call.result': '{"temp":14,"sky":"rain"}',
};
const FAILED_CHAT = { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o', 'error.type': '429' };
const FAILED_TOOL = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search_docs' };
const PLAIN = { 'db.system': 'postgresql', 'db.operation.name': 'SELECT', 'customer.tier': 'gold' };

/**
 * An agent run as an application traces it with the SDK: a root `invoke_agent` span, its chat call, a
 * tool call, a chat call and a tool call that fail, and a database lookup. Each child ends (and its
 * SimpleSpanProcessor exports it) before its parent.
 */
function traceAgentRun(tracer: Tracer) {
  const agent = tracer.startSpan('invoke_agent weather-bot', { kind: SpanKind.INTERNAL, attributes: AGENT, startTime: at(0, 456_789) });
  const within = trace.setSpan(context.active(), agent);
  const child = (name: string, attributes: Attributes, start: number, kind = SpanKind.INTERNAL): Span =>
    tracer.startSpan(name, { kind, attributes, startTime: at(start, 999_999) }, within);
  const chat = child('chat gpt-4o', CHAT, 10, SpanKind.CLIENT);
  chat.end(at(1_510, 1));
  const tool = child('execute_tool get_weather', TOOL, 1_600);
  tool.end(at(1_650));
  const failedChat = child('chat gpt-4o', FAILED_CHAT, 1_700, SpanKind.CLIENT);
  failedChat.recordException(Object.assign(new Error('Rate limit reached for gpt-4o'), { name: 'RateLimitError' }));
  failedChat.setStatus({ code: SpanStatusCode.ERROR, message: '429 Rate limit reached for gpt-4o' });
  failedChat.end(at(1_900));
  const failedTool = child('execute_tool search_docs', FAILED_TOOL, 2_000);
  failedTool.recordException(new TypeError('the index is offline'));
  failedTool.setStatus({ code: SpanStatusCode.ERROR });
  failedTool.end(at(2_005));
  const plain = child('lookup-customer', PLAIN, 2_100, SpanKind.CLIENT);
  plain.end(at(2_112));
  agent.end(at(2_500));
  const id = (span: Span) => span.spanContext().spanId;
  return {
    traceId: agent.spanContext().traceId,
    ids: { agent: id(agent), chat: id(chat), tool: id(tool), failedChat: id(failedChat), failedTool: id(failedTool), plain: id(plain) },
  };
}

const times = (start: number, end: number) => ({ startTime: iso(start), endTime: iso(end), latencyMs: end - start });

/** Each span's run, field by field where it differs from a succeeded child of the agent with nothing but metadata. */
function expectedRuns(resource: Record<string, unknown>): Record<string, Json> {
  const { 'gen_ai.input.messages': _in, 'gen_ai.output.messages': _out, 'gen_ai.system_instructions': _sys, 'user.id': _user, ...chatRest } = CHAT;
  return {
    agent: {
      parentRunId: null,
      name: 'invoke_agent weather-bot',
      kind: 'agent',
      ...times(0, 2_500),
      sessionId: 'conv-42',
      userId: 'user-7',
      tags: ['support', 'vip'],
      metadata: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'weather-bot', ...resource },
    },
    chat: {
      name: 'chat gpt-4o',
      kind: 'llm',
      ...times(10, 1_510),
      model: 'gpt-4o-2024-08-06',
      provider: 'openai',
      usage: { promptTokens: 1200, completionTokens: 85, totalTokens: 1285, cacheReadTokens: 1024, reasoningTokens: 40 },
      // Priced from the built-in table: 176 input tokens at 2.5, 1,024 cache reads at 1.25, 45 output and 40 reasoning tokens at 10 per million.
      cost: 0.00257,
      costSource: 'computed',
      price: {
        source: 'builtin',
        id: null,
        model: 'gpt-4o',
        provider: 'openai',
        inputPrice: 2.5,
        outputPrice: 10,
        cacheReadPrice: 1.25,
        cacheWritePrice: null,
        reasoningPrice: 10,
      },
      inputs: { messages: [{ role: 'system', parts: SYSTEM }, ...INPUT] },
      outputs: { messages: OUTPUT },
      sessionId: 'conv-42',
      userId: 'user-7',
      metadata: { ...chatRest, ...resource },
    },
    tool: {
      name: 'execute_tool get_weather',
      kind: 'tool',
      ...times(1_600, 1_650),
      inputs: { city: 'Paris' },
      outputs: { temp: 14, sky: 'rain' },
      metadata: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.id': 'call_1', ...resource },
    },
    failedChat: {
      name: 'chat gpt-4o',
      kind: 'llm',
      ...times(1_700, 1_900),
      status: 'failed',
      // The status message first; the exception event's type and message when there is none.
      error: '429 Rate limit reached for gpt-4o',
      model: 'gpt-4o',
      provider: 'openai',
      metadata: { ...FAILED_CHAT, ...resource },
    },
    failedTool: {
      name: 'execute_tool search_docs',
      kind: 'tool',
      ...times(2_000, 2_005),
      status: 'failed',
      error: 'TypeError: the index is offline',
      metadata: { ...FAILED_TOOL, ...resource },
    },
    plain: { name: 'lookup-customer', kind: 'custom', ...times(2_100, 2_112), metadata: { ...PLAIN, ...resource } },
  };
}

describeEachDialect('OTLP from the OpenTelemetry JS SDK and its OTLP/HTTP exporters', (ctx) => {
  const server = listenForExporters(ctx);

  /** The agent run, traced and exported as it happens by one exporter, to a project of its own. */
  async function exportAgentRun(kind: ExporterKind) {
    const target = await exportTarget(ctx);
    const { provider, recording, memory } = recordedProvider(otlpExporter(kind, server.url(), target.headers), { 'service.name': 'weather-bot' });
    const traced = traceAgentRun(provider.getTracer('weather-bot-tracer', '2.1.0'));
    await provider.forceFlush();
    // Taken before shutdown, which empties the in-memory exporter.
    const spans = memory.getFinishedSpans();
    await provider.shutdown();
    return { target, recording, spans, ...traced };
  }

  for (const kind of ['proto', 'proto+gzip', 'json'] as const) {
    it(`${kind}: spans exported as they end, children before their parent, are stored as runs field by field`, async () => {
      const { target, recording, spans, traceId, ids } = await exportAgentRun(kind);
      // SimpleSpanProcessor: one export per span, in the order they ended; the exporter reports SUCCESS for each.
      expect(recording.calls).toEqual([
        ['chat gpt-4o'],
        ['execute_tool get_weather'],
        ['chat gpt-4o'],
        ['execute_tool search_docs'],
        ['lookup-customer'],
        ['invoke_agent weather-bot'],
      ]);
      expectAllExported(recording, 6);
      expect(server.warnings).toEqual([]);

      const runs = await target.byId();
      expect(runs.size).toBe(6);
      const resource = resourceMetadata(spans[0]!);
      expect(resource).toMatchObject({ 'service.name': 'weather-bot', 'otel.scope.name': 'weather-bot-tracer', 'otel.scope.version': '2.1.0' });
      for (const [span, fields] of Object.entries(expectedRuns(resource))) {
        const id = ids[span as keyof typeof ids];
        expect(runs.get(id), span).toEqual({
          id,
          projectId: target.project.id,
          traceId,
          parentRunId: ids.agent,
          status: 'succeeded',
          error: null,
          model: null,
          provider: null,
          usage: null,
          cost: null,
          costSource: null,
          price: null,
          inputs: {},
          outputs: null,
          sessionId: null,
          userId: null,
          tags: [],
          scores: [],
          createdAt: expect.any(String),
          ...fields,
        });
      }
    });
  }

  it('the same spans exported again, by the protobuf and the JSON exporter, store nothing new', async () => {
    const { target, spans } = await exportAgentRun('proto');
    const before = await target.runs();
    expect(before).toHaveLength(6);
    expect(spans).toHaveLength(6);
    for (const kind of ['proto', 'json', 'proto+gzip'] as const) {
      const result = await exportOnce(otlpExporter(kind, server.url(), target.headers), spans);
      expect(result.error?.message, kind).toBeUndefined();
      expect(result.code, kind).toBe(SUCCESS);
    }
    // Same content: each span is the run it already was (no partial success, no conflict, no copy).
    expect(server.warnings).toEqual([]);
    expect(await target.runs()).toEqual(before);
  });
});
