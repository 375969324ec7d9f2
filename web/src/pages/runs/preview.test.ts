import { describe, expect, it } from 'vitest';
import { runPreview } from './preview.js';

describe('the runs list’s previews of inputs and outputs', () => {
  it('reads the last user message going in and the assistant’s text coming out', () => {
    const inputs = {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'First question' },
        { role: 'assistant', content: 'First answer' },
        { role: 'user', content: 'Where is\n\n my order?' },
      ],
      temperature: 0.2,
    };
    expect(runPreview(inputs, 'input')).toBe('Where is my order?');
    // OpenAI's response shape, and a reply with a tool call before its text (GenAI parts).
    expect(runPreview({ choices: [{ message: { role: 'assistant', content: 'On its way.' } }] }, 'output')).toBe('On its way.');
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
    expect(runPreview(parts, 'output')).toBe('lookup(…) Found it.');
  });

  it('takes the answer of an output with a content field beside others (where the traces list would show JSON)', () => {
    expect(runPreview({ content: 'Your refund was issued.', finishReason: 'stop' }, 'output')).toBe('Your refund was issued.');
    expect(runPreview({ prompt: 'weather in Paris', temperature: 0 }, 'input')).toBe('weather in Paris');
  });

  it('falls back to compact JSON, cut at 200 characters; nothing for empty values', () => {
    expect(runPreview({ orderId: 42, items: [1, 2] }, 'input')).toBe('{"orderId":42,"items":[1,2]}');
    const long = runPreview({ messages: [{ role: 'user', content: 'word '.repeat(100) }] }, 'input')!;
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
    // A message with no text (an image only) shows the value rather than nothing.
    expect(runPreview({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png' } }] }] }, 'input')).toContain(
      'image_url',
    );
    for (const empty of [null, undefined, {}, '']) expect(runPreview(empty, 'output')).toBeNull();
  });
});
