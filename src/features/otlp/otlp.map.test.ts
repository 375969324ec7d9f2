import { describe, expect, it } from 'vitest';
import { readOtlpJson, type OtlpSpan } from './otlp.decode.js';
import { attr } from './otlp.test-support.js';
import { inheritedOf, mapSpan, resourceOf } from './otlp.map.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';

/** One resource's spans as an OTLP/JSON exporter sends them, decoded. */
async function decoded(spans: Record<string, unknown>[], resource: Record<string, string> = {}) {
  const body = {
    resourceSpans: [
      {
        resource: { attributes: Object.entries(resource).map(([key, value]) => ({ key, value: { stringValue: value } })) },
        scopeSpans: [{ scope: { name: 't' }, spans }],
      },
    ],
  };
  const r = (await readOtlpJson(JSON.stringify(body))).resources[0]!;
  // What its spans inherit: the resource's attributes (the scope left out, for short expectations).
  const inherited = inheritedOf(resourceOf(r.attributes), null);
  return { spans: r.spans.map((ref) => r.span(ref)) as OtlpSpan[], resource: inherited };
}

/** A span with nothing to inherit. */
const bare = inheritedOf(resourceOf({}), null);

const span = (overrides: Record<string, unknown> = {}) => ({
  traceId: TRACE,
  spanId: 'b7ad6b7169203331',
  parentSpanId: '00f067aa0ba902b7',
  name: 'chat gpt-4o',
  kind: 3,
  startTimeUnixNano: '1700000000123456789',
  endTimeUnixNano: '1700000001500000001',
  attributes: [
    attr('gen_ai.operation.name', 'chat'),
    attr('gen_ai.provider.name', 'openai'),
    attr('gen_ai.request.model', 'gpt-4o'),
    attr('gen_ai.response.model', 'gpt-4o-2024-08-06'),
    attr('gen_ai.usage.input_tokens', 12),
    attr('gen_ai.usage.output_tokens', 3),
    attr('gen_ai.request.temperature', 0.2),
    attr('user.id', 'u-7'),
    attr('gen_ai.input.messages', '[{"role":"user","parts":[{"type":"text","content":"Hi"}]}]'),
  ],
  ...overrides,
});

