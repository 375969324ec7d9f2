import { describe, expect, it } from 'vitest';
import { usageOf } from './otlp.usage.js';

const none = { cacheReadTokens: null, cacheCreationTokens: null, reasoningTokens: null };

describe('the token usage of a span', () => {
  it('GenAI: input and output, the total computed, cache and reasoning parts', () => {
    expect(
      usageOf('chat', {
        'gen_ai.usage.input_tokens': 120,
        'gen_ai.usage.output_tokens': 30,
        'gen_ai.usage.cache_read.input_tokens': 100,
        'gen_ai.usage.cache_creation.input_tokens': 5,
        'gen_ai.usage.reasoning.output_tokens': 12,
      }),
    ).toEqual({ inputTokens: 120, outputTokens: 30, totalTokens: 150, cacheReadTokens: 100, cacheCreationTokens: 5, reasoningTokens: 12 });
  });

  it('GenAI deprecated and OpenLLMetry names', () => {
    expect(usageOf('x', { 'gen_ai.usage.prompt_tokens': 7, 'gen_ai.usage.completion_tokens': 3, 'gen_ai.usage.total_tokens': 11 })).toEqual({
      inputTokens: 7,
      outputTokens: 3,
      totalTokens: 11,
      ...none,
    });
    expect(usageOf('x', { 'gen_ai.usage.input_tokens': 7, 'gen_ai.usage.cache_read_input_tokens': 2, 'gen_ai.usage.reasoning_tokens': 1 })).toMatchObject({
      inputTokens: 7,
      outputTokens: 0,
      totalTokens: 7,
      cacheReadTokens: 2,
      reasoningTokens: 1,
    });
  });

  it('OpenInference token counts and their details', () => {
    expect(
      usageOf('OpenAI Chat Completions', {
        'llm.token_count.prompt': 20,
        'llm.token_count.completion': 7,
        'llm.token_count.total': 27,
        'llm.token_count.prompt_details.cache_read': 5,
        'llm.token_count.prompt_details.cache_write': 1,
        'llm.token_count.completion_details.reasoning': 3,
      }),
    ).toEqual({ inputTokens: 20, outputTokens: 7, totalTokens: 27, cacheReadTokens: 5, cacheCreationTokens: 1, reasoningTokens: 3 });
  });

  it('Vercel AI SDK: counted on the model calls, never on the outer span that sums them', () => {
    const usage = { 'ai.usage.inputTokens': 10, 'ai.usage.outputTokens': 4, 'ai.usage.totalTokens': 14, 'ai.usage.cachedInputTokens': 2 };
    expect(usageOf('ai.generateText.doGenerate', usage)).toEqual({ inputTokens: 10, outputTokens: 4, totalTokens: 14, ...none, cacheReadTokens: 2 });
    expect(usageOf('ai.generateText', usage)).toBeNull();
    expect(usageOf('support-chat', { ...usage, 'ai.operationId': 'ai.streamText' })).toBeNull();
    expect(usageOf('ai.generateText.doGenerate', { 'ai.usage.promptTokens': 3, 'ai.usage.completionTokens': 2 })).toMatchObject({ totalTokens: 5 });
    expect(usageOf('ai.embed.doEmbed', { 'ai.usage.tokens': 8 })).toEqual({ inputTokens: 8, outputTokens: 0, totalTokens: 8, ...none });
    expect(usageOf('ai.embed', { 'ai.usage.tokens': 8 })).toBeNull();
  });

  it('a total alone gives the missing side; junk counts are ignored; no count is no usage', () => {
    expect(usageOf('x', { 'llm.token_count.total': 9, 'llm.token_count.prompt': 6 })).toMatchObject({ inputTokens: 6, outputTokens: 3, totalTokens: 9 });
    expect(usageOf('x', { 'gen_ai.usage.input_tokens': '42' })).toMatchObject({ inputTokens: 42, totalTokens: 42 });
    expect(usageOf('x', { 'gen_ai.usage.input_tokens': -1, 'gen_ai.usage.output_tokens': 1.5 })).toBeNull();
    expect(usageOf('x', { 'gen_ai.usage.input_tokens': '9223372036854775807' })).toBeNull();
    expect(usageOf('GET /', { 'http.status_code': 200 })).toBeNull();
  });
});
