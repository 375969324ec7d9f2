import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalText } from './json.js';

/**
 * The definition of the canonical text, as first written: stored runs' content hashes are digests of
 * it, so any faster writing of it must give the same text for every value, or retries of runs stored
 * earlier would become conflicts.
 */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : reference(item))).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The canonical text as defined (docs in lib/json.ts), written plainly: runs stored since hash their
 * content with it, so a faster writing must give the same text for every value.
 */
function definedCanonicalText(value: unknown): string {
  if (value === null || value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') return 'n';
  if (typeof value === 'string') return `${value.length}"${value}`;
  if (typeof value === 'number') return `#${String(value)};`;
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (Array.isArray(value)) return `[${Array.from(value, definedCanonicalText).join('')}]`;
  const members = Object.keys(value)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map((key) => `${key.length}:${key}${definedCanonicalText((value as Record<string, unknown>)[key])}`);
  return `{${members.join('')}}`;
}

describe('canonicalJson', () => {
  it('sorts keys in code-unit order at every depth, leaves undefined members out and writes undefined items as null', () => {
    const value = JSON.parse('{"b":1,"10":[2,{"z":null,"a":"\\u2028\\"é"}],"2":true,"":{},"__proto__":{"y":1,"x":-0},"B":[]}');
    value.u = undefined;
    value.list = [undefined, 1e21];
    expect(canonicalJson(value)).toBe('{"":{},"10":[2,{"a":"\u2028\\"é","z":null}],"2":true,"B":[],"__proto__":{"x":0,"y":1},"b":1,"list":[null,1e+21]}');
    expect(canonicalJson(value)).toBe(reference(value));
  });

  it('gives the reference text for any JSON value, keys of any characters and undefined members included', () => {
    const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', '0', '10', '2', 'é', '\u{1f600}', 'A', 'a'));
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constant(null),
        fc.boolean(),
        fc.double(),
        fc.integer(),
        fc.string({ unit: 'binary' }),
        fc.array(fc.oneof(tie('value'), fc.constant(undefined)), { maxLength: 4 }),
        fc.dictionary(key, fc.oneof(tie('value'), fc.constant(undefined)), { maxKeys: 6 }),
      ),
    }));
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('canonicalText', () => {
  // A small world of keys and values, so that pairs of values often come close: "1" and 1, "a" and "a;".
  const key = fc.constantFrom('', 'a', 'b', '1', 'a:1', '"', '#1;', '__proto__');
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.boolean(),
      fc.constantFrom(0, 1, 11, -1, 1.5, 1e21),
      fc.constantFrom('', '1', '11', 'a', '"', '#1;', 'n', '1"a', ']', '}'),
      fc.array(fc.oneof(tie('value'), fc.constant(undefined)), { maxLength: 3 }),
      fc.dictionary(key, fc.oneof(tie('value'), fc.constant(undefined)), { maxKeys: 3 }),
    ),
  }));

  it('gives two values one text exactly when their canonical JSON is one text', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(canonicalText(a) === canonicalText(b)).toBe(canonicalJson(a) === canonicalJson(b));
      }),
      { numRuns: 5000 },
    );
  });

  it('does not depend on the order of keys', () => {
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 6 }), (object) => {
        const reversed = Object.fromEntries(Object.entries(object).reverse());
        expect(canonicalText(reversed)).toBe(canonicalText(object));
      }),
    );
    expect(canonicalText({ b: [1, 'x'], a: { d: null, c: true } })).toBe('{1:a{1:ct1:dn}1:b[#1;1"x]}');
  });

  it('is the text as first written for any value: keys of any characters, objects of many keys, deep nesting', () => {
    const anyKey = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'toString', '0', '10', '2', 'é', '\u{1f600}', 'A', 'a', ''));
    const { any } = fc.letrec((tie) => ({
      any: fc.oneof(
        { depthSize: 'small' },
        fc.constant(null),
        fc.boolean(),
        fc.double(),
        fc.integer(),
        fc.string(),
        fc.array(fc.oneof(tie('any'), fc.constant(undefined)), { maxLength: 5 }),
        fc.dictionary(anyKey, fc.oneof(tie('any'), fc.constant(undefined)), { maxKeys: 40 }),
      ),
    }));
    fc.assert(
      fc.property(any, (v) => {
        expect(canonicalText(v)).toBe(definedCanonicalText(v));
        // As a client sends it: through JSON, with an own __proto__ member where there was one.
        const sent = JSON.parse(JSON.stringify(v) ?? 'null');
        expect(canonicalText(sent)).toBe(definedCanonicalText(sent));
      }),
      { numRuns: 3000 },
    );
    const deep = JSON.parse(`${'{"a":['.repeat(100)}1${']}'.repeat(100)}`);
    expect(canonicalText(deep)).toBe(definedCanonicalText(deep));
  });
});
