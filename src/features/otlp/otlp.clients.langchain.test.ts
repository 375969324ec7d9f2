import { setTags } from '@arizeai/openinference-core';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import { context } from '@opentelemetry/api';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { Document } from '@langchain/core/documents';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { BaseRetriever } from '@langchain/core/retrievers';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { ANSWER, CHAT_MODEL, startOpenAiServer, textPart, TOOL_CALL, WEATHER_TOOLS, type OpenAiServer } from '../../../test/helpers/openai-server.js';
import { expectAllExported, listenForExporters, tracedCalls } from './otlp.clients.test-support.js';

// OpenInference's LangChain instrumentation, handed LangChain's callback manager by hand as ESM needs.
const instrumentation = new LangChainInstrumentation();
instrumentation.manuallyInstrument(CallbackManagerModule);

const SESSION = { session_id: 'thread-5', user_id: 'user-9' };

describeEachDialect('OTLP from OpenInference instrumenting LangChain (@langchain/openai)', (ctx) => {
  const server = listenForExporters(ctx);
  let api: OpenAiServer;
  beforeAll(async () => {
    api = await startOpenAiServer();
  });
  afterAll(() => api?.close());

  const model = (options: Record<string, unknown> = {}) =>
    new ChatOpenAI({ model: CHAT_MODEL, apiKey: 'sk-test', configuration: { baseURL: api.baseURL }, maxRetries: 0, ...options });

  const traced = (calls: () => Promise<void>) =>
    tracedCalls(ctx, server, 'proto', { 'service.name': 'support-bot' }, (provider) => {
      instrumentation.setTracerProvider(provider);
      return calls();
    });

  it('a prompt piped into a model that calls a tool, then answers: the chain and its LLM runs, with model, provider, usage, cost, messages, tool calls, session, user and the trace’s tags', async () => {
    const { recording, runs, target } = await traced(async () => {
      const prompt = ChatPromptTemplate.fromMessages([
        ['system', 'You are a concise weather assistant.'],
        ['human', 'What is the weather in {city}?'],
      ]);
      const chain = prompt.pipe(model().bindTools(WEATHER_TOOLS));
      // Session and user as LangChain users set them (the run's metadata); tags as OpenInference sets them on the
      // context (its LangChain instrumentation does not export LangChain's own tags).
      const config = { metadata: SESSION };
      const first = await context.with(setTags(context.active(), ['beta']), () => chain.invoke({ city: 'Paris' }, config));
      expect(first.tool_calls).toHaveLength(1);
      const answered = await model()
        .bindTools(WEATHER_TOOLS)
        .invoke(
          [
            new SystemMessage('You are a concise weather assistant.'),
            new HumanMessage('What is the weather in Paris?'),
            new AIMessage({ content: '', tool_calls: [{ id: TOOL_CALL.id, name: TOOL_CALL.name, args: { city: 'Paris' } }] }),
            new ToolMessage({ tool_call_id: TOOL_CALL.id, content: '14 °C, rain' }),
          ],
          config,
        );
      expect(answered.content).toBe(ANSWER);
    });
    expect(recording.calls.length).toBeGreaterThan(0);
    expectAllExported(recording, recording.calls.length);
    const llm = runs.filter((run) => run.kind === 'llm');
    expect(llm).toHaveLength(2);
    for (const run of llm) {
      expect(run).toMatchObject({
        status: 'succeeded',
        provider: 'openai',
        usage: expect.objectContaining({ promptTokens: 42, completionTokens: 18, totalTokens: 60 }),
        costSource: 'computed',
        sessionId: 'thread-5',
        userId: 'user-9',
      });
      expect(String(run.model)).toContain(CHAT_MODEL);
      expect(run.cost).toBeGreaterThan(0);
    }
    const [toolCall, answer] = [...llm].sort((a, b) => (a.inputs as Json).messages.length - (b.inputs as Json).messages.length);
    expect(toolCall!.inputs).toMatchObject({
      messages: [
        { role: 'system', parts: [textPart('You are a concise weather assistant.')] },
        { role: 'user', parts: [textPart('What is the weather in Paris?')] },
      ],
    });
    // LangChain's instrumentation records no tool call id; the call's name and arguments, and no empty text beside them.
    expect(toolCall!.outputs).toEqual({
      messages: [
        { role: 'assistant', parts: [{ type: 'tool_call', id: null, name: TOOL_CALL.name, arguments: { city: 'Paris' } }], finish_reason: 'tool_calls' },
      ],
    });
    expect(JSON.stringify(answer!.outputs)).toContain(ANSWER);
    // The chain is the tool call's parent, in one trace, with its session, user and tags.
    const chain = runs.find((run) => run.id === toolCall!.parentRunId);
    expect(chain).toMatchObject({ kind: 'chain', traceId: toolCall!.traceId, sessionId: 'thread-5', userId: 'user-9' });
    expect(chain!.tags).toContain('beta');
    // The session and the end user add up every run of their two traces.
    const read = async (path: string) => {
      const res = await ctx.request('GET', `/v1/projects/${target.project.id}${path}`, { headers: { authorization: target.headers.Authorization } });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as Json;
    };
    const cost = llm.reduce((sum, run) => sum + (run.cost as number), 0);
    for (const [path, key] of [
      ['/sessions/thread-5', 'session'],
      ['/users/user-9', 'user'],
    ] as const) {
      const totals = (await read(path))[key];
      expect(totals).toMatchObject({ runCount: runs.length, usage: { totalTokens: 120 } });
      expect(totals.cost).toBeCloseTo(cost, 12);
    }
  });

  it('a stream whose client asked for no usage: its tokens estimated from its texts and priced, marked estimated', async () => {
    const { runs } = await traced(async () => {
      let text = '';
      for await (const chunk of await model({ streamUsage: false }).stream('What is the weather in Paris?', { metadata: SESSION }))
        text += String(chunk.content);
      expect(text).toBe(ANSWER);
    });
    const llm = runs.filter((run) => run.kind === 'llm');
    expect(llm).toHaveLength(1);
    expect(llm[0]).toMatchObject({ status: 'succeeded', costSource: 'computed', usage: { estimated: true } });
    expect(llm[0]!.usage.promptTokens).toBeGreaterThan(0);
    expect(llm[0]!.usage.completionTokens).toBeGreaterThan(0);
    expect(llm[0]!.cost).toBeGreaterThan(0);
    expect(JSON.stringify(llm[0]!.outputs)).toContain(ANSWER);
  });

  it('a retriever: the query as its input, the documents it found as its outputs (content, metadata), not in its metadata', async () => {
    class Shelf extends BaseRetriever {
      override lc_namespace = ['test', 'shelf'];
      override async _getRelevantDocuments(query: string): Promise<Document[]> {
        return [
          new Document({ pageContent: `Refunds for ${query} take 5 days.`, metadata: { source: 'faq.md', page: 2 } }),
          new Document({ pageContent: 'Orders ship within 2 days.', metadata: { source: 'shipping.md' } }),
        ];
      }
    }
    const { runs } = await traced(async () => {
      const found = await new Shelf().invoke('refund policy', { metadata: SESSION });
      expect(found).toHaveLength(2);
    });
    expect(runs).toHaveLength(1);
    const [retriever] = runs;
    expect(retriever).toMatchObject({ kind: 'retriever', name: 'Shelf', status: 'succeeded', inputs: 'refund policy' });
    expect(retriever!.outputs).toEqual({
      documents: [
        { content: 'Refunds for refund policy take 5 days.', metadata: { source: 'faq.md', page: 2 } },
        { content: 'Orders ship within 2 days.', metadata: { source: 'shipping.md' } },
      ],
    });
    expect(Object.keys(retriever!.metadata as Json).filter((key) => key.startsWith('retrieval.'))).toEqual([]);
  });
});
