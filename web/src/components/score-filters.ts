/**
 * The lists' score filters as the URL holds them, under their API names: `score.<name>` (equal),
 * `score.<name>>` (from `score.<name>>=v`: at least), `score.<name><` (at most), and `hasScore` (repeated).
 * And a score summary as a list row shows it.
 */
import { fmtShare } from '../format.js';
import type { ScoreSummary } from '../types.js';
import { fmtScoreValue } from './score-value.js';

export type ScoreTest = 'has' | '=' | '>=' | '<=';
export const SCORE_TESTS: { value: ScoreTest; label: string }[] = [
  { value: 'has', label: 'has a score' },
  { value: '=', label: '=' },
  { value: '>=', label: '≥' },
  { value: '<=', label: '≤' },
];

/** Whether a URL parameter is one of the score filters (`hasScore` or `score.…`). */
export const isScoreFilterKey = (key: string) => key === 'hasScore' || key.startsWith('score.');

/** The score filters of a URL query, as a list query takes them (`hasScore` as an array). */
export function scoreFiltersFromSearch(search: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  const has = [...new Set(search.getAll('hasScore').filter((name) => name !== ''))];
  if (has.length > 0) query.hasScore = has;
  for (const [key, value] of search) if (key.startsWith('score.') && key.length > 6 && value !== '' && query[key] === undefined) query[key] = value;
  return query;
}

/** A score filter's parameter as a chip names it: `helpfulness ≥`, `thumbs =`; null for another parameter. */
export function scoreFilterLabel(key: string): string | null {
  if (!key.startsWith('score.') || key.length <= 6) return null;
  const rest = key.slice(6);
  if (rest.endsWith('>') && rest.length > 1) return `score ${rest.slice(0, -1)} ≥`;
  if (rest.endsWith('<') && rest.length > 1) return `score ${rest.slice(0, -1)} ≤`;
  return `score ${rest} =`;
}

/**
 * `params` with one more score filter, or why not: a name (1..100 characters), and for a test other than
 * `has` a value (a number for ≥ and ≤). A filter of the same name and test is replaced.
 */
export function withScoreFilter(params: URLSearchParams, filter: { name: string; test: ScoreTest; value: string }): URLSearchParams | { fault: string } {
  const name = filter.name.trim();
  const value = filter.value.trim();
  if (name === '') return { fault: 'Give the score’s name.' };
  if (name.length > 100) return { fault: 'A score name has at most 100 characters.' };
  if (filter.test !== 'has' && /[<>]$/.test(name)) return { fault: 'A score name to compare cannot end in < or >.' };
  const next = new URLSearchParams(params);
  if (filter.test === 'has') {
    if (!next.getAll('hasScore').includes(name)) next.append('hasScore', name);
    return next;
  }
  if (value === '') return { fault: 'Give the value to compare with.' };
  if (filter.test !== '=' && !Number.isFinite(Number(value))) return { fault: `≥ and ≤ compare numbers; "${value}" is not one.` };
  next.set(`score.${name}${filter.test === '=' ? '' : filter.test === '>=' ? '>' : '<'}`, value);
  return next;
}

/**
 * A summary's value in short: a mean to three significant digits, a boolean's share of true (`75% ✓`),
 * a label as it is.
 */
export function fmtScoreSummary(summary: Pick<ScoreSummary, 'dataType' | 'value' | 'count'>): string {
  if (summary.dataType === 'boolean' && typeof summary.value === 'number') {
    if (summary.count === 1) return fmtScoreValue(summary.value === 1);
    return `${trueShare(summary)} ✓`;
  }
  return fmtScoreValue(summary.value);
}

const trueShare = (summary: Pick<ScoreSummary, 'value' | 'count'>) => fmtShare(Math.round(Number(summary.value) * summary.count), summary.count) ?? '0%';

/** What a chip's title says: `helpfulness: mean 0.8 of 2 scores`. */
export function describeScoreSummary(summary: ScoreSummary): string {
  const of = `of ${summary.count} score${summary.count === 1 ? '' : 's'}`;
  if (summary.dataType === 'numeric') return `${summary.name}: ${summary.count === 1 ? '' : 'mean '}${fmtScoreSummary(summary)} ${of}`;
  if (summary.dataType === 'boolean') return `${summary.name}: ${trueShare(summary)} true ${of}`;
  return `${summary.name}: ${summary.count === 1 ? '' : 'mostly '}${summary.value} ${of}`;
}
