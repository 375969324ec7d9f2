import { describe, expect, it } from 'vitest';
import {
  builtinFaults,
  evaluateBuiltin,
  expectedOf,
  levenshtein,
  NotApplicable,
  patternFault,
  similarity,
  textOf,
  type BuiltinEvaluator,
} from './evaluators.builtins.js';
import { sampled } from './evaluators.rules.js';

const run = (output: string, extra: { expected?: string | null; latencyMs?: number | null } = {}) => ({
  output,
  expected: extra.expected ?? null,
  latencyMs: extra.latencyMs ?? null,
});
const verdict = (evaluator: BuiltinEvaluator, output: string, extra = {}) => evaluateBuiltin(evaluator, run(output, extra));

describe('built-in evaluators', () => {
  it('reads outputs as text: a string as is, an object of one string that string, else JSON', () => {
    expect(textOf('hi')).toBe('hi');
    expect(textOf({ answer: 'hi' })).toBe('hi');
    expect(textOf({ a: 1, b: 'x' })).toBe('{"a":1,"b":"x"}');
    expect(textOf(null)).toBe('');
    expect(textOf([1])).toBe('[1]');
    expect(expectedOf({}, { expected: 'Paris' })).toBe('Paris');
    expect(expectedOf({ expectedKey: 'gold' }, { gold: { text: 'x' } })).toBe('x');
    expect(expectedOf({ expected: 'lit' }, { expected: 'meta' })).toBe('lit');
    expect(expectedOf({}, {})).toBeNull();
  });

  it('json_valid and json_schema', () => {
    expect(verdict({ type: 'json_valid' }, '{"a":1}')).toEqual({ value: true, comment: 'The output is valid JSON.' });
    expect(verdict({ type: 'json_valid' }, 'nope').value).toBe(false);
    const schema = { type: 'object', required: ['answer'], properties: { answer: { type: 'string' } } };
    expect(verdict({ type: 'json_schema', schema }, '{"answer":"x"}')).toEqual({ value: true, comment: 'The output matches the schema.' });
    const wrong = verdict({ type: 'json_schema', schema }, '{"answer":1}');
    expect(wrong.value).toBe(false);
    expect(wrong.comment).toBe('The output does not match the schema: /answer must be string');
    expect(verdict({ type: 'json_schema', schema }, 'not json').value).toBe(false);
  });

  it('regex: found or not (mode no_match), flags, a bounded input', () => {
    expect(verdict({ type: 'regex', pattern: '^\\d{3}-\\d{4}$' }, '555-1234').value).toBe(true);
    expect(verdict({ type: 'regex', pattern: 'sorry', flags: 'i' }, 'SORRY, I cannot').value).toBe(true);
    expect(verdict({ type: 'regex', pattern: 'sorry', mode: 'no_match' }, 'Here you go')).toEqual({
      value: true,
      comment: 'The pattern is not found, as it should not be.',
    });
    const long = `${'a'.repeat(10_000)}needle`;
    expect(verdict({ type: 'regex', pattern: 'needle' }, long)).toEqual({ value: false, comment: 'The pattern is not found (in the first 10000 characters).' });
  });

  it('refuses catastrophic, too long, back-referencing and invalid patterns', () => {
    expect(patternFault('(a+)+$')).toMatch(/nests repetition/);
    expect(patternFault('(x*)*y')).toMatch(/nests repetition/);
    expect(patternFault('(a)\\1')).toMatch(/Back-references/);
    expect(patternFault('a'.repeat(201))).toMatch(/at most 200/);
    expect(patternFault('(')).toMatch(/Not a valid regular expression/);
    expect(patternFault('^[a-z]+@[a-z]+\\.com$')).toBeNull();
    expect(builtinFaults({ type: 'json_schema', schema: { properties: { a: { pattern: '(a+)+' } } } })[0]!.detail).toMatch(/nests repetition/);
    expect(builtinFaults({ type: 'json_schema', schema: { type: 'nonsense' } })[0]!.detail).toMatch(/Not a valid JSON schema/);
    expect(builtinFaults({ type: 'length' })).toEqual([{ field: 'min', detail: 'A length evaluator has min, max or both.' }]);
    expect(builtinFaults({ type: 'length', min: 5, max: 2 })).toEqual([{ field: 'max', detail: 'max is at least min.' }]);
  });

  it('contains: any, all, none; case-sensitive unless told', () => {
    const values = ['refund', 'Order'];
    expect(verdict({ type: 'contains', values }, 'your refund is on its way').value).toBe(true);
    expect(verdict({ type: 'contains', values, mode: 'all' }, 'your refund for the order').value).toBe(false);
    expect(verdict({ type: 'contains', values, mode: 'all', caseSensitive: false }, 'your refund for the order')).toEqual({
      value: true,
      comment: 'Found 2 of 2 strings ("refund", "Order"); wanted all.',
    });
    expect(verdict({ type: 'contains', values, mode: 'none' }, 'hello').value).toBe(true);
  });

  it('exact and fuzzy match against the expected text; no expected text is not applicable', () => {
    expect(verdict({ type: 'exact_match' }, ' Paris ', { expected: 'Paris' }).value).toBe(true);
    expect(verdict({ type: 'exact_match' }, 'paris', { expected: 'Paris' }).value).toBe(false);
    expect(verdict({ type: 'exact_match', caseSensitive: false }, 'paris', { expected: 'Paris' }).value).toBe(true);
    expect(() => verdict({ type: 'exact_match' }, 'x')).toThrow(NotApplicable);
    expect(verdict({ type: 'fuzzy_match' }, 'kitten', { expected: 'sitting' })).toEqual({ value: 0.571, comment: 'Similarity 0.571 to the expected text.' });
    expect(verdict({ type: 'fuzzy_match', threshold: 0.5 }, 'kitten', { expected: 'sitting' }).value).toBe(true);
    expect(verdict({ type: 'fuzzy_match', threshold: 0.9 }, 'kitten', { expected: 'sitting' }).value).toBe(false);
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(similarity('', '')).toBe(1);
    // Bounded: two long texts compare their first 2,000 characters only.
    expect(similarity('a'.repeat(50_000), `${'a'.repeat(2_000)}b`)).toBe(1);
  });

  it('length and latency bounds', () => {
    expect(verdict({ type: 'length', min: 2, max: 5 }, 'héllo')).toEqual({ value: true, comment: '5 characters; wanted 2..5.' });
    expect(verdict({ type: 'length', max: 3 }, 'hello').value).toBe(false);
    expect(verdict({ type: 'latency', maxMs: 1000 }, '', { latencyMs: 800 })).toEqual({ value: true, comment: '800 ms; wanted at most 1000 ms.' });
    expect(verdict({ type: 'latency', maxMs: 1000 }, '', { latencyMs: 1200 }).value).toBe(false);
    expect(() => verdict({ type: 'latency', maxMs: 1000 }, '')).toThrow(NotApplicable);
  });

  it('samples by a stable hash of (rule, run)', () => {
    expect(sampled('evr_a', 'run_1', 1)).toBe(true);
    expect(sampled('evr_a', 'run_1', 0)).toBe(false);
    const taken = Array.from({ length: 1000 }, (_, i) => sampled('evr_a', `run_${i}`, 0.5));
    expect(Array.from({ length: 1000 }, (_, i) => sampled('evr_a', `run_${i}`, 0.5))).toEqual(taken);
  });
});
