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
