/**
 * OWASP API Security Top 10 (2023), continued: API4 (rate limits) and API8 (security misconfiguration:
 * CORS, headers), against the real app on every dialect.
 */
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { newId } from '../src/lib/ids.js';
import { describeEachDialect, expectProblem, manualClock, PUBLIC_URL, type Caller, type TestContext } from './helpers/harness.js';
import { expectCleanProblem } from './helpers/problems.js';
import { unique } from './owasp/world.js';

// ───────────────────────────── API4:2023 Unrestricted Resource Consumption — rate limits ─────────────────────────────
// A manual clock: each test's requests are made at one instant.
const rateClock = manualClock(Date.parse('2026-11-21T10:00:10.000Z'));
describeEachDialect(
  'OWASP API4:2023 rate limits (SIGHTLINE_RATE_LIMIT=3)',
  (ctx) => {
    it('the 4th request of a token within a minute → 429 with Retry-After; other tokens are unaffected; Retry-After later it is admitted', async () => {
      // 10 s into the minute after next: the minute before saw no request.
      rateClock.set(Math.floor(rateClock.now() / 60_000) * 60_000 + 2 * 60_000 + 10_000);
      const caller = await ctx.make.caller();
      const other = await ctx.make.caller();
      for (let i = 1; i <= 3; i++) {
        const res = await ctx.request('GET', '/v1/me', { token: caller.token });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.headers['ratelimit-limit']).toBe('3');
        expect(res.headers['ratelimit-remaining']).toBe(String(3 - i));
      }
      const limited = await ctx.request('GET', '/v1/me', { token: caller.token });
      expectProblem(limited, 429, 'rate-limited');
      // Sliding window: 3 requests at 0:10 leave room for the next at 1:20 (3 × 40/60 + 1 = 3), not at 1:00.
      const retryAfter = Number(limited.headers['retry-after']);
      expect(retryAfter, String(limited.headers['retry-after'])).toBe(70);
      expect(limited.headers['ratelimit-reset']).toBe('70');
      expect(limited.headers['ratelimit-remaining']).toBe('0');
      // Any route, not only /v1/me.
      expectProblem(await ctx.request('GET', '/v1/projects', { token: caller.token }), 429, 'rate-limited');
      expect((await ctx.request('GET', '/v1/me', { token: other.token })).statusCode).toBe(200);
      rateClock.advance((retryAfter - 1) * 1000);
      expectProblem(await ctx.request('GET', '/v1/me', { token: caller.token }), 429, 'rate-limited');
      rateClock.advance(1000);
      expect((await ctx.request('GET', '/v1/me', { token: caller.token })).statusCode).toBe(200);
    });

    it('failed authentications are limited per client address: the 4th bad token → 429', async () => {
      rateClock.advance(60_000);
      for (let i = 0; i < 3; i++) expectProblem(await ctx.request('GET', '/v1/me', { token: `guess.${i}.x` }), 401, 'unauthorized');
      const limited = await ctx.request('GET', '/v1/me', { token: 'guess.4.x' });
      expectProblem(limited, 429, 'rate-limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    });
  },
  { env: { SIGHTLINE_RATE_LIMIT: '3' }, clock: rateClock },
);

// ───────────────────────────── API8:2023 Security Misconfiguration ─────────────────────────────
const DASHBOARD = new URL(PUBLIC_URL).origin; // http://sightline.test
const ALLOWED = 'https://app.acme.test';
/**
 * Origins that must never be answered. `https://APP.acme.test:443` is the same origin once normalized,
 * but browsers always send the serialized form (lower case, default port omitted), so a header spelled
 * like that did not come from a browser: the comparison is exact and it is refused.
 */
const REFUSED = [
  'https://evil.test',
  'null',
  'https://app.acme.test.evil.test', // suffix trick
  'https://evilapp.acme.test', // prefix trick
  'https://acme.test', // parent domain
  'http://app.acme.test', // scheme downgrade
  'https://app.acme.test:8443', // other port
  'https://APP.acme.test:443', // non-canonical spelling
  'https://app.acme.test/', // trailing slash
  '*',
  'https://sightline.test', // the dashboard's host over another scheme
  'http://sightline.test.evil.test',
];

describeEachDialect(
  'OWASP API8:2023 Security Misconfiguration (CORS, headers)',
  (ctx) => {
    let acme: Caller;
    let stranger: Caller;
    const seen: LightMyRequestResponse[] = [];
    const req: TestContext['request'] = async (...args) => {
      const res = await ctx.request(...args);
      seen.push(res);
      return res;
    };
    const preflight = (origin: string, method = 'GET', path = '/v1/me') =>
      req('OPTIONS', path, { headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' } });
    const varyOrigin = (res: LightMyRequestResponse) =>
      String(res.headers.vary ?? '')
        .toLowerCase()
        .split(/\s*,\s*/)
        .includes('origin');

    beforeAll(async () => {
      expect(ctx.config.publicUrl).toBe(PUBLIC_URL);
      acme = await ctx.make.caller({ role: 'owner' });
      stranger = await ctx.make.caller({ role: 'owner' });
      const res = await req('PATCH', '/v1/organization', { token: acme.token, body: { allowedOrigins: [ALLOWED] } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().allowedOrigins).toEqual([ALLOWED]);
    });

    it('preflight from the dashboard origin → 204, echoed, with credentials', async () => {
      const res = await preflight(DASHBOARD);
      expect(res.statusCode, res.body).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(DASHBOARD);
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(varyOrigin(res)).toBe(true);
      expect(String(res.headers['access-control-allow-methods'])).toContain('GET');
      expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
    });

    it("preflight from an organization's allowed origin → 204, echoed, without credentials", async () => {
      for (const method of ['GET', 'POST', 'DELETE']) {
        const res = await preflight(ALLOWED, method, method === 'GET' ? '/v1/me' : '/v1/projects');
        expect(res.statusCode, res.body).toBe(204);
        expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
        expect(res.headers['access-control-allow-credentials']).toBeUndefined();
        expect(varyOrigin(res)).toBe(true);
      }
    });

    for (const origin of REFUSED) {
      it(`preflight from ${origin} → 403 problem without Access-Control-Allow-Origin`, async () => {
        const res = await preflight(origin);
        expectProblem(res, 403, 'forbidden');
        expectCleanProblem(res, [origin]);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
        expect(res.headers['access-control-allow-credentials']).toBeUndefined();
        expect(res.headers['access-control-allow-methods']).toBeUndefined();
      });
    }

    it('actual request from the dashboard origin → 200, echoed, Vary: Origin, credentials; its errors are readable too', async () => {
      const res = await req('GET', '/v1/me', { token: acme.token, headers: { origin: DASHBOARD } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(DASHBOARD);
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(varyOrigin(res)).toBe(true);
      // The stranger's token works from the dashboard too: it is every organization's origin.
      expect((await req('GET', '/v1/me', { token: stranger.token, headers: { origin: DASHBOARD } })).statusCode).toBe(200);
      const unauthenticated = await req('GET', '/v1/me', { headers: { origin: DASHBOARD } });
      expectProblem(unauthenticated, 401, 'unauthorized');
      expect(unauthenticated.headers['access-control-allow-origin']).toBe(DASHBOARD);
    });

    it("actual request from the organization's allowed origin → 200, echoed, Vary: Origin, no credentials", async () => {
      const res = await req('GET', '/v1/me', { token: acme.token, headers: { origin: ALLOWED } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(varyOrigin(res)).toBe(true);
      const write = await req('POST', '/v1/projects', { token: acme.token, headers: { origin: ALLOWED }, body: { name: unique('cors') } });
      expect(write.statusCode, write.body).toBe(201);
      expect(write.headers['access-control-allow-origin']).toBe(ALLOWED);
    });

    it('the same allowed origin with a caller of another organization → 403 problem, not echoed, and the write does not happen', async () => {
      const res = await req('GET', '/v1/me', { token: stranger.token, headers: { origin: ALLOWED } });
      expectProblem(res, 403, 'forbidden');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      const name = unique('cors-stranger');
      const write = await req('POST', '/v1/projects', { token: stranger.token, headers: { origin: ALLOWED }, body: { name } });
      expectProblem(write, 403, 'forbidden');
      const projects = (await req('GET', '/v1/projects?limit=100', { token: stranger.token })).json().items as { name: string }[];
      expect(projects.map((p) => p.name)).not.toContain(name);
    });

    for (const origin of REFUSED) {
      it(`actual request from ${origin} → 403 problem without Access-Control-Allow-Origin`, async () => {
        const res = await req('GET', '/v1/me', { token: acme.token, headers: { origin } });
        expectProblem(res, 403, 'forbidden');
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
        expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      });
    }

    it('an origin removed from the list stops being answered at once', async () => {
      const cleared = await req('PATCH', '/v1/organization', { token: acme.token, body: { allowedOrigins: [] } });
      expect(cleared.statusCode, cleared.body).toBe(200);
      try {
        expectProblem(await preflight(ALLOWED), 403, 'forbidden');
        expectProblem(await req('GET', '/v1/me', { token: acme.token, headers: { origin: ALLOWED } }), 403, 'forbidden');
      } finally {
        await req('PATCH', '/v1/organization', { token: acme.token, body: { allowedOrigins: [ALLOWED] } });
      }
    });

    it('unauthenticated public routes never grant a cross-origin read to a foreign origin', async () => {
      for (const url of ['/openapi.json', '/.well-known/jwks.json', '/healthz', '/docs/', '/problems/forbidden', '/nowhere']) {
        const res = await req('GET', url, { headers: { origin: 'https://evil.test' } });
        expect(res.headers['access-control-allow-origin'], url).toBeUndefined();
        expect(res.headers['access-control-allow-credentials'], url).toBeUndefined();
      }
    });

    it('security headers on /v1 (successes and errors) and /docs; /v1 is never cached; errors are problem documents', async () => {
      const responses: [string, LightMyRequestResponse][] = [
        ['GET /v1/me 200', await req('GET', '/v1/me', { token: acme.token })],
        ['GET /v1/me 401', await req('GET', '/v1/me')],
        ['GET /v1/me 403 origin', await req('GET', '/v1/me', { token: acme.token, headers: { origin: 'https://evil.test' } })],
        ['GET /v1/projects/{missing} 404', await req('GET', `/v1/projects/${newId('prj')}`, { token: acme.token })],
        ['GET /v1/nope 404', await req('GET', '/v1/nope', { token: acme.token })],
        ['POST /v1/projects 400', await req('POST', '/v1/projects', { token: acme.token, body: { bogus: 1 } })],
        [
          'POST /v1/projects 415',
          await req('POST', '/v1/projects', { token: acme.token, payload: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
        ],
        ['PUT /v1/me 404', await req('PUT', '/v1/me', { token: acme.token, body: {} })],
      ];
      const docs = await req('GET', '/docs/');
      expect(docs.statusCode).toBe(200);
      const docsRoot = await req('GET', '/docs');
      // A page carries helmet's whole set.
      expect(docs.headers['x-dns-prefetch-control']).toBe('off');
      expect(docs.headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(String(docs.headers['content-security-policy'])).toContain("script-src 'self'");
      for (const [name, res] of [...responses, ['GET /docs/', docs], ['GET /docs', docsRoot]] as [string, LightMyRequestResponse][]) {
        expect(res.headers['x-content-type-options'], name).toBe('nosniff');
        const csp = String(res.headers['content-security-policy'] ?? '');
        expect(csp, `${name}: content-security-policy`).toMatch(/default-src/);
        expect(/frame-ancestors 'none'/.test(csp) || res.headers['x-frame-options'] !== undefined, `${name}: framing allowed`).toBe(true);
        expect(res.headers['x-powered-by'], name).toBeUndefined();
      }
      for (const [name, res] of responses) {
        // An API answer carries OWASP's REST set (lib/security-headers.ts), and none of helmet's headers for documents.
        expect(res.headers['content-security-policy'], name).toBe("default-src 'none'; frame-ancestors 'none'");
        expect(res.headers['x-frame-options'], name).toBe('DENY');
        expect(res.headers['cross-origin-resource-policy'], name).toBe('same-site');
        expect(res.headers['strict-transport-security'], name).toBe('max-age=31536000; includeSubDomains');
        for (const page of ['x-dns-prefetch-control', 'x-download-options', 'cross-origin-opener-policy', 'origin-agent-cluster'])
          expect(res.headers[page], `${name}: ${page}`).toBeUndefined();
        expect(res.headers['cache-control'], `${name}: cache-control`).toBe('no-store');
        if (res.statusCode >= 400) expectCleanProblem(res);
      }
    });

    it('never answers Access-Control-Allow-Origin: * (every response of this suite)', () => {
      expect(seen.length).toBeGreaterThan(40);
      for (const res of seen) {
        expect(res.headers['access-control-allow-origin']).not.toBe('*');
        if (res.headers['access-control-allow-credentials'] !== undefined) expect(res.headers['access-control-allow-origin']).toBe(DASHBOARD);
      }
    });
  },
  { env: { SIGHTLINE_PUBLIC_URL: PUBLIC_URL } },
);
