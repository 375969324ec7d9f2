import { expect, it } from 'vitest';
import * as searchMigration from '../../db/migrations/2026-11-23-009-search.js';
import { expectProblem } from '../../../test/helpers/harness.js';
import { describeRuns, HOUR, iso, NOW, parametersOf, projectFor } from './runs.test-support.js';

/** The `q` filter: full-text search over runs' names, inputs, outputs and errors, on both engines' own indexes. */
describeRuns('search', (ctx) => {
  const at = (offset: number) => iso(NOW - HOUR + offset);
  const corpus = () => [
    {
      id: 'refund',
      name: 'answer',
      kind: 'llm',
      startTime: at(1),
      inputs: { messages: [{ role: 'user', content: 'Can I get a REFUND for order 42?' }] },
      outputs: 'Yes, within 30 days.',
    },
    { id: 'shipping', name: 'answer', kind: 'llm', startTime: at(2), inputs: 'Where is my parcel?', outputs: { text: 'It ships tomorrow from Zürich.' } },
    {
      id: 'failure',
      name: 'lookup-orders',
      kind: 'tool',
      startTime: at(3),
      status: 'failed',
      endTime: at(4),
      error: 'TimeoutError: orders database did not answer',
    },
    { id: 'named', name: 'Refund policy retriever', kind: 'retriever', startTime: at(5) },
  ];

  it('finds words in inputs, outputs, errors and names, whole words, case-insensitive, all of them', async () => {
    const p = await projectFor(ctx);
    await p.seed(corpus());
    expect(await p.ids({ q: 'refund' })).toEqual(['named', 'refund']);
    expect(await p.ids({ q: 'Refund order' })).toEqual(['refund']);
    expect(await p.ids({ q: 'tomorrow' })).toEqual(['shipping']);
    expect(await p.ids({ q: 'zürich' })).toEqual(['shipping']);
    expect(await p.ids({ q: 'timeouterror database' })).toEqual(['failure']);
    expect(await p.ids({ q: 'orders' })).toEqual(['failure']);
    expect(await p.ids({ q: 'refunds' })).toEqual([]);
    expect(await p.ids({ q: 'parcel', kind: 'tool' })).toEqual([]);
    expect(await p.ids({ q: 'answer', kind: 'tool' })).toEqual(['failure']);
  });

  it('combines with filters and cursors, a cursor staying bound to its query; metrics count the same runs', async () => {
    const p = await projectFor(ctx);
    await p.seed(
      Array.from({ length: 7 }, (_, i) => ({ id: `m${i}`, name: 'step', kind: 'chain', startTime: at(i), inputs: i % 2 === 0 ? 'alpha beta' : 'alpha' })),
    );
    expect(await p.ids({ q: 'alpha' })).toHaveLength(7);
    const walked = await p.walk({ q: 'beta' }, 2);
    expect(walked.map((r) => r.id)).toEqual(['m6', 'm4', 'm2', 'm0']);
    const page = (await p.list({ q: 'alpha', limit: 2 })).json();
    expect(parametersOf(expectProblem(await p.list({ q: 'beta', limit: 2, cursor: page.nextCursor }), 400, 'validation'))).toEqual(['cursor']);
    const metrics = (await p.metrics({ q: 'beta', from: iso(NOW - 2 * HOUR), to: iso(NOW) })).json();
    expect(metrics.total.count).toBe(4);
  });

  it('refuses a query without words or with too many, and never fails on query syntax', async () => {
    const p = await projectFor(ctx);
    await p.seed(corpus());
    for (const q of ['!!!', '"', '* -']) expect(parametersOf(expectProblem(await p.list({ q }), 400, 'validation')), q).toEqual(['q']);
    expect(parametersOf(expectProblem(await p.list({ q: Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ') }), 400, 'validation'))).toEqual(['q']);
    for (const q of ['AND', 'refund OR', 'NEAR(refund order)', 'refund*', '"refund"', 'order:42', "o'brien", 'refund)', '^refund', 'a"b']) {
      const res = await p.list({ q });
      expect(res.statusCode, `${q}: ${res.body}`).toBe(200);
    }
    expect(await p.ids({ q: '"refund"' })).toEqual(['named', 'refund']);
  });

  it('follows a run that ends with outputs, and keeps projects and organizations apart', async () => {
    const p = await projectFor(ctx);
    await p.seed([{ id: 'pending', name: 'step', kind: 'chain', startTime: at(0) }]);
    expect(await p.ids({ q: 'eventually' })).toEqual([]);
    expect((await p.patch('pending', { status: 'succeeded', outputs: 'eventually done' })).statusCode).toBe(200);
    expect(await p.ids({ q: 'eventually' })).toEqual(['pending']);
    const other = await projectFor(ctx);
    await other.seed([{ id: 'secret', name: 'step', kind: 'chain', startTime: at(0), inputs: 'eventually elsewhere' }]);
    expect(await p.ids({ q: 'eventually' })).toEqual(['pending']);
    expect(await other.ids({ q: 'eventually' })).toEqual(['secret']);
  });

  it('is written for the runs stored before search existed (the migration backfills them)', async () => {
    const p = await projectFor(ctx);
    await p.seed(corpus());
    const db = ctx.database.storage.db;
    await searchMigration.down(db);
    await searchMigration.up(db);
    expect(await p.ids({ q: 'refund' })).toEqual(['named', 'refund']);
    expect(await p.ids({ q: 'timeouterror' })).toEqual(['failure']);
  });
});
