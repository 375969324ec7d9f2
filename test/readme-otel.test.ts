/**
 * The README's "With OpenTelemetry" JavaScript runs as written: each example, in a file of its own run by
 * Node with the environment the section's shell lines set (this suite's server, a member's token, a project
 * of the example's own) and a local OpenAI-compatible server as `OPENAI_BASE_URL`, sends through the real
 * instrumentation packages; what it traced is then read back through /v1.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from './helpers/harness.js';
import type { Json } from './helpers/json.js';
import { blocks, ROOT, section } from './helpers/readme.js';
import { ANSWER, CHAT_MODEL, startOpenAiServer, type OpenAiServer } from './helpers/openai-server.js';

const run = promisify(execFile);

/** What the OpenAI-compatible server's chat usage becomes on a run. */
const USAGE = { promptTokens: 42, completionTokens: 18, totalTokens: 60 };

describeEachDialect('the README’s “With OpenTelemetry” JavaScript, run as written', (ctx) => {
  let baseUrl = '';
  let api: OpenAiServer;
  beforeAll(async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    api = await startOpenAiServer();
  });
  afterAll(() => api?.close());

  /** Runs the section's JavaScript example `n` with the environment its shell lines set; answers what it printed and the runs of its project. */
  async function runExample(n: number) {
    const text = section('With OpenTelemetry');
    const [shell] = blocks(text, 'sh');
    const program = blocks(text, 'js')[n];
    expect(program, `JavaScript example ${n + 1}`).toBeDefined();
    const caller = await ctx.make.caller({ role: 'member' });
    const project = `readme-otel-${n}-${Date.now()}`;
    // The environment the shell lines set: the server replaced by this suite's, $TOKEN by a member's token, the project by the example's own.
    const env: Record<string, string> = {};
    for (const [, name, value] of shell!.matchAll(/(OTEL_\w+)=("[^"]*"|\S+)/g)) env[name!] = value!.replace(/^"|"$/g, '');
    expect(Object.keys(env).sort()).toEqual(['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_PROTOCOL']);
    expect(env.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://localhost:8080');
    expect(env.OTEL_EXPORTER_OTLP_HEADERS).toBe('Authorization=Bearer%20$TOKEN,Sightline-Project=support-bot');
    env.OTEL_EXPORTER_OTLP_ENDPOINT = baseUrl;
    env.OTEL_EXPORTER_OTLP_HEADERS = env.OTEL_EXPORTER_OTLP_HEADERS!.replace('$TOKEN', caller.token).replace('support-bot', project);

    // Inside the repository, so that its imports resolve to the packages the project pins.
    const dir = join(ROOT, 'node_modules', '.cache', 'sightline-readme');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `otel-${process.pid}-${Date.now()}.mjs`);
    writeFileSync(file, program!);
    const { stdout, stderr } = await run(process.execPath, [file], {
      env: { PATH: process.env.PATH ?? '', ...env, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: api.baseURL },
      timeout: 60_000,
    }).finally(() => rmSync(file, { force: true }));
    expect(stderr).toBe('');

    const projects = await ctx.request('GET', `/v1/projects?name=${project}`, { token: caller.token });
    expect(projects.statusCode, projects.body).toBe(200);
    const [found] = projects.json().items as { id: string }[];
    expect(found, `the project ${project}`).toBeDefined();
    const res = await ctx.request('GET', `/v1/projects/${found!.id}/runs?limit=100`, { token: caller.token });
    expect(res.statusCode, res.body).toBe(200);
    return { stdout, runs: res.json().items as Json[] };
  }

  /** The one model call of an example: an LLM run of the chat model with the server's usage, priced. */
  const expectChat = (runs: Json[]) => {
    const llm = runs.filter((r) => r.kind === 'llm');
    expect(llm).toHaveLength(1);
    expect(llm[0]).toMatchObject({ status: 'succeeded', provider: 'openai', usage: expect.objectContaining(USAGE), costSource: 'computed' });
    expect(String(llm[0]!.model)).toContain(CHAT_MODEL);
    expect(JSON.stringify(llm[0]!.outputs)).toContain(ANSWER);
    return llm[0]!;
  };

  it('OpenInference instrumenting the openai client', async () => {
    const { stdout, runs } = await runExample(0);
    expect(stdout.trim()).toBe(ANSWER);
    expect(runs).toHaveLength(1);
    expectChat(runs);
  });

  it('OpenInference instrumenting LangChain: the session and user from the run’s metadata', async () => {
    const { stdout, runs } = await runExample(1);
    expect(stdout.trim()).toBe(ANSWER);
    const llm = expectChat(runs);
    expect(llm).toMatchObject({ name: 'ChatOpenAI', sessionId: 'conversation-7', userId: 'user-7' });
  });

  it('OpenLLMetry instrumenting the openai client', async () => {
    const { stdout, runs } = await runExample(2);
    expect(stdout.trim()).toBe(ANSWER);
    expect(runs).toHaveLength(1);
    expectChat(runs);
  });

  it('the Vercel AI SDK: the call and its model call, with the session and user', async () => {
    const { stdout, runs } = await runExample(3);
    expect(stdout.trim()).toBe(ANSWER);
    const llm = expectChat(runs);
    const outer = runs.find((r) => r.id === llm.parentRunId);
    expect(outer).toMatchObject({ name: 'ai.generateText', kind: 'chain', parentRunId: null });
    expect(outer!.metadata).toMatchObject({ 'ai.telemetry.functionId': 'support-agent' });
    for (const r of runs) expect(r).toMatchObject({ sessionId: 'conversation-7', userId: 'user-7' });
  });

  it('the OpenTelemetry SDK by hand', async () => {
    const { runs } = await runExample(4);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      name: 'chat gpt-4o',
      kind: 'llm',
      model: 'gpt-4o',
      usage: { promptTokens: 812, completionTokens: 95, totalTokens: 907 },
      sessionId: 'conversation-7',
    });
  });
});
