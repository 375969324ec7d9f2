import { describe, expect, it } from 'vitest';
import { draftFromFilters, filtersFromSearch, isFiltered, scoreColumnOf, searchFromDraft } from './query.js';

describe('the runs page query: score filters and the score column', () => {
  const search = new URLSearchParams('status=failed&score.helpfulness%3E=0.5&hasScore=tone&scoreColumn=tone');
  const filters = filtersFromSearch(search);

  it('reads score filters as list filters, and the score column apart from them', () => {
    expect(filters).toEqual({ experiment: 'exclude', status: 'failed', 'score.helpfulness>': '0.5', hasScore: ['tone'] });
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

describe('the runs page query: experiment traffic and tags', () => {
  it('leaves experiment traffic out unless the URL asks for it with the rest or alone; the default is no filter of its own', () => {
    expect(filtersFromSearch(new URLSearchParams('')).experiment).toBe('exclude');
    expect(filtersFromSearch(new URLSearchParams('experiment=include')).experiment).toBe('include');
    expect(filtersFromSearch(new URLSearchParams('experiment=only')).experiment).toBe('only');
    expect(filtersFromSearch(new URLSearchParams('experiment=bogus')).experiment).toBe('exclude');
    expect(isFiltered(filtersFromSearch(new URLSearchParams('')))).toBe(false);
    expect(isFiltered(filtersFromSearch(new URLSearchParams('experiment=only')))).toBe(true);
    expect(isFiltered(filtersFromSearch(new URLSearchParams('status=failed')))).toBe(true);
    // The form keeps the choice when it applies; the default stays out of the URL.
    const only = filtersFromSearch(new URLSearchParams('experiment=only&status=failed'));
    expect((searchFromDraft(draftFromFilters(only), only, '24h') as URLSearchParams).get('experiment')).toBe('only');
    const dflt = filtersFromSearch(new URLSearchParams('status=failed'));
    expect((searchFromDraft(draftFromFilters(dflt), dflt, '24h') as URLSearchParams).has('experiment')).toBe(false);
  });

  it('takes the tags added one at a time, and a tag still typed, each once (a tag may hold a comma once added)', () => {
    const filters = filtersFromSearch(new URLSearchParams('tag=a%2Cb&tag=prod'));
    const draft = draftFromFilters(filters);
    expect(draft.tags).toEqual(['a,b', 'prod']);
    const search = searchFromDraft({ ...draft, tagText: 'eu, prod' }, filters, '24h') as URLSearchParams;
    expect(search.getAll('tag')).toEqual(['a,b', 'prod', 'eu']);
  });
});
