import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { setMetadata, setSession, setTags, setUser } from '@arizeai/openinference-core';
import { context, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import {
  ANSWER,
  answeredModel,
  EMBEDDING,
  FAILING_MODEL,
  RATE_LIMITED_MODEL,
  startOpenAiServer,
  TOOL_CALL,
  type OpenAiServer,
  CHAT_MODEL,
  textPart,
  WEATHER_TOOLS,
} from '../../../test/helpers/openai-server.js';
import { expectAllExported, listenForExporters, tracedCalls } from './otlp.clients.test-support.js';

// The ESM way (research note §5.2): require hooks never see an `import`, so the class is patched by
// hand, once per process (its prototypes' `create` methods, whichever client instance calls them).
const instrumentation = new OpenAIInstrumentation();
instrumentation.manuallyInstrument(OpenAI);

const MODEL = CHAT_MODEL;
const t = textPart;
const TOOLS: OpenAI.Chat.ChatCompletionTool[] = WEATHER_TOOLS;
const ASK: OpenAI.Chat.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a concise weather assistant.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is the weather in Paris?' },
      { type: 'image_url', image_url: { url: 'https://example.test/paris.jpg' } },
    ],
  },
];
/** The usage the local API reports for every chat completion, as a run keeps it. */
const USAGE = { promptTokens: 42, completionTokens: 18, totalTokens: 60, cacheReadTokens: 32, reasoningTokens: 6 };
const ASKED = [
  { role: 'system', parts: [t('You are a concise weather assistant.')] },
  { role: 'user', parts: [t('What is the weather in Paris?'), { type: 'uri', modality: 'image', uri: 'https://example.test/paris.jpg' }] },
];
const CALL = { type: 'tool_call', id: TOOL_CALL.id, name: TOOL_CALL.name, arguments: { city: 'Paris' } };

