import { afterAll, describe, expect, it } from 'vitest';
import { MAX_CALL_CHARS, MAX_RUN_CHARS, tokenCounter } from '../models/index.js';
import { estimateUsages } from './runs.estimate.js';

const chat = (text: string) => ({ messages: [{ role: 'user', parts: [{ type: 'text', content: text }] }] });

describe('estimateUsages: which runs of a call have their tokens estimated', () => {
  afterAll(() => tokenCounter.stop());

  it('model runs without usage, from the texts the model read and wrote; not other runs, runs with usage, or runs without text', async () => {
    const raws = [
      {
        kind: 'llm',
        inputs: chat('Hello, world!'),
        outputs: { messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'Hello, world! How are you?' }] }] },
      },
      { kind: 'embedding', inputs: ['Hello, world!', 'How are you?'] },
      { kind: 'llm', inputs: chat('Hello'), usage: { promptTokens: 1, completionTokens: 1 } },
      { kind: 'chain', inputs: chat('Hello') },
      { kind: 'llm', inputs: {}, outputs: null },
      'not a run',
      { kind: 'llm', inputs: { messages: [{ role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'f', arguments: { city: 'Paris' } }] }] } },
    ];
    const estimated = await estimateUsages(raws);
    expect([...estimated.keys()]).toEqual([0, 1, 6]);
    expect(estimated.get(0)).toEqual({ promptTokens: 4, completionTokens: 8, estimated: true });
    expect(estimated.get(1)).toEqual({ promptTokens: 8, completionTokens: 0, estimated: true });
    expect(estimated.get(6)!.promptTokens).toBeGreaterThan(0);
  });

  it('a run past its bound is not estimated, and a call estimates at most MAX_CALL_CHARS', async () => {
    expect((await estimateUsages([{ kind: 'llm', inputs: 'x'.repeat(MAX_RUN_CHARS + 1) }])).size).toBe(0);
    const each = 200_000;
    const raws = Array.from({ length: Math.ceil(MAX_CALL_CHARS / each) + 3 }, () => ({ kind: 'llm', inputs: 'word '.repeat(each / 5) }));
    const estimated = await estimateUsages(raws);
    expect(estimated.size).toBe(Math.floor(MAX_CALL_CHARS / each));
    expect(estimated.get(0)!.promptTokens).toBeGreaterThanOrEqual(each / 5);
    expect(estimated.get(0)!.promptTokens).toBeLessThanOrEqual(each / 5 + 1);
  });
});
