import { describe, expect, it } from 'vitest';
import { langfuseCost, langfuseIo, langfuseKind, langfuseOutcome, langfuseUsage } from './otlp.langfuse.js';

const usage = (details: unknown) => langfuseUsage({ 'langfuse.observation.usage_details': typeof details === 'string' ? details : JSON.stringify(details) });
const cost = (details: unknown) => langfuseCost({ 'langfuse.observation.cost_details': JSON.stringify(details) });

describe("Langfuse's observation attributes", () => {
  it('types: generation is an llm run, the typed ones as named; span, event, evaluator, guardrail and unknown or uppercase types say nothing', () => {
    const kinds = Object.fromEntries(
      ['generation', 'embedding', 'agent', 'tool', 'chain', 'retriever', 'span', 'event', 'evaluator', 'guardrail', 'GENERATION', 'other', 'constructor'].map(
        (type) => [type, langfuseKind({ 'langfuse.observation.type': type })],
      ),
    );
    // The typed ones as named (generation as llm), exact lowercase values only, as Langfuse maps them.
    const named = ['embedding', 'agent', 'tool', 'chain', 'retriever'];
    const silent = ['span', 'event', 'evaluator', 'guardrail', 'GENERATION', 'other', 'constructor'];
    expect(kinds).toEqual({ generation: 'llm', ...Object.fromEntries(named.map((k) => [k, k])), ...Object.fromEntries(silent.map((k) => [k, null])) });
  });

  it("usage details as Langfuse reads them: its own keys (every 'input' key input, every 'output' key output, total or the sum), OpenAI's objects as OpenAI means them", () => {
    expect(usage({ input: 30, output: 8, total: 38 })).toEqual({
      inputTokens: 30,
      outputTokens: 8,
      totalTokens: 38,
      cacheReadTokens: null,
      cacheCreationTokens: null,
      reasoningTokens: null,
    });
    // Cached input counted beside `input`, reasoning beside `output`: both part of the run's counts.
    expect(usage({ input: 100, input_cached_tokens: 900, input_cache_creation: 50, output: 40, output_reasoning_tokens: 60 })).toEqual({
      inputTokens: 1050,
      outputTokens: 100,
      totalTokens: 1150,
      cacheReadTokens: 900,
      cacheCreationTokens: 50,
      reasoningTokens: 60,
    });
    expect(usage({ input: '12', output: '5' })).toMatchObject({ inputTokens: 12, outputTokens: 5, totalTokens: 17 });
    // OpenAI Chat Completions' usage: prompt_tokens include the cached ones.
    expect(
      usage({
        prompt_tokens: 1000,
        completion_tokens: 100,
        total_tokens: 1100,
        prompt_tokens_details: { cached_tokens: 900 },
        completion_tokens_details: { reasoning_tokens: 60 },
      }),
    ).toEqual({ inputTokens: 1000, outputTokens: 100, totalTokens: 1100, cacheReadTokens: 900, cacheCreationTokens: null, reasoningTokens: 60 });
    // The Responses API's.
    expect(usage({ input_tokens: 10, output_tokens: 4, total_tokens: 14, input_tokens_details: { cached_tokens: 0 } })).toEqual({
      inputTokens: 10,
      outputTokens: 4,
      totalTokens: 14,
      cacheReadTokens: 0,
      cacheCreationTokens: null,
      reasoningTokens: null,
    });
    // Counts Langfuse drops: floats, negatives, objects; nothing left is no usage.
    expect(usage({ input: 1.5, output: -2, other: { a: 1 } })).toBeNull();
    for (const bad of ['not json', '[1,2]', '42', '']) expect(usage(bad)).toBeNull();
    expect(langfuseUsage({})).toBeNull();
  });

  it('cost details: the total, else input + output when those are all, else none', () => {
    expect(cost({ input: 0.0000045, output: 0.0000048, total: 0.0000093 })).toBe(0.0000093);
    expect(cost({ input: 0.25, output: 0.5 })).toBe(0.75);
    expect(cost({ output: 0.5 })).toBe(0.5);
    expect(cost({ input: 0.25, input_cached_tokens: 0.01 })).toBeNull();
    expect(cost({ total: -1, input: 'x' })).toBeNull();
    expect(langfuseCost({ 'langfuse.observation.cost_details': 'nope' })).toBeNull();
  });

  it('the level decides over the status: ERROR (or FATAL, CRITICAL) fails with the status message, else the span’s; any other level succeeds; no level says nothing', () => {
    const outcome = (level: string, message?: string, statusMessage: string | null = null) =>
      langfuseOutcome({ 'langfuse.observation.level': level, ...(message ? { 'langfuse.observation.status_message': message } : {}) }, statusMessage);
    expect(outcome('ERROR', 'Blocked')).toEqual({ status: 'failed', error: 'Blocked' });
    expect(outcome('fatal', undefined, 'from the span')).toEqual({ status: 'failed', error: 'from the span' });
    expect(outcome(' critical ')).toEqual({ status: 'failed', error: 'The observation ended with level ERROR.' });
    for (const level of ['DEFAULT', 'WARNING', 'warn', 'DEBUG', 'info']) expect(outcome(level, 'x')).toEqual({ status: 'succeeded' });
    expect(outcome('LOUD')).toBeUndefined();
    expect(langfuseOutcome({}, 'x')).toBeUndefined();
  });

  it("inputs and outputs: parsed back from JSON text, the observation's before the trace's; a generation's chat messages as messages", () => {
    const io = (attributes: Record<string, unknown>, side: 'input' | 'output', kind: 'llm' | 'chain' = 'chain') => langfuseIo(attributes, side, kind);
    expect(io({ 'langfuse.observation.input': '{"question":"Paris?"}' }, 'input')).toEqual({ question: 'Paris?' });
    expect(io({ 'langfuse.observation.output': 'plain text' }, 'output')).toBe('plain text');
    expect(io({ 'langfuse.trace.input': '"from the trace"' }, 'input')).toBe('from the trace');
    expect(io({ 'langfuse.observation.input': '1', 'langfuse.trace.input': '2' }, 'input')).toBe(1);
    expect(io({}, 'input')).toBeUndefined();
    const asked = JSON.stringify([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather?' },
          { type: 'image_url', image_url: { url: 'https://example.test/a.png' } },
        ],
      },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temperature":21}' },
    ]);
    expect(io({ 'langfuse.observation.input': asked }, 'input', 'llm')).toEqual({
      messages: [
        { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
        {
          role: 'user',
          parts: [
            { type: 'text', content: 'Weather?' },
            { type: 'uri', modality: 'image', uri: 'https://example.test/a.png' },
          ],
        },
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'weather', arguments: { city: 'Paris' } }] },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: { temperature: 21 } }] },
      ],
    });
    expect(io({ 'langfuse.observation.output': JSON.stringify({ role: 'assistant', content: 'Sunny.' }) }, 'output', 'llm')).toEqual({
      messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'Sunny.' }] }],
    });
    expect(io({ 'langfuse.observation.output': 'Sunny.' }, 'output', 'llm')).toEqual({
      messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'Sunny.' }] }],
    });
    // Not chat messages: kept as sent.
    expect(io({ 'langfuse.observation.input': '{"prompt":"x"}' }, 'input', 'llm')).toEqual({ prompt: 'x' });
    expect(io({ 'langfuse.observation.input': '[{"role":"user"},{"no":"role"}]' }, 'input', 'llm')).toEqual([{ role: 'user' }, { no: 'role' }]);
  });
});
