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

  it('refuses a number that overflows in a body large enough to be counted as in a small one, and takes ids and text that look like exponents', () => {
    const padding = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `4e${i}7a`, text: 'x 1e999 y', n: 1e-5 }));
    const big = (last: string) => new TextEncoder().encode(`{"runs":${JSON.stringify(padding(6000)).slice(0, -1)},${last}]}`);
    expect(big('{"v":1}').length).toBeGreaterThan(200_000);
    expect((decodeJsonBody(big('{"v":1e-400}')) as { runs: { v?: number }[] }).runs.at(-1)).toEqual({ v: 0 });
    for (const overflowing of ['1e400', '1E+400', '-2.5e999', `1${'0'.repeat(309)}`])
      for (const body of [big(`{"v":${overflowing}}`), new TextEncoder().encode(`{"v":[${overflowing}]}`)]) {
        const where = body.length > 200_000 ? '/runs/6000/v' : '/v/0';
        expect(() => decodeJsonBody(body), overflowing).toThrow(
          expect.objectContaining({ errors: [{ pointer: where, detail: 'The number is out of range (it does not fit a 64-bit floating-point number).' }] }),
        );
      }
  });
});
