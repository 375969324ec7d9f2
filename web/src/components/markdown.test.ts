import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { conversationOf } from './conversation.js';
import { Markdown, parseBlocks } from './markdown.js';

describe('Markdown', () => {
  it('splits a message into fenced code, headings, lists, quotes and paragraphs', () => {
    const text = '## Policy\nAnswer **briefly**.\n\n```sql\nselect 1;\n\nselect 2;\n```\n- one\n- two\n1. first\n> quoted\nlast line';
    expect(parseBlocks(text)).toEqual([
      { type: 'heading', level: 2, text: 'Policy' },
      { type: 'paragraph', text: 'Answer **briefly**.' },
      { type: 'code', lang: 'sql', text: 'select 1;\n\nselect 2;' },
      { type: 'list', ordered: false, items: ['one', 'two'] },
      { type: 'list', ordered: true, items: ['first'] },
      { type: 'quote', text: 'quoted' },
      { type: 'paragraph', text: 'last line' },
    ]);
    // An unclosed fence runs to the end.
    expect(parseBlocks('```\ncode')).toEqual([{ type: 'code', lang: '', text: 'code' }]);
  });

  it('renders inline code, bold, italic and http(s) links, and never the text as HTML', () => {
    const text = 'Use `npm ci`, **now**, *please*: [docs](https://example.test/a) [x](javascript:alert(1)) <img src=x onerror=alert(1)>';
    const html = renderToStaticMarkup(createElement(Markdown, { text }));
    expect(html).toContain('<code>npm ci</code>');
    expect(html).toContain('<strong>now</strong>');
    expect(html).toContain('<em>please</em>');
    expect(html).toContain('<a href="https://example.test/a" target="_blank" rel="noopener noreferrer nofollow">docs</a>');
    expect(html).not.toContain('href="javascript');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
});

describe('conversationOf', () => {
  it('reads GenAI parts, OpenAI messages with tool calls, tool results, bare prompts and texts', () => {
    // GenAI parts that are read as they are.
    const toolCall = {
      role: 'assistant',
      parts: [
        { type: 'tool_call', id: 'c1', name: 'lookup', arguments: { id: 42 } },
        { type: 'reasoning', content: 'hm' },
      ],
    };
    expect(
      conversationOf(
        {
          messages: [
            { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
            toolCall,
            { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: 'ok' }] },
            { role: 'user', parts: [{ type: 'uri', modality: 'image', uri: 'https://example.test/cat.png' }] },
          ],
        },
        'input',
      ),
    ).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
      toolCall,
      { role: 'tool', parts: [{ type: 'tool_result', id: 'c1', response: 'ok' }] },
      { role: 'user', parts: [{ type: 'image', uri: 'https://example.test/cat.png' }] },
    ]);
    expect(
      conversationOf(
        {
          messages: [
            { role: 'user', content: [{ type: 'text', text: 'hi' }] },
            { role: 'assistant', content: null, tool_calls: [{ id: 'c2', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
            { role: 'tool', tool_call_id: 'c2', content: '42' },
          ],
        },
        'input',
      ),
    ).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'hi' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c2', name: 'f', arguments: '{"a":1}' }] },
      { role: 'tool', parts: [{ type: 'tool_result', id: 'c2', response: '42' }] },
    ]);
    expect(conversationOf({ prompt: 'weather?' }, 'input')).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'weather?' }] }]);
    expect(conversationOf({ content: 'sunny', finishReason: 'stop' }, 'output')).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'sunny' }] }]);
    expect(conversationOf('plain', 'output')).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'plain' }] }]);
    // Not a conversation: shown as JSON.
    expect(conversationOf({ orderId: 42 }, 'input')).toBeNull();
    expect(conversationOf({ messages: [{ nope: true }] }, 'input')).toBeNull();
  });
});

describe('recordCounter', () => {
  it('counts NDJSON records and CSV rows across pieces that split lines, leaving out cursor lines and the header', async () => {
    const { recordCounter } = await import('./export-button.js');
    const ndjson = recordCounter('ndjson');
    expect(ndjson('{"id":"a"}\n{"id":')).toBe(1);
    expect(ndjson('"b"}\n{"cursor":"x"}\n{"cur')).toBe(2);
    expect(ndjson('sor":null}\n')).toBe(2);
    const csv = recordCounter('csv');
    expect(csv('id,name\r\na,"two\nlines"\r')).toBe(0);
    expect(csv('\nb,c\r\n')).toBe(2);
  });
});
