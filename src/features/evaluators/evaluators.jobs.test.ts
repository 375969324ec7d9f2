import { expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { openStorage } from '../../db/index.js';
import { describeEachDialect, manualClock } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { sampled } from './evaluators.rules.js';
import { evaluatorsWorld, finished } from './evaluators.test-support.js';

const clock = manualClock(Date.parse('2026-11-26T12:00:00.000Z'));

/** Evaluation on live traffic: sampling at ingest, the worker's verdicts as scores, the filter, waiting, retries, several instances. */
describeEachDialect(
  'evaluator jobs',
  (ctx) => {
    const jobsOf = (ruleId: string) =>
      ctx.database.storage.db.selectFrom('evaluation_jobs').selectAll().where('rule_id', '=', ruleId).orderBy('run_id').execute();

    it('scores each sampled run once with each built-in (source evaluator, author the rule), with a comment', async () => {
      const { rule, ingest, scoresOf, work, get } = await evaluatorsWorld(ctx);
      const cases: [Json, unknown, Json, number | boolean][] = [
        [{ type: 'json_valid' }, '{"a":1}', {}, true],
        [{ type: 'json_schema', schema: { type: 'object', required: ['answer'] } }, '{"other":1}', {}, false],
        [{ type: 'regex', pattern: '^\\d+$' }, { text: '12345' }, {}, true],
        [{ type: 'contains', values: ['refund'], caseSensitive: false }, 'Your REFUND is here', {}, true],
        [{ type: 'exact_match' }, 'Paris', { metadata: { expected: 'Paris' } }, true],
        [{ type: 'exact_match', expected: 'Lyon' }, 'Paris', {}, false],
        [{ type: 'fuzzy_match', expectedKey: 'gold' }, 'kitten', { metadata: { gold: 'sitting' } }, 0.571],
        [{ type: 'length', max: 3 }, 'four', {}, false],
        [{ type: 'latency', maxMs: 1000 }, 'x', { latency: 1500 }, false],
      ];
      for (const [evaluator, outputs, extra, expected] of cases) {
        const r = await rule({ evaluator, scoreName: `check-${evaluator.type}` });
        const [runId] = await ingest([finished(outputs, extra)]);
        expect(await work()).toBeGreaterThanOrEqual(1);
        const scores = await scoresOf(runId!);
        expect(scores, JSON.stringify(evaluator)).toEqual([
          expect.objectContaining({
            runId,
            name: `check-${evaluator.type}`,
            value: expected,
            source: 'evaluator',
            author: { kind: 'rule', id: r.id },
            comment: expect.any(String),
          }),
        ]);
        expect((await get(r.id as string)).counts).toMatchObject({ done: 1, pending: 0 });
        // The next case's run is not this rule's.
        await ctx.database.storage.db
          .updateTable('evaluator_rules')
          .set({ enabled: 0 })
          .where('id', '=', r.id as string)
          .execute();
      }
    });

    it('evaluates only runs that match the filter; waits for a running run to finish, and gives up on one that never does', async () => {
      const { project, member, rule, ingest, scoresOf, work, get } = await evaluatorsWorld(ctx);
      const r = await rule({ filter: { kind: 'tool', 'metadata.env': 'prod' }, evaluator: { type: 'json_valid' } });
      const [tool, llm, staging] = await ingest([
        finished('{}', { kind: 'tool', metadata: { env: 'prod' } }),
        finished('{}', { kind: 'llm', metadata: { env: 'prod' } }),
        finished('{}', { kind: 'tool', metadata: { env: 'staging' } }),
      ]);
      const running = await ingest([{ name: 'slow', kind: 'tool', startTime: '2026-11-26T11:00:00.000Z', metadata: { env: 'prod' } }]);
      const never = await ingest([{ name: 'stuck', kind: 'tool', startTime: '2026-11-26T11:00:00.000Z', metadata: { env: 'prod' } }]);
      await work();
      expect((await scoresOf(tool!)).length).toBe(1);
      expect(await scoresOf(llm!)).toEqual([]);
      expect(await scoresOf(staging!)).toEqual([]);
      expect((await get(r.id as string)).counts).toEqual({ pending: 2, done: 1, failed: 0, skipped: 2 });
      // The running run ends: evaluated at the next try.
      ok(
        await ctx.request('PATCH', `/v1/projects/${project.id}/runs/${running[0]}`, {
          token: member.token,
          body: { status: 'succeeded', outputs: { text: 'not json' } },
        }),
      );
      clock.advance(10_000);
      await work();
      expect(await scoresOf(running[0]!)).toEqual([expect.objectContaining({ value: false })]);
      clock.advance(60 * 60_000);
      await work();
      expect(await scoresOf(never[0]!)).toEqual([]);
      const final = await get(r.id as string);
      expect(final.counts).toEqual({ pending: 0, done: 2, failed: 0, skipped: 3 });
      const jobs = await jobsOf(r.id as string);
      expect(jobs.find((j) => j.run_id === never[0])).toMatchObject({
        status: 'skipped',
        last_error: 'The run was still running 60 minutes after it was sampled.',
      });
      expect(jobs.find((j) => j.run_id === llm)).toMatchObject({ status: 'skipped', last_error: 'The run does not match the rule’s filter.' });
    });

    it('skips a run without the expected output; a disabled rule samples nothing; a refused score fails at once', async () => {
      const { rule, ingest, work, get, admin, call } = await evaluatorsWorld(ctx);
      const exact = await rule({ evaluator: { type: 'exact_match' } });
      const off = await rule({ evaluator: { type: 'json_valid' }, enabled: false });
      const name = `typed-${Date.now()}`;
      ok(await ctx.request('POST', '/v1/score-configs', { token: admin.token, body: { name, dataType: 'numeric' } }), 201);
      const typed = await rule({ evaluator: { type: 'json_valid' }, scoreName: name });
      await ingest([finished('x')]);
      await work();
      expect((await get(exact.id as string)).counts).toEqual({ pending: 0, done: 0, failed: 0, skipped: 1 });
      expect((await jobsOf(exact.id as string))[0]!.last_error).toBe('The run has no metadata.expected to compare with.');
      expect((await get(off.id as string)).counts).toEqual({ pending: 0, done: 0, failed: 0, skipped: 0 });
      const refused = await get(typed.id as string);
      expect(refused.counts).toEqual({ pending: 0, done: 0, failed: 1, skipped: 0 });
      expect(refused.lastError).toMatch(/^The score was refused: /);
      expect((await call(admin, 'DELETE', `/${typed.id}`)).statusCode).toBe(204);
      expect(await jobsOf(typed.id as string)).toEqual([]);
    });

    it('retries a job that errs, with backoff, then marks it failed with the last error', async () => {
      const { rule, ingest, work, get } = await evaluatorsWorld(ctx);
      const r = await rule({ evaluator: { type: 'json_schema', schema: { type: 'object' } } });
      await ingest([finished('{}')]);
      // A rule stored earlier whose schema no longer compiles: each try throws.
      await ctx.database.storage.db
        .updateTable('evaluator_rules')
        .set({ evaluator: JSON.stringify({ type: 'json_schema', schema: { type: 'nonsense' } }) })
        .where('id', '=', r.id as string)
        .execute();
      await work();
      expect((await jobsOf(r.id as string))[0]).toMatchObject({ status: 'pending', attempts: 1, next_attempt_at: clock.now() + 5_000 });
      await work(); // not due yet
      expect((await jobsOf(r.id as string))[0]).toMatchObject({ attempts: 1 });
      clock.advance(5_000);
      await work();
      expect((await jobsOf(r.id as string))[0]).toMatchObject({ status: 'pending', attempts: 2, next_attempt_at: clock.now() + 10_000 });
      clock.advance(10_000);
      await work();
      const failed = await get(r.id as string);
      expect(failed.counts).toEqual({ pending: 0, done: 0, failed: 1, skipped: 0 });
      expect(failed.lastError).toMatch(/^Not a valid JSON schema/);
      expect((await jobsOf(r.id as string))[0]).toMatchObject({ status: 'failed', attempts: 3 });
    });

    it('samples at the rule’s rate within 3σ over 10,000 runs, the same runs each time', async () => {
      const { project, rule } = await evaluatorsWorld(ctx);
      const r = await rule({ sampleRate: 0.3, evaluator: { type: 'json_valid' } });
      const ids = await ctx.make.runs(project.id, 10_000, (i) => ({ id: `s${i}` }));
      const jobs = await jobsOf(r.id as string);
      const sigma = Math.sqrt(10_000 * 0.3 * 0.7);
      expect(Math.abs(jobs.length - 3000)).toBeLessThanOrEqual(3 * sigma);
      // Deterministic: exactly the runs the hash takes, and a retry of the same runs adds none.
      expect(jobs.map((j) => j.run_id).sort()).toEqual(ids.filter((id) => sampled(r.id as string, id, 0.3)).sort());
      await ctx.make.runs(project.id, 100, (i) => ({ id: `s${i}` })).catch(() => []);
      expect((await jobsOf(r.id as string)).length).toBe(jobs.length);
      // Its jobs are not for the workers of the next test.
      await ctx.database.storage.db
        .updateTable('evaluator_rules')
        .set({ enabled: 0 })
        .where('id', '=', r.id as string)
        .execute();
    }, 120_000);

    it('two instances on one database evaluate each run exactly once', async () => {
      const { rule, ingest, scoresOf } = await evaluatorsWorld(ctx);
      const r = await rule({ evaluator: { type: 'length', min: 1 } });
      const runIds = await ingest(Array.from({ length: 120 }, (_, i) => finished(`answer ${i}`)));
      // On PostgreSQL the second instance has a pool of its own, as another process would; SQLite's one
      // writer is shared by the instances of a process.
      const storage =
        ctx.database.storage.dialect === 'postgres' ? await openStorage({ database: ctx.database.config, sqliteSynchronous: 'NORMAL' }) : ctx.database.storage;
      const other = await buildApp({ config: ctx.config, storage, clock });
      try {
        let settled = 0;
        for (let pass = 0; pass < 5; pass++) {
          const [a, b] = await Promise.all([ctx.app.evaluations.runDue(), other.evaluations.runDue()]);
          settled += a + b;
        }
        expect(settled).toBe(120);
      } finally {
        await other.close();
        if (storage !== ctx.database.storage) await storage.close();
      }
      for (const runId of runIds) expect((await scoresOf(runId)).length, runId).toBe(1);
      expect((await jobsOf(r.id as string)).every((j) => j.status === 'done' && Number(j.attempts) === 1)).toBe(true);
    }, 120_000);
  },
  { clock },
);
