import { describe, expect, it } from 'vitest';
import { describeScoreSummary, fmtScoreSummary, scoreFilterLabel, scoreFiltersFromSearch, withScoreFilter } from './score-filters.js';

describe('score filters in the URL', () => {
  it('reads score.<name>, its bounds and hasScore from the query, under their API names', () => {
    const search = new URLSearchParams('status=failed&score.helpfulness%3E=0.5&score.tone=friendly&hasScore=thumbs&hasScore=thumbs&hasScore=&score.=1');
    expect(scoreFiltersFromSearch(search)).toEqual({ hasScore: ['thumbs'], 'score.helpfulness>': '0.5', 'score.tone': 'friendly' });
    expect(scoreFilterLabel('score.helpfulness>')).toBe('score helpfulness ≥');
    expect(scoreFilterLabel('score.helpfulness<')).toBe('score helpfulness ≤');
    expect(scoreFilterLabel('score.tone')).toBe('score tone =');
    expect(scoreFilterLabel('status')).toBeNull();
  });

  it('adds a filter, replacing one of the same name and test, or says what is missing', () => {
    const base = new URLSearchParams('range=7d&score.helpfulness%3E=0.2');
    const added = withScoreFilter(base, { name: ' helpfulness ', test: '>=', value: '0.5' }) as URLSearchParams;
    expect(added.toString()).toBe('range=7d&score.helpfulness%3E=0.5');
    // What the browser sends the API is `score.helpfulness>=0.5` once decoded.
    expect([...added]).toEqual([
      ['range', '7d'],
      ['score.helpfulness>', '0.5'],
    ]);
    expect((withScoreFilter(base, { name: 'thumbs', test: '=', value: 'false' }) as URLSearchParams).get('score.thumbs')).toBe('false');
    expect((withScoreFilter(base, { name: 'tone', test: 'has', value: 'ignored' }) as URLSearchParams).getAll('hasScore')).toEqual(['tone']);
    expect(withScoreFilter(base, { name: '  ', test: 'has', value: '' })).toEqual({ fault: 'Give the score’s name.' });
    expect(withScoreFilter(base, { name: 'x', test: '=', value: ' ' })).toEqual({ fault: 'Give the value to compare with.' });
    expect(withScoreFilter(base, { name: 'x', test: '<=', value: 'high' })).toEqual({ fault: '≥ and ≤ compare numbers; "high" is not one.' });
    expect(withScoreFilter(base, { name: 'a>', test: '=', value: '1' })).toEqual({ fault: 'A score name to compare cannot end in < or >.' });
    expect(withScoreFilter(base, { name: 'x'.repeat(101), test: 'has', value: '' })).toEqual({ fault: 'A score name has at most 100 characters.' });
    // The query it started from is left as it was.
    expect(base.toString()).toBe('range=7d&score.helpfulness%3E=0.2');
  });
});

describe('score summaries on list rows', () => {
  it('shows a mean, a boolean share and a label in short, and says what they are', () => {
    const numeric = { name: 'helpfulness', dataType: 'numeric', value: 0.83333, count: 3 } as const;
    expect(fmtScoreSummary(numeric)).toBe('0.833');
    expect(describeScoreSummary(numeric)).toBe('helpfulness: mean 0.833 of 3 scores');
    const thumbs = { name: 'thumbs', dataType: 'boolean', value: 0.75, count: 4 } as const;
    expect(fmtScoreSummary(thumbs)).toBe('75% ✓');
    expect(describeScoreSummary(thumbs)).toBe('thumbs: 75% true of 4 scores');
    expect(fmtScoreSummary({ dataType: 'boolean', value: 0, count: 1 })).toBe('✗ false');
    expect(fmtScoreSummary({ dataType: 'boolean', value: 1, count: 1 })).toBe('✓ true');
    const tone = { name: 'tone', dataType: 'categorical', value: 'friendly', count: 2 } as const;
    expect(fmtScoreSummary(tone)).toBe('friendly');
    expect(describeScoreSummary(tone)).toBe('tone: mostly friendly of 2 scores');
    expect(describeScoreSummary({ ...tone, count: 1 })).toBe('tone: friendly of 1 score');
  });
});
