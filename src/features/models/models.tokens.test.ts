import { beforeAll, describe, expect, it } from 'vitest';
import { EstimateBudget, estimateTokens, loadTokenizer, MAX_RUN_CHARS } from './models.tokens.js';

describe('estimateTokens: o200k_base counts, bounded whatever is sent', () => {
  beforeAll(() => loadTokenizer());

  it('counts text as the encoding does', () => {
    const budget = new EstimateBudget();
    expect(estimateTokens(['Hello, world!'], budget)).toBe(4);
    expect(estimateTokens(['Hello, world!', ' How are you?'], budget)).toBe(8);
    expect(estimateTokens([], budget)).toBe(0);
  });

  it('counts 200,000 letters without a space, or of spaces, in linear time (in pieces: byte-pair encoding is quadratic in one piece)', () => {
    const started = performance.now();
    const letters = estimateTokens(['a'.repeat(200_000)], new EstimateBudget());
    const spaces = estimateTokens([' '.repeat(200_000)], new EstimateBudget());
    // Generous for a busy machine: unbounded, the letters alone took 90 s.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(letters).toBeGreaterThan(200_000 / 64);
    expect(spaces).toBeGreaterThan(0);
  });

  it('estimates nothing past a run’s bound or the call’s budget, and spends the budget', () => {
    expect(estimateTokens(['x'.repeat(MAX_RUN_CHARS + 1)], new EstimateBudget())).toBeNull();
    const budget = new EstimateBudget(10);
    expect(estimateTokens(['0123456789'], budget)).not.toBeNull();
    expect(budget.chars).toBe(0);
    expect(estimateTokens(['a'], budget)).toBeNull();
  });
});
