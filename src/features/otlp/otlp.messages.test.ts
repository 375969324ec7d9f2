import { describe, expect, it } from 'vitest';
import { inputMessagesOf, outputMessagesOf } from './otlp.messages.js';

const t = (content: string) => ({ type: 'text', content });

describe("a span's conversation in one message shape", () => {
  it('GenAI messages, structured or as JSON text, with the system instructions first', () => {
    const input = [{ role: 'user', parts: [t('Hi')] }];
    const output = [{ role: 'assistant', parts: [t('Hello')], finish_reason: 'stop' }];
    const attributes = { 'gen_ai.input.messages': JSON.stringify(input), 'gen_ai.system_instructions': [t('Be brief.')], 'gen_ai.output.messages': output };
    expect(inputMessagesOf(attributes)).toEqual([{ role: 'system', parts: [t('Be brief.')] }, ...input]);
    expect(outputMessagesOf(attributes)).toEqual(output);
    expect(inputMessagesOf({ 'gen_ai.input.messages': 'not json' })).toBeNull();
  });

  it('OpenInference flattened messages: content, contents, tool calls and tool results, in index order', () => {
    const attributes = {
      'llm.input_messages.1.message.role': 'user',
      'llm.input_messages.1.message.contents.0.message_content.type': 'text',
      'llm.input_messages.1.message.contents.0.message_content.text': 'Weather in Paris?',
      'llm.input_messages.0.message.role': 'system',
      'llm.input_messages.0.message.content': 'Be brief.',
      'llm.input_messages.2.message.role': 'tool',
      'llm.input_messages.2.message.content': '18°C',
      'llm.input_messages.2.message.tool_call_id': 'call_1',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_2',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'weather',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"city":"Paris"}',
    };
    expect(inputMessagesOf(attributes)).toEqual([
      { role: 'system', parts: [t('Be brief.')] },
      { role: 'user', parts: [t('Weather in Paris?')] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: '18°C' }] },
    ]);
    expect(outputMessagesOf(attributes)).toEqual([
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_2', name: 'weather', arguments: { city: 'Paris' } }] },
    ]);
    // The first choice's finish reason, recorded beside its message.
    expect(outputMessagesOf({ ...attributes, 'llm.finish_reason': 'tool_calls' })).toEqual([
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_2', name: 'weather', arguments: { city: 'Paris' } }], finish_reason: 'tool_calls' },
    ]);
  });

  it('the Vercel AI SDK: prompt messages with tool calls and results, the response text and tool calls', () => {
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Paris' } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'weather', output: { type: 'json', value: { c: 18 } } }] },
    ];
    expect(inputMessagesOf({ 'ai.prompt.messages': JSON.stringify(messages) })).toEqual([
      { role: 'system', parts: [t('Be brief.')] },
      { role: 'user', parts: [t('Weather?')] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'weather', arguments: { city: 'Paris' } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: { c: 18 } }] },
    ]);
    expect(
      outputMessagesOf({
        'ai.response.text': 'It is 18°C.',
        'ai.response.toolCalls': '[{"toolCallId":"c2","toolName":"log","input":"plain text"}]',
        'ai.response.finishReason': 'stop',
      }),
    ).toEqual([{ role: 'assistant', parts: [t('It is 18°C.'), { type: 'tool_call', id: 'c2', name: 'log', arguments: 'plain text' }], finish_reason: 'stop' }]);
  });

  it("the Vercel AI SDK's outer spans: the prompt as given (system, a text or messages)", () => {
    expect(inputMessagesOf({ 'ai.prompt': '{"system":"Be brief.","prompt":"Weather in Paris?"}' })).toEqual([
      { role: 'system', parts: [t('Be brief.')] },
      { role: 'user', parts: [t('Weather in Paris?')] },
    ]);
    const messages = [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }];
    expect(inputMessagesOf({ 'ai.prompt': JSON.stringify({ messages }) })).toEqual([{ role: 'user', parts: [t('Hi')] }]);
    expect(inputMessagesOf({ 'ai.prompt': JSON.stringify({ prompt: messages }) })).toEqual([{ role: 'user', parts: [t('Hi')] }]);
    // The model call's own messages, when the span has both.
    expect(inputMessagesOf({ 'ai.prompt': '{"prompt":"outer"}', 'ai.prompt.messages': JSON.stringify(messages) })).toEqual([
      { role: 'user', parts: [t('Hi')] },
    ]);
    expect(inputMessagesOf({ 'ai.prompt': '{}' })).toBeNull();
  });

  it('the older indexed GenAI attributes', () => {
    const attributes = {
      'gen_ai.prompt.0.role': 'user',
      'gen_ai.prompt.0.content': 'Hi',
      'gen_ai.completion.0.role': 'assistant',
      'gen_ai.completion.0.content': 'Hello',
      'gen_ai.completion.0.finish_reason': 'stop',
      'gen_ai.completion.0.tool_calls.0.name': 'search',
      'gen_ai.completion.0.tool_calls.0.arguments': '{"q":"x"}',
    };
    expect(inputMessagesOf(attributes)).toEqual([{ role: 'user', parts: [t('Hi')] }]);
    expect(outputMessagesOf(attributes)).toEqual([
      { role: 'assistant', parts: [t('Hello'), { type: 'tool_call', id: null, name: 'search', arguments: { q: 'x' } }], finish_reason: 'stop' },
    ]);
  });

  it('a span without messages has none', () => {
    expect(inputMessagesOf({ 'http.method': 'GET' })).toBeNull();
    expect(outputMessagesOf({})).toBeNull();
  });
});
