/**
 * Load shedding against a real listening server: past `maxInFlight`, while the event loop lags and
 * while the server closes, new requests get a 503 `service-unavailable` problem with `Retry-After`
 * at once (no timeouts, no resets), places in flight come back on every path, and health checks
 * keep answering.
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify from 'fastify';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, loggerOptions } from '../src/app.js';
import type { App } from '../src/deps.js';
import { LoadShedder } from '../src/lib/shedding.js';
import { type Caller, describeEachDialect, expectProblem, PROBLEM_BASE, type ProblemResponse, testConfig } from './helpers/harness.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

type Outcome = Answer | { failure: string };

const isAnswer = (outcome: Outcome): outcome is Answer => 'status' in outcome;

interface SendOptions {
  token?: string;
  body?: unknown;
  timeoutMs?: number;
}

/** One request (on a connection of the agent's); a timeout or a reset is an outcome, not a throw. */
function send(agent: Agent, port: number, method: string, path: string, options: SendOptions = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', (error) => resolve({ failure: `response ${String((error as NodeJS.ErrnoException).code ?? error.message)}` }));
    });
    req.setTimeout(options.timeoutMs ?? 30_000, () => req.destroy(new Error('timeout')));
    req.on('error', (error) => resolve({ failure: String((error as NodeJS.ErrnoException).code ?? error.message) }));
    req.end(payload);
  });
}

/** The harness's problem assertions, for an answer read off a socket. */
const asInjected = (answer: Answer): ProblemResponse => ({
  statusCode: answer.status,
  headers: answer.headers,
  body: answer.body,
  json: () => JSON.parse(answer.body),
});

/** A 503 `service-unavailable` problem with `Retry-After`, whose detail matches `detail`. */
function expectShed(answer: Answer, detail: RegExp): void {
  const body = expectProblem(asInjected(answer), 503, 'service-unavailable');
  expect(body.title).toBe('Service unavailable');
  expect(body.detail).toMatch(detail);
  expect(answer.headers['retry-after']).toMatch(/^[1-9]\d*$/);
}

const OVERLOADED = /^The service is overloaded \(.+\)\. Retry after \d+ seconds\.$/;
const TOO_MANY = /too many requests in progress/;

const rawSockets = new Set<Socket>();

/** Writes raw bytes on a connection of its own and collects whatever comes back. */
function rawConnection(port: number, bytes: string): { socket: Socket; received: () => string; closed: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  rawSockets.add(socket);
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      rawSockets.delete(socket);
      resolve();
    }),
  );
  socket.write(bytes);
  return { socket, received: () => received, closed };
}

