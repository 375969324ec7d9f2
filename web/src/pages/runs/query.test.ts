import { describe, expect, it } from 'vitest';
import { draftFromFilters, filtersFromSearch, scoreColumnOf, searchFromDraft } from './query.js';

describe('the runs page query: score filters and the score column', () => {
  const search = new URLSearchParams('status=failed&score.helpfulness%3E=0.5&hasScore=tone&scoreColumn=tone');
  const filters = filtersFromSearch(search);

  it('reads score filters as list filters, and the score column apart from them', () => {
    expect(filters).toEqual({ status: 'failed', 'score.helpfulness>': '0.5', hasScore: ['tone'] });
    expect(scoreColumnOf(search)).toBe('tone');
    expect(scoreColumnOf(new URLSearchParams('status=failed'))).toBeUndefined();
  });

  it('keeps the score filters in force and the column when the form applies, and adds the one typed', () => {
    const draft = { ...draftFromFilters(filters), status: '' };
    const kept = searchFromDraft(draft, filters, '24h', 'tone') as URLSearchParams;
    expect([...kept]).toEqual([
      ['hasScore', 'tone'],
      ['score.helpfulness>', '0.5'],
      ['scoreColumn', 'tone'],
    ]);
    const added = searchFromDraft({ ...draft, scoreName: 'thumbs', scoreTest: '=', scoreValue: 'false' }, filters, '7d') as URLSearchParams;
    expect(added.get('score.thumbs')).toBe('false');
    expect(added.get('range')).toBe('7d');
    expect(added.getAll('hasScore')).toEqual(['tone']);
    expect(searchFromDraft({ ...draft, scoreName: 'helpfulness', scoreTest: '>=', scoreValue: '' }, filters, '24h')).toEqual({
      fault: 'Give the value to compare with.',
    });
  });
});
