import { expect, it } from 'vitest';
import type { Json } from '../../../test/helpers/json.js';
import { FEW_MATCHES } from './search.js';
import { keyRanges } from './search-walk.js';
import { describeRuns, minimal, projectFor } from '../runs/runs.test-support.js';

/**
 * A search's matches are found one way when they are few (lists start from them) and another when they
 * are many (lists test each run in their order): both give exactly the runs, traces and sessions whose
 * words match, in the lists' order, page after page.
 */
describeRuns('search plans', (ctx) => {
  it('lists the same matches, in order and across pages, whether a word is rare or common', async () => {
    const p = await projectFor(ctx);
    const total = FEW_MATCHES + 200;
    const runs = Array.from({ length: total }, (_, i) => {
      const trace = `t-${String(Math.floor(i / 3)).padStart(4, '0')}`;
      const words = [i % 5 === 0 ? 'rare' : '', 'common', i % 7 === 0 ? 'seventh' : ''].join(' ');
      return minimal({
        id: `${trace}-${i % 3}`,
        traceId: trace,
        parentRunId: i % 3 === 0 ? null : `${trace}-0`,
        sessionId: `s-${Math.floor(i / 30)}`,
        startTime: new Date(Date.parse('2026-11-21T00:00:00.000Z') + i * 1000).toISOString(),
        inputs: { text: words },
        status: i % 2 === 0 ? 'succeeded' : 'failed',
        endTime: new Date(Date.parse('2026-11-21T00:00:00.000Z') + i * 1000 + 10).toISOString(),
      });
    });
    for (let i = 0; i < runs.length; i += 1000) await p.seed(runs.slice(i, i + 1000));

    const newestFirst = [...runs].reverse();
    const matching = (word: string, more: (run: Json, i: number) => boolean = () => true) =>
      newestFirst.filter((run, i) => ((run.inputs as Json).text as string).split(' ').includes(word) && more(run, total - 1 - i));
    const walk = async (path: string, key: string) => {
      const out: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await ctx.request('GET', `/v1/projects/${p.id}/${path}&limit=97${cursor ? `&cursor=${cursor}` : ''}`, { token: p.caller.token });
        expect(res.statusCode, res.body).toBe(200);
        out.push(...res.json().items.map((item: Json) => item[key] as string));
        cursor = res.json().nextCursor;
      } while (cursor);
      return out;
    };
    const unique = (values: string[]) => [...new Set(values)];

    for (const word of ['rare', 'seventh', 'common']) {
      const expected = matching(word);
      // Whichever plan the word takes: 'common' matches more than FEW_MATCHES runs, the others fewer.
      expect(expected.length > FEW_MATCHES).toBe(word === 'common');
      expect(await walk(`runs?q=${word}`, 'id')).toEqual(expected.map((r) => r.id));
      expect(await walk(`runs?q=${word}&status=failed`, 'id')).toEqual(expected.filter((r) => r.status === 'failed').map((r) => r.id));
      // Traces by their start (their root's), newest first; sessions by their last activity.
      expect(await walk(`traces?q=${word}`, 'traceId')).toEqual(unique(expected.map((r) => r.traceId as string)));
      expect(await walk(`sessions?q=${word}`, 'sessionId')).toEqual(unique(expected.map((r) => r.sessionId as string)));
    }
    expect(await walk('runs?q=rare%20seventh', 'id')).toEqual(
      matching('rare', (run) => ((run.inputs as Json).text as string).includes('seventh')).map((r) => r.id),
    );
    expect(await walk('runs?q=absent', 'id')).toEqual([]);
    expect(await walk('traces?q=absent', 'traceId')).toEqual([]);
  });

  it('reads the word index once per range of close keys', () => {
    expect(keyRanges([])).toEqual([]);
    expect(keyRanges([5, 3, 4, 900, 1, 1100, 10_000])).toEqual([
      [1, 5],
      [900, 1100],
      [10_000, 10_000],
    ]);
  });

  it('walks on past the newest runs to a common word that only older runs hold, stored in any order', async () => {
    const p = await projectFor(ctx);
    // More than FEW_MATCHES runs hold 'early' (so it is walked, not read from its matches), none of the newest 150.
    const total = FEW_MATCHES + 200;
    const runs = Array.from({ length: total }, (_, i) =>
      minimal({
        id: `r-${String(i).padStart(5, '0')}`,
        startTime: new Date(Date.parse('2026-11-21T00:00:00.000Z') + i * 1000).toISOString(),
        inputs: { text: i < total - 150 ? `early ${i % 3 === 0 ? 'third' : ''}` : 'late' },
      }),
    );
    // Stored in no particular order (a backfill): the runs' keys in the word index are far apart in the list's order.
    const shuffled = [...runs].sort((a, b) => ((Number((a.id as string).slice(2)) * 7919) % total) - ((Number((b.id as string).slice(2)) * 7919) % total));
    for (let i = 0; i < shuffled.length; i += 1000) await p.seed(shuffled.slice(i, i + 1000));
    const expected = (more: (i: number) => boolean) =>
      runs
        .map((run, i) => ({ id: run.id as string, i }))
        .filter(({ i }) => i < total - 150 && more(i))
        .reverse()
        .map(({ id }) => id);
    const walk = async (query: string, limit: number) => {
      const out: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await ctx.request('GET', `/v1/projects/${p.id}/runs?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, {
          token: p.caller.token,
        });
        expect(res.statusCode, res.body).toBe(200);
        out.push(...res.json().items.map((item: Json) => item.id as string));
        cursor = res.json().nextCursor;
      } while (cursor);
      return out;
    };
    expect(await walk('q=early', 7)).toEqual(expected(() => true));
    expect(await walk('q=early%20third', 100)).toEqual(expected((i) => i % 3 === 0));
    expect(await walk('q=late', 100)).toHaveLength(150);
  });
});
