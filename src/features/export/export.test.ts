import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { csvCell } from './export.routes.js';
import { describeRuns, minimal, projectFor } from '../runs/runs.test-support.js';

/** RFC 4180, as a spreadsheet reads it: quoted cells, doubled quotes, CRLF rows. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  return rows;
}

/** Exports of runs and traces: the list's records, streamed in its order, resumable from any cursor line. */
describeRuns('export', (ctx) => {
  async function seeded() {
    const p = await projectFor(ctx);
    const runs = Array.from({ length: 230 }, (_, i) =>
      minimal({
        id: `x-${String(i).padStart(3, '0')}`,
        traceId: `t-${Math.floor(i / 2)}`,
        parentRunId: i % 2 === 1 ? `x-${String(i - 1).padStart(3, '0')}` : null,
        startTime: new Date(Date.parse('2026-11-21T00:00:00.000Z') + i * 1000).toISOString(),
        status: i % 10 === 0 ? 'failed' : 'succeeded',
        endTime: new Date(Date.parse('2026-11-21T00:00:00.000Z') + i * 1000 + 5).toISOString(),
        error: i % 10 === 0 ? 'boom, "quoted"\nsecond line' : undefined,
        inputs: { text: `question ${i}${i % 3 === 0 ? ' refund' : ''}` },
        ...(i === 7 ? { name: '=HYPERLINK("http://evil")' } : {}),
      }),
    );
    await p.seed(runs.slice(0, 200));
    await p.seed(runs.slice(200));
    const get = (path: string) => ctx.request('GET', `/v1/projects/${p.id}/${path}`, { token: p.caller.token });
    return { p, get };
  }
  const lines = (body: string) =>
    body
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);

  it('streams every run as NDJSON in the list order, with cursor lines to resume from and a last null cursor', async () => {
    const { p, get } = await seeded();
    const res = await get('runs/export');
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const all = lines(res.body);
    const records = all.filter((l) => !('cursor' in l && Object.keys(l).length === 1));
    const cursors = all.filter((l) => 'cursor' in l && Object.keys(l).length === 1).map((l) => l.cursor);
    expect(records).toEqual(await p.walk());
    expect(cursors).toEqual([expect.any(String), expect.any(String), null]);
    // Resuming from the first cursor line gives the rest, exactly.
    const rest = lines((await get(`runs/export?cursor=${encodeURIComponent(cursors[0] as string)}`)).body).filter((l) => !('cursor' in l));
    expect(rest.map((r) => r.id)).toEqual(records.slice(100).map((r) => r.id));
    // Filters and search apply as on the list; a cursor stays bound to its filters.
    const failed = lines((await get('runs/export?status=failed&q=refund')).body).filter((l) => !('cursor' in l));
    expect(failed.map((r) => r.id)).toEqual((await p.walk({ status: 'failed', q: 'refund' })).map((r) => r.id));
    expectProblem(await get(`runs/export?status=failed&cursor=${encodeURIComponent(cursors[0] as string)}`), 400, 'validation');
  });

  it('writes CSV a spreadsheet reads back: a header, quoted cells, no formula run', async () => {
    const { p, get } = await seeded();
    const res = await get('runs/export?format=csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="runs-${p.id}.csv"`);
    const [header, ...rows] = parseCsv(res.body);
    expect(header).toEqual(
      'id,traceId,parentRunId,name,kind,status,startTime,endTime,latencyMs,model,provider,promptTokens,completionTokens,totalTokens,cost,costSource,sessionId,userId,tags,error,inputs,outputs,metadata,scores'.split(
        ',',
      ),
    );
    const byId = new Map(rows.map((r) => [r[0], Object.fromEntries(header!.map((h, i) => [h, r[i]]))]));
    expect(byId.size).toBe(230);
    expect(byId.get('x-010')).toMatchObject({ status: 'failed', error: 'boom, "quoted"\nsecond line', parentRunId: '', latencyMs: '5' });
    expect(JSON.parse(byId.get('x-011')!.inputs!)).toEqual({ text: 'question 11' });
    expect(JSON.parse(byId.get('x-011')!.scores!)).toEqual([]);
    // A cell a spreadsheet would run as a formula is text.
    expect(byId.get('x-007')!.name).toBe(`'=HYPERLINK("http://evil")`);
    expect(csvCell('=1+2')).toBe("'=1+2");
    expect(csvCell('-5')).toBe("'-5");
    expect(csvCell('a,b')).toBe('"a,b"');
  });

  it('exports traces like their list, and refuses what the list refuses', async () => {
    const { get } = await seeded();
    const exported = lines((await get('traces/export')).body).filter((l) => !('cursor' in l));
    const listed: Json[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: Json[]; nextCursor: string | null } = (await get(`traces?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).json();
      listed.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    expect(exported).toEqual(listed);
    const csv = parseCsv((await get('traces/export?format=csv')).body);
    expect(csv).toHaveLength(116);
    expectProblem(await get('runs/export?format=xml'), 400, 'validation');
    expectProblem(await get('runs/export?bogus=1'), 400, 'validation');
    const stranger = await ctx.make.caller({ role: 'owner' });
    const other = await ctx.make.project(stranger.organizationId);
    expectProblem(await ctx.request('GET', `/v1/projects/${other.id}/runs/export`, { token: (await projectFor(ctx)).caller.token }), 404, 'not-found');
  });
});
