import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalBase64url } from './pagination.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split('');

describe('canonicalBase64url', () => {
  it('says what decoding the text and encoding its bytes again would, for any base64url text', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ALPHABET), { maxLength: 64 }), (chars) => {
        const text = chars.join('');
        expect(canonicalBase64url(text)).toBe(Buffer.from(text, 'base64url').toString('base64url') === text);
      }),
      { numRuns: 5000 },
    );
  });

  it('holds what Buffer writes, and refuses stray bits and lengths of 4n + 1', () => {
    for (let n = 0; n < 40; n++) expect(canonicalBase64url(Buffer.alloc(n, 0xa7).toString('base64url'))).toBe(true);
    expect(canonicalBase64url('AB')).toBe(false); // 'B' sets bits past the one byte
    expect(canonicalBase64url('AQ')).toBe(true);
    expect(canonicalBase64url('AAB')).toBe(false);
    expect(canonicalBase64url('AAE')).toBe(true);
    expect(canonicalBase64url('AAAAA')).toBe(false);
  });
});
