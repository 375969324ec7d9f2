// What the SDK suites (packages/client/test/*.test.ts) share: a real server, a proxy that misbehaves on demand, a fetch that counts.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { TokenService } from '../../../src/auth/tokens.js';
import type { App } from '../../../src/deps.js';
import { systemClock, type Clock } from '../../../src/lib/clock.js';
import { Keyring } from '../../../src/lib/keys.js';
import { Sightline, SightlineProblem, type ClientOptions, type Run } from '../src/index.js';
import { Factories, PROBLEM_BASE, testConfig, type Caller } from '../../../test/helpers/harness.js';
import { freePort } from '../../../test/helpers/services.js';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/storage.js';

export interface Server {
  app: App;
  url: string;
  make: Factories;
  close(): Promise<void>;
}

export async function startServer(env: Record<string, string> = {}, clock: Clock = systemClock): Promise<Server> {
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

export interface Seen {
  method: string;
  url: URL;
  status: number;
  authorization: string | null;
}

/** A fetch that records every request and its answer's status (and may act on each answer). */
export function countingFetch(onAnswer?: (seen: Seen, response: Response) => void): { fetch: typeof fetch; seen: Seen[] } {
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

export type Decision = 'forward' | 'forward-then-drop' | 'drop' | { status: number; headers?: Record<string, string>; body?: string } | { delayMs: number };

export interface Proxy {
  url: string;
  requests: { method: string; path: string }[];
  close(): Promise<void>;
}

export const FORWARDED_REQUEST_HEADERS = ['authorization', 'content-type', 'accept', 'if-none-match'];
export const FORWARDED_RESPONSE_HEADERS = ['content-type', 'retry-after', 'x-request-id', 'sightline-token-expires-at', 'etag'];

/** An HTTP proxy in front of the server that can answer by itself, delay, or drop the connection. */
export async function startProxy(target: string, decide: (request: { method: string; path: string; n: number }) => Decision): Promise<Proxy> {
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
    let upstream: Response;
    let payload: Buffer;
    try {
      upstream = await fetch(`${target}${path}`, { method, headers, body: body.length > 0 ? body : undefined });
      payload = Buffer.from(await upstream.arrayBuffer());
    } catch {
      // The server is gone (a delayed request outlived its test, whose server has closed): the client's
      // connection is dropped, as a gateway whose upstream went away would, instead of an unhandled rejection.
      return void req.socket.destroy();
    }
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

export async function allRuns(client: Sightline, projectId: string): Promise<Run[]> {
  return client.runs.list(projectId, {}, { limit: 100 }).toArray();
}

export async function expectProblem(promise: Promise<unknown>, status: number, slug: string): Promise<SightlineProblem> {
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

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** What the SDK suites' tests share, filled in before they run: a server, an owner of an organization on it, a client of theirs. */
export interface Sdk {
  server: Server;
  owner: Caller;
  client: Sightline;
  /** Client options for the owner on the server, with a short backoff. */
  options(extra?: Partial<ClientOptions>): ClientOptions;
}

/** The SDK suite against one real server (SQLite) for the file. */
export function describeSdk(body: (sdk: Sdk) => void): void {
  describe('the client SDK against a real server', () => {
    const sdk = {
      options: (extra: Partial<ClientOptions> = {}): ClientOptions =>
        ({ baseUrl: sdk.server.url, token: sdk.owner.token, backoffMs: 5, ...extra }) as ClientOptions,
    } as Sdk;
    beforeAll(async () => {
      sdk.server = await startServer();
      sdk.owner = await sdk.server.make.caller({ role: 'owner' });
      sdk.client = new Sightline(sdk.options());
    }, 60_000);
    afterAll(async () => {
      await sdk.server?.close();
    });
    body(sdk);
  });
}
