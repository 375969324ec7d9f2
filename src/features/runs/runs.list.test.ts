import { beforeEach, expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { describeRuns, iso, parametersOf, projectFor, type Query } from './runs.test-support.js';

/** GET /v1/projects/{id}/runs: order, pages and every filter. */
describeRuns('list filters', (ctx) => {
  const T0 = Date.parse('2026-11-10T00:00:00.000Z');
  const seedRuns = [
    {
      id: 'f1',
      name: 'ChatOpenAI',
      kind: 'llm',
      status: 'succeeded',
      startTime: iso(T0 + 1000),
      endTime: iso(T0 + 1500),
      model: 'gpt-4o',
      tags: ['prod', 'eu'],
      metadata: { env: 'prod', attempt: 2, flag: true },
    },
    {
      id: 'f2',
      name: 'ChatOpenAI',
      kind: 'llm',
      status: 'failed',
      startTime: iso(T0 + 2000),
      endTime: iso(T0 + 2100),
      error: 'boom',
      model: 'gpt-4o-mini',
      tags: ['prod'],
      metadata: { env: 'dev', attempt: '2' },
    },
    { id: 'f3', name: 'Agent', kind: 'chain', startTime: iso(T0 + 3000), tags: ['eu'], metadata: { attempt: 3, flag: false, tiny: 1e-7, big: 1e21 } },
    {
      id: 'f4',
      name: 'search',
      kind: 'tool',
      status: 'succeeded',
      startTime: iso(T0 + 4000),
      endTime: iso(T0 + 4200),
      parentRunId: 'f3',
      metadata: { flag: 'true', none: null },
    },
    {
      id: 'f5',
      name: 'retrieve',
      kind: 'retriever',
      status: 'succeeded',
      startTime: iso(T0 + 4000),
      endTime: iso(T0 + 4300),
      parentRunId: 'f3',
      tags: ['prod', 'eu', 'extra'],
      metadata: { env: 'prod ' },
    },
    {
      id: 'f6',
      name: 'ChatOpenAI',
      kind: 'llm',
      startTime: iso(T0 + 5000),
      parentRunId: 'f4',
      model: 'gpt-4o',
      metadata: { attempt: 2.5, nested: { env: 'prod' } },
    },
  ];
  let p: Awaited<ReturnType<typeof projectFor>>;
  beforeEach(async () => {
    if (p) return;
    p = await projectFor(ctx);
    await p.seed(seedRuns);
  });

  it('lists newest first by startTime then id, through every page', async () => {
    const res = await p.list();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ nextCursor: null, limit: 25 });
    expect(res.json().items.map((r: { id: string }) => r.id)).toEqual(['f6', 'f5', 'f4', 'f3', 'f2', 'f1']);
    expect((await p.walk({}, 1)).map((r) => r.id)).toEqual(['f6', 'f5', 'f4', 'f3', 'f2', 'f1']);
    expect((await p.walk({ kind: 'llm' }, 1)).map((r) => r.id)).toEqual(['f6', 'f2', 'f1']);
  });

  it.each([
    ['status=failed', { status: 'failed' }, ['f2']],
    ['status=running', { status: 'running' }, ['f6', 'f3']],
    ['status=succeeded', { status: 'succeeded' }, ['f5', 'f4', 'f1']],
    ['kind=llm', { kind: 'llm' }, ['f6', 'f2', 'f1']],
    ['kind=tool', { kind: 'tool' }, ['f4']],
    ['kind=agent', { kind: 'agent' }, []],
    ['name (exact)', { name: 'ChatOpenAI' }, ['f6', 'f2', 'f1']],
    ['name (case matters)', { name: 'chatopenai' }, []],
    ['name (no substring)', { name: 'Chat' }, []],
    ['one tag', { tag: 'prod' }, ['f5', 'f2', 'f1']],
    ['two tags, all must match', { tag: ['prod', 'eu'] }, ['f5', 'f1']],
    ['three tags', { tag: ['eu', 'extra', 'prod'] }, ['f5']],
    ['a tag nobody has', { tag: ['prod', 'nope'] }, []],
    ['model (exact)', { model: 'gpt-4o' }, ['f6', 'f1']],
    ['traceId', { traceId: 'f3' }, ['f6', 'f5', 'f4', 'f3']],
    ['traceId of a lone root', { traceId: 'f1' }, ['f1']],
    ['parentRunId', { parentRunId: 'f3' }, ['f5', 'f4']],
    ['parentRunId=null (roots)', { parentRunId: 'null' }, ['f3', 'f2', 'f1']],
    ['startedAfter is inclusive', { startedAfter: iso(T0 + 3000) }, ['f6', 'f5', 'f4', 'f3']],
    ['startedBefore is exclusive', { startedBefore: iso(T0 + 3000) }, ['f2', 'f1']],
    ['a time window', { startedAfter: iso(T0 + 2000), startedBefore: iso(T0 + 4000) }, ['f3', 'f2']],
    ['startedAfter with an offset', { startedAfter: '2026-11-10T01:00:04.000+01:00' }, ['f6', 'f5', 'f4']],
    ['metadata string', { 'metadata.env': 'prod' }, ['f1']],
    ['metadata string with a space', { 'metadata.env': 'prod ' }, ['f5']],
    ['metadata number matches the number and its text', { 'metadata.attempt': '2' }, ['f2', 'f1']],
    ['metadata decimal', { 'metadata.attempt': '2.5' }, ['f6']],
    ['metadata boolean matches true and "true"', { 'metadata.flag': 'true' }, ['f4', 'f1']],
    ['metadata false', { 'metadata.flag': 'false' }, ['f3']],
    ['metadata null', { 'metadata.none': 'null' }, ['f4']],
    ['metadata key nobody has', { 'metadata.missing': 'null' }, []],
    ['metadata is top-level only', { 'metadata.nested': 'prod' }, []],
    ['metadata number in exponent notation', { 'metadata.tiny': '1e-7' }, ['f3']],
    ['metadata number in decimal notation', { 'metadata.tiny': '0.0000001' }, ['f3']],
    ['metadata large number', { 'metadata.big': '1e21' }, ['f3']],
    ['metadata.__proto__ like any other key', { 'metadata.__proto__': 'x' }, []],
    ['two metadata keys', { 'metadata.env': 'prod', 'metadata.attempt': '2' }, ['f1']],
    ['combined', { kind: 'llm', status: 'running', traceId: 'f3' }, ['f6']],
    ['combined with tags and metadata', { tag: 'prod', 'metadata.attempt': '2', model: 'gpt-4o' }, ['f1']],
    ['combined, nothing left', { kind: 'llm', parentRunId: 'null', status: 'running' }, []],
  ] as [string, Query, string[]][])('filters by %s', async (_label, query, expected) => {
    expect(await p.ids(query)).toEqual(expected);
    // Small pages walk to the same result.
    expect((await p.walk(query, 1)).map((r) => r.id)).toEqual(expected);
  });

  it('refuses unknown and malformed query parameters with 400', async () => {
    const cases: [Query, string][] = [
      [{ foo: '1' }, 'foo'],
      [{ 'metadata.a.b': '1' }, 'metadata.a.b'],
      [{ 'metadata.': '1' }, 'metadata.'],
      [{ status: 'done' }, 'status'],
      [{ kind: 'LLM' }, 'kind'],
      [{ startedAfter: 'yesterday' }, 'startedAfter'],
      [{ startedBefore: '2026-11-10' }, 'startedBefore'],
      [{ status: ['failed', 'running'] }, 'status'],
      [{ 'metadata.env': ['a', 'b'] }, 'metadata.env'],
      [{ name: '' }, 'name'],
    ];
    for (const [query, parameter] of cases) {
      const problem = expectProblem(await p.list(query), 400, 'validation');
      expect(parametersOf(problem), JSON.stringify(query)).toContain(parameter);
    }
  });

  it('refuses __proto__ as an unknown query parameter instead of dropping it', async () => {
    // Computed key: an own property named __proto__, not a prototype.
    const query: Query = { ['__proto__']: 'x' };
    expect(parametersOf(expectProblem(await p.list(query), 400, 'validation'))).toContain('__proto__');
    expect(parametersOf(expectProblem(await p.metrics(query), 400, 'validation'))).toContain('__proto__');
  });
});
