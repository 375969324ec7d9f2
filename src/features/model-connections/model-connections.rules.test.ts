/** `quoteSafely`: what an endpoint sent, shown without any piece of a connection's secrets, wherever the clip falls. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MIN_SECRET_PIECE, quoteSafely, REDACTED } from './model-connections.rules.js';
import { leakedPieces } from './model-connections.test-support.js';

const KEY = 'sk-live/AbC+dEf"gh&ij=0123456789XYZ';

describe('quoteSafely', () => {
  it('redacts before it clips: a key that straddles the limit leaves nothing of itself', () => {
    for (let at = 250; at <= 310; at++) {
      const text = `${'x'.repeat(at)}${KEY} and more`;
      const quoted = quoteSafely(text, [KEY], 300);
      expect(leakedPieces(quoted, [KEY]), `key at ${at}`).toEqual([]);
      expect(quoted.length).toBeLessThanOrEqual(301);
      // Redacted, the text is `at` + 10 + 9 characters long: clipped only past 300.
      expect(quoted.endsWith('…')).toBe(at + REDACTED.length + ' and more'.length > 300);
    }
  });

  it('never cuts a marker: the clip falls before it', () => {
    const text = `${'x'.repeat(295)}${KEY}`;
    expect(quoteSafely(text, [KEY], 300)).toBe(`${'x'.repeat(295)}…`);
    expect(quoteSafely(`${'x'.repeat(290)}${KEY}`, [KEY], 300)).toBe(`${'x'.repeat(290)}${REDACTED}`);
  });

  it('redacts the forms a key takes in an answer: in a JSON string, with / escaped, percent-encoded, in HTML', () => {
    const forms = [
      KEY,
      JSON.stringify(KEY).slice(1, -1),
      JSON.stringify(KEY).slice(1, -1).replace(/\//g, '\\/'),
      encodeURIComponent(KEY),
      KEY.replace(/&/g, '&amp;').replace(/"/g, '&quot;'),
    ];
    for (const form of forms) {
      const quoted = quoteSafely(`Incorrect API key provided: ${form}.`, [KEY], 300);
      expect(quoted, form).toBe(`Incorrect API key provided: ${REDACTED}.`);
    }
  });

  it('redacts a piece of a key (an echo cut short) of 8 characters or more, and leaves shorter ones', () => {
    expect(quoteSafely(`key ${KEY.slice(0, 20)}… is wrong`, [KEY], 300)).toBe(`key ${REDACTED}… is wrong`);
    expect(quoteSafely(`key ending ${KEY.slice(-7)}`, [KEY], 300)).toBe(`key ending ${KEY.slice(-7)}`);
    expect(quoteSafely(`key ending ${KEY.slice(-8)}`, [KEY], 300)).toBe(`key ending ${REDACTED}`);
  });

  it('leaves secrets under 4 characters (an extra header such as "1") alone, and stores what the engines store', () => {
    expect(quoteSafely('version 1 is gone', ['1'], 300)).toBe('version 1 is gone');
    expect(quoteSafely('nul \u0000 and a lone \ud800 surrogate', [], 300)).toBe('nul \ufffd and a lone \ufffd surrogate');
    expect(quoteSafely(`${'x'.repeat(299)}😀`, [], 300)).toBe(`${'x'.repeat(299)}…`);
  });

  it('property: wherever a key and its pieces fall in a text of any length, no piece of it is shown', () => {
    const key = fc.stringMatching(/^[ -~]{8,60}$/);
    fc.assert(
      fc.property(key, fc.nat({ max: 700 }), fc.nat({ max: 60 }), fc.nat({ max: 400 }), fc.constantFrom(100, 200, 300), (secret, before, cutAt, after, max) => {
        const piece = secret.slice(0, Math.max(MIN_SECRET_PIECE, cutAt));
        const text = `${'a'.repeat(before)}${secret} ${piece} ${'b'.repeat(after)}`;
        const quoted = quoteSafely(text, [secret], max);
        expect(leakedPieces(quoted, [secret])).toEqual([]);
        expect(quoted.length).toBeLessThanOrEqual(max + 1);
      }),
      { numRuns: 500 },
    );
  });
});
