import { describe, expect, it } from 'vitest';
import { jsonText, parseJson, sameJson } from './json.js';

describe('the dataset forms’ JSON text areas', () => {
  it('reads any JSON value, text in quotes included', () => {
    expect(parseJson('{"question": "Refund?"}', 'Input')).toEqual({ ok: true, value: { question: 'Refund?' } });
    expect(parseJson(' "Yes, within 30 days" ', 'Expected output')).toEqual({ ok: true, value: 'Yes, within 30 days' });
    expect(parseJson('[1, 2]', 'Input')).toEqual({ ok: true, value: [1, 2] });
    expect(parseJson('null', 'Input')).toEqual({ ok: true, value: null });
  });

  it('names the field whose text is not JSON, and says how to write text', () => {
    const result = parseJson('Yes, within 30 days', 'Expected output');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.fault).toMatch(/^Expected output is not valid JSON \(.+\)\. Text goes in double quotes/);
  });

  it('empty: a required field says so, an optional one is left out or none', () => {
    expect(parseJson('  ', 'Input', { required: true })).toEqual({ ok: false, fault: expect.stringMatching(/^Input is required/) });
    expect(parseJson('', 'Metadata', { object: true })).toEqual({ ok: true, value: undefined });
    expect(parseJson('\n', 'Expected output', { empty: null })).toEqual({ ok: true, value: null });
  });

  it('metadata must be an object', () => {
    for (const text of ['[]', '"en"', '3', 'null'])
      expect(parseJson(text, 'Metadata', { object: true })).toEqual({ ok: false, fault: 'Metadata must be a JSON object, such as {"lang": "en"}.' });
    expect(parseJson('{"lang": "en"}', 'Metadata', { object: true })).toEqual({ ok: true, value: { lang: 'en' } });
  });

  it('shows values indented, nothing for undefined; compares them key order aside', () => {
    expect(jsonText({ a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(jsonText('text')).toBe('"text"');
    expect(jsonText(undefined)).toBe('');
    expect(sameJson({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 })).toBe(true);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson(null, {})).toBe(false);
    expect(sameJson('1', 1)).toBe(false);
  });
});
