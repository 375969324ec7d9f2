import { connect, type AddressInfo, type Socket } from 'node:net';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerClientError, clientErrorProblem } from '../src/lib/client-error.js';
import { describeEachDialect, expectProblem, manualClock, PROBLEM_BASE, type Caller, type TestContext } from './helpers/harness.js';
import { expectUnauthorized } from './helpers/auth.js';
import { expectCleanProblem, expectValidation } from './helpers/problems.js';

import { uniqueName } from './bad-input/routes.js';

// ---- credentials and headers refused before any parsing --------------------------------------

interface RawResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection (it was not reset, and the client did not give up). */
  closedByServer: boolean;
  json(): unknown;
}

/**
 * Sends bytes exactly as given over a new TCP connection (what `inject` cannot: duplicate headers,
 * headers over Node's 16 KB limit, malformed HTTP, a request that never completes) and resolves with
 * the response once the server closes the connection.
 */
function rawExchange(port: number, request: string, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within ${timeoutMs} ms; received ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 300))}`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(
        new Error(`${(error as NodeJS.ErrnoException).code ?? error.message} after ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 300))}`),
      );
    });
    socket.on('end', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = text.slice(0, split === -1 ? text.length : split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const body = split === -1 ? '' : text.slice(split + 4);
      socket.destroy();
      resolve({
        statusCode: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine ?? '')?.[1] ?? 0),
        headers,
        body,
        closedByServer: true,
        json: () => JSON.parse(body) as unknown,
      });
    });
    socket.write(request);
  });
}

/** An HTTP/1.1 request with the given header lines, as raw text; the server closes after answering. */
const rawRequest = (headerLines: string[], options: { method?: string; path?: string; body?: string } = {}) =>
  `${options.method ?? 'GET'} ${options.path ?? '/v1/me'} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
  headerLines.map((line) => `${line}\r\n`).join('') +
  (options.body !== undefined ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(options.body)}\r\n` : '') +
  `Connection: close\r\n\r\n${options.body ?? ''}`;

const DUPLICATE = (n: number) => `The request carries ${n} Authorization headers; send exactly one.`;
const TOO_LONG = 'The Authorization header is longer than any credential this service issues (over 4096 characters).';

/** A raw-socket problem: the documented shape, `Connection: close`, and a request id that is also its `instance`. */
function expectRawProblem(res: RawResponse, status: number, slug: string, detail: string): void {
  expectProblem(res, status, slug, detail);
  expectCleanProblem(res);
  expect(res.headers.connection).toBe('close');
  expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect((res.json() as { instance?: string }).instance).toBe(`urn:sightline:request:${res.headers['x-request-id']}`);
  expect(res.closedByServer).toBe(true);
}

describeEachDialect('bad input: credentials and headers refused before any parsing', (ctx: TestContext) => {
  let owner: Caller;
  let port: number;

  beforeAll(async () => {
    owner = await ctx.make.caller({ role: 'owner' });
    // Node's own request timeout, shortened so that the 408 test does not wait a minute.
    ctx.app.server.headersTimeout = 1500;
    // Read when the server starts listening; Node's types know it only as a constructor option.
    (ctx.app.server as typeof ctx.app.server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = 100;
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    port = (ctx.app.server.address() as AddressInfo).port;
  });

  describe('two or more Authorization headers', () => {
    it('control: one Authorization header over the same raw connection is answered 200', async () => {
      const res = await rawExchange(port, rawRequest([`Authorization: Bearer ${owner.token}`]));
      expect(res.statusCode, res.body).toBe(200);
      expect((res.json() as { token: { kind: string } }).token.kind).toBe('personal_access_token');
    });

    const cases: [string, (token: string) => string[]][] = [
      ['the same valid token twice', (t) => [`Authorization: Bearer ${t}`, `Authorization: Bearer ${t}`]],
      ['a valid token, then garbage', (t) => [`Authorization: Bearer ${t}`, 'Authorization: Bearer not-a-token']],
      ['garbage, then a valid token', (t) => ['Authorization: Bearer not-a-token', `Authorization: Bearer ${t}`]],
      ['a valid token, then an empty header', (t) => [`Authorization: Bearer ${t}`, 'Authorization:']],
      ['Basic credentials, then a bearer token', (t) => ['Authorization: Basic dXNlcjpwYXNz', `Authorization: Bearer ${t}`]],
      ['names in different case', (t) => [`authorization: Bearer ${t}`, `AUTHORIZATION: Bearer ${t}`]],
      ['three headers', (t) => [`Authorization: Bearer ${t}`, `Authorization: Bearer ${t}`, `Authorization: Bearer ${t}`]],
    ];
    for (const [name, headers] of cases) {
      it(`${name}: 400 validation naming Authorization, the token not echoed`, async () => {
        const lines = headers(owner.token);
        const res = await rawExchange(port, rawRequest(lines));
        const errors = expectValidation(res, { parameters: ['Authorization'] });
        expect(errors).toEqual([{ parameter: 'Authorization', detail: DUPLICATE(lines.length) }]);
        expect(res.body).not.toContain(owner.token);
      });
    }

    it('refuses before the route runs: a POST with two headers creates nothing', async () => {
      const name = uniqueName();
      const lines = [`Authorization: Bearer ${owner.token}`, `Authorization: Bearer ${owner.token}`];
      const res = await rawExchange(port, rawRequest(lines, { method: 'POST', path: '/v1/projects', body: JSON.stringify({ name }) }));
      expect(expectValidation(res, { parameters: ['Authorization'] })).toEqual([{ parameter: 'Authorization', detail: DUPLICATE(2) }]);
      const list = await ctx.request('GET', `/v1/projects?name=${name}`, { token: owner.token });
      expect(list.json().items).toEqual([]);
    });

    it('refuses two headers even beside a session cookie (the cookie is not a fallback)', async () => {
      const { cookie } = await ctx.make.session({ userId: owner.userId, organizationId: owner.organizationId });
      const res = await rawExchange(port, rawRequest([`Cookie: ${cookie}`, 'Authorization: Bearer a', 'Authorization: Bearer b']));
      expect(expectValidation(res, { parameters: ['Authorization'] })).toEqual([{ parameter: 'Authorization', detail: DUPLICATE(2) }]);
      expect((await rawExchange(port, rawRequest([`Cookie: ${cookie}`]))).statusCode).toBe(200);
    });
  });

  describe('Authorization headers longer than any token we mint', () => {
    it('over 4096 characters: 401 invalid_token before any parsing, whatever the scheme', async () => {
      for (const header of [
        `Bearer ${'a'.repeat(4090)}`,
        `Bearer ${owner.token}${'A'.repeat(4096)}`,
        `Basic ${'a'.repeat(5000)}`,
        `Bearer ${'eyJh'.repeat(2000)}.e.e`,
      ]) {
        const res = await ctx.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: header } });
        const body = expectUnauthorized(res, 'invalid_token', header.slice(7));
        expect(body.detail).toBe(TOO_LONG);
      }
    });

    it('up to 4096 characters the usual checks answer (the boundary)', async () => {
      const at = `Bearer ${'a'.repeat(4096 - 7)}`;
      expect(at).toHaveLength(4096);
      const body = expectUnauthorized(await ctx.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: at } }), 'invalid_token');
      expect(body.detail).toBe('The bearer token is malformed.');
      const over = expectUnauthorized(await ctx.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `${at}a` } }), 'invalid_token');
      expect(over.detail).toBe(TOO_LONG);
    });

    it('a 15 KB token still within the header limit: the same 401 over a real connection (not 431)', async () => {
      const token = 'a'.repeat(15 * 1024);
      const res = await rawExchange(port, rawRequest([`Authorization: Bearer ${token}`]));
      const body = expectUnauthorized(res, 'invalid_token', token);
      expect(body.detail).toBe(TOO_LONG);
    });
  });

  describe('requests the HTTP parser refuses (answered on the raw socket)', () => {
    const TOO_LARGE = 'The request line and headers exceed 16 KB. A personal access token is well under 1 KB: check what the client sends.';

    it('a 100 KB token: 431 header-fields-too-large, Connection: close, the token not echoed', async () => {
      const token = 'a'.repeat(100 * 1024);
      const res = await rawExchange(port, rawRequest([`Authorization: Bearer ${token}`]));
      expectRawProblem(res, 431, 'header-fields-too-large', TOO_LARGE);
      expect(res.body).not.toContain('a'.repeat(64));
    });

    it('other ways over 16 KB: a 20 KB token, forty 500-byte headers, a 20 KB URL, a 1 MB header: 431', async () => {
      const pad = 'x'.repeat(500);
      for (const request of [
        rawRequest([`Authorization: Bearer ${'a'.repeat(20 * 1024)}`]),
        rawRequest(Array.from({ length: 40 }, (_, i) => `X-Pad-${i}: ${pad}`)),
        rawRequest([`Authorization: Bearer ${owner.token}`], { path: `/v1/projects?name=${'n'.repeat(20 * 1024)}` }),
        rawRequest([`X-Big: ${'b'.repeat(1024 * 1024)}`]),
      ]) {
        expectRawProblem(await rawExchange(port, request), 431, 'header-fields-too-large', TOO_LARGE);
      }
    });

    it('malformed HTTP: 400 validation "The HTTP request is malformed."', async () => {
      for (const request of [
        'NOT HTTP AT ALL\r\n\r\n',
        'GET /v1/me HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n',
        'GET /v1/me HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
      ]) {
        expectRawProblem(await rawExchange(port, request), 400, 'validation', 'The HTTP request is malformed.');
      }
    });

    it("headers that do not arrive within Node's request timeout: 408 request-timeout", async () => {
      const started = Date.now();
      const res = await rawExchange(port, `GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${owner.token}\r\n`);
      expectRawProblem(res, 408, 'request-timeout', 'The request did not arrive in time. Send it again on a new connection.');
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    });

    it('the server keeps serving afterwards', async () => {
      expect((await rawExchange(port, rawRequest([`Authorization: Bearer ${owner.token}`]))).statusCode).toBe(200);
    });
  });

  describe('methods no route takes', () => {
    it('QUERY, with or without a Content-Type, is a 405 with Allow on a path that takes other methods and a 404 elsewhere', async () => {
      for (const [path, lines, allow] of [
        ['/healthz', [], 'GET, HEAD'],
        ['/v1/projects', [`Authorization: Bearer ${owner.token}`], 'GET, HEAD, POST'],
      ] as const)
        for (const body of [undefined, '{}']) {
          const res = await rawExchange(port, rawRequest([...lines], { method: 'QUERY', path, body }));
          expectProblem(res, 405, 'method-not-allowed', `QUERY is not allowed on ${path}; it answers ${allow}.`);
          expect(res.headers.allow).toBe(allow);
          expectCleanProblem(res);
        }
      for (const body of [undefined, '{}']) {
        const res = await rawExchange(port, rawRequest([], { method: 'QUERY', path: '/v1/nope', body }));
        expectProblem(res, 404, 'not-found', 'No route for QUERY /v1/nope.');
      }
    });
  });

  describe('properties', () => {
    const value = fc.stringMatching(/^[!-~]([ -~]{0,40}[!-~])?$/);

    it('any number of Authorization headers with any values: one is judged (200 or 401), more than one is a 400 naming Authorization', async () => {
      const header = fc.oneof(
        fc.constant('valid'),
        value.map((v) => `Bearer ${v}`),
        value,
        fc.constant(''),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(header, { minLength: 1, maxLength: 4 }), async (values) => {
          const lines = values.map((v) => `Authorization: ${v === 'valid' ? `Bearer ${owner.token}` : v}`.trimEnd());
          const res = await rawExchange(port, rawRequest(lines));
          if (values.length > 1) {
            expect(expectValidation(res, { parameters: ['Authorization'] })).toEqual([{ parameter: 'Authorization', detail: DUPLICATE(values.length) }]);
          } else if (values[0] === 'valid') {
            expect(res.statusCode, res.body).toBe(200);
          } else {
            expectUnauthorized(res, values[0] === '' ? 'missing_token' : 'invalid_token');
          }
        }),
        { numRuns: 60 },
      );
    });

    it('an Authorization header of any length up to the header limit is a 401 invalid_token; over 4096 characters with the length detail', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 15_000 }),
          fc.constantFrom('Bearer ', 'bearer ', 'Basic ', ''),
          fc.constantFrom('a', '.', 'eyJh', '-_'),
          async (length, scheme, unit) => {
            const header = `${scheme}${unit.repeat(Math.ceil(length / unit.length))}`;
            const res = await ctx.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: header } });
            const body = expectUnauthorized(res, 'invalid_token');
            if (header.length > 4096) expect(body.detail).toBe(TOO_LONG);
            else expect(body.detail).not.toBe(TOO_LONG);
          },
        ),
        { numRuns: 100 },
      );
    });
  });
});

describeEachDialect(
  'bad input: refused credentials count against the client address',
  (ctx: TestContext) => {
    it('two Authorization headers and an overlong one use up the address budget like a bad token: then 429', async () => {
      await ctx.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (ctx.app.server.address() as AddressInfo).port;
      const duplicate = rawRequest(['Authorization: Bearer a', 'Authorization: Bearer b']);
      for (let i = 1; i <= 2; i++) {
        const res = await rawExchange(port, duplicate);
        expect(expectValidation(res, { parameters: ['Authorization'] })).toEqual([{ parameter: 'Authorization', detail: DUPLICATE(2) }]);
        expect(res.headers['ratelimit-remaining']).toBe(String(3 - i));
      }
      expectUnauthorized(await ctx.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${'a'.repeat(5000)}` } }), 'invalid_token');
      const limited = await rawExchange(port, duplicate);
      expectProblem(limited, 429, 'rate-limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    });
  },
  // A fixed clock: the three requests cannot straddle two rate-limit windows.
  { clock: manualClock(Date.parse('2026-11-02T10:00:30.000Z')), env: { SIGHTLINE_RATE_LIMIT: '3' } },
);

