import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeJsonBody, utf8Text } from './json-body.js';

const strict = new TextDecoder('utf-8', { fatal: true });

describe('utf8Text', () => {
  it('is the strict decoder’s text for any bytes it takes, ASCII or not, read where they lie in a larger buffer', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.nat(7), fc.nat(7), (text, before, after) => {
        const encoded = new TextEncoder().encode(text);
        const backing = new Uint8Array(before + encoded.length + after).fill(0xff);
        backing.set(encoded, before);
        const bytes = backing.subarray(before, before + encoded.length);
        expect(utf8Text(bytes)).toBe(strict.decode(bytes));
      }),
      { numRuns: 2000 },
    );
    expect(utf8Text(new TextEncoder().encode('{"a":"é"}'))).toBe('{"a":"é"}');
  });

  it('drops a leading byte order mark, as the strict decoder does, and refuses bytes that are not UTF-8', () => {
    expect(utf8Text(Uint8Array.of(0xef, 0xbb, 0xbf, 0x5b, 0x5d))).toBe('[]');
    expect(() => utf8Text(Uint8Array.of(0x5b, 0xc3, 0x28, 0x5d))).toThrow();
    expect(() => utf8Text(Uint8Array.of(0xed, 0xa0, 0x80))).toThrow(); // a surrogate's encoding
    expect(() => utf8Text(Uint8Array.of(0xc0, 0xaf))).toThrow(); // overlong
  });

  it('leaves JSON bodies as they were decoded: an ASCII body with escapes, a non-ASCII one, and one that is not UTF-8 refused at its byte', () => {
    expect(decodeJsonBody(new TextEncoder().encode('{"k":"\\u00e9\\ud83d\\ude00"}'))).toEqual({ k: 'é😀' });
    expect(decodeJsonBody(new TextEncoder().encode('{"k":"é😀"}'))).toEqual({ k: 'é😀' });
    expect(() => decodeJsonBody(Uint8Array.of(0x7b, 0x7d, 0xff))).toThrow(expect.objectContaining({ detail: 'The body is not valid UTF-8 (at byte 2).' }));
  });
});
