import type { Score, ScoreConfig } from '../types.js';

/**
 * A score's value as the form's text gives it: against a config, its type (a number within its range,
 * true or false, one of its categories); without one, `true`/`false` are booleans, a number is numeric,
 * anything else a category. The server checks again; this only spares a round trip.
 */
export function parseScoreValue(
  text: string,
  config: (Pick<ScoreConfig, 'dataType' | 'min' | 'max'> & { categories: readonly string[] | null }) | null,
): { value: Score['value'] } | { fault: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { fault: 'Give a value.' };
  const asNumber = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(trimmed) ? Number(trimmed) : null;
  if (!config) {
    if (trimmed === 'true' || trimmed === 'false') return { value: trimmed === 'true' };
    return asNumber !== null ? { value: asNumber } : { value: trimmed };
  }
  if (config.dataType === 'boolean') return trimmed === 'true' || trimmed === 'false' ? { value: trimmed === 'true' } : { fault: 'Choose true or false.' };
  if (config.dataType === 'categorical')
    return config.categories?.includes(trimmed) ? { value: trimmed } : { fault: `Choose one of ${(config.categories ?? []).join(', ')}.` };
  if (asNumber === null) return { fault: 'Give a number.' };
  if (config.min !== null && asNumber < config.min) return { fault: `At least ${config.min}.` };
  if (config.max !== null && asNumber > config.max) return { fault: `At most ${config.max}.` };
  return { value: asNumber };
}

/** A score's value for reading: numbers to three significant digits, ✓ and ✗ for booleans, labels as they are. */
export function fmtScoreValue(value: Score['value']): string {
  if (typeof value === 'boolean') return value ? '✓ true' : '✗ false';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(3)));
  return value;
}
