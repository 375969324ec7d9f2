import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createDevProvider } from '../src/auth/dev-idp.js';
import { TokenService } from '../src/auth/tokens.js';
import type { App } from '../src/deps.js';
import type { Config } from '../src/config.js';
import { systemClock, type Clock } from '../src/lib/clock.js';
import { Keyring } from '../src/lib/keys.js';
import { dialects, Factories, testConfig } from './helpers/harness.js';
import { freePort } from './helpers/services.js';
import { createTestDatabase, type TestDatabase } from './helpers/storage.js';

/** Real time plus a skew the tests move (the identity provider and openid-client keep real time). */
function skewedClock(): Clock & { skew: number } {
  const clock = { skew: 0, now: () => Date.now() + clock.skew };
  return clock;
}

/** A minimal cookie jar: name → value, as a browser would keep them for one site. */
class Jar {
  readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

async function expectProblem(response: Response, status: number, slug: string, problemBase: string): Promise<Record<string, unknown>> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(body).toMatchObject({ type: `${problemBase}/${slug}`, status });
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  expect(text).not.toMatch(/\bat .*\.(ts|js):\d+/); // never a stack trace
  return body;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');
const SESSION = 'sightline_session';
const STATE = 'sightline_signin';

for (const dialect of dialects) {
  describe(`dashboard sign-in through OpenID Connect [${dialect}]`, () => {
    const CLIENT_ID = 'sightline-test';
    const CLIENT_SECRET = randomBytes(24).toString('base64url');
    let idp: Server;
    let issuer: string;
    let publicUrl: string;
    let problemBase: string;
    let database: TestDatabase;
    let config: Config;
    let app: App;
    let make: Factories;
    let tokens: TokenService;
    const clock = skewedClock();
    const db = () => database.storage.db;

    beforeAll(async () => {
      const [idpPort, appPort] = [await freePort(), await freePort()];
      issuer = `http://127.0.0.1:${idpPort}`;
      publicUrl = `http://127.0.0.1:${appPort}`;
      problemBase = `${publicUrl}/problems`;
      // A real oidc-provider on loopback, with a client this test registers (the same factory as the built-in one).
      const provider = await createDevProvider({ issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUris: [`${publicUrl}/auth/callback`] });
      idp = createServer(provider.callback());
      await new Promise<void>((resolve) => idp.listen(idpPort, '127.0.0.1', resolve));
      database = await createTestDatabase(dialect);
      config = testConfig({
        SIGHTLINE_PUBLIC_URL: publicUrl,
        SIGHTLINE_OIDC_ISSUER: issuer,
        SIGHTLINE_OIDC_CLIENT_ID: CLIENT_ID,
        SIGHTLINE_OIDC_CLIENT_SECRET: CLIENT_SECRET,
      });
      app = await buildApp({ config, storage: database.storage, clock });
      await app.listen({ port: appPort, host: '127.0.0.1' });
      const keys = new Keyring(db(), clock);
      await keys.init();
      tokens = new TokenService(db(), keys, config, clock);
      make = new Factories(db(), tokens, clock);
    }, 60_000);

    afterAll(async () => {
      await app?.close();
      await new Promise((resolve) => idp?.close(resolve));
      await database?.destroy();
    });

    const get = (path: string, jar?: Jar, headers: Record<string, string> = {}) =>
      fetch(`${publicUrl}${path}`, { redirect: 'manual', headers: { ...(jar ? { cookie: jar.header() } : {}), ...headers } });

    /**
     * Browser steps up to the callback: /auth/login, the provider's authorization endpoint and its
     * development login form (any login), following redirects by hand. Returns the callback URL the
     * provider sends the browser to, without visiting it. `abort` presses the provider's cancel link.
     */
    async function toCallback(email: string, jar = new Jar(), options: { abort?: boolean } = {}): Promise<{ jar: Jar; callback: URL; state: string }> {
      const login = await get('/auth/login', jar);
      expect(login.status).toBe(302);
      jar.take(login);
      const state = jar.cookies.get(STATE)!;
      expect(state).toMatch(/^[A-Za-z0-9_-]{40,}$/);
      const authorize = new URL(login.headers.get('location')!);
      expect(authorize.origin).toBe(issuer);
      expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorize.searchParams.get('state')).toBe(state);
      expect(authorize.searchParams.get('nonce')).toBeTruthy();
      expect(authorize.searchParams.get('redirect_uri')).toBe(`${publicUrl}/auth/callback`);

      const idpJar = new Jar();
      let next: URL = authorize;
      let method: 'GET' | 'POST' = 'GET';
      let body: string | undefined;
      for (let hop = 0; hop < 10; hop++) {
        if (next.href.startsWith(`${publicUrl}/auth/callback`)) return { jar, callback: next, state };
        const response = await fetch(next, {
          method,
          redirect: 'manual',
          headers: { cookie: idpJar.header(), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
          body,
        });
        idpJar.take(response);
        method = 'GET';
        body = undefined;
        if (response.status >= 300 && response.status < 400) {
          next = new URL(response.headers.get('location')!, next);
          continue;
        }
        const page = await response.text();
        expect(response.status, page).toBe(200);
        const uid = /\/interaction\/([^/"?]+)/.exec(next.pathname)?.[1];
        expect(uid, page).toBeTruthy();
        if (options.abort) {
          next = new URL(`/interaction/${uid}/abort`, issuer);
        } else {
          next = new URL(`/interaction/${uid}`, issuer);
          method = 'POST';
          body = new URLSearchParams({ prompt: 'login', login: email, password: 'any' }).toString();
        }
      }
      throw new Error('the identity provider never redirected to the callback');
    }

    async function callback(url: URL, jar: Jar): Promise<Response> {
      const response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
      jar.take(response);
      return response;
    }

    /** The whole sign-in; returns the browser's jar holding the session cookie. */
    async function signIn(email: string, jar = new Jar()): Promise<Jar> {
      const { callback: url } = await toCallback(email, jar);
      const response = await callback(url, jar);
      expect(response.status, await response.clone().text()).toBe(302);
      expect(response.headers.get('location')).toBe('/');
      expect(jar.cookies.get(SESSION)).toMatch(/^[A-Za-z0-9_-]{43}$/);
      return jar;
    }

    const me = (jar: Jar) => get('/v1/me', jar);
    const pendingRow = (state: string) => db().selectFrom('auth_requests').selectAll().where('state_hash', '=', sha256(state)).executeTakeFirstOrThrow();
    const sessionCount = async () =>
      Number(
        (
          await db()
            .selectFrom('sessions')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    /** A failed callback: the problem, no session cookie, no new session row. */
    async function expectRefused(url: URL, jar: Jar, status: number, slug: string): Promise<Record<string, unknown>> {
      const before = await sessionCount();
      const response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
      const setCookies = response.headers.getSetCookie();
      expect(setCookies.some((c) => c.startsWith(`${SESSION}=`))).toBe(false);
      const body = await expectProblem(response, status, slug, problemBase);
      expect(await sessionCount()).toBe(before);
      return body;
    }

    it('signs in: the callback sets an HttpOnly SameSite=Lax session cookie, and /v1/me works with it as a session', async () => {
      const jar = new Jar();
      const { callback: url } = await toCallback('Alice@Example.test', jar);
      const response = await callback(url, jar);
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe('/');
      const set = response.headers.getSetCookie().find((c) => c.startsWith(`${SESSION}=`))!;
      expect(set).toMatch(/; Path=\//);
      expect(set).toMatch(/; HttpOnly/);
      expect(set).toMatch(/; SameSite=Lax/);
      expect(set).not.toMatch(/Secure/); // the public URL is http here
      expect(response.headers.getSetCookie().some((c) => c.startsWith(`${STATE}=;`) && /Max-Age=0/.test(c))).toBe(true);

      const res = await me(jar);
      const body = (await res.json()) as {
        user: { email: string };
        organization: { id: string; name: string };
        role: string;
        token: { kind: string; id: string; expiresAt: string };
      };
      expect(res.status).toBe(200);
      expect(body.user.email).toBe('alice@example.test');
      expect(body.role).toBe('owner');
      expect(body.organization.name).toBe("alice's organization");
      expect(body.token.kind).toBe('session');
      expect(body.token.id).toMatch(/^ses_/);
      // The session JWT minted for the request lives at most five minutes.
      expect(Date.parse(body.token.expiresAt) - Date.now()).toBeLessThanOrEqual(5 * 60_000 + 1000);
      // Only the secret's hash is stored.
      const secret = jar.cookies.get(SESSION)!;
      const row = await db().selectFrom('sessions').selectAll().where('id', '=', body.token.id).executeTakeFirstOrThrow();
      expect(row.secret_hash).toBe(sha256(secret));
      expect(JSON.stringify(row)).not.toContain(secret);

      // Signing in again keeps the organization (an existing member).
      const again = (await (await me(await signIn('alice@example.test'))).json()) as { organization: { id: string } };
      expect(again.organization.id).toBe(body.organization.id);
    });

    it('refuses a callback whose state differs from the browser’s, or without the state cookie (login CSRF)', async () => {
      const { jar, callback: url } = await toCallback('mallory@example.test');
      const wrong = new URL(url);
      wrong.searchParams.set('state', randomBytes(32).toString('base64url'));
      const body = await expectRefused(wrong, jar, 401, 'unauthorized');
      expect(body.detail).toMatch(/state mismatch/);
      // The victim's browser holds no state cookie for the attacker's callback URL.
      await expectRefused(url, new Jar(), 401, 'unauthorized');
      // Missing state altogether: a validation problem.
      const none = new URL(url);
      none.searchParams.delete('state');
      await expectRefused(none, jar, 400, 'validation');
    });

    it('refuses a pending sign-in used twice, or older than ten minutes', async () => {
      const { jar, callback: url } = await toCallback('twice@example.test');
      const replayJar = new Jar();
      replayJar.cookies.set(STATE, jar.cookies.get(STATE)!);
      expect((await callback(url, jar)).status).toBe(302);
      const body = await expectRefused(url, replayJar, 401, 'unauthorized');
      expect(body.detail).toMatch(/unknown, expired or already used/);

      const late = await toCallback('late@example.test');
      clock.skew = 11 * 60_000;
      try {
        await expectRefused(late.callback, late.jar, 401, 'unauthorized');
      } finally {
        clock.skew = 0;
      }
    });

    it('refuses a reused authorization code', async () => {
      const first = await toCallback('reuse@example.test');
      const firstRow = await pendingRow(first.state);
      expect((await callback(first.callback, first.jar)).status).toBe(302);
      // A second, valid pending sign-in carrying the first one's nonce and verifier: only the code is stale.
      const second = await toCallback('reuse@example.test');
      await db()
        .updateTable('auth_requests')
        .set({ nonce: firstRow.nonce, code_verifier: firstRow.code_verifier })
        .where('state_hash', '=', sha256(second.state))
        .execute();
      const replay = new URL(first.callback);
      replay.searchParams.set('state', second.state);
      const body = await expectRefused(replay, second.jar, 401, 'unauthorized');
      expect(body.detail).toMatch(/refused the code \(invalid_grant\)/);
    });

    it('refuses a wrong PKCE verifier', async () => {
      const { jar, callback: url, state } = await toCallback('pkce@example.test');
      await db()
        .updateTable('auth_requests')
        .set({ code_verifier: randomBytes(32).toString('base64url') })
        .where('state_hash', '=', sha256(state))
        .execute();
      const body = await expectRefused(url, jar, 401, 'unauthorized');
      expect(body.detail).toMatch(/refused the code \(invalid_grant\)/);
    });

    it('refuses an ID token whose nonce does not match', async () => {
      const { jar, callback: url, state } = await toCallback('nonce@example.test');
      await db()
        .updateTable('auth_requests')
        .set({ nonce: randomBytes(32).toString('base64url') })
        .where('state_hash', '=', sha256(state))
        .execute();
      const body = await expectRefused(url, jar, 401, 'unauthorized');
      expect(body.detail).toMatch(/did not verify/);
    });

    it('refuses an error response from the identity provider', async () => {
      const { jar, callback: url } = await toCallback('cancel@example.test', new Jar(), { abort: true });
      expect(url.searchParams.get('error')).toBe('access_denied');
      const body = await expectRefused(url, jar, 401, 'unauthorized');
      expect(body.detail).toMatch(/access_denied/);
    });

    it('refuses a tampered, an idle-expired and an absolutely expired session cookie with 401', async () => {
      const jar = await signIn('expiry@example.test');
      const secret = jar.cookies.get(SESSION)!;
      const tampered = new Jar();
      tampered.cookies.set(SESSION, `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`);
      expect((await expectProblem(await me(tampered), 401, 'unauthorized', problemBase)).reason).toBe('invalid_token');
      const garbage = new Jar();
      garbage.cookies.set(SESSION, 'not-a-session');
      await expectProblem(await me(garbage), 401, 'unauthorized', problemBase);

      expect((await me(jar)).status).toBe(200);
      clock.skew = (config.sessionIdleMinutes + 1) * 60_000;
      try {
        expect((await expectProblem(await me(jar), 401, 'unauthorized', problemBase)).reason).toBe('token_expired');
      } finally {
        clock.skew = 0;
      }
      expect((await me(jar)).status).toBe(200);
      await db()
        .updateTable('sessions')
        .set({ expires_at: Date.now() - 1 })
        .where('secret_hash', '=', sha256(secret))
        .execute();
      expect((await expectProblem(await me(jar), 401, 'unauthorized', problemBase)).reason).toBe('token_expired');
    });

    it('logs out: the session ends, the cookie is cleared, and the old cookie is refused', async () => {
      const jar = await signIn('leaving@example.test');
      const old = jar.header();
      expect((await me(jar)).status).toBe(200);
      const crossSite = await fetch(`${publicUrl}/auth/logout`, { method: 'POST', headers: { cookie: old, origin: 'https://evil.example' } });
      await expectProblem(crossSite, 403, 'forbidden', problemBase);
      const out = await fetch(`${publicUrl}/auth/logout`, { method: 'POST', headers: { cookie: old, origin: publicUrl } });
      expect(out.status).toBe(204);
      expect(out.headers.getSetCookie().some((c) => c.startsWith(`${SESSION}=;`) && /Max-Age=0/.test(c))).toBe(true);
      const body = await expectProblem(await get('/v1/me', undefined, { cookie: old }), 401, 'unauthorized', problemBase);
      expect(body.reason).toBe('token_revoked');
    });

    it('makes session fixation impossible: a cookie held before sign-in is replaced, and every sign-in gets a new id', async () => {
      const planted = randomBytes(32).toString('base64url');
      const jar = new Jar();
      jar.cookies.set(SESSION, planted);
      await signIn('fixed@example.test', jar);
      expect(jar.cookies.get(SESSION)).not.toBe(planted);
      expect(await db().selectFrom('sessions').select('id').where('secret_hash', '=', sha256(planted)).executeTakeFirst()).toBeUndefined();

      const firstCookie = jar.cookies.get(SESSION)!;
      const firstId = ((await (await me(jar)).json()) as { token: { id: string } }).token.id;
      await signIn('fixed@example.test', jar);
      const secondId = ((await (await me(jar)).json()) as { token: { id: string } }).token.id;
      expect(jar.cookies.get(SESSION)).not.toBe(firstCookie);
      expect(secondId).not.toBe(firstId);
      // The browser's previous session ended with the new sign-in.
      const stale = new Jar();
      stale.cookies.set(SESSION, firstCookie);
      await expectProblem(await me(stale), 401, 'unauthorized', problemBase);
    });

    it('refuses cross-site state-changing requests with the cookie (403) and allows same-origin ones; bearer requests are unaffected', async () => {
      const jar = await signIn('csrf@example.test');
      const post = (headers: Record<string, string>, name: string) =>
        fetch(`${publicUrl}/v1/projects`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ name }) });
      await expectProblem(await post({ cookie: jar.header(), origin: 'https://evil.example' }, 'evil-1'), 403, 'forbidden', problemBase);
      await expectProblem(await post({ cookie: jar.header(), 'sec-fetch-site': 'cross-site' }, 'evil-2'), 403, 'forbidden', problemBase);
      await expectProblem(await post({ cookie: jar.header() }, 'evil-3'), 403, 'forbidden', problemBase);
      const sameOrigin = await post({ cookie: jar.header(), origin: publicUrl }, 'mine-1');
      expect(sameOrigin.status, await sameOrigin.clone().text()).toBe(201);
      expect((await post({ cookie: jar.header(), 'sec-fetch-site': 'same-origin' }, 'mine-2')).status).toBe(201);
      // Reading with the cookie from another site is not state-changing (CORS decides what the page may read).
      expect((await get('/v1/projects', jar, { origin: 'https://evil.example' })).status).toBe(403);
      expect((await get('/v1/projects', jar)).status).toBe(200);
      const caller = await make.caller();
      expect((await post({ authorization: `Bearer ${caller.token}` }, 'bearer-1')).status).toBe(201);
    });

    it('never takes a PAT as the session, the session JWT or the provider’s tokens as a bearer credential', async () => {
      const jar = await signIn('kinds@example.test');
      const principal = (await (await me(jar)).json()) as { user: { id: string }; organization: { id: string }; token: { id: string } };
      // A PAT of the same user, sent as the cookie value.
      const caller = await make.caller({ organizationId: principal.organization.id, email: 'kinds@example.test' });
      const patCookie = new Jar();
      patCookie.cookies.set(SESSION, caller.token);
      await expectProblem(await me(patCookie), 401, 'unauthorized', problemBase);
      expect((await get('/v1/me', undefined, { authorization: `Bearer ${caller.token}` })).status).toBe(200);
      // The very JWT the server mints from this session, sent as a bearer token.
      const now = Date.now();
      const sessionJwt = await tokens.sign('session', {
        sub: principal.user.id,
        org: principal.organization.id,
        jti: principal.token.id,
        iat: now,
        exp: now + 60_000,
      });
      expect((await expectProblem(await get('/v1/me', undefined, { authorization: `Bearer ${sessionJwt}` }), 401, 'unauthorized', problemBase)).reason).toBe(
        'invalid_token',
      );

      // The identity provider's own ID and access tokens (the test redeems a code itself, as a client would).
      const { callback: url, state } = await toCallback('kinds@example.test');
      const pending = await pendingRow(state);
      const grant = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: url.searchParams.get('code')!,
          redirect_uri: `${publicUrl}/auth/callback`,
          code_verifier: pending.code_verifier,
        }),
      });
      const idpTokens = (await grant.json()) as { id_token: string; access_token: string };
      expect(grant.status).toBe(200);
      expect(idpTokens.id_token.split('.')).toHaveLength(3);
      for (const foreign of [idpTokens.id_token, idpTokens.access_token]) {
        await expectProblem(await get('/v1/me', undefined, { authorization: `Bearer ${foreign}` }), 401, 'unauthorized', problemBase);
      }
    });

    it('lets an invited email join the inviting organization with the invited role', async () => {
      const owner = await make.caller({ role: 'owner' });
      const invite = await fetch(`${publicUrl}/v1/organization/invitations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'Invitee@Example.test', role: 'viewer' }),
      });
      expect(invite.status, await invite.clone().text()).toBe(201);
      const jar = await signIn('invitee@example.test');
      const body = (await (await me(jar)).json()) as { organization: { id: string }; role: string; user: { email: string } };
      expect(body.organization.id).toBe(owner.organizationId);
      expect(body.role).toBe('viewer');
      expect(await db().selectFrom('invitations').select('id').where('email', '=', 'invitee@example.test').execute()).toEqual([]);
      // A viewer's session may not create projects: the server's permission table applies to sessions too.
      const denied = await fetch(`${publicUrl}/v1/projects`, {
        method: 'POST',
        headers: { cookie: jar.header(), origin: publicUrl, 'content-type': 'application/json' },
        body: '{"name":"nope"}',
      });
      await expectProblem(denied, 403, 'forbidden', problemBase);
    });
  });
}

describe('the built-in development identity provider', () => {
  let app: App | undefined;
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await app?.close();
    await database?.destroy();
  });

  it('signs in with any email through /dev-idp when no issuer is configured', async () => {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    database = await createTestDatabase('sqlite');
    app = await buildApp({ config: testConfig({ SIGHTLINE_PUBLIC_URL: publicUrl }), storage: database.storage });
    await app.listen({ port, host: '127.0.0.1' });
    // What the dashboard's sign-in page reads.
    const status = await fetch(`${publicUrl}/auth/status`);
    expect(status.status).toBe(200);
    expect(await status.json()).toEqual({ available: true, development: true, message: expect.stringContaining('any email') });
    const jar = new Jar();
    const login = await fetch(`${publicUrl}/auth/login`, { redirect: 'manual' });
    jar.take(login);
    let next = new URL(login.headers.get('location')!);
    expect(next.href.startsWith(`${publicUrl}/dev-idp/auth?`)).toBe(true);
    const idpJar = new Jar();
    let init: RequestInit = {};
    for (let hop = 0; hop < 10 && !next.pathname.startsWith('/auth/callback'); hop++) {
      const response = await fetch(next, {
        redirect: 'manual',
        ...init,
        headers: { cookie: idpJar.header(), ...(init.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      });
      idpJar.take(response);
      init = {};
      if (response.status >= 300 && response.status < 400) {
        next = new URL(response.headers.get('location')!, next);
        continue;
      }
      const page = await response.text();
      expect(response.status, page).toBe(200);
      const action = /action="([^"]+)"/.exec(page)?.[1];
      expect(action, page).toMatch(new RegExp(`^${publicUrl}/dev-idp/interaction/`));
      next = new URL(action!, publicUrl);
      init = { method: 'POST', body: new URLSearchParams({ prompt: 'login', login: 'dev@example.test', password: 'x' }).toString() };
    }
    const done = await fetch(next, { redirect: 'manual', headers: { cookie: jar.header() } });
    expect(done.status, await done.clone().text()).toBe(302);
    jar.take(done);
    const me = await fetch(`${publicUrl}/v1/me`, { headers: { cookie: jar.header() } });
    const body = (await me.json()) as { user: { email: string }; token: { kind: string } };
    expect(me.status).toBe(200);
    expect(body.user.email).toBe('dev@example.test');
    expect(body.token.kind).toBe('session');
  }, 30_000);

  it('in production without an issuer, /auth/login says what to configure and mounts no development provider', async () => {
    const db = await createTestDatabase('sqlite');
    const prod = await buildApp({ config: { ...testConfig(), production: true }, storage: db.storage });
    try {
      const login = await prod.inject({ method: 'GET', url: '/auth/login' });
      expect(login.statusCode).toBe(503);
      expect(login.headers['content-type']).toMatch(/^application\/problem\+json/);
      const body = login.json() as { type: string; detail: string };
      expect(body.type).toBe('http://sightline.test/problems/service-unavailable');
      for (const name of ['SIGHTLINE_OIDC_ISSUER', 'SIGHTLINE_OIDC_CLIENT_ID', 'SIGHTLINE_OIDC_CLIENT_SECRET']) expect(body.detail).toContain(name);
      // The dashboard's sign-in page shows the same message instead of a sign-in button.
      const status = await prod.inject({ method: 'GET', url: '/auth/status' });
      expect(status.statusCode).toBe(200);
      expect(status.json()).toEqual({ available: false, development: false, message: body.detail });
      const idp = await prod.inject({ method: 'GET', url: '/dev-idp/.well-known/openid-configuration' });
      expect(idp.statusCode).toBe(404);
    } finally {
      await prod.close();
      await db.destroy();
    }
  });
});

/** A Set-Cookie line as name, value and its attributes (order-free; names lower-cased, values as sent). */
function parseSetCookie(line: string): { name: string; value: string; attributes: Record<string, string | true> } {
  const [pair, ...rest] = line.split(';');
  const eq = pair!.indexOf('=');
  const attributes: Record<string, string | true> = {};
  for (const part of rest) {
    const [key, ...value] = part.trim().split('=');
    attributes[key!.toLowerCase()] = value.length === 0 ? true : value.join('=');
  }
  return { name: pair!.slice(0, eq).trim(), value: pair!.slice(eq + 1).trim(), attributes };
}

for (const dialect of dialects) {
  for (const scheme of ['http', 'https'] as const) {
    describe(`cookies over ${scheme}: sign-in state and session cookies keep every attribute [${dialect}]`, () => {
      // The app is driven with inject (its public URL need not be reachable), the identity provider over loopback.
      const publicUrl = `${scheme}://sightline.test`;
      const secure = scheme === 'https';
      const session = secure ? '__Host-sightline_session' : 'sightline_session';
      const state = secure ? '__Host-sightline_signin' : 'sightline_signin';
      const clientSecret = randomBytes(24).toString('base64url');
      let idp: Server;
      let issuer: string;
      let database: TestDatabase;
      let app: App;

      beforeAll(async () => {
        const idpPort = await freePort();
        issuer = `http://127.0.0.1:${idpPort}`;
        const provider = await createDevProvider({ issuer, clientId: 'cookies', clientSecret, redirectUris: [`${publicUrl}/auth/callback`] });
        idp = createServer(provider.callback());
        await new Promise<void>((resolve) => idp.listen(idpPort, '127.0.0.1', resolve));
        database = await createTestDatabase(dialect);
        const config = testConfig({
          SIGHTLINE_PUBLIC_URL: publicUrl,
          SIGHTLINE_OIDC_ISSUER: issuer,
          SIGHTLINE_OIDC_CLIENT_ID: 'cookies',
          SIGHTLINE_OIDC_CLIENT_SECRET: clientSecret,
        });
        app = await buildApp({ config, storage: database.storage });
        await app.ready();
      }, 60_000);
      afterAll(async () => {
        await app?.close();
        await new Promise((resolve) => idp?.close(resolve));
        await database?.destroy();
      });

      const setCookies = (response: { headers: Record<string, unknown> }) => {
        const raw = response.headers['set-cookie'];
        return (raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]).map((line) => parseSetCookie(String(line)));
      };
      const kept = (maxAge: number) => ({ path: '/', httponly: true, samesite: 'Lax', 'max-age': String(maxAge), ...(secure ? { secure: true } : {}) });
      const deleted = {
        path: '/',
        httponly: true,
        samesite: 'Lax',
        'max-age': '0',
        expires: 'Thu, 01 Jan 1970 00:00:00 GMT',
        ...(secure ? { secure: true } : {}),
      };

      /** The provider's steps (any login) up to the callback URL it sends the browser back to. */
      async function providerCallback(authorize: string): Promise<string> {
        const jar = new Jar();
        let next = new URL(authorize);
        let init: RequestInit = {};
        for (let hop = 0; hop < 10; hop++) {
          if (next.href.startsWith(`${publicUrl}/auth/callback`)) return `${next.pathname}${next.search}`;
          const response = await fetch(next, {
            redirect: 'manual',
            ...init,
            headers: { cookie: jar.header(), ...(init.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
          });
          jar.take(response);
          init = {};
          if (response.status >= 300 && response.status < 400) {
            next = new URL(response.headers.get('location')!, next);
            continue;
          }
          const uid = /\/interaction\/([^/"?]+)/.exec(next.pathname)?.[1];
          expect(uid, await response.text()).toBeTruthy();
          next = new URL(`/interaction/${uid}`, issuer);
          init = { method: 'POST', body: new URLSearchParams({ prompt: 'login', login: `${scheme}-${dialect}@example.test`, password: 'x' }).toString() };
        }
        throw new Error('the identity provider never redirected to the callback');
      }

      it(`sign-in sets ${state} (10 minutes), the callback deletes it and sets ${session}; /v1/me works with it; logout deletes it`, async () => {
        const login = await app.inject({ method: 'GET', url: '/auth/login' });
        expect(login.statusCode, login.body).toBe(302);
        const [signin, ...others] = setCookies(login);
        expect(others).toEqual([]);
        expect(signin).toEqual({ name: state, value: expect.stringMatching(/^[A-Za-z0-9_-]{40,}$/), attributes: kept(600) });

        const callbackPath = await providerCallback(login.headers.location as string);
        const done = await app.inject({ method: 'GET', url: callbackPath, headers: { cookie: `other=1; ${state}=${signin!.value}` } });
        expect(done.statusCode, done.body).toBe(302);
        const cookies = setCookies(done);
        expect(cookies).toHaveLength(2);
        expect(cookies.find((c) => c.name === state)).toEqual({ name: state, value: '', attributes: deleted });
        const issued = cookies.find((c) => c.name === session)!;
        expect(issued).toEqual({ name: session, value: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), attributes: kept(168 * 3600) });

        const me = await app.inject({ method: 'GET', url: '/v1/me', headers: { cookie: `a=b; ${session}=${issued.value}; c=d` } });
        expect(me.statusCode, me.body).toBe(200);
        expect(me.json().token.kind).toBe('session');

        const out = await app.inject({ method: 'POST', url: '/auth/logout', headers: { cookie: `${session}=${issued.value}`, origin: publicUrl } });
        expect(out.statusCode, out.body).toBe(204);
        expect(setCookies(out)).toEqual([{ name: session, value: '', attributes: deleted }]);
        const after = await app.inject({ method: 'GET', url: '/v1/me', headers: { cookie: `${session}=${issued.value}` } });
        expect(after.statusCode).toBe(401);
        expect(after.json().reason).toBe('token_revoked');
      });

      it('a failed callback still deletes the state cookie, and answers a problem', async () => {
        const res = await app.inject({ method: 'GET', url: '/auth/callback?state=someone-elses&code=x', headers: { cookie: `${state}=mine` } });
        expect(res.statusCode).toBe(401);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.json()).toMatchObject({ type: `${publicUrl}/problems/unauthorized`, status: 401, detail: expect.stringContaining('state mismatch') });
        expect(setCookies(res)).toEqual([{ name: state, value: '', attributes: deleted }]);
      });

      it('reads the first of two session cookies of the same name, among others', async () => {
        const make = new Factories(
          database.storage.db,
          new TokenService(database.storage.db, await keyring(database), testConfig({ SIGHTLINE_PUBLIC_URL: publicUrl }), systemClock),
          systemClock,
        );
        const caller = await make.caller();
        const { cookie } = await make.session({ userId: caller.userId, organizationId: caller.organizationId, publicUrl });
        expect(cookie.startsWith(`${session}=`)).toBe(true);
        const first = await app.inject({ method: 'GET', url: '/v1/me', headers: { cookie: `x=1;${cookie}; ${session}=junk` } });
        expect(first.statusCode, first.body).toBe(200);
        const second = await app.inject({ method: 'GET', url: '/v1/me', headers: { cookie: `${session}=junk; ${cookie}` } });
        expect(second.statusCode).toBe(401);
        expect(second.json()).toMatchObject({ type: `${publicUrl}/problems/unauthorized`, reason: 'invalid_token' });
      });
    });
  }
}

async function keyring(database: TestDatabase): Promise<Keyring> {
  const keys = new Keyring(database.storage.db, systemClock);
  await keys.init();
  return keys;
}
