import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect, manualClock } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { completion, failure } from '../../../test/helpers/openai-server.js';
import { JudgeError, runJudge, type JudgeDeps, type JudgeRequest } from './judge.js';
import {
  API_KEY,
  connectionsWorld,
  expectJudgeCall,
  judgeDeps,
  JUDGE_USAGE,
  LOCAL_ENV,
  localConnection,
  localServer,
} from './model-connections.test-support.js';

/** The LLM judge against the local OpenAI-compatible server: verdicts, each error class, the budget, the SSRF guard at call time. */

const clock = manualClock(Date.parse('2026-11-20T12:00:00.000Z'));
const VARIABLES = { input: 'What is 2 + 2?', output: 'It is 4.', expected: '4' };
/** 1,000 prompt and 200 completion tokens at the connection's PRICING: $0.0045. */
const USAGE = JUDGE_USAGE;

/** What a judge call threw: its class, message and retryable. */
async function failureOf(call: Promise<unknown>): Promise<{ message: string; retryable: boolean }> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JudgeError);
  const { message, retryable } = error as JudgeError;
  expect(message).not.toContain(API_KEY);
  return { message, retryable };
}

describeEachDialect(
  'LLM judge',
  (ctx) => {
    const server = localServer();
    let deps: JudgeDeps;
    let world: Awaited<ReturnType<typeof connectionsWorld>>;
    let connectionId: string;
    let promptName: string;
    const judge = (request: Partial<JudgeRequest> = {}, signal = new AbortController().signal) =>
      runJudge(
        deps,
        {
          organizationId: world.owner.organizationId,
          connectionId,
          prompt: { name: promptName },
          projectId: world.project.id,
          variables: VARIABLES,
          ...request,
        },
        signal,
      );
    const connection = async (body: Json = {}) => world.connect(localConnection(server(), body));

    beforeAll(async () => {
      deps = await judgeDeps(ctx);
      world = await connectionsWorld(ctx);
      connectionId = (await connection()).id;
      promptName = await world.prompt(
        [
          { role: 'system', content: 'You grade answers. Reply in JSON: {"score": 0..1, "reason": "..."}.' },
          { role: 'user', content: 'Question: {{input}}\nAnswer: {{output}}\nExpected: {{ expected }}' },
        ],
        { model: 'gpt-4o', temperature: 0, note: 'not sent' },
      );
    });

    it('renders the prompt into the messages, calls the endpoint in JSON mode and reads the score, the reason and the cost', async () => {
      server().script(completion('{"score": 0.8, "reason": "Right, but terse."}', USAGE));
      expect(await judge()).toEqual({ score: 0.8, reason: 'Right, but terse.', costUsd: 0.0045 });
      expectJudgeCall(server(), 'gpt-4o', { temperature: 0 }, [
        { role: 'system', content: 'You grade answers. Reply in JSON: {"score": 0..1, "reason": "..."}.' },
        { role: 'user', content: 'Question: What is 2 + 2?\nAnswer: It is 4.\nExpected: 4' },
      ]);
    });

    it('takes booleans and categories, a reason or none, a fenced answer; a text prompt is one user message; version and label select', async () => {
      const text = await world.prompt('Is "{{output}}" correct? JSON please.');
      const id = (await ctx.request('GET', `/v1/prompts/${text}`, { token: world.admin.token })).json().id as string;
      ok(await ctx.request('POST', `/v1/prompts/${id}/versions`, { token: world.admin.token, body: { template: 'v2: {{input}} → {{output}}. JSON.' } }), 201);
      ok(await ctx.request('PUT', `/v1/prompts/${id}/labels/production`, { token: world.admin.token, body: { version: 1 } }));

      server().script(
        completion('{"score": true}', USAGE),
        completion('```json\n{"score": "correct", "reason": {"why": 1}}\n```', USAGE),
        completion('{"score": 1}'),
      );
      expect(await judge({ prompt: { name: text, label: 'production' } })).toEqual({ score: true, reason: null, costUsd: 0.0045 });
      expect(server().requests.at(-1)!.body.messages).toEqual([{ role: 'user', content: 'Is "It is 4." correct? JSON please.' }]);
      expect(server().requests.at(-1)!.body.model).toBe('gpt-4o-mini');
      expect(await judge({ prompt: { name: text } })).toEqual({ score: 'correct', reason: '{"why":1}', costUsd: 0.0045 });
      expect(server().requests.at(-1)!.body.messages).toEqual([{ role: 'user', content: 'v2: What is 2 + 2? → It is 4.. JSON.' }]);
      await judge({ prompt: { name: text, version: 1 } });
      expect(server().requests.at(-1)!.body.messages[0].content).toBe('Is "It is 4." correct? JSON please.');
    });

    it('marks 429, 5xx, timeouts, the network and aborts retryable; other answers and faults not', async () => {
      const cases: [string, () => void, string, boolean][] = [
        ['429', () => server().script(failure(429, 'Rate limit reached')), 'The model endpoint answered 429: Rate limit reached', true],
        ['500', () => server().script(failure(500, 'The server had an error')), 'The model endpoint answered 500: The server had an error', true],
        ['503 without a body', () => server().script({ status: 503, body: '' }), 'The model endpoint answered 503: (no body)', true],
        [
          '400',
          () => server().script(failure(400, "'messages' must contain the word 'json'")),
          "The model endpoint answered 400: 'messages' must contain the word 'json'",
          false,
        ],
        ['slow', () => server().script({ ...completion('{"score": 1}'), delayMs: 1500 }), 'The model endpoint did not answer within 1 s.', true],
        ['malformed content', () => server().script(completion('{"score": 1')), 'The model\'s answer is not a JSON object: {"score": 1', false],
        ['no score', () => server().script(completion('{"reason": "fine"}')), 'The model\'s answer has no score: {"reason": "fine"}', false],
        [
          'a null score',
          () => server().script(completion('{"score": null}')),
          "The model's score must be a number, true or false, or a category of 1 to 100 characters: null",
          false,
        ],
        ['no content', () => server().script(completion(null)), 'The model endpoint’s answer has no message content.', false],
        [
          'not JSON at all',
          () => server().script({ status: 200, body: '<html>gateway</html>' }),
          "The model endpoint's answer is not a chat completion (JSON): <html>gateway</html>",
          false,
        ],
        [
          'too large',
          () => server().script({ status: 200, body: `{"pad":"${'x'.repeat(1_100_000)}"}` }),
          "The model endpoint's answer is larger than 1048576 bytes.",
          false,
        ],
      ];
      for (const [name, script, message, retryable] of cases) {
        script();
        expect(await failureOf(judge()), name).toEqual({ message, retryable });
      }
    });

    it('fails on the network (retryable), on an abort (retryable) and on a missing prompt, variable or connection (not)', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const unreachable = await connection({ baseUrl: `http://127.0.0.1:${port}/v1` });
      expect(await failureOf(judge({ connectionId: unreachable.id }))).toEqual({
        message: 'Could not reach the model endpoint: ECONNREFUSED.',
        retryable: true,
      });

      const aborted = new AbortController();
      server().script({ ...completion('{"score": 1}'), delayMs: 800 });
      setTimeout(() => aborted.abort(), 100);
      expect(await failureOf(judge({}, aborted.signal))).toEqual({ message: 'The call to the model endpoint was aborted.', retryable: true });

      expect(await failureOf(judge({ prompt: { name: 'no-such-judge' } }))).toEqual({
        message: 'The judge prompt "no-such-judge" does not exist.',
        retryable: false,
      });
      expect(await failureOf(judge({ prompt: { name: promptName, version: 99 } }))).toEqual({
        message: `The judge prompt version 99 of "${promptName}" does not exist.`,
        retryable: false,
      });
      const odd = await world.prompt('Rate {{output}} for {{audience}} in JSON.');
      expect(await failureOf(judge({ prompt: { name: odd } }))).toEqual({
        message: `The prompt "${odd}" uses {{audience}}: a judge prompt may use only {{input}}, {{output}} and {{expected}}.`,
        retryable: false,
      });
      expect(await failureOf(judge({ connectionId: 'mcn_nope' }))).toEqual({ message: 'Model connection mcn_nope does not exist.', retryable: false });
      const stranger = await ctx.make.caller();
      expect(await failureOf(judge({ organizationId: stranger.organizationId }))).toMatchObject({ retryable: false });
    });

    it('adds each call’s cost to the month; once the spend reaches the budget no call is made; a new month starts over', async () => {
      clock.set(Date.parse('2026-11-29T23:00:00.000Z'));
      const { id } = await connection({ monthlyBudgetUsd: 0.01 });
      const before = server().requests.length;
      for (let i = 0; i < 3; i++) {
        server().script(completion('{"score": 1}', USAGE));
        expect((await judge({ connectionId: id })).costUsd).toBe(0.0045);
      }
      const spent = async () => ok(await ctx.request('GET', `/v1/model-connections/${id}`, { token: world.admin.token })).spentThisMonthUsd as number;
      expect(await spent()).toBe(0.0135);
      server().script(completion('{"score": 1}', USAGE));
      expect(await failureOf(judge({ connectionId: id }))).toEqual({
        message: `Budget exhausted: the model connection "${(await ctx.request('GET', `/v1/model-connections/${id}`, { token: world.admin.token })).json().name}" has spent $0.0135 of its $0.01 budget for 2026-11.`,
        retryable: false,
      });
      expect(server().requests.length - before).toBe(3);
      expect(await spent()).toBe(0.0135);

      // Raising the budget lets calls through again; a zero budget stops them at once.
      ok(await ctx.request('PATCH', `/v1/model-connections/${id}`, { token: world.admin.token, body: { monthlyBudgetUsd: 0.018 } }));
      expect((await judge({ connectionId: id })).costUsd).toBe(0.0045);
      expect(await spent()).toBe(0.018);
      expect((await failureOf(judge({ connectionId: id }))).message).toMatch(/^Budget exhausted/);

      clock.set(Date.parse('2026-12-01T00:00:00.000Z'));
      expect(await spent()).toBe(0);
      server().script(completion('{"score": 1}', USAGE));
      expect((await judge({ connectionId: id })).score).toBe(1);
      expect(await spent()).toBe(0.0045);
      const free = await connection({ monthlyBudgetUsd: 0 });
      expect((await failureOf(judge({ connectionId: free.id }))).message).toMatch(/^Budget exhausted/);
    });

    it('adds concurrent calls’ costs exactly', async () => {
      const { id } = await connection({ monthlyBudgetUsd: 100 });
      server().script(...Array.from({ length: 8 }, () => completion('{"score": 1}', { prompt_tokens: 333, completion_tokens: 77 })));
      await Promise.all(Array.from({ length: 8 }, () => judge({ connectionId: id })));
      // 333 × $2.50 + 77 × $10 per million = $0.0016025 a call.
      expect(ok(await ctx.request('GET', `/v1/model-connections/${id}`, { token: world.admin.token })).spentThisMonthUsd).toBe(0.01282);
    });

    it('prices a model without pricing from the model price table', async () => {
      const { id } = await connection({ pricing: null });
      server().script(completion('{"score": 1}', USAGE));
      // gpt-4o-mini: $0.15 and $0.60 per million.
      expect((await judge({ connectionId: id, prompt: { name: await world.prompt('{{output}}: JSON score') } })).costUsd).toBe(0.00027);
    });

    it('refuses a private endpoint at call time when private targets are not allowed, without calling it', async () => {
      const before = server().requests.length;
      const guarded: JudgeDeps = { ...deps, config: { ...deps.config, modelAllowPrivate: false } };
      const refused = runJudge(
        guarded,
        { organizationId: world.owner.organizationId, connectionId, prompt: { name: promptName }, projectId: world.project.id, variables: VARIABLES },
        new AbortController().signal,
      );
      expect(await failureOf(refused)).toEqual({
        message: 'The model endpoint is refused: Must not target a private, loopback or link-local address.',
        retryable: false,
      });
      expect(server().requests.length).toBe(before);
    });
  },
  { clock, env: LOCAL_ENV },
);