describe('a span as a run', () => {
  it('maps a GenAI chat span field by field, the session from its resource', async () => {
    const { spans, resource } = await decoded([span()], { 'service.name': 'support-bot', 'session.id': 'conv-1' });
    expect(mapSpan(spans[0]!, resource)).toEqual({
      id: 'b7ad6b7169203331',
      traceId: TRACE,
      parentRunId: '00f067aa0ba902b7',
      name: 'chat gpt-4o',
      kind: 'llm',
      status: 'succeeded',
      error: null,
      startTime: 1700000000123,
      startNanos: 456789,
      endTime: 1700000001500,
      endNanos: 1,
      model: 'gpt-4o-2024-08-06',
      provider: 'openai',
      usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15, cacheReadTokens: null, cacheCreationTokens: null, reasoningTokens: null },
      cost: null,
      sessionId: 'conv-1',
      userId: 'u-7',
      tags: [],
      inputs: { messages: [{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }] },
      outputs: null,
      attributes: expect.objectContaining({ 'user.id': 'u-7' }),
      metadata: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.response.model': 'gpt-4o-2024-08-06',
        'gen_ai.usage.input_tokens': 12,
        'gen_ai.usage.output_tokens': 3,
        'gen_ai.request.temperature': 0.2,
        'service.name': 'support-bot',
      },
    });
  });

  it('a root span has no parent; a failed one carries its error; an unnamed one is named so', async () => {
    const { spans } = await decoded([span({ parentSpanId: '', name: '', status: { code: 2, message: 'rate limited' }, attributes: [] })]);
    expect(mapSpan(spans[0]!, bare)).toMatchObject({
      parentRunId: null,
      name: '(unnamed span)',
      kind: 'custom',
      status: 'failed',
      error: 'rate limited',
      usage: null,
      model: null,
    });
  });

  it('other spans keep input.value and output.value, parsed when JSON, and OpenLLMetry entity input and output', async () => {
    const { spans } = await decoded([
      span({ attributes: [attr('input.value', '{"q":"x"}'), attr('input.mime_type', 'application/json'), attr('output.value', 'plain answer')] }),
      span({ spanId: '2222222222222222', attributes: [attr('traceloop.entity.input', '{"args":[1]}'), attr('traceloop.entity.output', '"done"')] }),
    ]);
    expect(mapSpan(spans[0]!, bare)).toMatchObject({ inputs: { q: 'x' }, outputs: 'plain answer', metadata: {} });
    expect(mapSpan(spans[1]!, bare)).toMatchObject({ inputs: { args: [1] }, outputs: '"done"', metadata: {} });
  });

  it("a tool call's arguments and result (GenAI, the Vercel AI SDK), and the values the Vercel AI SDK embeds, as inputs and outputs", async () => {
    const { spans } = await decoded([
      span({
        attributes: [
          attr('gen_ai.operation.name', 'execute_tool'),
          attr('gen_ai.tool.call.arguments', '{"city":"Paris"}'),
          attr('gen_ai.tool.call.result', 'sunny'),
        ],
      }),
      span({ name: 'ai.toolCall', attributes: [attr('ai.toolCall.args', '{"city":"Paris"}'), attr('ai.toolCall.result', '"14 °C"')] }),
      span({ name: 'ai.embed', attributes: [attr('ai.value', '"hello"')] }),
      span({
        name: 'ai.embedMany.doEmbed',
        attributes: [{ key: 'ai.values', value: { arrayValue: { values: [{ stringValue: '"a"' }, { stringValue: '{"b":1}' }] } } }],
      }),
    ]);
    const [genAi, vercel, embed, embedMany] = spans.map((s) => mapSpan(s, bare));
    expect(genAi).toMatchObject({ kind: 'tool', inputs: { city: 'Paris' }, outputs: 'sunny', metadata: { 'gen_ai.operation.name': 'execute_tool' } });
    expect(Object.keys((genAi as { metadata: object }).metadata)).toEqual(['gen_ai.operation.name']);
    expect(vercel).toMatchObject({ kind: 'tool', inputs: { city: 'Paris' }, outputs: '14 °C', metadata: {} });
    expect(embed).toMatchObject({ kind: 'chain', inputs: 'hello', outputs: null, metadata: {} });
    expect(embedMany).toMatchObject({ kind: 'embedding', inputs: ['a', { b: 1 }], metadata: {} });
  });

  it("OpenInference's metadata JSON is kept as the object it is, and names the provider (LangChain's ls_provider), session and user after every attribute", async () => {
    const metadata = JSON.stringify({ ls_provider: 'anthropic', ls_model_name: 'claude-3-5-sonnet', session_id: 's-3', user_id: 'u-3' });
    const { spans } = await decoded([
      span({ attributes: [attr('openinference.span.kind', 'LLM'), attr('metadata', metadata)] }),
      span({ spanId: '2222222222222222', attributes: [attr('llm.provider', 'openai'), attr('session.id', 's-1'), attr('metadata', metadata)] }),
      span({ spanId: '3333333333333333', attributes: [attr('metadata', 'not {json}'), attr('user.id', 'u-1')] }),
      span({ spanId: '4444444444444444', attributes: [attr('metadata', '{"broken": ')] }),
    ]);
    expect(mapSpan(spans[0]!, bare)).toMatchObject({ provider: 'anthropic', sessionId: 's-3', userId: 'u-3', metadata: { metadata: JSON.parse(metadata) } });
    expect(mapSpan(spans[1]!, bare)).toMatchObject({ provider: 'openai', sessionId: 's-1', userId: 'u-3' });
    expect(mapSpan(spans[2]!, bare)).toMatchObject({ provider: null, sessionId: null, userId: 'u-1', metadata: { metadata: 'not {json}' } });
    expect(mapSpan(spans[3]!, bare)).toMatchObject({ provider: null, sessionId: null, metadata: { metadata: '{"broken": ' } });
  });

  it('names providers by the GenAI registry, whichever client spelled them, the attribute as sent kept in metadata', async () => {
    const { spans } = await decoded([
      span({ attributes: [attr('ai.model.provider', 'openai.chat')] }),
      span({ spanId: '2222222222222222', attributes: [attr('ai.model.provider', 'openai.embedding')] }),
      span({ spanId: '3333333333333333', attributes: [attr('llm.provider', 'mistralai')] }),
      span({ spanId: '4444444444444444', attributes: [attr('gen_ai.provider.name', 'gcp.vertex_ai')] }),
      span({ spanId: '5555555555555555', attributes: [attr('metadata', JSON.stringify({ ls_provider: 'google_genai' }))] }),
    ]);
    const mapped = spans.map((s) => mapSpan(s, bare) as { provider: string; metadata: Record<string, unknown> });
    expect(mapped.map((run) => run.provider)).toEqual(['openai', 'openai', 'mistral_ai', 'gcp.vertex_ai', 'gcp.gen_ai']);
    expect(mapped[0]!.metadata['ai.model.provider']).toBe('openai.chat');
    expect(mapped[2]!.metadata['llm.provider']).toBe('mistralai');
  });

  it('an embedding run’s inputs are the texts it embedded, not the request they were sent in', async () => {
    const request = JSON.stringify({ input: ['first', 'second'], model: 'text-embedding-3-small', encoding_format: 'base64' });
    const { spans } = await decoded([
      span({ attributes: [attr('openinference.span.kind', 'EMBEDDING'), attr('input.value', request), attr('input.mime_type', 'application/json')] }),
      span({
        spanId: '2222222222222222',
        attributes: [
          attr('openinference.span.kind', 'EMBEDDING'),
          attr('input.value', request),
          attr('embedding.embeddings.1.embedding.text', 'second'),
          attr('embedding.embeddings.0.embedding.text', 'first'),
        ],
      }),
      span({ spanId: '3333333333333333', attributes: [attr('gen_ai.operation.name', 'embeddings'), attr('gen_ai.prompt.0.content', 'only one')] }),
      span({ spanId: '4444444444444444', attributes: [attr('openinference.span.kind', 'EMBEDDING'), attr('input.value', '{"input": [1, 2]}')] }),
    ]);
    const inputs = spans.map((s) => (mapSpan(s, bare) as { kind: string; inputs: unknown }).inputs);
    expect(inputs).toEqual([['first', 'second'], ['first', 'second'], 'only one', { input: [1, 2] }]);
  });

  it('an end before the start (clock skew) is read as the start; a span without an end keeps none', async () => {
    const { spans } = await decoded([span({ endTimeUnixNano: '1699999999000000000' }), span({ spanId: '1111111111111111', endTimeUnixNano: '0' })]);
    expect(mapSpan(spans[0]!, bare)).toMatchObject({ startTime: 1700000000123, endTime: 1700000000123, endNanos: 456789 });
    expect(mapSpan(spans[1]!, bare)).toMatchObject({ endTime: null, endNanos: null });
  });

  it('refuses, with the reason, a span without valid ids or a start time', async () => {
    const { spans } = await decoded([
      span({ spanId: '0000000000000000' }),
      span({ traceId: 'abcd' }),
      span({ spanId: undefined }),
      span({ startTimeUnixNano: '0' }),
    ]);
    const reasons = spans.map((s) => mapSpan(s, bare));
    expect(reasons.slice(0, 3)).toEqual(Array(3).fill({ rejected: 'A span has no valid trace id (16 bytes) or span id (8 bytes).' }));
    expect(reasons[3]).toEqual({ rejected: 'Span b7ad6b7169203331 has no start time.' });
  });
});
