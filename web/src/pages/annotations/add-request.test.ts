/** What the queue page's add-by-filter form sends (pages/annotations/add-request.ts). */
import { describe, expect, it } from 'vitest';
import { EMPTY_DRAFT, requestOf } from './add-request.js';

describe('requestOf', () => {
  it('sends no filter for an empty draft: every run, the newest first', () => {
    expect(requestOf(EMPTY_DRAFT, 'run')).toEqual({ filter: {} });
  });

  it('uses the runs list’s names: tags distinct and trimmed, roots only as parentRunId null, times as instants', () => {
    const draft = {
      ...EMPTY_DRAFT,
      status: 'failed',
      kind: 'llm',
      name: ' chat ',
      model: 'gpt-4o',
      tags: 'prod, eu ,prod,,',
      q: ' refund ',
      startedAfter: '2026-11-23T00:00',
      rootsOnly: true,
    };
    expect(requestOf(draft, 'run')).toEqual({
      filter: {
        status: 'failed',
        kind: 'llm',
        name: 'chat',
        model: 'gpt-4o',
        q: 'refund',
        tag: ['prod', 'eu'],
        startedAfter: new Date('2026-11-23T00:00').toISOString(),
        parentRunId: 'null',
      },
    });
    // A trace queue takes the traces list's filters: no parentRunId.
    expect(requestOf(draft, 'trace').filter).not.toHaveProperty('parentRunId');
  });

  it('turns a percentage into a rate, and passes the limit', () => {
    expect(requestOf({ ...EMPTY_DRAFT, percent: '10', limit: '50' }, 'run')).toEqual({ filter: {}, rate: 0.1, limit: 50 });
  });
});
