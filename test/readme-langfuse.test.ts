/**
 * The README's "Coming from Langfuse" runs as written: its JavaScript, in a file of its own run by Node
 * with the environment its shell line sets (the server this suite listens on, the project as the public
 * key, a member's token as the secret key), sends through Langfuse's own packages; what it traced is
 * then read back through /v1.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from './helpers/harness.js';
import type { Json } from './helpers/json.js';
import { blocks, ROOT, section } from './helpers/readme.js';

const run = promisify(execFile);

describeEachDialect('the README’s “Coming from Langfuse”, run as written', (ctx) => {
  let baseUrl = '';
  beforeAll(async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  });

  /** Runs the section's JavaScript block `n` with the environment its shell line sets; answers the runs of the project its public key names. */
  async function runBlock(n: number) {
    const text = section('Coming from Langfuse');
    const [shell] = blocks(text, 'sh');
    const program = blocks(text, 'js')[n];
    expect(shell, 'a shell line').toBeDefined();
    expect(program, `JavaScript example ${n + 1}`).toBeDefined();
    // The environment the shell line sets: the server replaced by this suite's, $TOKEN by a member's token.
    const caller = await ctx.make.caller({ role: 'member' });
    const env: Record<string, string> = {};
    for (const [, name, value] of shell!.matchAll(/(LANGFUSE_\w+)=(\S+)/g)) env[name!] = value!;
    expect(Object.keys(env).sort()).toEqual(['LANGFUSE_BASE_URL', 'LANGFUSE_PUBLIC_KEY', 'LANGFUSE_SECRET_KEY']);
    expect(env.LANGFUSE_BASE_URL).toBe('http://localhost:8080');
    expect(env.LANGFUSE_SECRET_KEY).toBe('$TOKEN');
    env.LANGFUSE_BASE_URL = baseUrl;
    env.LANGFUSE_SECRET_KEY = caller.token;

    // Inside the repository, so that its imports resolve to the packages the project pins.
    const dir = join(ROOT, 'node_modules', '.cache', 'sightline-readme');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `langfuse-${process.pid}-${Date.now()}.mjs`);
    writeFileSync(file, program!);
    try {
      const { stderr } = await run(process.execPath, [file], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 });
      expect(stderr).toBe('');
    } finally {
      rmSync(file, { force: true });
    }

    const projects = await ctx.request('GET', `/v1/projects?name=${env.LANGFUSE_PUBLIC_KEY}`, { token: caller.token });
    expect(projects.statusCode, projects.body).toBe(200);
    const [project] = projects.json().items as { id: string }[];
    expect(project).toBeDefined();
    const read = async (path: string) => {
      const res = await ctx.request('GET', `/v1/projects/${project!.id}${path}`, { token: caller.token });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().items as Json[];
    };
    const runs = await read('/runs?limit=100');
    return { runs, byName: new Map(runs.map((r) => [r.name as string, r])), scores: () => read('/scores') };
  }

  /** The README's generation, as both SDKs send it: under `parent`, in its trace. */
  const generationUnder = (parent: Json) => ({
    kind: 'llm',
    parentRunId: parent.id,
    traceId: parent.traceId,
    model: 'gpt-4o-mini',
    usage: { promptTokens: 12, completionTokens: 5, totalTokens: 17 },
    outputs: { messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'It ships today.' }] }] },
  });

  it('sends the agent and its generation through Langfuse’s OpenTelemetry SDK into the project its public key names', async () => {
    const { runs, byName } = await runBlock(0);
    expect([...byName.keys()].sort()).toEqual(['chat gpt-4o-mini', 'support-agent']);
    const agent = byName.get('support-agent')!;
    expect(agent).toMatchObject({ kind: 'agent', parentRunId: null, inputs: { question: 'Where is my order?' }, outputs: 'It ships today.' });
    expect(byName.get('chat gpt-4o-mini')).toMatchObject(generationUnder(agent));
    for (const r of runs) expect(r).toMatchObject({ sessionId: 'conversation-7', userId: 'user-7', tags: ['beta'] });
  });

  it('sends the trace, its generation and a score through Langfuse’s batch-API SDK (`langfuse` v3) into the same kind of project', async () => {
    const { runs, byName, scores } = await runBlock(1);
    expect([...byName.keys()].sort()).toEqual(['chat gpt-4o-mini', 'support-agent']);
    const root = byName.get('support-agent')!;
    expect(root).toMatchObject({ kind: 'chain', parentRunId: null, inputs: { question: 'Where is my order?' }, outputs: 'It ships today.' });
    expect(root).toMatchObject({ sessionId: 'conversation-7', userId: 'user-7' });
    expect(byName.get('chat gpt-4o-mini')).toMatchObject(generationUnder(root));
    expect(runs).toHaveLength(2);
    expect((await scores()).map((s) => [s.name, s.target, s.traceId, s.value])).toEqual([['resolved', 'trace', root.traceId, 1]]);
  });
});
