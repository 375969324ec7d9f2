/**
 * The dashboard's formatting of money (format.ts). The browser's locale decides the separators: the
 * expectations are written in en-US and turned into the running locale's.
 */
import { describe, expect, it } from 'vitest';
import { costSplit, fmtCost } from './format.js';

const DECIMAL = (1.5).toLocaleString().charAt(1);
const GROUP = (1000).toLocaleString().length === 5 ? (1000).toLocaleString().charAt(1) : '';
/** `$1,234.57` in the running locale's separators. */
const local = (enUS: string) => enUS.replace(/[,.]/g, (c) => (c === '.' ? DECIMAL : GROUP));

/** What `fmtCost` shows of each amount, written in en-US (a dash stays a dash in any locale). */
function expectShown(cases: [number | null | undefined, string][]) {
  for (const [amount, enUS] of cases) expect(fmtCost(amount)).toBe(local(enUS));
}

describe('fmtCost', () => {
  it('shows amounts under a cent with two significant digits, never as $0.00', () => {
    expectShown([
      [0.00042, '$0.00042'],
      [0.000423, '$0.00042'],
      [0.0021, '$0.0021'],
      [0.005, '$0.005'],
      [0.000000012, '$0.000000012'],
    ]);
  });

  it('shows a cent and more, totals included, with two decimals', () => {
    expectShown([
      [0.01, '$0.01'],
      [0.0149, '$0.01'],
      [0.1, '$0.10'],
      [12, '$12.00'],
      [1234.567, '$1,234.57'],
      [0.0021 * 1000, '$2.10'],
    ]);
  });

  it('shows nothing as $0.00, a refund with its sign, and no value as a dash', () => {
    expectShown([
      [0, '$0.00'],
      [-0.5, '-$0.50'],
      [-0.0003, '-$0.0003'],
      [null, '—'],
      [undefined, '—'],
    ]);
  });
});

describe('costSplit', () => {
  it('says where a total came from, with the amounts when it came from both', () => {
    expect(costSplit(0.45, 0)).toBe('sent by clients');
    expect(costSplit(0.45, 0.45)).toBe('computed from model prices');
    expect(costSplit(0.46, 0.45)).toBe(`${local('$0.45')} computed from model prices · ${local('$0.01')} sent by clients`);
    // Floating-point sums: 0.1 + 0.2 computed of a total of 0.3 is all computed.
    expect(costSplit(0.3, 0.1 + 0.2)).toBe('computed from model prices');
  });
});
