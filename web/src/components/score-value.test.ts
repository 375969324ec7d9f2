import { describe, expect, it } from 'vitest';
import { fmtScoreValue, parseScoreValue } from './score-value.js';

describe('parseScoreValue', () => {
  it('reads a value without a config by its look', () => {
    expect(parseScoreValue(' 0.75 ', null)).toEqual({ value: 0.75 });
    expect(parseScoreValue('-3', null)).toEqual({ value: -3 });
    expect(parseScoreValue('true', null)).toEqual({ value: true });
    expect(parseScoreValue('false', null)).toEqual({ value: false });
    expect(parseScoreValue('friendly', null)).toEqual({ value: 'friendly' });
    expect(parseScoreValue('1.2.3', null)).toEqual({ value: '1.2.3' });
    expect(parseScoreValue('  ', null)).toEqual({ fault: 'Give a value.' });
  });

  it('holds a value to its config', () => {
    const numeric = { dataType: 'numeric', min: 0, max: 1, categories: null } as const;
    expect(parseScoreValue('0.5', numeric)).toEqual({ value: 0.5 });
    expect(parseScoreValue('2', numeric)).toEqual({ fault: 'At most 1.' });
    expect(parseScoreValue('-1', numeric)).toEqual({ fault: 'At least 0.' });
    expect(parseScoreValue('high', numeric)).toEqual({ fault: 'Give a number.' });
    const boolean = { dataType: 'boolean', min: null, max: null, categories: null } as const;
    expect(parseScoreValue('true', boolean)).toEqual({ value: true });
    expect(parseScoreValue('1', boolean)).toEqual({ fault: 'Choose true or false.' });
    const categorical = { dataType: 'categorical', min: null, max: null, categories: ['good', 'bad'] } as const;
    expect(parseScoreValue('good', categorical)).toEqual({ value: 'good' });
    expect(parseScoreValue('ok', categorical)).toEqual({ fault: 'Choose one of good, bad.' });
  });
});

describe('fmtScoreValue', () => {
  it('shows numbers to three significant digits, booleans with a mark, labels as they are', () => {
    expect(fmtScoreValue(0.756789)).toBe('0.757');
    expect(fmtScoreValue(4)).toBe('4');
    expect(fmtScoreValue(true)).toBe('✓ true');
    expect(fmtScoreValue(false)).toBe('✗ false');
    expect(fmtScoreValue('friendly')).toBe('friendly');
  });
});
