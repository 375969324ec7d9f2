import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/app.js';
import { TokenService } from '../src/auth/tokens.js';
import type { App } from '../src/deps.js';
import { systemClock, type Clock } from '../src/lib/clock.js';
import { Keyring } from '../src/lib/keys.js';
import {
  newRunId,
  rotateBeforeExpiry,
  Sightline,
  SightlineNetworkError,
  SightlineProblem,
  traceChatCompletion,
  wrapOpenAI,
  type ClientOptions,
  type Run,
  type RunCreate,
} from '../packages/client/src/index.js';
import { runCli, type CliIo } from '../packages/client/src/cli.js';
import { main } from '../src/cli.js';
import { Factories, manualClock, PROBLEM_BASE, testConfig } from './helpers/harness.js';
import { freePort } from './helpers/services.js';
import { createTestDatabase, type TestDatabase } from './helpers/storage.js';

/**
 * The client SDK (packages/client) against a real server on a free port (SQLite): typed calls,
 * pagination, problems, token renewal and rotation, retries, the tracer, and the CLI's remote commands.
 */

interface Server {
  app: App;
  url: string;
  make: Factories;
  close(): Promise<void>;
}

async function startServer(env: Record<string, string> = {}, clock: Clock = systemClock): Promise<Server> {
  const database: TestDatabase = await createTestDatabase('sqlite');
  const config = testConfig(env);
  const app = await buildApp({ config, storage: database.storage, clock });
  const port = await freePort();
  await app.listen({ port, host: '127.0.0.1' });
  const keys = new Keyring(database.storage.db, clock);
  await keys.init();
  const make = new Factories(database.storage.db, new TokenService(database.storage.db, keys, config, clock), clock);
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    make,
    close: async () => {
      await app.close();
      await database.destroy();
    },
  };
}

interface Seen {
  method: string;
  url: URL;
  status: number;
  authorization: string | null;
}

/** A fetch that records every request and its answer's status (and may act on each answer). */
function countingFetch(onAnswer?: (seen: Seen, response: Response) => void): { fetch: typeof fetch; seen: Seen[] } {
  const seen: Seen[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const headers = new Headers(init?.headers);
    const entry = { method: init?.method ?? 'GET', url: new URL(String(input)), status: response.status, authorization: headers.get('authorization') };
    seen.push(entry);
    onAnswer?.(entry, response);
    return response;
  };
  return { fetch: wrapped, seen };
}

type Decision = 'forward' | 'forward-then-drop' | 'drop' | { status: number; headers?: Record<string, string>; body?: string } | { delayMs: number };

interface Proxy {
  url: string;
  requests: { method: string; path: string }[];
  close(): Promise<void>;
}

const FORWARDED_REQUEST_HEADERS = ['authorization', 'content-type', 'accept', 'if-none-match'];
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'retry-after', 'x-request-id', 'sightline-token-expires-at', 'etag'];