describeEachDialect('OTLP from OpenInference instrumenting the openai client', (ctx) => {
  const server = listenForExporters(ctx);
  let api: OpenAiServer;
  beforeAll(async () => {
    api = await startOpenAiServer();
  });
  afterAll(() => api?.close());

  /** Calls made with a real `openai` client against the local API, traced by the instrumentation and exported (protobuf) as each span ends. */
  const traced = (calls: (client: OpenAI, tracer: Tracer) => Promise<void>) =>
    tracedCalls(ctx, server, 'proto', { 'service.name': 'support-bot' }, (provider) => {
      instrumentation.setTracerProvider(provider);
      return calls(new OpenAI({ apiKey: 'sk-test', baseURL: api.baseURL, maxRetries: 0 }), provider.getTracer('support-bot', '1.0.0'));
    });

  /** What every run of the instrumentation's has, whatever the call. */
  const expectSpanRun = (run: Json) => {
    expect(run.id).toMatch(/^[0-9a-f]{16}$/);
    expect(run.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(run.status).toBe('succeeded');
    expect(run.error).toBeNull();
    expect(run.provider).toBe('openai');
    expect(Date.parse(run.endTime) - Date.parse(run.startTime)).toBe(run.latencyMs);
    expect(run.metadata).toMatchObject({
      'llm.system': 'openai',
      'service.name': 'support-bot',
      'otel.scope.name': '@arizeai/openinference-instrumentation-openai',
    });
  };

  it('a chat completion that calls a tool, then the answer: LLM runs with model, usage, messages, session, user and tags', async () => {
    const { recording, runs } = await traced(async (client) => {
      const session = setMetadata(setTags(setUser(setSession(context.active(), { sessionId: 'conv-9' }), { userId: 'user-3' }), ['vip', 'beta']), {
        plan: 'pro',
      });
      await context.with(session, async () => {
        const first = await client.chat.completions.create({ model: MODEL, messages: ASK, tools: TOOLS, temperature: 0.2 });
        expect(first.choices[0]!.message.tool_calls).toHaveLength(1);
        const answered = [...ASK, first.choices[0]!.message, { role: 'tool' as const, tool_call_id: TOOL_CALL.id, content: '14 °C, rain' }];
        const second = await client.chat.completions.create({ model: MODEL, messages: answered, tools: TOOLS });
        expect(second.choices[0]!.message.content).toBe(ANSWER);
      });
    });
    expectAllExported(recording, 2);
    expect(api.requests.filter((r) => r.body.model === MODEL).length).toBeGreaterThanOrEqual(2);
    expect(runs).toHaveLength(2);
    // Told apart by what they answered (both may start within the same millisecond).
    const byFinish = (reason: string) => runs.find((run) => run.metadata['llm.finish_reason'] === reason)!;
    const [toolCall, answer] = [byFinish('tool_calls'), byFinish('stop')];
    for (const run of runs) {
      expectSpanRun(run);
      expect(run).toMatchObject({
        parentRunId: null,
        name: 'OpenAI Chat Completions',
        kind: 'llm',
        model: answeredModel(MODEL),
        usage: USAGE,
        // Priced from the built-in table: 10 input tokens at 0.15, 32 cache reads at 0.075, 12 output and 6 reasoning tokens at 0.6 per million.
        cost: 0.0000147,
        costSource: 'computed',
        price: { source: 'builtin', model: 'gpt-4o-mini', inputPrice: 0.15, outputPrice: 0.6, cacheReadPrice: 0.075 },
        sessionId: 'conv-9',
        userId: 'user-3',
        tags: ['vip', 'beta'],
      });
      // Every attribute but those the run's fields carry, under its own name.
      expect(run.metadata).toMatchObject({
        'openinference.span.kind': 'LLM',
        'llm.model_name': answeredModel(MODEL),
        'llm.token_count.prompt': 42,
        'llm.token_count.completion': 18,
        'llm.token_count.total': 60,
        'llm.token_count.prompt_details.cache_read': 32,
        'llm.token_count.completion_details.reasoning': 6,
        'llm.tools.0.tool.json_schema': JSON.stringify(TOOLS[0]),
        // OpenInference's `metadata` JSON text, as the object it is.
        metadata: { plan: 'pro' },
      });
      const keys = Object.keys(run.metadata);
      expect(keys.filter((k) => /^(input|output)\.|^llm\.(input|output)_messages\.|^(session|user)\.id$|^tag\.tags$/.test(k))).toEqual([]);
    }
    expect(toolCall.traceId).not.toBe(answer.traceId);
    expect(JSON.parse(toolCall.metadata['llm.invocation_parameters'])).toEqual({ model: MODEL, tools: TOOLS, temperature: 0.2 });
    expect(toolCall.inputs).toEqual({ messages: ASKED });
    expect(toolCall.outputs).toEqual({ messages: [{ role: 'assistant', parts: [CALL], finish_reason: 'tool_calls' }] });
    expect(answer.inputs).toEqual({
      messages: [
        ...ASKED,
        { role: 'assistant', parts: [CALL] },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: TOOL_CALL.id, response: '14 °C, rain' }] },
      ],
    });
    expect(answer.outputs).toEqual({ messages: [{ role: 'assistant', parts: [t(ANSWER)], finish_reason: 'stop' }] });
  });

  it("a session and a user named only in OpenInference's metadata (as LangChain's run metadata names them) are the run's", async () => {
    const { recording, runs } = await traced(async (client) => {
      const named = setMetadata(context.active(), { thread_id: 'thread-5', user_id: 'user-9', ls_provider: 'openai', plan: 'pro' });
      await context.with(named, () => client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] }));
    });
    expectAllExported(recording, 1);
    expect(runs).toHaveLength(1);
    const [run] = runs as [Json];
    expectSpanRun(run);
    expect(run).toMatchObject({ kind: 'llm', sessionId: 'thread-5', userId: 'user-9', tags: [] });
    expect(run.metadata.metadata).toEqual({ thread_id: 'thread-5', user_id: 'user-9', ls_provider: 'openai', plan: 'pro' });
  });

  it('embeddings: an embedding run with its model, its texts as input, its tokens estimated and the vectors in metadata', async () => {
    const { recording, runs } = await traced(async (client) => {
      const result = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['first text', 'second text'] });
      expect(result.data).toHaveLength(2);
    });
    expectAllExported(recording, 1);
    expect(runs).toHaveLength(1);
    const [run] = runs as [Json];
    expectSpanRun(run);
    // The client asked for base64 and decoded float32s: the vectors as the instrumentation recorded them.
    const vector = Array.from(new Float32Array(EMBEDDING));
    expect(run).toMatchObject({
      name: 'OpenAI Embeddings',
      kind: 'embedding',
      model: 'text-embedding-3-small',
      inputs: ['first text', 'second text'],
      outputs: null,
      // The instrumentation records no token counts for embeddings: estimated from the texts (o200k_base), and priced.
      usage: { promptTokens: 4, completionTokens: 0, totalTokens: 4, estimated: true },
      costSource: 'computed',
      sessionId: null,
      userId: null,
      tags: [],
    });
    expect(run.metadata).toMatchObject({
      'openinference.span.kind': 'EMBEDDING',
      'embedding.model_name': 'text-embedding-3-small',
      'embedding.embeddings.0.embedding.text': 'first text',
      'embedding.embeddings.1.embedding.text': 'second text',
      'embedding.embeddings.0.embedding.vector': vector,
      'embedding.embeddings.1.embedding.vector': vector,
    });
  });

  it("refused calls (429, 500): the application's span fails with the client's error; the instrumentation exports no span for them", async () => {
    const failures: Record<string, string> = {};
    const { recording, runs } = await traced((client, tracer) =>
      tracer.startActiveSpan('answer-question', { attributes: { 'openinference.span.kind': 'CHAIN', 'input.value': 'Weather in Paris?' } }, async (span) => {
        await client.chat.completions.create({ model: MODEL, messages: ASK });
        for (const model of [RATE_LIMITED_MODEL, FAILING_MODEL]) {
          try {
            await client.chat.completions.create({ model, messages: ASK });
          } catch (error) {
            failures[model] = (error as Error).message;
            span.recordException(error as Error);
          }
        }
        // No status message: the run's error is the first exception event's type (the SDK takes the error's `code`) and message.
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      }),
    );
    expect(failures).toEqual({
      [RATE_LIMITED_MODEL]: expect.stringMatching(/^429 Rate limit reached for gpt-4o-mini/),
      [FAILING_MODEL]: '500 The server had an error while processing your request. Sorry about that!',
    });
    expect(api.requests.filter((r) => r.body.model === RATE_LIMITED_MODEL || r.body.model === FAILING_MODEL).length).toBeGreaterThanOrEqual(2);
    // openinference-instrumentation-openai 4.2.7 ends its span when the call succeeds (or throws at
    // once), never when the request's promise rejects: a refused call's span is never exported. When a
    // later version ends it with ERROR, it arrives as a failed llm run under the chain.
    expectAllExported(recording, 2);
    expect(runs).toHaveLength(2);
    const chain = runs.find((r) => r.name === 'answer-question')!;
    const llm = runs.find((r) => r.name === 'OpenAI Chat Completions')!;
    expect(chain).toMatchObject({
      parentRunId: null,
      kind: 'chain',
      status: 'failed',
      error: `rate_limit_exceeded: ${failures[RATE_LIMITED_MODEL]}`,
      inputs: 'Weather in Paris?',
      outputs: null,
      model: null,
      usage: null,
    });
    expect(llm).toMatchObject({ parentRunId: chain.id, traceId: chain.traceId, kind: 'llm', status: 'succeeded', usage: USAGE });
  });
});