/** Splits the HTTP/1.1 responses read off one connection (every one of ours has Content-Length). */
function parseResponses(raw: string): Answer[] {
  const answers: Answer[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: IncomingHttpHeaders = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    answers.push({ status: Number(statusLine!.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return answers;
}

/**
 * A POST whose body follows its headers by `delayMs`, as a slow client sends it (on a connection of
 * its own). `early` says whether the answer came before the body was sent.
 */
async function slowPost(
  port: number,
  path: string,
  token: string,
  body: unknown,
  delayMs: number,
  timeoutMs = 30_000,
): Promise<{ outcome: Outcome; early: boolean }> {
  const payload = JSON.stringify(body);
  const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n`;
  const client = rawConnection(port, head);
  let bodySent = false;
  let early = false;
  client.socket.once('data', () => (early = !bodySent));
  const later = setTimeout(() => {
    bodySent = true;
    if (!client.socket.destroyed) client.socket.write(payload);
  }, delayMs);
  const timedOut = await Promise.race([client.closed.then(() => false), sleep(timeoutMs).then(() => true)]);
  clearTimeout(later);
  client.socket.destroy();
  const [answer] = parseResponses(client.received());
  if (timedOut || !answer) return { outcome: { failure: timedOut ? 'timeout' : 'closed without an answer' }, early };
  return { outcome: answer, early };
}

async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value).slice(0, 300)}`);
    await sleep(25);
  }
}

function busyFor(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // lagging the event loop on purpose
  }
}

describeEachDialect('load shedding', (ctx) => {
  // A connection per request, unless a test says otherwise.
  const agent = new Agent({ keepAlive: false, maxSockets: 600 });
  const apps: App[] = [];
  let caller: Caller;
  let projectId: string;

  beforeAll(async () => {
    caller = await ctx.make.caller();
    projectId = (await ctx.make.project(caller.organizationId)).id;
  });

  afterEach(async () => {
    for (const socket of rawSockets) socket.destroy();
    for (const app of apps.splice(0)) await app.close();
  });

  /**
   * A listening app of its own on the suite's database, logging at warn into `logs`. `/test/hold`
   * answers only when `release()` is called: a request in progress for as long as a test needs one.
   * `/test/fail` throws; `/test/busy` keeps the event loop busy for 100 ms, as a heavy synchronous
   * SQLite query does.
   */
  async function listening(
    env: Record<string, string>,
  ): Promise<{ app: App; port: number; release: () => void; held: () => number; seen: string[]; closing: Promise<void>; logs: Record<string, unknown>[] }> {
    const config = testConfig({ ...env, LOG_LEVEL: 'warn' });
    const logs: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        logs.push(JSON.parse(String(chunk)) as Record<string, unknown>);
        done();
      },
    });
    const app = await buildApp({ config, storage: ctx.database.storage, logger: { ...(loggerOptions(config) as object), stream } });
    const held: (() => void)[] = [];
    app.get('/test/hold', { schema: { hide: true } }, async () => {
      await new Promise<void>((resolve) => held.push(resolve));
      return { held: true };
    });
    app.get('/test/fail', { schema: { hide: true } }, async () => {
      throw new Error('failing on purpose');
    });
    app.get('/test/busy', { schema: { hide: true } }, async () => {
      busyFor(100);
      return { busy: true };
    });
    let closingStarted!: () => void;
    const closing = new Promise<void>((resolve) => (closingStarted = resolve));
    app.addHook('preClose', (done) => {
      closingStarted();
      done();
    });
    // Every request the HTTP server has parsed, shed or not (the hooks do not all run for a shed one).
    const seen: string[] = [];
    app.server.on('request', (request: { url?: string }) => seen.push(request.url ?? ''));
    await app.listen({ port: 0, host: '127.0.0.1' });
    apps.push(app);
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('not listening on a port');
    return { app, port: address.port, release: () => held.splice(0).forEach((resolve) => resolve()), held: () => held.length, seen, closing, logs };
  }

  const me = (port: number) => send(agent, port, 'GET', '/v1/me', { token: caller.token });

  /** Asserts that all `places` are free: as many held requests are admitted, and the next is shed. */
  async function expectFreePlaces(port: number, places: number, release: () => void): Promise<void> {
    const holders = Array.from({ length: places }, () => rawConnection(port, 'GET /test/hold HTTP/1.1\r\nHost: x\r\n\r\n'));
    expectShed(
      (await eventually(
        () => me(port),
        (o) => isAnswer(o) && o.status === 503,
        `${places} held requests in flight`,
      )) as Answer,
      TOO_MANY,
    );
    expect(holders.map((h) => h.received())).toEqual(Array(places).fill(''));
    release();
    await eventually(
      async () => holders.map((h) => parseResponses(h.received()).length),
      (counts) => counts.every((n) => n === 1),
      'the held requests to be answered',
    );
    for (const holder of holders) expect(parseResponses(holder.received())[0]).toMatchObject({ status: 200 });
    for (const holder of holders) holder.socket.destroy();
  }

  it('answers 500 concurrent connections past maxInFlight with 2xx or a 503 problem, none timing out, then serves normally', async () => {
    const { port, logs } = await listening({ SIGHTLINE_MAX_IN_FLIGHT: '8', SIGHTLINE_MAX_EVENT_LOOP_DELAY_MS: '0' });
    // Run creates whose bodies follow their headers by 2 s hold their places that long (on SQLite a
    // request that needs no wait is over before the next one is read, so only these can fill the server).
    const create = (i: number) =>
      slowPost(port, `/v1/projects/${projectId}/runs`, caller.token, { name: `shed-${i}`, kind: 'llm', startTime: new Date().toISOString() }, 2000);
    const results = await Promise.all(
      Array.from({ length: 500 }, (_, i) => (i % 2 === 0 ? me(port).then((outcome) => ({ outcome, early: null })) : create(i))),
    );
    const outcomes = results.map((r) => r.outcome);
    const failures = outcomes.filter((o) => !isAnswer(o));
    const answers = outcomes.filter(isAnswer);
    const ok = answers.filter((a) => a.status === 200 || a.status === 201);
    const shed = answers.filter((a) => a.status === 503);
    console.info(
      `[${ctx.dialect}] 500 concurrent, maxInFlight 8: ${ok.length} 2xx, ${shed.length} 503, ${failures.length} failed (${[...new Set(failures.map((f) => (f as { failure: string }).failure))].join(', ')})`,
    );
    expect(failures).toEqual([]);
    expect(ok.length + shed.length).toBe(500);
    expect(shed.length).toBeGreaterThan(0);
    expect(ok.length).toBeGreaterThanOrEqual(8);
    for (const answer of shed) expectShed(answer, TOO_MANY);
    // A create is refused before its body is read: the answer comes before the body is sent.
    const shedCreates = results.filter((r) => r.early !== null && isAnswer(r.outcome) && r.outcome.status === 503);
    expect(shedCreates.length).toBeGreaterThan(0);
    expect(shedCreates.filter((r) => !r.early)).toEqual([]);
    // Operators see why, once (not once per refused request).
    expect(logs.filter((l) => l.msg === 'shedding load: refusing new requests with 503')).toEqual([
      expect.objectContaining({ refusal: 'in-flight', inFlight: 8, level: 40 }),
    ]);

    // A shed create did nothing: exactly the runs answered 201 exist.
    const created = ok.filter((a) => a.status === 201).length;
    const stored = await ctx.database.storage.db
      .selectFrom('runs')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(created);

    const after = await me(port);
    expect(after).toMatchObject({ status: 200 });
    expect(JSON.parse((after as Answer).body).organization.id).toBe(caller.organizationId);
    expect(await send(agent, port, 'GET', '/readyz')).toMatchObject({ status: 200 });
  });

  it('sheds while the event loop lags, on 500 open connections; keeps /healthz answering and reports /readyz 503, then recovers', async () => {
    const { app, port } = await listening({ SIGHTLINE_MAX_IN_FLIGHT: '100000', SIGHTLINE_MAX_EVENT_LOOP_DELAY_MS: '50' });
    // Kept-alive connections, as a load balancer or an SDK holds them. A lagging loop accepts one new
    // connection per iteration (libuv), so new connections would wait in the kernel's queue however
    // quickly each request is refused.
    const pool = new Agent({ keepAlive: true, maxSockets: 502, maxFreeSockets: 502 });
    const opened = await Promise.all(Array.from({ length: 502 }, () => send(pool, port, 'GET', '/healthz')));
    expect(opened.filter((o) => isAnswer(o) && o.status === 200)).toHaveLength(502);
    const lag = setInterval(() => busyFor(150), 1);
    try {
      await eventually(
        async () => app.memoryUsage().eventLoopDelay,
        (delay) => delay > 50,
        'the sampled event-loop delay to pass 50 ms',
      );
      const [health, ready, ...outcomes] = await Promise.all([
        send(pool, port, 'GET', '/healthz'),
        send(pool, port, 'GET', '/readyz'),
        ...Array.from({ length: 500 }, () => send(pool, port, 'GET', '/v1/me', { token: caller.token })),
      ]);
      expect(health).toMatchObject({ status: 200, body: '{"status":"ok"}' });
      expectShed(ready as Answer, /falling behind/);
      const failures = outcomes.filter((o) => !isAnswer(o));
      const answers = outcomes.filter(isAnswer);
      const shed = answers.filter((a) => a.status === 503);
      console.info(
        `[${ctx.dialect}] 500 concurrent, event loop lagging: ${answers.filter((a) => a.status === 200).length} 2xx, ${shed.length} 503, ${failures.length} failed`,
      );
      expect(failures).toEqual([]);
      expect(answers.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);
      expect(shed.length).toBeGreaterThan(0);
      for (const answer of shed) expectShed(answer, OVERLOADED);
      expect(shed.some((a) => /falling behind/.test(JSON.parse(a.body).detail))).toBe(true);
    } finally {
      clearInterval(lag);
    }
    await eventually(
      () => send(pool, port, 'GET', '/readyz'),
      (o) => isAnswer(o) && o.status === 200,
      '/readyz to answer 200 again',
    );
    expect(await send(pool, port, 'GET', '/v1/me', { token: caller.token })).toMatchObject({ status: 200 });
    pool.destroy();
  });

  it('runs requests read in one turn of the loop one turn at a time, keeps /healthz answering, and refuses those that wait past the queue bound', async () => {
    // No event-loop bound: only the work queue stands between 20 requests read at once and a loop
    // blocked for their 2 s of synchronous work.
    const { port } = await listening({ SIGHTLINE_MAX_IN_FLIGHT: '100000', SIGHTLINE_MAX_EVENT_LOOP_DELAY_MS: '0', SIGHTLINE_MAX_QUEUE_MS: '500' });
    const pool = new Agent({ keepAlive: true, maxSockets: 21, maxFreeSockets: 21 });
    const opened = await Promise.all(Array.from({ length: 21 }, () => send(pool, port, 'GET', '/healthz')));
    expect(opened.filter((o) => isAnswer(o) && o.status === 200)).toHaveLength(21);
    // Written in one go on 20 open connections, all 20 are read in one turn of the server's loop.
    const busy = Promise.all(Array.from({ length: 20 }, () => send(pool, port, 'GET', '/test/busy')));
    await sleep(150);
    const healthStarted = performance.now();
    const health = await send(pool, port, 'GET', '/healthz');
    const healthMs = performance.now() - healthStarted;
    const outcomes = await busy;
    pool.destroy();
    expect(health).toMatchObject({ status: 200 });
    // One 100 ms request per turn: /healthz waits for one of them, not for all (2 s).
    expect(healthMs).toBeLessThan(1000);
    const answers = outcomes.filter(isAnswer);
    expect(answers).toHaveLength(20);
    const ran = answers.filter((a) => a.status === 200);
    const shed = answers.filter((a) => a.status === 503);
    console.info(
      `[${ctx.dialect}] 20 x 100 ms read at once, queue bound 500 ms: ${ran.length} ran, ${shed.length} shed, /healthz in ${Math.round(healthMs)} ms`,
    );
    expect(ran.length + shed.length).toBe(20);
    // 500 ms of waiting lets about 5 of them run, with ample margin either way on a busy machine.
    expect(ran.length).toBeGreaterThanOrEqual(2);
    expect(ran.length).toBeLessThanOrEqual(12);
    for (const answer of shed) expectShed(answer, /^The service is overloaded \(requests wait more than 500 ms for their turn\)\. Retry after 2 seconds\.$/);
  });

  it('lets a request wait its turn while every place is taken, serves it once one frees, refuses it past the bound, and forgets a waiter whose client leaves', async () => {
    const { port, release, held } = await listening({ SIGHTLINE_MAX_IN_FLIGHT: '100000', SIGHTLINE_CONCURRENCY: '2', SIGHTLINE_MAX_QUEUE_MS: '1500' });
    const holders = Array.from({ length: 2 }, () => rawConnection(port, 'GET /test/hold HTTP/1.1\r\nHost: x\r\n\r\n'));
    await eventually(
      async () => held(),
      (n) => n === 2,
      'both places taken',
    );
    // Health checks never wait.
    expect(await send(agent, port, 'GET', '/healthz')).toMatchObject({ status: 200 });
    // A third request waits; freeing the places serves it.
    const waiting = me(port);
    await sleep(300);
    release();
    const served = await waiting;
    expect(served).toMatchObject({ status: 200 });
    for (const holder of holders) holder.socket.destroy();

    // Taken again and kept: a waiter is refused once it has waited 1.5 s.
    const keepers = Array.from({ length: 2 }, () => rawConnection(port, 'GET /test/hold HTTP/1.1\r\nHost: x\r\n\r\n'));
    await eventually(
      async () => held(),
      (n) => n === 2,
      'both places taken again',
    );
    // A waiter whose client leaves is forgotten: it never runs once places free.
    const leaver = rawConnection(port, 'GET /test/hold HTTP/1.1\r\nHost: x\r\n\r\n');
    await sleep(200);
    leaver.socket.destroy();
    const started = performance.now();
    const refused = await me(port);
    const waitedMs = performance.now() - started;
    expectShed(refused as Answer, /^The service is overloaded \(requests wait more than 1500 ms for their turn\)\. Retry after 2 seconds\.$/);
    expect((refused as Answer).headers['retry-after']).toBe('2');
    expect(waitedMs).toBeGreaterThanOrEqual(1400);
    release();
    for (const keeper of keepers) keeper.socket.destroy();
    await sleep(300);
    expect(held()).toBe(0);
    // Every place is free again: two holds, and a request that waits for them is served once they end.
    await expectQueueFree(port, release, held);
    expect(await send(agent, port, 'GET', '/readyz')).toMatchObject({ status: 200 });
  });

  /** Two held requests take both places; a third request waits, and is served once they are released. */
  async function expectQueueFree(port: number, release: () => void, held: () => number): Promise<void> {
    const holders = Array.from({ length: 2 }, () => rawConnection(port, 'GET /test/hold HTTP/1.1\r\nHost: x\r\n\r\n'));
    await eventually(
      async () => held(),
      (n) => n === 2,
      'both places taken by the holders',
    );
    const answer = me(port);
    await sleep(200);
    release();
    expect(await answer).toMatchObject({ status: 200 });
    for (const holder of holders) holder.socket.destroy();
  }

  it('gives the place back when a client disconnects mid-request, and reports /readyz 503 while full', async () => {
    const maxInFlight = 4;
    const { port } = await listening({ SIGHTLINE_MAX_IN_FLIGHT: String(maxInFlight), SIGHTLINE_MAX_EVENT_LOOP_DELAY_MS: '0' });
    // A create whose body never finishes arriving: authenticated, then in progress until the client goes.
    const partial = `POST /v1/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${caller.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`;
    for (let round = 1; round <= 3; round++) {
      const clients = Array.from({ length: maxInFlight }, () => rawConnection(port, partial));
      const full = await eventually(
        () => me(port),
        (o) => isAnswer(o) && o.status === 503,
        `round ${round}: all ${maxInFlight} places taken`,
      );
      expectShed(full as Answer, TOO_MANY);
      expect(await send(agent, port, 'GET', '/healthz')).toMatchObject({ status: 200 });
      expectShed((await send(agent, port, 'GET', '/readyz')) as Answer, TOO_MANY);
      // Every one of them was admitted (none was answered), so all places come back only if each abort gives its own.
      expect(clients.map((c) => c.received())).toEqual(Array(maxInFlight).fill(''));
      for (const client of clients) client.socket.destroy();
      await eventually(
        () => me(port),
        (o) => isAnswer(o) && o.status === 200,
        `round ${round}: a request admitted after the aborts`,
      );
    }
  });

  it('gives the place back when a request ends in an error', async () => {
    const { port } = await listening({ SIGHTLINE_MAX_IN_FLIGHT: '2', SIGHTLINE_MAX_EVENT_LOOP_DELAY_MS: '0' });
    // One kept-alive connection: only the end of each response can give its place back.
    const connection = new Agent({ keepAlive: true, maxSockets: 1 });
    const failing: [string, string, SendOptions, number][] = [
      ['GET', '/v1/nowhere', { token: caller.token }, 404],
      ['GET', '/v1/me', {}, 401],
      ['POST', '/v1/projects', { token: caller.token, body: { name: '' } }, 400],
      ['GET', '/test/fail', {}, 500],
    ];
    for (let i = 0; i < 3; i++) {
      for (const [method, path, options, status] of failing) expect(await send(connection, port, method, path, options)).toMatchObject({ status });
    }
    expect(await send(connection, port, 'GET', '/v1/me', { token: caller.token })).toMatchObject({ status: 200 });
    connection.destroy();
  });

  it('gives the place back for pipelined requests whose connection closes before their answers are written', async () => {
    const { port, release } = await listening({ SIGHTLINE_MAX_IN_FLIGHT: '4', SIGHTLINE_MAX_EVENT_LOOP_DELAY_MS: '0' });
    const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${caller.token}\r\n\r\n`;
    for (let round = 1; round <= 3; round++) {
      // Node answers pipelined requests in order, so the three after the held one finish with their
      // answers queued; those answers never emit 'close' when the connection goes.
      const client = rawConnection(port, get('/test/hold') + get('/v1/me') + get('/v1/me') + get('/v1/me'));
      const full = await eventually(
        () => me(port),
        (o) => isAnswer(o) && o.status === 503,
        `round ${round}: the pipelined requests in flight`,
      );
      expectShed(full as Answer, TOO_MANY);
      client.socket.destroy();
      await client.closed;
      release();
      await eventually(
        () => me(port),
        (o) => isAnswer(o) && o.status === 200,
        `round ${round}: a request admitted after the connection closed`,
      );
      await expectFreePlaces(port, 4, release);
    }
  });

  it('answers requests that arrive while the server closes with a 503 problem and Connection: close; /healthz still 200, /readyz 503', async () => {
    const { app, port, release, held, seen, closing } = await listening({ SIGHTLINE_MAX_EVENT_LOOP_DELAY_MS: '0' });
    const hold = `GET /test/hold HTTP/1.1\r\nHost: x\r\n\r\n`;
    // Connections busy with a request, so that closing neither ends them nor completes before they are done.
    const connections = [rawConnection(port, hold), rawConnection(port, hold), rawConnection(port, hold)];
    await eventually(
      async () => held(),
      (n) => n === 3,
      'the three held requests to reach their handler',
    );
    const closed = app.close();
    apps.splice(apps.indexOf(app), 1);
    await closing;
    const probes = [
      `GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${caller.token}\r\n\r\n`,
      `GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n`,
    ];
    connections.forEach((c, i) => c.socket.write(probes[i]!));
    // The probes are parsed (and answered, behind the held requests) before those are let go.
    await eventually(async () => ['/v1/me', '/healthz', '/readyz'].every((url) => seen.includes(url)), Boolean, 'the probes to be parsed');
    release();
    await Promise.all(connections.map((c) => c.closed));
    await closed;

    const [meAnswers, healthAnswers, readyAnswers] = connections.map((c) => parseResponses(c.received()));
    for (const answers of [meAnswers, healthAnswers, readyAnswers]) {
      expect(answers).toHaveLength(2);
      // The request admitted before closing is finished normally.
      expect(answers![0]).toMatchObject({ status: 200, body: '{"held":true}' });
      expect(answers![1]!.headers.connection).toBe('close');
    }
    for (const answer of [meAnswers![1]!, readyAnswers![1]!]) {
      expectShed(answer, /^This instance is shutting down\. Retry on a new connection\.$/);
    }
    expect(healthAnswers![1]).toMatchObject({ status: 200, body: '{"status":"ok"}' });
  });
});

describe('load shedding on memory', () => {
  it('sheds once the sampled heap passes its bound', async () => {
    const app = Fastify();
    await new LoadShedder({
      maxInFlight: 1000,
      maxEventLoopDelayMs: 0,
      maxHeapUsedBytes: 1,
      concurrency: 8,
      maxQueueMs: 1000,
      problemBase: PROBLEM_BASE,
    }).register(app);
    app.get('/work', async () => ({ done: true }));
    try {
      const refused = await eventually(
        () => app.inject({ method: 'GET', url: '/work' }),
        (r) => r.statusCode !== 200,
        'the first heap sample',
      );
      const body = expectProblem(refused, 503, 'service-unavailable');
      expect(body.detail).toBe('The service is overloaded (it is running short of memory). Retry after 2 seconds.');
      expect(refused.headers['retry-after']).toBe('2');
    } finally {
      await app.close();
    }
  });
});