/** An HTTP proxy in front of the server that can answer by itself, delay, or drop the connection. */
async function startProxy(target: string, decide: (request: { method: string; path: string; n: number }) => Decision): Promise<Proxy> {
  const requests: { method: string; path: string }[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const n = requests.push({ method, path });
    const decision = decide({ method, path, n });
    if (decision === 'drop') return void req.socket.destroy();
    if (typeof decision === 'object' && 'status' in decision) {
      res.writeHead(decision.status, decision.headers ?? {});
      return void res.end(decision.body ?? '');
    }
    if (typeof decision === 'object' && 'delayMs' in decision) await new Promise((r) => setTimeout(r, decision.delayMs));
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = (req.headers as IncomingHttpHeaders)[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const upstream = await fetch(`${target}${path}`, { method, headers, body: body.length > 0 ? body : undefined });
    const payload = Buffer.from(await upstream.arrayBuffer());
    // The server has done the work; the client never hears of it.
    if (decision === 'forward-then-drop') return void req.socket.destroy();
    const out: Record<string, string> = {};
    for (const name of FORWARDED_RESPONSE_HEADERS) {
      const value = upstream.headers.get(name);
      if (value !== null) out[name] = value;
    }
    res.writeHead(upstream.status, out);
    res.end(payload);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function allRuns(client: Sightline, projectId: string): Promise<Run[]> {
  return client.runs.list(projectId, {}, { limit: 100 }).toArray();
}

async function expectProblem(promise: Promise<unknown>, status: number, slug: string): Promise<SightlineProblem> {
  const error = await promise.then(
    () => {
      throw new Error(`expected a ${status} ${slug} problem, got success`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SightlineProblem);
  const problem = error as SightlineProblem;
  expect(problem.status, problem.message).toBe(status);
  expect(problem.type).toBe(`${PROBLEM_BASE}/${slug}`);
  expect(problem.slug).toBe(slug);
  return problem;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the client SDK against a real server', () => {
  let server: Server;
  let owner: Awaited<ReturnType<Factories['caller']>>;
  let client: Sightline;
  const options = (extra: Partial<ClientOptions> = {}): ClientOptions => ({ baseUrl: server.url, token: owner.token, backoffMs: 5, ...extra }) as ClientOptions;

  beforeAll(async () => {
    server = await startServer();
    owner = await server.make.caller({ role: 'owner' });
    client = new Sightline(options());
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it('round-trips every typed call: identity, tokens, organization, members, invitations', async () => {
    const me = await client.me.get();
    expect(me).toMatchObject({ role: 'owner', organization: { id: owner.organizationId }, token: { kind: 'personal_access_token', id: owner.tokenId } });
    expect(await client.tokenExpiresAt()).toBe(me.token.expiresAt);

    const minted = await client.tokens.create({ name: 'sdk', expiresInDays: 30 });
    expect(minted.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const listed = await client.tokens.list().toArray();
    expect(listed.map((t) => t.id)).toContain(minted.id);
    expect(listed.every((t) => !('token' in t))).toBe(true);
    const other = new Sightline(options({ token: minted.token }));
    const rotated = await other.tokens.rotate(minted.id);
    expect(rotated).toMatchObject({ name: 'sdk' });
    expect(rotated.id).not.toBe(minted.id);
    await client.tokens.revoke(rotated.id);
    expect((await client.tokens.list().toArray()).find((t) => t.id === rotated.id)?.revokedAt).not.toBeNull();
    expect((await client.organization.tokens.list().toArray()).map((t) => t.id)).toContain(rotated.id);

    const org = await client.organization.get();
    expect(org).toMatchObject({ id: owner.organizationId, allowedOrigins: [] });
    const renamed = await client.organization.update({ name: `${org.name}-renamed`, allowedOrigins: ['https://app.example.com'] });
    expect(renamed).toMatchObject({ name: `${org.name}-renamed`, allowedOrigins: ['https://app.example.com'] });

    const member = await server.make.caller({ role: 'member', organizationId: owner.organizationId });
    const members = await client.organization.members.list().toArray();
    expect(members.map((m) => m.user.id).sort()).toEqual([owner.userId, member.userId].sort());
    expect(await client.organization.members.update(member.userId, { role: 'viewer' })).toMatchObject({ role: 'viewer', user: { id: member.userId } });
    await client.organization.members.remove(member.userId);
    expect((await client.organization.members.list().toArray()).map((m) => m.user.id)).toEqual([owner.userId]);

    const invitation = await client.organization.invitations.create({ email: 'new@example.test', role: 'member' });
    expect(invitation).toMatchObject({ email: 'new@example.test', role: 'member' });
    expect((await client.organization.invitations.list().toArray()).map((i) => i.id)).toEqual([invitation.id]);
    await client.organization.invitations.delete(invitation.id);
    expect(await client.organization.invitations.list().toArray()).toEqual([]);
  });

  it('round-trips projects, runs (create, idempotent retry, batch, get, patch, list, metrics)', async () => {
    const project = await client.projects.create({ name: 'sdk-runs', description: 'runs' });
    expect(await client.projects.get(project.id)).toEqual(project);
    const updated = await client.projects.update(project.id, { description: 'changed' });
    expect(updated.description).toBe('changed');
    expect((await client.projects.list({ name: 'sdk-run' }).toArray()).map((p) => p.id)).toEqual([project.id]);

    const input: RunCreate = {
      name: 'ChatOpenAI',
      kind: 'llm',
      status: 'succeeded',
      startTime: '2026-11-21T10:15:30.123Z',
      endTime: '2026-11-21T10:15:31.020Z',
      model: 'gpt-4o',
      usage: { promptTokens: 812, completionTokens: 95 },
      inputs: { question: 'Where is my order?' },
      outputs: { answer: '…' },
      tags: ['prod'],
      metadata: { customer: 'c_17' },
    };
    const run = await client.runs.create(project.id, input);
    expect(run.id).toMatch(/^run_[0-9a-z]{26}$/); // the SDK's client id
    expect(run).toMatchObject({ projectId: project.id, traceId: run.id, latencyMs: 897, usage: { totalTokens: 907 } });
    // The same content under the same id again is the stored run (the server's idempotent 200).
    expect(await client.runs.create(project.id, { ...input, id: run.id })).toEqual(run);

    const batch = await client.runs.batch(project.id, [
      { id: 'child-1', parentRunId: 'root-1', name: 'retriever', kind: 'retriever', startTime: '2026-11-21T10:15:30.200Z' },
      { id: 'root-1', name: 'chain', kind: 'chain', startTime: '2026-11-21T10:15:30.100Z' },
      { name: 'bad', kind: 'nonsense' as never, startTime: 'yesterday' },
    ]);
    expect(batch.results.map((r) => r.status)).toEqual(['created', 'created', 'rejected']);
    expect(batch.results[2]!.problem).toMatchObject({ status: 400, type: `${PROBLEM_BASE}/validation` });

    const child = await client.runs.get(project.id, 'child-1');
    expect(child).toMatchObject({ parentRunId: 'root-1', traceId: 'root-1', status: 'running' });
    const ended = await client.runs.patch(project.id, 'child-1', { status: 'succeeded', endTime: '2026-11-21T10:15:30.700Z', outputs: { documents: 3 } });
    expect(ended).toMatchObject({ status: 'succeeded', latencyMs: 500, outputs: { documents: 3 } });

    const roots = await client.runs.list(project.id, { parentRunId: null }).toArray();
    expect(roots.map((r) => r.id).sort()).toEqual([run.id, 'root-1'].sort());
    const tagged = await client.runs.list(project.id, { tag: ['prod'], 'metadata.customer': 'c_17', status: 'succeeded' }).toArray();
    expect(tagged.map((r) => r.id)).toEqual([run.id]);

    const metrics = await client.runs.metrics(project.id, { from: '2026-11-21T00:00:00Z', to: '2026-11-22T00:00:00Z', groupBy: 'kind' });
    expect(metrics.total.count).toBe(3);
    expect(metrics.groups.map((g) => g.key).sort()).toEqual(['chain', 'llm', 'retriever']);

    await client.projects.delete(project.id);
    await expectProblem(client.projects.get(project.id), 404, 'not-found');
  });

  it('round-trips prompts: versions, labels, label history, conditional reads, render', async () => {
    const prompt = await client.prompts.create({
      name: 'support-reply',
      config: { model: 'gpt-4o' },
      message: 'first',
      template: [
        { role: 'system', content: 'You help {{customer}}.' },
        { role: 'user', content: '{{question}}' },
      ],
    });
    expect(prompt).toMatchObject({ name: 'support-reply', latestVersion: 1, labels: {} });
    expect(await client.prompts.get('support-reply')).toEqual(prompt);
    expect((await client.prompts.update(prompt.id, { description: 'replies' })).description).toBe('replies');
    const v2 = await client.prompts.versions.create('support-reply', { template: 'Hi {{customer}}', message: 'plain' });
    expect(v2).toMatchObject({ version: 2, variables: ['customer'] });
    expect((await client.prompts.versions.list('support-reply').toArray()).map((v) => v.version)).toEqual([2, 1]);
    expect((await client.prompts.labels.set('support-reply', 'production', 2)).labels).toEqual({ production: 2 });
    expect((await client.prompts.list({ label: 'production' }).toArray()).map((p) => p.id)).toEqual([prompt.id]);
    expect(await client.prompts.versions.get('support-reply', 'production')).toEqual(v2);
    expect((await client.prompts.versions.get(prompt.id, 1)).message).toBe('first');

    const first = await client.prompts.versions.poll('support-reply', 'production');
    expect(first.changed).toBe(true);
    const again = await client.prompts.versions.poll('support-reply', 'production', first.etag);
    expect(again).toEqual({ changed: false, etag: first.etag });

    expect(await client.prompts.render('support-reply', { label: 'production', variables: { customer: 'Ada' } })).toEqual({
      template: 'Hi {{customer}}',
      rendered: 'Hi Ada',
    });
    const missing = await expectProblem(client.prompts.render('support-reply', { version: 1, variables: { customer: 'Ada' } }), 400, 'validation');
    expect(missing.errors.map((e) => e.detail).join(' ')).toContain('question');

    await client.prompts.labels.remove('support-reply', 'production');
    const history = await client.prompts.labelHistory('support-reply').toArray();
    expect(history.map((h) => [h.label, h.fromVersion, h.toVersion])).toEqual([
      ['production', 2, null],
      ['production', null, 2],
    ]);
    await client.prompts.delete('support-reply');
    await expectProblem(client.prompts.get('support-reply'), 404, 'not-found');
  });

  it('round-trips monitors: create, get, update, list, metrics, events, deliveries, rotate the secret, delete', async () => {
    const project = await client.projects.create({ name: 'sdk-monitors' });
    const monitor = await client.monitors.create(project.id, {
      name: 'traffic',
      filter: { kind: 'llm', parentRunId: null },
      metric: 'count',
      window: '1h',
      threshold: { op: '<', value: 10 },
    });
    expect(monitor.webhookSecret).toMatch(/^whsec_/);
    const { webhookSecret: _secret, ...stored } = monitor;
    expect(await client.monitors.get(project.id, monitor.id)).toMatchObject({
      ...stored,
      state: expect.any(String),
      updatedAt: expect.any(String),
      lastEvaluatedAt: expect.anything(),
    });
    const paused = await client.monitors.update(project.id, monitor.id, { enabled: false });
    expect(paused).toMatchObject({ enabled: false, state: 'no_data' });
    expect((await client.monitors.list(project.id, { enabled: false }).toArray()).map((m) => m.id)).toEqual([monitor.id]);
    expect(await client.monitors.list(project.id, { enabled: true }).toArray()).toEqual([]);
    const metrics = await client.monitors.metrics(project.id, monitor.id, { bucket: '1h' });
    expect(metrics).toMatchObject({ monitorId: monitor.id, metric: 'count', bucket: '1h' });
    expect(metrics.series).toHaveLength(24);
    const events = await client.monitors.events(project.id, monitor.id).toArray();
    expect(events[0]).toMatchObject({ monitorId: monitor.id, to: 'no_data', reason: 'paused' });
    expect(await client.monitors.deliveries(project.id, monitor.id).toArray()).toEqual([]);
    const rotated = await client.monitors.rotateSecret(project.id, monitor.id);
    expect(rotated.webhookSecret).toMatch(/^whsec_/);
    expect(rotated.webhookSecret).not.toBe(monitor.webhookSecret);
    await client.monitors.delete(project.id, monitor.id);
    await expectProblem(client.monitors.get(project.id, monitor.id), 404, 'not-found');
  });

  it('turns every problem document into a SightlineProblem, and an unreachable server into a SightlineNetworkError', async () => {
    const notFound = await expectProblem(client.projects.get('prj_doesnotexist'), 404, 'not-found');
    expect(notFound.requestId).toMatch(/\S/);
    expect(notFound.title).toBe('Not found');
    expect(notFound.request).toBe('GET /v1/projects/prj_doesnotexist');
    expect(notFound.message).toContain(notFound.requestId!);

    const invalid = await expectProblem(client.projects.create({ name: ' padded ' }), 400, 'validation');
    expect(invalid.errors).toEqual([expect.objectContaining({ pointer: '/name' })]);

    const cursor = await expectProblem(client.projects.list({}, { cursor: 'garbage' }).toArray(), 400, 'validation');
    expect(cursor.detail).toBe('Cursor is malformed.');

    const anonymous = new Sightline(options({ token: 'not-a-jwt' }));
    const unauthorized = await expectProblem(anonymous.me.get(), 401, 'unauthorized');
    expect(unauthorized.reason).toBe('invalid_token');

    const port = await freePort();
    const nowhere = new Sightline(options({ baseUrl: `http://127.0.0.1:${port}`, retries: 2 }));
    const error = await nowhere.me.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SightlineNetworkError);
    expect(error).not.toBeInstanceOf(SightlineProblem);
    expect((error as SightlineNetworkError).attempts).toBe(3);
    expect((error as SightlineNetworkError).kind).toBe('connection');

    // A problem-less answer (a proxy's HTML page) still becomes a SightlineProblem with its status.
    const proxy = await startProxy(server.url, () => ({ status: 502, headers: { 'content-type': 'text/html' }, body: '<h1>Bad gateway</h1>' }));
    try {
      const gateway = new Sightline(options({ baseUrl: proxy.url, retries: 0 }));
      const bad = (await gateway.me.get().catch((e: unknown) => e)) as SightlineProblem;
      expect(bad).toBeInstanceOf(SightlineProblem);
      expect(bad).toMatchObject({ status: 502, type: 'about:blank' });
      expect(bad.detail).toContain('Bad gateway');
    } finally {
      await proxy.close();
    }
  });

  describe('pagination', () => {
    const sizes = [0, 1, 25, 26, 1000];
    const projects = new Map<number, string>();
    beforeAll(async () => {
      for (const n of sizes) {
        const project = await server.make.project(owner.organizationId);
        await server.make.runs(project.id, n);
        projects.set(n, project.id);
      }
    }, 60_000);

    for (const n of sizes) {
      for (const limit of n === 1000 ? [undefined, 100] : [undefined]) {
        it(`walks ${n} items${limit ? ` at limit ${limit}` : ''} in exactly the pages it takes, each asked once`, async () => {
          const projectId = projects.get(n)!;
          const counting = countingFetch();
          const c = new Sightline(options({ fetch: counting.fetch }));
          const ids: string[] = [];
          for await (const run of c.runs.list(projectId, {}, limit ? { limit } : {})) ids.push(run.id);
          const perPage = limit ?? 25;
          expect(ids).toHaveLength(n);
          expect(new Set(ids).size).toBe(n);
          expect(counting.seen).toHaveLength(Math.max(1, Math.ceil(n / perPage)));
          const cursors = counting.seen.map((s) => s.url.searchParams.get('cursor'));
          expect(cursors[0]).toBeNull();
          expect(new Set(cursors).size).toBe(cursors.length); // never the same page twice

          // pages(): the envelope of each page, in order, the last without a cursor
          const pages = [];
          for await (const page of c.runs.list(projectId, {}, limit ? { limit } : {}).pages()) pages.push(page);
          expect(pages.map((p) => p.items.length)).toEqual(
            n === 0 ? [0] : Array.from({ length: Math.ceil(n / perPage) }, (_, i) => Math.min(perPage, n - i * perPage)),
          );
          expect(pages.at(-1)!.nextCursor).toBeNull();
          expect(pages.every((p) => p.limit === perPage)).toBe(true);
          expect(pages.slice(1).map((p) => p.cursor)).toEqual(pages.slice(0, -1).map((p) => p.nextCursor));
        });
      }
    }

    it('starts nothing before iteration, restarts each walk, resumes from a cursor, and stops early', async () => {
      const projectId = projects.get(26)!;
      const counting = countingFetch();
      const c = new Sightline(options({ fetch: counting.fetch }));
      const list = c.runs.list(projectId);
      expect(counting.seen).toHaveLength(0);
      expect(await list.first()).toBeDefined();
      expect(counting.seen).toHaveLength(1);
      expect(await list.toArray()).toHaveLength(26);
      expect(counting.seen).toHaveLength(3);
      const firstPage = (await c.runs.list(projectId, {}, { limit: 10 }).pages().next()).value!;
      const rest = await c.runs.list(projectId, {}, { limit: 10, cursor: firstPage.nextCursor! }).toArray();
      expect([...firstPage.items, ...rest].map((r) => r.id)).toEqual((await list.toArray()).map((r) => r.id));
      expect(await c.runs.list(projectId).toArray(5)).toHaveLength(5);
    });

    it('ends on an absent nextCursor as on null, and refuses to follow a cursor twice', async () => {
      const answer = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      let calls = 0;
      const absent = new Sightline({ baseUrl: 'http://api.test', token: 't', fetch: async () => (calls++, answer({ items: [1, 2], limit: 25 })) });
      expect(await absent.projects.list().toArray()).toEqual([1, 2]);
      expect(calls).toBe(1);
      let n = 0;
      const looping = new Sightline({
        baseUrl: 'http://api.test',
        token: 't',
        fetch: async () => answer({ items: [n++], limit: 1, nextCursor: n % 2 ? 'a' : 'b' }),
      });
      await expect(looping.projects.list().toArray()).rejects.toThrow(/already followed/);
      expect(n).toBe(3);
    });
  });

  describe('credentials', () => {
    it('after a 401 of a previously working token asks onUnauthorized once, retries with the new token; a second 401 surfaces', async () => {
      const first = await client.tokens.create({ name: 'provider' });
      let current = first.token;
      let calls = 0;
      let mint = async () => (await client.tokens.create({ name: 'provider' })).token;
      const counting = countingFetch();
      const c = new Sightline({
        baseUrl: server.url,
        fetch: counting.fetch,
        tokenProvider: {
          getToken: () => current,
          onUnauthorized: async (problem) => {
            calls += 1;
            expect(problem.status).toBe(401);
            current = await mint();
            return current;
          },
        },
      });
      expect((await c.me.get()).token.id).toBe(first.id);
      await client.tokens.revoke(first.id);

      // Several requests fail together: one renewal serves them all.
      const answers = await Promise.all([c.me.get(), c.projects.list().toArray(), c.organization.get()]);
      expect(calls).toBe(1);
      expect(answers[0].token.id).not.toBe(first.id);
      const renewed = counting.seen.filter((s) => s.authorization === `Bearer ${current}`);
      expect(renewed.length).toBeGreaterThanOrEqual(3);

      // The renewal hands back a token that does not work either: one call, one retry, then the 401.
      const second = answers[0].token.id;
      await client.tokens.revoke(second);
      const revoked = current;
      mint = async () => revoked;
      counting.seen.length = 0;
      const problem = await expectProblem(c.me.get(), 401, 'unauthorized');
      expect(problem.reason).toBe('token_revoked');
      expect(calls).toBe(2);
      expect(counting.seen.map((s) => s.status)).toEqual([401, 401]);

      // A fixed token is never renewed: its 401 surfaces at once.
      const fixed = new Sightline(options({ token: revoked, fetch: counting.fetch }));
      counting.seen.length = 0;
      await expectProblem(fixed.me.get(), 401, 'unauthorized');
      expect(counting.seen).toHaveLength(1);
    });

    it('rotates a token close to expiry (reading Sightline-Token-Expires-At), hands it to the store and uses it', async () => {
      const short = await client.tokens.create({ name: 'rotating', expiresInDays: 3 });
      // Reads of the project list are slow through this proxy: they are still in flight when the rotation starts.
      const proxy = await startProxy(server.url, ({ path }) => (path.startsWith('/v1/projects') ? { delayMs: 300 } : 'forward'));
      try {
        const counting = countingFetch();
        const c = new Sightline(options({ baseUrl: proxy.url, token: short.token, fetch: counting.fetch }));
        const stored: string[] = [];
        const store = async (token: string) => void stored.push(token);

        expect(await rotateBeforeExpiry({ client: c, store, thresholdDays: 2 })).toMatchObject({ rotated: false, reason: 'not_due' });
        expect(await c.tokenExpiresAt()).toBe(short.expiresAt); // known from the header now

        const inFlight = c.projects.list().toArray();
        await sleep(50);
        const rotation = rotateBeforeExpiry({ client: c, store, thresholdDays: 7 });
        await sleep(20);
        const during = c.me.get(); // asked while the rotation waits for the list: held, then sent with the new token
        const result = await rotation;
        expect(result.rotated).toBe(true);
        const fresh = result.rotated ? result.token : null!;
        expect(stored).toEqual([fresh.token]);
        await inFlight;
        expect((await during).token.id).toBe(fresh.id);
        // Nothing carried the old token after the rotation was sent.
        const rotateAt = counting.seen.findIndex((s) => s.url.pathname.endsWith('/rotate'));
        expect(counting.seen.slice(rotateAt + 1).every((s) => s.authorization === `Bearer ${fresh.token}`)).toBe(true);
        expect((await c.me.get()).token.id).toBe(fresh.id);
        expect((await client.tokens.list().toArray()).find((t) => t.id === fresh.id)?.revokedAt).toBeNull();

        // Why it matters: the old token used after the rotation is taken for theft and the new one dies with it.
        await expectProblem(new Sightline(options({ token: short.token })).me.get(), 401, 'unauthorized');
        await expectProblem(c.me.get(), 401, 'unauthorized');
      } finally {
        await proxy.close();
      }
    });
  });

  describe('retries', () => {
    it('honours Retry-After on a real 429, for idempotent requests only', async () => {
      const minute = 60_000;
      const clock = manualClock(Math.floor(Date.now() / minute) * minute + minute - 700); // 0.7 s before a window ends
      const limited = await startServer({ SIGHTLINE_RATE_LIMIT: '2' }, clock);
      try {
        const caller = await limited.make.caller();
        // The server's clock moves to the next window as soon as it has answered 429.
        const counting = countingFetch((seen) => {
          if (seen.status === 429) clock.advance(minute);
        });
        const retries: { reason: string; delayMs: number }[] = [];
        const c = new Sightline({ baseUrl: limited.url, token: caller.token, fetch: counting.fetch, onRetry: (r) => retries.push(r) });
        await c.me.get();
        await c.me.get();
        const started = Date.now();
        await c.me.get();
        expect(Date.now() - started).toBeGreaterThanOrEqual(950);
        expect(counting.seen.map((s) => s.status)).toEqual([200, 200, 429, 200]);
        expect(retries).toEqual([expect.objectContaining({ reason: '429', delayMs: expect.any(Number) })]);
        expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);

        // A POST that is not idempotent is never sent twice: the 429 surfaces, with its Retry-After.
        await c.me.get();
        counting.seen.length = 0;
        const problem = await expectProblem(c.projects.create({ name: 'limited' }), 429, 'rate-limited');
        expect(problem.retryAfter).toBe(1);
        expect(counting.seen.map((s) => `${s.method} ${s.status}`)).toEqual(['POST 429']);
      } finally {
        await limited.close();
      }
    });

    it('backs off on 502/503/504 and dropped connections for idempotent requests, bounded; never a plain POST', async () => {
      const statuses = [503, 502, 504];
      const proxy = await startProxy(server.url, ({ n }) =>
        n <= 3 ? { status: statuses[n - 1]!, headers: { 'content-type': 'application/problem+json' }, body: '{"title":"busy","status":503}' } : 'forward',
      );
      try {
        const retries: string[] = [];
        const c = new Sightline(options({ baseUrl: proxy.url, backoffMs: 20, onRetry: (r) => retries.push(`${r.attempt}:${r.reason}`) }));
        const started = Date.now();
        expect((await c.me.get()).token.id).toBe(owner.tokenId);
        expect(retries).toEqual(['1:503', '2:502', '3:504']);
        expect(Date.now() - started).toBeGreaterThanOrEqual(10 + 20 + 40); // at least half of each doubling delay
      } finally {
        await proxy.close();
      }

      const always = await startProxy(server.url, () => ({ status: 503, body: 'down' }));
      try {
        const c = new Sightline(options({ baseUrl: always.url, retries: 2 }));
        await expect(c.me.get()).rejects.toMatchObject({ status: 503 });
        expect(always.requests).toHaveLength(3);
        always.requests.length = 0;
        await expect(c.projects.create({ name: 'never-twice' })).rejects.toMatchObject({ status: 503 });
        expect(always.requests).toHaveLength(1);
      } finally {
        await always.close();
      }

      const dropping = await startProxy(server.url, ({ n }) => (n === 1 ? 'forward-then-drop' : 'forward'));
      try {
        const c = new Sightline(options({ baseUrl: dropping.url }));
        const error = await c.projects.create({ name: 'dropped-once' }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(SightlineNetworkError);
        expect(dropping.requests).toHaveLength(1); // not retried: the server did create it
      } finally {
        await dropping.close();
      }

      const slow = await startProxy(server.url, ({ n }) => (n === 1 ? { delayMs: 500 } : 'forward'));
      try {
        const retries: string[] = [];
        const c = new Sightline(options({ baseUrl: slow.url, timeoutMs: 150, onRetry: (r) => retries.push(r.reason) }));
        expect((await c.me.get()).role).toBe('owner');
        expect(retries).toEqual(['timeout']);
      } finally {
        await slow.close();
      }

      const patient = await startProxy(server.url, () => ({ status: 429, headers: { 'retry-after': '120' }, body: '{}' }));
      try {
        const c = new Sightline(options({ baseUrl: patient.url }));
        await expect(c.me.get()).rejects.toMatchObject({ status: 429, retryAfter: 120 }); // longer than maxRetryAfterMs: not waited for
        expect(patient.requests).toHaveLength(1);
      } finally {
        await patient.close();
      }
    });

    it('retries a batch whose connection dropped after the server stored it, without duplicating a run', async () => {
      const project = await client.projects.create({ name: 'dropped-batch' });
      const proxy = await startProxy(server.url, ({ method, path }) =>
        method === 'POST' && path.endsWith('/runs/batch') && proxy.requests.filter((r) => r.method === 'POST').length === 1 ? 'forward-then-drop' : 'forward',
      );
      try {
        const c = new Sightline(options({ baseUrl: proxy.url }));
        const runs: RunCreate[] = Array.from({ length: 50 }, (_, i) => ({
          name: `run-${i}`,
          kind: 'tool',
          startTime: new Date(Date.UTC(2026, 10, 21, 10, 0, i)).toISOString(),
        }));
        const result = await c.runs.batch(project.id, runs);
        expect(proxy.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
        expect(result.results.map((r) => r.status)).toEqual(Array(50).fill('existing')); // the first attempt created them
        expect(await allRuns(client, project.id)).toHaveLength(50);

        // The tracer's batches go the same way: a dropped connection, a retry, one copy of each run.
        proxy.requests.length = 0;
        const tracer = c.tracer(project.id, { flushIntervalMs: 0, batchSize: 500 });
        for (let i = 0; i < 20; i++) tracer.enqueue({ name: `traced-${i}`, kind: 'chain', startTime: new Date().toISOString() });
        await tracer.shutdown();
        expect(proxy.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
        expect(tracer.stats).toMatchObject({ sent: 20, dropped: 0, rejected: 0 });
        expect(await allRuns(client, project.id)).toHaveLength(70);
      } finally {
        await proxy.close();
      }
    });
  });

  describe('the tracer', () => {
    it('builds the right parent/child tree under concurrency, across batches, with errors and an OpenAI-style call', async () => {
      const project = await client.projects.create({ name: 'traced' });
      const tracer = client.tracer(project.id, { batchSize: 3, flushIntervalMs: 10 });
      const jitter = () => sleep(Math.floor(Math.random() * 15));
      const openai = {
        chat: {
          completions: {
            create: async (params: { model: string; messages: unknown[]; stream?: boolean }) => {
              await jitter();
              return {
                id: 'cmpl',
                model: `${params.model}-2024-08-06`,
                choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
                usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
              };
            },
          },
        },
        models: { list: () => ['gpt-4o'] },
      };
      const traced = wrapOpenAI(openai, tracer);
      expect(traced.models.list()).toEqual(['gpt-4o']);

      const request = (r: number) =>
        tracer.trace(
          `request-${r}`,
          async (root) => {
            root.addMetadata({ request: r });
            const children = await Promise.all(
              [0, 1, 2].map((i) =>
                tracer.trace(
                  `step-${r}-${i}`,
                  async () => {
                    await jitter();
                    const leaves = await Promise.all(
                      [0, 1].map((j) => tracer.trace(`leaf-${r}-${i}-${j}`, async () => (await jitter(), { r, i, j }), { kind: 'tool' })),
                    );
                    if (i === 2) await traced.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: `q${r}` }] });
                    return leaves.length;
                  },
                  { inputs: { i } },
                ),
              ),
            );
            await expect(tracer.trace(`failing-${r}`, async () => Promise.reject(new Error(`boom ${r}`)))).rejects.toThrow(`boom ${r}`);
            return { children };
          },
          { kind: 'agent', tags: ['sdk-test'], inputs: { r } },
        );
      const outputs = await Promise.all([0, 1, 2, 3].map(request));
      expect(outputs).toEqual(Array(4).fill({ children: [2, 2, 2] }));
      await tracer.shutdown();
      expect(tracer.stats).toMatchObject({ rejected: 0, dropped: 0, sent: 4 * (1 + 3 + 6 + 1 + 1) });

      const runs = await allRuns(client, project.id);
      expect(runs).toHaveLength(4 * 12);
      const byId = new Map(runs.map((run) => [run.id, run]));
      const byName = new Map(runs.map((run) => [run.name, run]));
      for (let r = 0; r < 4; r++) {
        const root = byName.get(`request-${r}`)!;
        expect(root).toMatchObject({
          kind: 'agent',
          parentRunId: null,
          traceId: root.id,
          status: 'succeeded',
          tags: ['sdk-test'],
          inputs: { r },
          outputs: { children: [2, 2, 2] },
          metadata: { request: r },
        });
        for (let i = 0; i < 3; i++) {
          const step = byName.get(`step-${r}-${i}`)!;
          expect(step).toMatchObject({ parentRunId: root.id, traceId: root.id, inputs: { i }, outputs: { output: 2 }, kind: 'chain' });
          for (let j = 0; j < 2; j++) {
            expect(byName.get(`leaf-${r}-${i}-${j}`)).toMatchObject({ parentRunId: step.id, traceId: root.id, kind: 'tool', outputs: { r, i, j } });
          }
          expect(Date.parse(step.startTime)).toBeGreaterThanOrEqual(Date.parse(root.startTime));
          expect(Date.parse(step.endTime!)).toBeLessThanOrEqual(Date.parse(root.endTime!));
        }
        expect(byName.get(`failing-${r}`)).toMatchObject({ parentRunId: root.id, status: 'failed', error: `Error: boom ${r}`, outputs: null });
      }
      const llm = runs.filter((run) => run.kind === 'llm');
      expect(llm).toHaveLength(4);
      for (const call of llm) {
        const parent = byId.get(call.parentRunId!)!;
        expect(parent.name).toMatch(/^step-\d-2$/);
        expect(call).toMatchObject({
          name: 'openai.chat.completions.create',
          model: 'gpt-4o-2024-08-06',
          usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 },
          traceId: parent.traceId,
        });
        expect(call.outputs).toEqual({ choices: [{ message: { role: 'assistant', content: 'hi' }, finishReason: 'stop' }] });
        expect(call.inputs).toMatchObject({ model: 'gpt-4o', messages: [{ role: 'user' }] });
      }
    });

    it('records a streamed chat completion when it has been read, and nests by explicit parent without async context', async () => {
      const project = await client.projects.create({ name: 'streamed' });
      const tracer = client.tracer(project.id, { flushIntervalMs: 0 });
      async function* chunks() {
        yield { model: 'gpt-4o-mini', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' } }] };
        yield { model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: 'stop' }] };
        yield { model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } };
      }
      const parent = tracer.start('conversation', { kind: 'chain', parent: null });
      const params = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true };
      const stream = await traceChatCompletion(tracer, params, () => chunks(), { parent });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe('Hello');
      await parent.trace('explicit-child', async (run) => {
        run.setOutputs({ done: true });
        run.setUsage({ promptTokens: 1, completionTokens: 1 });
      });
      parent.end({ turns: 1 });
      await tracer.shutdown();
      const runs = await allRuns(client, project.id);
      const conversation = runs.find((r) => r.name === 'conversation')!;
      expect(conversation).toMatchObject({ outputs: { turns: 1 }, parentRunId: null });
      expect(runs.find((r) => r.kind === 'llm')).toMatchObject({
        parentRunId: conversation.id,
        model: 'gpt-4o-mini',
        usage: { promptTokens: 5, completionTokens: 2, totalTokens: 7 },
        outputs: { choices: [{ message: { role: 'assistant', content: 'Hello' }, finishReason: 'stop' }] },
      });
      expect(runs.find((r) => r.name === 'explicit-child')).toMatchObject({ parentRunId: conversation.id, outputs: { done: true }, usage: { totalTokens: 2 } });
    });

    it('keeps its queue bound under a burst: drops with a warning instead of growing', async () => {
      const project = await client.projects.create({ name: 'burst' });
      const slow = await startProxy(server.url, () => ({ delayMs: 100 }));
      try {
        const c = new Sightline(options({ baseUrl: slow.url }));
        const dropped: string[] = [];
        const tracer = c.tracer(project.id, {
          maxQueue: 100,
          batchSize: 50,
          flushIntervalMs: 5,
          onDrop: (run, reason) => dropped.push(`${run.name}:${reason}`),
        });
        let peak = 0;
        for (let burst = 0; burst < 20; burst++) {
          for (let i = 0; i < 50; i++) {
            tracer.enqueue({ name: `r${burst}-${i}`, kind: 'custom', startTime: new Date().toISOString() });
            peak = Math.max(peak, tracer.size);
          }
          await sleep(10);
        }
        // Traced runs too, with children held for their parent: they count against the same bound.
        await Promise.all(
          Array.from({ length: 30 }, (_, k) =>
            tracer.trace(`t${k}`, () => Promise.all([1, 2, 3].map((j) => tracer.trace(`t${k}-${j}`, () => (peak = Math.max(peak, tracer.size)))))),
          ),
        );
        peak = Math.max(peak, tracer.size);
        await tracer.shutdown();
        expect(peak).toBeLessThanOrEqual(100);
        expect(dropped.length).toBeGreaterThan(0);
        expect(dropped.every((d) => d.endsWith(':queue_full'))).toBe(true);
        expect(tracer.stats.dropped).toBe(dropped.length);
        expect(tracer.stats.sent + tracer.stats.dropped).toBe(1000 + 30 * 4);
        expect(tracer.stats.rejected).toBe(0); // no child was sent without its parent
        expect(await allRuns(client, project.id)).toHaveLength(tracer.stats.sent);
        expect(tracer.enqueue({ name: 'late', kind: 'custom', startTime: new Date().toISOString() })).toBeNull();
        expect(dropped.at(-1)).toBe('late:shut_down');
      } finally {
        await slow.close();
      }

      // Without onDrop: console.warn, at most once per 10 s however many are dropped.
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      try {
        const quiet = client.tracer(project.id, { maxQueue: 10, flushIntervalMs: 0, batchSize: 1000 });
        for (let i = 0; i < 500; i++) quiet.enqueue({ name: 'w', kind: 'custom', startTime: new Date().toISOString() });
        expect(quiet.size).toBe(10);
        expect(quiet.stats.dropped).toBe(490);
        expect(warn).toHaveBeenCalledTimes(1);
        expect(String(warn.mock.calls[0]![0])).toMatch(/dropped 1 run.*queue is full \(maxQueue 10\)/);
        await quiet.shutdown();
      } finally {
        warn.mockRestore();
      }
    });

    it('keeps runs queued when the server cannot be reached, and sends them once it can', async () => {
      const project = await client.projects.create({ name: 'outage' });
      let down = true;
      const proxy = await startProxy(server.url, () => (down ? 'drop' : 'forward'));
      try {
        const errors: unknown[] = [];
        const c = new Sightline(options({ baseUrl: proxy.url, retries: 1 }));
        const tracer = c.tracer(project.id, { flushIntervalMs: 0, onError: (e) => errors.push(e) });
        const ids = [0, 1, 2].map((i) => tracer.enqueue({ name: `q${i}`, kind: 'custom', startTime: new Date().toISOString() }));
        await expect(tracer.flush()).rejects.toBeInstanceOf(SightlineNetworkError);
        expect(tracer.size).toBe(3);
        down = false;
        await tracer.flush();
        expect(tracer.size).toBe(0);
        expect((await allRuns(client, project.id)).map((r) => r.id).sort()).toEqual([...ids].sort());
        expect(errors).toEqual([]); // flush() itself rejected: onError is for background sends

        // A run the server refuses is reported (onError, onDrop 'rejected'), and does not sink its batch.
        const refused: string[] = [];
        const strict = c.tracer(project.id, {
          flushIntervalMs: 0,
          onError: (e) => errors.push(e),
          onDrop: (run, reason) => refused.push(`${run.name}:${reason}`),
        });
        strict.enqueue({ name: 'backwards', kind: 'custom', status: 'succeeded', startTime: '2026-11-21T10:00:01.000Z', endTime: '2026-11-21T10:00:00.000Z' });
        strict.enqueue({ name: 'fine', kind: 'custom', startTime: '2026-11-21T10:00:00.000Z' });
        errors.length = 0;
        await strict.shutdown();
        expect(strict.stats).toMatchObject({ sent: 1, rejected: 1, dropped: 0 });
        expect(refused).toEqual(['backwards:rejected']);
        expect(String((errors[0] as Error).message)).toMatch(/1 run\(s\) rejected: run_\w+: endTime must not be before startTime/);
        await tracer.shutdown();
      } finally {
        await proxy.close();
      }
    });
  });

  describe('the CLI remote commands', () => {
    let projectId: string;
    beforeAll(async () => {
      const project = await client.projects.create({ name: 'cli' });
      projectId = project.id;
      await server.make.runs(projectId, 26, (i) => ({
        status: i % 5 === 0 ? 'failed' : 'succeeded',
        endTime: new Date(Date.parse('2026-11-01T00:00:00.000Z') + i * 1000 + 250).toISOString(),
        ...(i % 5 === 0 ? { error: 'x' } : {}),
      }));
      await client.prompts.create({ name: 'cli-prompt', template: [{ role: 'system', content: 'Be {{tone}}.' }] });
      await client.prompts.versions.create('cli-prompt', { template: 'Say {{word}}', config: { model: 'gpt-4o' } });
      await client.prompts.labels.set('cli-prompt', 'production', 1);
    });

    function io(extra: Partial<CliIo> = {}): CliIo & { out: string; err: string } {
      const captured = {
        out: '',
        err: '',
        stdout(text: string) {
          captured.out += text;
        },
        stderr(text: string) {
          captured.err += text;
        },
        env: { SIGHTLINE_URL: server.url, SIGHTLINE_TOKEN: owner.token } as Record<string, string | undefined>,
        ...extra,
      };
      return captured;
    }

    it('lists projects and runs as a table or JSON, following every page, with a progress indicator', async () => {
      const projects = io();
      expect(await runCli(['projects', 'list'], projects)).toBe(0);
      expect(projects.out.split('\n')[0]).toMatch(/^ID\s+NAME\s+CREATED/);
      expect(projects.out).toContain(projectId);

      const json = io();
      expect(await runCli(['runs', 'list', '--project', projectId, '--json', '--limit', '10', '--progress'], json)).toBe(0);
      const runs = JSON.parse(json.out) as Run[];
      expect(runs).toHaveLength(26);
      expect(json.err.trim().split('\n')).toEqual(['sightline: 10 runs (1 page)', 'sightline: 20 runs (2 pages)', 'sightline: 26 runs (3 pages)']);

      const failed = io({ stderrIsTTY: true });
      expect(await runCli(['runs', 'list', '--project', projectId, '--status', 'failed', '--limit', '2'], failed)).toBe(0);
      const rows = failed.out.trim().split('\n');
      expect(rows[0]).toMatch(/^ID\s+STATUS\s+KIND\s+NAME\s+MODEL\s+START\s+LATENCY$/);
      expect(rows.slice(1)).toHaveLength(6);
      expect(rows.slice(1).every((row) => / failed /.test(row) && /250 ms$/.test(row))).toBe(true);
      expect(failed.err).toContain('\r6 runs, 3 pages…');
      expect(failed.err.endsWith('\r\u001b[K')).toBe(true);

      const empty = io();
      expect(await runCli(['runs', 'list', '--project', projectId, '--json', '--status', 'running'], empty)).toBe(0);
      expect(JSON.parse(empty.out)).toEqual([]);
    });

    it('exports every run as NDJSON, and resumes from the cursor it prints when interrupted', async () => {
      const whole = io();
      expect(await runCli(['runs', 'export', '--project', projectId, '--format', 'ndjson'], whole)).toBe(0);
      const all = whole.out
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as Run).id);
      expect(all).toHaveLength(26);

      // Ctrl-C while the second page is on its way.
      const controller = new AbortController();
      let pages = 0;
      const interrupted = io({
        signal: controller.signal,
        fetch: async (input, init) => {
          pages += 1;
          if (pages === 2) controller.abort(new Error('interrupted'));
          return fetch(input, init);
        },
      });
      expect(await runCli(['runs', 'export', '--project', projectId, '--format', 'ndjson', '--limit', '10'], interrupted)).toBe(130);
      const firstPart = interrupted.out
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as Run).id);
      expect(firstPart).toEqual(all.slice(0, 10));
      const cursor = /^resume-cursor: (\S+)$/m.exec(interrupted.err)?.[1];
      expect(cursor, interrupted.err).toBeDefined();
      expect(interrupted.err).toContain('interrupted after 10 runs');

      const resumed = io();
      expect(await runCli(['runs', 'export', '--project', projectId, '--format', 'ndjson', '--limit', '10', '--cursor', cursor!], resumed)).toBe(0);
      const rest = resumed.out
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as Run).id);
      expect([...firstPart, ...rest]).toEqual(all);

      // Stopped by an error midway (the server gone for good, retries spent): the same resume line, exit 1.
      let calls = 0;
      const broken = io({ fetch: async (input, init) => (++calls >= 2 ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init)) });
      const code = await runCli(['runs', 'export', '--project', projectId, '--limit', '10', '--url', server.url], broken);
      expect(code).toBe(1);
      expect(broken.err).toMatch(/stopped: .*after 10 runs/);
      expect(broken.err).toMatch(/^resume-cursor: \S+$/m);
      expect(calls).toBe(1 + 4); // the first page, then the second's attempt and its 3 retries
    });

    it('prints a prompt by label, by version or the latest, and reports errors with an exit status', async () => {
      const production = io();
      expect(await runCli(['prompts', 'get', 'cli-prompt', '--label', 'production'], production)).toBe(0);
      expect(production.out).toBe('[system]\nBe {{tone}}.\n');
      expect(production.err).toContain('# cli-prompt version 1 (label production); variables: tone');

      const latest = io();
      expect(await runCli(['prompts', 'get', 'cli-prompt'], latest)).toBe(0);
      expect(latest.out).toBe('Say {{word}}\n');

      const json = io();
      expect(await runCli(['prompts', 'get', 'cli-prompt', '--version', '2', '--json'], json)).toBe(0);
      expect(JSON.parse(json.out)).toMatchObject({ version: 2, config: { model: 'gpt-4o' } });

      const missing = io();
      expect(await runCli(['prompts', 'get', 'nope'], missing)).toBe(1);
      expect(missing.err).toMatch(/^sightline: GET \/v1\/prompts\/nope: 404 Not found/);

      const noToken = io({ env: { SIGHTLINE_URL: server.url } });
      expect(await runCli(['projects', 'list'], noToken)).toBe(2);
      expect(noToken.err).toContain('SIGHTLINE_TOKEN');
      for (const args of [
        ['runs', 'list'],
        ['runs', 'export', '--project', 'p', '--format', 'csv'],
        ['prompts', 'get'],
        ['projects', 'list', '--bogus'],
        ['runs', 'frob'],
      ]) {
        const bad = io();
        expect(await runCli(args, bad), args.join(' ')).toBe(2);
        expect(bad.err).toMatch(/^sightline: .+\n$/);
      }
    });

    it('is wired into `sightline` (help on each command; the SDK is built and loaded on first use)', async () => {
      const out: string[] = [];
      const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (out.push(String(chunk)), true));
      const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void out.push(`${args.join(' ')}\n`));
      const saved = { url: process.env.SIGHTLINE_URL, token: process.env.SIGHTLINE_TOKEN };
      try {
        expect(await main(['--help'])).toBe(0);
        for (const command of ['projects list', 'runs list', 'runs export', 'prompts get']) expect(out.join('')).toContain(command);
        for (const command of ['projects', 'runs', 'prompts']) {
          out.length = 0;
          expect(await main([command, 'list', '--help'])).toBe(0);
          expect(out.join('')).toMatch(/^Usage: sightline /);
        }
        process.env.SIGHTLINE_URL = server.url;
        process.env.SIGHTLINE_TOKEN = owner.token;
        out.length = 0;
        expect(await main(['runs', 'export', '--project', projectId, '--format', 'ndjson'])).toBe(0);
        expect(out.join('').trim().split('\n')).toHaveLength(26);
      } finally {
        for (const [name, value] of [
          ['SIGHTLINE_URL', saved.url],
          ['SIGHTLINE_TOKEN', saved.token],
        ] as const) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
        write.mockRestore();
        log.mockRestore();
      }
    }, 60_000);
  });

  it('keeps the SDK core runtime-agnostic: no Node module or global outside the lazy async-context import', () => {
    const dir = new URL('../packages/client/src/', import.meta.url);
    for (const file of readdirSync(dir)) {
      const text = readFileSync(new URL(file, dir), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect(text, file).not.toMatch(/from ['"]node:|require\(|\bprocess\.|\bBuffer\b|\b__dirname\b/);
    }
    expect(newRunId()).toMatch(/^run_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(newRunId(1) < newRunId(2)).toBe(true);
  });
});
