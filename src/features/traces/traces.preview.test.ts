import { describe, expect, it } from 'vitest';
import { PREVIEW_LENGTH, previewOf } from './traces.preview.js';

describe('the preview of inputs and outputs', () => {
  it('reads the last user message going in and the first answer coming out, in the GenAI and OpenAI shapes', () => {
    const conversation = {
      messages: [
        { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
        { role: 'user', parts: [{ type: 'text', content: 'Where is\n\n my order?' }] },
      ],
    };
    expect(previewOf(conversation, 'input')).toBe('Where is my order?');
    expect(previewOf([{ role: 'assistant', content: 'On its way.' }], 'output')).toBe('On its way.');
    expect(previewOf({ messages: [{ role: 'assistant', parts: [{ type: 'tool_call', name: 'lookup', arguments: {} }] }] }, 'output')).toBe('lookup(…)');
    expect(previewOf([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], 'input')).toBe('Hi');
  });

  it('reads every shape a model call is recorded in: OpenAI chat messages, the choices of a completion (wrapOpenAI), Anthropic content blocks', () => {
    const inputs = {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'First question' },
        { role: 'assistant', content: 'First answer' },
        { role: 'user', content: 'Where is\n\n my order?' },
      ],
      temperature: 0.2,
    };
    expect(previewOf(inputs, 'input')).toBe('Where is my order?');
    // What the SDK's wrapOpenAI stores as a call's outputs.
    const completion = { choices: [{ message: { role: 'assistant', content: 'On its way.', refusal: null }, finishReason: 'stop' }] };
    expect(previewOf(completion, 'output')).toBe('On its way.');
    const toolCall = {
      choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{}' } }] } }],
    };
    expect(previewOf(toolCall, 'output')).toBe('lookup(…)');
    const anthropic = { role: 'assistant', content: [{ type: 'text', text: 'Refund issued.' }], stop_reason: 'end_turn' };
    expect(previewOf(anthropic, 'output')).toBe('Refund issued.');
    const parts = {
      messages: [
        {
          role: 'assistant',
          parts: [
            { type: 'tool_call', id: 'c1', name: 'lookup', arguments: {} },
            { type: 'text', content: 'Found it.' },
          ],
        },
      ],
    };
    expect(previewOf(parts, 'output')).toBe('lookup(…) Found it.');
  });

  it('takes the answer of an output with a content field beside others, the prompt of an input beside settings', () => {
    expect(previewOf({ content: 'Your refund was issued.', finishReason: 'stop' }, 'output')).toBe('Your refund was issued.');
    expect(previewOf({ prompt: 'weather in Paris', temperature: 0, user: 'ada' }, 'input')).toBe('weather in Paris');
  });

  it('shows the value of a message with no text (an image only) rather than nothing', () => {
    const image = { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png' } }] }] };
    expect(previewOf(image, 'input')).toContain('image_url');
  });

  it('reads the documents a retriever found: how many and the first one’s content, in the OTLP and LangChain shapes', () => {
    const otlp = { documents: [{ id: 'd1', content: 'Refunds take 5 days.', score: 0.9 }, { content: 'Orders ship in 2 days.' }] };
    expect(previewOf(otlp, 'output')).toBe('2 documents: Refunds take 5 days.');
    expect(previewOf({ documents: [{ pageContent: 'Only one.', metadata: { source: 'faq.md' } }] }, 'output')).toBe('1 document: Only one.');
    // Not documents: a list of something else, or documents going in.
    expect(previewOf({ documents: [{ title: 'x' }] }, 'output')).toBe('{"documents":[{"title":"x"}]}');
    expect(previewOf({ documents: ['a'], query: 'refunds' }, 'input')).toBe('refunds');
  });

  it('takes a lone string field, a string, a number; else compact JSON; nothing for empty values', () => {
    expect(previewOf({ question: 'Refund?', attempt: 2 }, 'input')).toBe('Refund?');
    expect(previewOf('  plain  text ', 'output')).toBe('plain text');
    expect(previewOf(42, 'output')).toBe('42');
    expect(previewOf({ a: 1, b: [true] }, 'input')).toBe('{"a":1,"b":[true]}');
    for (const empty of [null, undefined, {}, '', '   ']) expect(previewOf(empty, 'input')).toBeNull();
  });

  it('cuts long text at the preview length, never inside a surrogate pair', () => {
    const long = previewOf('x'.repeat(1000), 'input')!;
    expect(long).toHaveLength(PREVIEW_LENGTH);
    expect(long.endsWith('…')).toBe(true);
    const emoji = previewOf(`${'a'.repeat(PREVIEW_LENGTH - 2)}😀😀😀`, 'input')!;
    expect(emoji).not.toMatch(/[\ud800-\udbff]…$/);
  });
});
