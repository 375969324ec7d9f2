import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { conversationOf } from './conversation.js';
import MarkdownText from './markdown-render.js';

describe('Markdown', () => {
  const render = (text: string) => renderToStaticMarkup(createElement(MarkdownText, { text }));

  it('renders headings under the message’s own, lists, quotes, GFM tables, strikethrough and task lists', () => {
    const html = render('## Policy\n- one\n- [x] done\n\n> quoted\n\n| Plan | Price |\n| --- | ---: |\n| Pro | $20 |\n\n~~old~~');
    expect(html).toContain('<h4>Policy</h4>');
    expect(html).toMatch(/<li>one<\/li>/);
    expect(html).toMatch(/<input type="checkbox" disabled="" checked=""\/> done/);
    expect(html).toContain('<blockquote>\n<p>quoted</p>\n</blockquote>');
    expect(html).toMatch(
      /<table><thead><tr><th>Plan<\/th><th style="text-align:right">Price<\/th><\/tr><\/thead><tbody><tr><td>Pro<\/td><td style="text-align:right">\$20<\/td><\/tr><\/tbody><\/table>/,
    );
    expect(html).toContain('<del>old</del>');
  });

  it('highlights fenced code by its language, names it, and leaves a block without one plain', () => {
    const html = render('```sql\nselect * from orders where id = 42\n```\n\n```\nplain text\n```');
    expect(html).toContain(
      '<pre class="sl-code" data-lang="sql"><span class="sl-code-lang">sql</span><code class="language-sql hljs"><span class="hljs-keyword">select</span>',
    );
    expect(html).toContain('<pre class="sl-code"><code>plain text\n</code></pre>');
    // A language the renderer does not know: named, not highlighted.
    expect(render('```cobol\nDISPLAY "HI".\n```')).toContain(
      '<span class="sl-code-lang">cobol</span><code class="language-cobol">DISPLAY &quot;HI&quot;.\n</code>',
    );
  });

  it('renders inline code, bold, italic and http(s) links, and never the text as HTML', () => {
    const text =
      'Use `npm ci`, **now**, *please*: [docs](https://example.test/a) [x](javascript:alert(1)) <img src=x onerror=alert(1)> ![cat](https://example.test/cat.png)';
    const html = render(text);
    expect(html).toContain('<code>npm ci</code>');
    expect(html).toContain('<strong>now</strong>');
    expect(html).toContain('<em>please</em>');
    expect(html).toContain('<a href="https://example.test/a" target="_blank" rel="noopener noreferrer nofollow">docs</a>');
    expect(html).not.toContain('javascript');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    // An image is a link to it, never loaded.
    expect(html).toContain('<a href="https://example.test/cat.png" target="_blank" rel="noopener noreferrer nofollow">Image: cat</a>');
    expect(html).not.toContain('<img');
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