describe('answerClientError: never writes into a response that has started', () => {
  const log = { info: () => {} };
  /** The parts of a socket the handler looks at, recording what it does. */
  const fakeSocket = (state: { headersSent?: boolean; writableEnded?: boolean; writable?: boolean }) => {
    const calls: string[] = [];
    const socket = {
      destroyed: false,
      writable: state.writable ?? true,
      writableEnded: state.writableEnded ?? false,
      _httpMessage: state.headersSent === undefined ? null : { headersSent: state.headersSent },
      end: (data: string) => calls.push(`end ${data.split('\r\n')[0]}`),
      destroy: () => calls.push('destroy'),
      once: () => socket,
    };
    return { socket: socket as unknown as Socket, calls };
  };
  const error = (code: string) => Object.assign(new Error(code), { code });

  it('a response already being written on the connection: closed, nothing written', () => {
    const { socket, calls } = fakeSocket({ headersSent: true });
    answerClientError(error('HPE_INVALID_METHOD'), socket, PROBLEM_BASE, log);
    expect(calls).toEqual(['destroy']);
  });

  it('a request in flight whose response has not started, or none: the problem is written and the connection ended', () => {
    for (const state of [{ headersSent: false }, {}]) {
      const { socket, calls } = fakeSocket(state);
      answerClientError(error('HPE_HEADER_OVERFLOW'), socket, PROBLEM_BASE, log);
      expect(calls).toEqual(['end HTTP/1.1 431 Request Header Fields Too Large']);
    }
  });

  it('a connection already answered (the parser reports every further chunk) or reset: left alone', () => {
    const answered = fakeSocket({ writableEnded: true, writable: false });
    answerClientError(error('HPE_HEADER_OVERFLOW'), answered.socket, PROBLEM_BASE, log);
    expect(answered.calls).toEqual([]);
    const reset = fakeSocket({});
    answerClientError(error('ECONNRESET'), reset.socket, PROBLEM_BASE, log);
    expect(reset.calls).toEqual([]);
  });

  it('maps the parser errors to problems: 431, 408, and 400 for the rest', () => {
    expect(clientErrorProblem('HPE_HEADER_OVERFLOW')).toMatchObject({ status: 431, slug: 'header-fields-too-large' });
    expect(clientErrorProblem('ERR_HTTP_REQUEST_TIMEOUT')).toMatchObject({ status: 408, slug: 'request-timeout' });
    for (const code of ['HPE_INVALID_METHOD', 'HPE_UNEXPECTED_CONTENT_LENGTH', undefined]) {
      expect(clientErrorProblem(code)).toMatchObject({ status: 400, slug: 'validation', detail: 'The HTTP request is malformed.' });
    }
  });
});
