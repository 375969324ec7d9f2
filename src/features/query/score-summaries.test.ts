import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LARGE_RECORD_CHARS, withScoresBody, withScoresText, type ScoreSummary } from './score-summaries.js';

const summary: fc.Arbitrary<ScoreSummary> = fc.record({
  name: fc.string({ unit: 'binary', maxLength: 12 }),
  dataType: fc.constantFrom('numeric', 'boolean', 'categorical'),
  value: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ unit: 'binary', maxLength: 8 })),
  count: fc.integer({ min: 1, max: 1000 }),
});

/** A stored record: JSON text of an object, its strings any code points (lone surrogates included). */
const record = fc
  .tuple(fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 40 }), { maxKeys: 6 }), fc.nat(3), fc.nat(3))
  .map(([members, repeat, filler]) => {
    // Large enough, some of them, to be answered as bytes: a member repeated past the bound.
    const large = repeat > 1 ? { big: `${'é🙂x'.repeat(filler + 1)}${'a'.repeat(LARGE_RECORD_CHARS)}` } : {};
    return JSON.stringify({ id: 'run_1', ...members, ...large });
  });

describe('withScoresBody', () => {
  it("is withScoresText's text, as text below the bound and as its UTF-8 bytes from it", () => {
    fc.assert(
      fc.property(record, fc.array(summary, { maxLength: 4 }), (text, scores) => {
        const body = withScoresBody(text, scores);
        const expected = withScoresText(text, scores);
        if (text.length < LARGE_RECORD_CHARS) expect(body).toBe(expected);
        else {
          expect(Buffer.isBuffer(body)).toBe(true);
          expect((body as Buffer).equals(Buffer.from(expected, 'utf8'))).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('answers a record of megabytes with its scores last, parsed back to the same value', () => {
    const inputs = { messages: Array.from({ length: 5_000 }, (_, k) => ({ role: 'user', content: `message ${k} — ünïcode 🙂 ${'x'.repeat(200)}` })) };
    const text = JSON.stringify({ id: 'run_1', inputs });
    const scores: ScoreSummary[] = [{ name: 'qualité', dataType: 'numeric', value: 0.5, count: 2 }];
    const body = withScoresBody(text, scores) as Buffer;
    expect(Buffer.isBuffer(body)).toBe(true);
    expect(JSON.parse(body.toString('utf8'))).toEqual({ id: 'run_1', inputs, scores });
  });
});
