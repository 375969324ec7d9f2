import { describe, expect, it } from 'vitest';
import { Problem } from '../../lib/problems.js';
import { checkOtlpSize, MAX_OTLP_MESSAGES } from './otlp.bounds.js';
import { emptySpansRequest } from './otlp.test-support.js';

describe('the count of messages in an OTLP request', () => {
  it('is left uncounted where the bytes cannot hold too many (two bytes a message at least)', () => {
    const body = emptySpansRequest(MAX_OTLP_MESSAGES - 5);
    expect(body.length).toBeLessThanOrEqual(2 * MAX_OTLP_MESSAGES);
    expect(() => checkOtlpSize(body)).not.toThrow();
  });

  it('refuses more messages than the bound (413) in a larger body', () => {
    let thrown: unknown;
    try {
      checkOtlpSize(emptySpansRequest(MAX_OTLP_MESSAGES + 100));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Problem);
    expect((thrown as Problem).slug).toBe('payload-too-large');
  });
});
