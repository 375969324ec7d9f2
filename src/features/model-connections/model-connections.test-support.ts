// What the model connections suites share: an organization with an admin, the local OpenAI-compatible
// server, a connection to it, judge prompts, and the judge's deps built from the suite's context.
import { afterAll, beforeAll, expect } from 'vitest';
import type { Caller, TestContext } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { startOpenAiServer, type OpenAiServer } from '../../../test/helpers/openai-server.js';
import { Keyring } from '../../lib/keys.js';
import type { JudgeDeps } from './judge.js';
import { MIN_SECRET_PIECE, secretForms } from './model-connections.rules.js';

/** Settings of the suites' apps: the local test server allowed (as the webhook suites allow their receiver), a 1-second call timeout. */
export const LOCAL_ENV = { SIGHTLINE_MODEL_ALLOW_PRIVATE: 'true', SIGHTLINE_MODEL_TIMEOUT_SECONDS: '1' };

/** A key long enough to show its last 4 characters, never expected in any answer or row. */
export const API_KEY = 'sk-test-0123456789abcdefSECRETKEY';
export const HEADER_SECRET = 'gateway-header-secret-value';

/** Every piece of MIN_SECRET_PIECE characters of each form of each secret. */
export function secretPieces(secrets: readonly string[]): string[] {
  const forms = secrets.flatMap(secretForms);
  return [...new Set(forms.flatMap((form) => Array.from({ length: form.length - MIN_SECRET_PIECE + 1 }, (_, i) => form.slice(i, i + MIN_SECRET_PIECE))))];
}

/** The pieces of the secrets a text holds (none is the point). */
export const leakedPieces = (text: string, secrets: readonly string[]): string[] => secretPieces(secrets).filter((piece) => text.includes(piece));

let seq = 0;
export const uname = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${(seq++).toString(36)}`;

/** The judge's deps: the suite's config, database and clock, and a keyring over the same keys as the app's. */
export async function judgeDeps(ctx: TestContext): Promise<JudgeDeps> {
  const keys = new Keyring(ctx.database.storage.db, ctx.clock);
  await keys.init();
  return { config: ctx.config, db: ctx.database.storage.db, clock: ctx.clock, keys };
}

/** $2.50 and $10 per million tokens: 1,000 prompt and 200 completion tokens (JUDGE_USAGE) cost $0.0045. */
export const PRICING = { inputPerMillion: 2.5, outputPerMillion: 10 };
export const JUDGE_USAGE = { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 };

/** A new connection's body: to the local server, gpt-4o-mini with the test key, a $100 budget and PRICING (`body` replaces fields). */
export const localConnection = (server: OpenAiServer, body: Json = {}): Json => ({
  name: uname('judge'),
  baseUrl: server.baseURL,
  model: 'gpt-4o-mini',
  apiKey: API_KEY,
  monthlyBudgetUsd: 100,
  pricing: PRICING,
  ...body,
});

/** Asserts the last call the local server received: a chat completion with the key, in JSON mode, with this model, options and messages. */
export function expectJudgeCall(server: OpenAiServer, model: string, options: Json, messages: { role: string; content: string }[]): void {
  const sent = server.requests.at(-1)!;
  expect(sent.path).toBe('/v1/chat/completions');
  expect(sent.headers.authorization).toBe(`Bearer ${API_KEY}`);
  expect(sent.body).toEqual({ model, ...options, messages, response_format: { type: 'json_object' } });
}

/** Starts the local OpenAI-compatible server for the suite; `server()` is it. */
export function localServer(): () => OpenAiServer {
  let server: OpenAiServer;
  beforeAll(async () => {
    server = await startOpenAiServer();
  });
  afterAll(async () => server?.close());
  return () => server;
}

export async function connectionsWorld(ctx: TestContext) {
  const owner = await ctx.make.caller({ role: 'owner' });
  const of = (role: 'admin' | 'member' | 'viewer') => ctx.make.caller({ role, organizationId: owner.organizationId });
  const [admin, member] = [await of('admin'), await of('member')];
  const project = await ctx.make.project(owner.organizationId);
  const post = (body: Json, caller: Caller = admin) => ctx.request('POST', '/v1/model-connections', { token: caller.token, body });
  const connect = async (body: Json): Promise<Json> => ok(await post(body), 201);
  const prompt = async (template: unknown, config: Json = {}): Promise<string> => {
    const name = uname('judge');
    const res = await ctx.request('POST', '/v1/prompts', { token: admin.token, body: { name, template, config } });
    expect(res.statusCode, res.body).toBe(201);
    return name;
  };
  return { owner, admin, member, project, post, connect, prompt };
}
