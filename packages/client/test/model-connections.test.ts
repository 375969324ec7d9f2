import { afterAll, beforeAll, expect, it } from 'vitest';
import { Sightline } from '../src/index.js';
import { completion, failure, startOpenAiServer, type OpenAiServer } from '../../../test/helpers/openai-server.js';
import type { Caller } from '../../../test/helpers/harness.js';
import { expectProblem, startServer, type Server } from './client.test-support.js';

/** client.modelConnections against a real server whose connections may reach the local OpenAI-compatible test server. */
let server: Server;
let models: OpenAiServer;
let owner: Caller;
let client: Sightline;

beforeAll(async () => {
  server = await startServer({ SIGHTLINE_MODEL_ALLOW_PRIVATE: 'true' });
  models = await startOpenAiServer();
  owner = await server.make.caller({ role: 'owner' });
  client = new Sightline({ baseUrl: server.url, token: owner.token, backoffMs: 5 });
}, 60_000);
afterAll(async () => {
  await models?.close();
  await server?.close();
});

it('creates, lists, tests, changes and deletes model connections; the key is never answered', async () => {
  const key = 'sk-sdk-test-key-0123456789abcd';
  const created = await client.modelConnections.create({ name: 'judge', baseUrl: models.baseURL, model: 'gpt-4o-mini', apiKey: key, monthlyBudgetUsd: 10 });
  expect(created).toMatchObject({ id: expect.stringMatching(/^mcn_/), name: 'judge', apiKeyHint: '…abcd', spentThisMonthUsd: 0, pricing: null });
  expect(JSON.stringify(created)).not.toContain(key);
  expect(await client.modelConnections.get(created.id)).toEqual(created);
  expect((await client.modelConnections.list({ name: 'JUD' }).toArray()).map((c) => c.id)).toEqual([created.id]);

  models.script(completion('{"ok": true}', { prompt_tokens: 1000, completion_tokens: 200 }));
  expect(await client.modelConnections.test(created.id)).toMatchObject({ ok: true, status: 200, costUsd: 0.00027, problem: null });
  expect(models.requests.at(-1)!.headers.authorization).toBe(`Bearer ${key}`);
  models.script(failure(429, 'Rate limit reached'));
  expect(await client.modelConnections.test(created.id)).toMatchObject({
    ok: false,
    status: 429,
    problem: 'The model endpoint answered 429: Rate limit reached',
    retryable: true,
  });

  const changed = await client.modelConnections.update(created.id, { monthlyBudgetUsd: 0.00027, pricing: { inputPerMillion: 1, outputPerMillion: 2 } });
  expect(changed).toMatchObject({ monthlyBudgetUsd: 0.00027, spentThisMonthUsd: 0.00027, pricing: { inputPerMillion: 1, outputPerMillion: 2 } });
  expect((await client.modelConnections.test(created.id)).problem).toMatch(/^Budget exhausted/);
  await expectProblem(client.modelConnections.create({ name: 'judge', baseUrl: models.baseURL, model: 'gpt-4o-mini', monthlyBudgetUsd: 1 }), 409, 'conflict');
  await client.modelConnections.delete(created.id);
  await expectProblem(client.modelConnections.get(created.id), 404, 'not-found');

  const member = await server.make.caller({ role: 'member', organizationId: owner.organizationId });
  await expectProblem(new Sightline({ baseUrl: server.url, token: member.token }).modelConnections.list().toArray(), 403, 'forbidden');
});
