import { expect, it } from 'vitest';
import { describeEachDialect, manualClock } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { completion, failure } from '../../../test/helpers/openai-server.js';
import {
  API_KEY,
  expectJudgeCall,
  JUDGE_USAGE,
  leakedPieces,
  LOCAL_ENV,
  localConnection,
  localServer,
  uname,
} from '../model-connections/model-connections.test-support.js';
import { evaluatorsWorld, finished } from './evaluators.test-support.js';

/**
 * `llm_judge` rules end to end: a model connection to the local OpenAI-compatible server, a judge prompt
 * of the prompt store, runs ingested through the API, the worker calling the judge, the verdict a score.
 */

const clock = manualClock(Date.parse('2026-11-26T12:00:00.000Z'));
/** What one call costs: JUDGE_USAGE at the connection's pricing. */
const USAGE = JUDGE_USAGE;
const COST = 0.0045;
const SYSTEM = 'You grade answers. Reply in JSON: {"score": 0..1, "reason": "..."}.';

describeEachDialect(
  'evaluator rules with an LLM judge',
  (ctx) => {
    const server = localServer();

    /** An organization with a connection to the local server, a judge prompt and an `llm_judge` rule on its project. */
    async function judgeWorld(connection: Json = {}) {
      const world = await evaluatorsWorld(ctx);
      const conn = ok(
        await ctx.request('POST', '/v1/model-connections', {
          token: world.admin.token,
          body: localConnection(server(), connection),
        }),
        201,
      );
      const promptName = uname('helpfulness');
      ok(
        await ctx.request('POST', '/v1/prompts', {
          token: world.admin.token,
          body: {
            name: promptName,
            template: [
              { role: 'system', content: SYSTEM },
              { role: 'user', content: 'Question: {{input}}\nAnswer: {{output}}\nExpected: {{expected}}' },
            ],
            config: { temperature: 0 },
          },
        }),
        201,
      );
      const r = await world.rule({ evaluator: { type: 'llm_judge', connectionId: conn.id, promptName }, scoreName: 'helpfulness' });
      const ruleId = r.id as string;
      const job = async (runId: string) =>
        ctx.database.storage.db.selectFrom('evaluation_jobs').selectAll().where('rule_id', '=', ruleId).where('run_id', '=', runId).executeTakeFirstOrThrow();
      const spent = async () => ok(await ctx.request('GET', `/v1/model-connections/${conn.id}`, { token: world.admin.token })).spentThisMonthUsd as number;
      const answer = (output: string, expected = '4') => finished({ text: output }, { inputs: { question: 'What is 2 + 2?' }, metadata: { expected } });
      return { ...world, connectionId: conn.id as string, promptName, ruleId, job, spent, answer };
    }

    it('scores an ingested run with the model’s verdict: source evaluator, author the rule, the reason as comment; the prompt rendered with the run', async () => {
      const { ingest, work, scoresOf, get, ruleId, job, spent, answer } = await judgeWorld();
      server().script(completion('{"score": 0.8, "reason": "Right, but terse."}', USAGE));
      const before = server().requests.length;
      const [runId] = await ingest([answer('It is 4.')]);
      expect(await work()).toBe(1);

      expect(await scoresOf(runId!)).toEqual([
        expect.objectContaining({
          runId,
          name: 'helpfulness',
          value: 0.8,
          source: 'evaluator',
          author: { kind: 'rule', id: ruleId },
          comment: 'Right, but terse.',
        }),
      ]);
      expect(server().requests.length - before).toBe(1);
      // The run's input, output and metadata.expected, in the prompt's variables.
      expectJudgeCall(server(), 'gpt-4o-mini', { temperature: 0 }, [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: 'Question: What is 2 + 2?\nAnswer: It is 4.\nExpected: 4' },
      ]);
      expect(await job(runId!)).toMatchObject({ status: 'done', attempts: 1, last_error: null });
      expect((await get(ruleId)).counts).toEqual({ pending: 0, done: 1, failed: 0, skipped: 0 });
      expect(await spent()).toBe(COST);
    });

    it('retries a 500 with backoff, then scores the run (attempts 2)', async () => {
      const { ingest, work, scoresOf, get, ruleId, job, answer } = await judgeWorld();
      server().script(failure(500, 'The server had an error'), completion('{"score": true, "reason": "Correct."}', USAGE));
      const [runId] = await ingest([answer('Four.')]);
      await work();
      expect(await job(runId!)).toMatchObject({
        status: 'pending',
        attempts: 1,
        next_attempt_at: clock.now() + 5_000,
        last_error: 'The model endpoint answered 500: The server had an error',
      });
      expect(await scoresOf(runId!)).toEqual([]);
      clock.advance(5_000);
      await work();
      expect(await job(runId!)).toMatchObject({ status: 'done', attempts: 2, last_error: null });
      expect(await scoresOf(runId!)).toEqual([expect.objectContaining({ value: true, comment: 'Correct.', author: { kind: 'rule', id: ruleId } })]);
      expect((await get(ruleId)).counts).toEqual({ pending: 0, done: 1, failed: 0, skipped: 0 });
    });

    it('fails a malformed answer at once, with the message as the rule’s lastError', async () => {
      const { ingest, work, scoresOf, get, ruleId, job, answer } = await judgeWorld();
      server().script(completion('{"score": 1', USAGE));
      const [runId] = await ingest([answer('4')]);
      await work();
      expect(await job(runId!)).toMatchObject({ status: 'failed', attempts: 1 });
      const rule = await get(ruleId);
      expect(rule.counts).toEqual({ pending: 0, done: 0, failed: 1, skipped: 0 });
      expect(rule.lastError).toBe('The model\'s answer is not a JSON object: {"score": 1');
      expect(await scoresOf(runId!)).toEqual([]);
    });

    it('keeps the key out of the rule’s lastError (which viewers read): an error that echoes it at character 280 is redacted before it is clipped', async () => {
      const { ingest, work, get, ruleId, job, answer } = await judgeWorld();
      const padding = 'Incorrect API key provided. '.repeat(10); // 280 characters
      server().script(failure(401, `${padding}${API_KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`));
      const [runId] = await ingest([answer('4')]);
      await work();
      const { last_error: stored } = await job(runId!);
      const { lastError } = await get(ruleId);
      expect(lastError).toBe(stored);
      expect(lastError).toMatch(/^The model endpoint answered 401: Incorrect API key provided\. /);
      expect(leakedPieces(lastError, [API_KEY])).toEqual([]);
    });

    it('stops calling the model once the monthly budget is spent: later jobs fail with "Budget exhausted"; the spend is the sum of the costs', async () => {
      // $0.01: the third call ($0.0135 in all) goes over it; none after it is made.
      const { ingest, work, scoresOf, get, ruleId, job, spent, answer } = await judgeWorld({ monthlyBudgetUsd: 0.01 });
      const before = server().requests.length;
      const runIds: string[] = [];
      for (let i = 0; i < 5; i++) {
        server().script(completion(`{"score": ${i / 10}, "reason": "call ${i}"}`, USAGE));
        const [runId] = await ingest([answer(`answer ${i}`)]);
        runIds.push(runId!);
        await work();
      }
      // Answers were scripted for all five; only three calls were made (the last test: the two left do not matter).
      expect(server().requests.length - before).toBe(3);
      for (const [i, runId] of runIds.entries()) {
        if (i < 3) {
          expect(await scoresOf(runId)).toEqual([expect.objectContaining({ value: i / 10, comment: `call ${i}` })]);
          expect(await job(runId)).toMatchObject({ status: 'done', attempts: 1 });
        } else {
          expect(await scoresOf(runId)).toEqual([]);
          expect(await job(runId)).toMatchObject({ status: 'failed', attempts: 1, last_error: expect.stringMatching(/^Budget exhausted: /) });
        }
      }
      const rule = await get(ruleId);
      expect(rule.counts).toEqual({ pending: 0, done: 3, failed: 2, skipped: 0 });
      expect(rule.lastError).toMatch(/^Budget exhausted: the model connection ".*" has spent \$0\.0135 of its \$0\.01 budget for 2026-11\.$/);
      // 3 × $0.0045, added exactly (the spend is kept in pico-dollars).
      expect(await spent()).toBe(0.0135);
    });
  },
  { clock, env: LOCAL_ENV },
);
