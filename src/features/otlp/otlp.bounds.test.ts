import { describe, expect, it } from 'vitest';
import { Problem } from '../../lib/problems.js';
import { checkOtlpSize, countMessages, MAX_OTLP_MESSAGES } from './otlp.bounds.js';
import { encodeOtlpRequest } from './otlp.decode.js';
import { emptySpansRequest } from './otlp.test-support.js';

describe('the count of messages in an OTLP request', () => {
  it('is left uncounted where the bytes cannot hold too many (two bytes a message at least)', async () => {
    const body = emptySpansRequest(MAX_OTLP_MESSAGES - 5);
    expect(body.length).toBeLessThanOrEqual(2 * MAX_OTLP_MESSAGES);
    await expect(checkOtlpSize(body)).resolves.toBeUndefined();
  });

  it('refuses more messages than the bound (413) in a larger body, giving the event loop turns meanwhile', async () => {
    let turns = 0;
    const thrown = await checkOtlpSize(emptySpansRequest(MAX_OTLP_MESSAGES + 100), async () => void turns++).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(Problem);
    expect((thrown as Problem).slug).toBe('payload-too-large');
    expect(turns).toBeGreaterThan(10);
  });

  it('counts nested messages without the call stack: attributes, their values, and values nested to the bound', () => {
    let value: object = { stringValue: 'leaf' };
    for (let i = 0; i < 100; i++) value = { arrayValue: { values: [value] } };
    const body = encodeOtlpRequest({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  name: 's',
                  attributes: [
                    { key: 'a', value: { intValue: '1' } },
                    { key: 'deep', value },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    // resourceSpans, scopeSpans, span (depths 1–3), 2 keyValues (4), the first's value (5), then the
    // nested arrays and values at depths 5 to 65: what lies deeper than 64 levels is counted, not walked.
    const count = countMessages(body, 0, body.length, 'request', MAX_OTLP_MESSAGES);
    expect(count).toBe(3 + 2 + 1 + (65 - 5 + 1));
    expect(countMessages(body, 0, body.length, 'request', 3)).toBe(4);
  });
});
