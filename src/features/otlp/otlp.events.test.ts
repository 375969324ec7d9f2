import { describe, expect, it } from 'vitest';
import { eventMessagesOf } from './otlp.events.js';

describe("a model call's conversation from span events", () => {
  it('reads the GenAI message events, their body as gen_ai.event.content JSON or as attributes', () => {
    const events = [
      { name: 'gen_ai.system.message', attributes: { 'gen_ai.event.content': '{"content":"Be brief."}' } },
      { name: 'gen_ai.user.message', attributes: { content: 'Weather in Paris?' } },
      {
        name: 'gen_ai.assistant.message',
        attributes: {
          'gen_ai.event.content': JSON.stringify({
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
          }),
        },
      },
      { name: 'gen_ai.tool.message', attributes: { 'gen_ai.event.content': '{"content":"rainy","id":"c1"}' } },
      { name: 'gen_ai.choice', attributes: { 'gen_ai.event.content': '{"index":0,"finish_reason":"stop","message":{"content":"Rainy."}}' } },
      { name: 'exception', attributes: { 'exception.message': 'ignored' } },
    ];
    expect(eventMessagesOf(events)).toEqual({
      input: [
        { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
        { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'weather', arguments: { city: 'Paris' } }] },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: 'rainy' }] },
      ],
      output: [{ role: 'assistant', parts: [{ type: 'text', content: 'Rainy.' }], finish_reason: 'stop' }],
    });
  });

  it('reads the older gen_ai.content.prompt and gen_ai.content.completion events, as JSON lists or text', () => {
    const events = [
      { name: 'gen_ai.content.prompt', attributes: { 'gen_ai.prompt': '[{"role":"user","content":"Hi"}]' } },
      { name: 'gen_ai.content.completion', attributes: { 'gen_ai.completion': 'Hello!' } },
    ];
    expect(eventMessagesOf(events)).toEqual({
      input: [{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }],
      output: [{ role: 'assistant', parts: [{ type: 'text', content: 'Hello!' }] }],
    });
    expect(eventMessagesOf([])).toEqual({ input: null, output: null });
  });
});
