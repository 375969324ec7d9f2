// What the sign-in suites (signin*.test.ts, dev-idp.test.ts) share: a cookie jar, problem checks over fetch, the OpenID Connect setup.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { buildApp } from '../../app.js';
import { createDevProvider } from '../../auth/dev-idp.js';
import { TokenService } from '../../auth/tokens.js';
import type { App } from '../../deps.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../lib/clock.js';
import { Keyring } from '../../lib/keys.js';
import { dialects, Factories, testConfig } from '../../../test/helpers/harness.js';
import { freePort } from '../../../test/helpers/services.js';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/storage.js';

/** Real time plus a skew the tests move (the identity provider and openid-client keep real time). */
export function skewedClock(): Clock & { skew: number } {
  const clock = { skew: 0, now: () => Date.now() + clock.skew };
  return clock;
}

/** A minimal cookie jar: name → value, as a browser would keep them for one site. */
export class Jar {
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

export async function expectProblem(response: Response, status: number, slug: string, problemBase: string): Promise<Record<string, unknown>> {
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

export const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');
export const SESSION = 'sightline_session';
export const STATE = 'sightline_signin';

export const CLIENT_ID = 'sightline-test';
export const CLIENT_SECRET = randomBytes(24).toString('base64url');
/** One clock for the sign-in suites; a test that moves its skew puts it back. */
export const clock = skewedClock();

/** What the sign-in tests share, filled in before they run: the identity provider, the app listening at its public URL, factories. */
export interface SignIn {
  idp: Server;
  issuer: string;
  publicUrl: string;
  problemBase: string;
  database: TestDatabase;
  config: Config;
  app: App;
  make: Factories;
  tokens: TokenService;
}

/** A browser's steps through the sign-in, and what the database holds of it. */
export function helpers(s: SignIn) {
  const db = () => s.database.storage.db;

  const get = (path: string, jar?: Jar, headers: Record<string, string> = {}) =>
    fetch(`${s.publicUrl}${path}`, { redirect: 'manual', headers: { ...(jar ? { cookie: jar.header() } : {}), ...headers } });

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
    expect(authorize.origin).toBe(s.issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('state')).toBe(state);
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${s.publicUrl}/auth/callback`);

    const idpJar = new Jar();
    let next: URL = authorize;
    let method: 'GET' | 'POST' = 'GET';
    let body: string | undefined;
    for (let hop = 0; hop < 10; hop++) {
      if (next.href.startsWith(`${s.publicUrl}/auth/callback`)) return { jar, callback: next, state };
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
        next = new URL(`/interaction/${uid}/abort`, s.issuer);
      } else {
        next = new URL(`/interaction/${uid}`, s.issuer);
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
    const body = await expectProblem(response, status, slug, s.problemBase);
    expect(await sessionCount()).toBe(before);
    return body;
  }

  return { db, get, toCallback, callback, signIn, me, pendingRow, sessionCount, expectRefused };
}

/** The sign-in suite on each engine: a real OpenID Connect provider on loopback and the app listening beside it. */
export function describeSignIn(body: (h: ReturnType<typeof helpers>, s: SignIn) => void): void {
  for (const dialect of dialects) {
    describe(`dashboard sign-in through OpenID Connect [${dialect}]`, () => {
      const s = {} as SignIn;
      beforeAll(async () => {
        const [idpPort, appPort] = [await freePort(), await freePort()];
        s.issuer = `http://127.0.0.1:${idpPort}`;
        s.publicUrl = `http://127.0.0.1:${appPort}`;
        s.problemBase = `${s.publicUrl}/problems`;
        // A real oidc-provider on loopback, with a client this test registers (the same factory as the built-in one).
        const provider = await createDevProvider({
          issuer: s.issuer,
          clientId: CLIENT_ID,
          clientSecret: CLIENT_SECRET,
          redirectUris: [`${s.publicUrl}/auth/callback`],
        });
        s.idp = createServer(provider.callback());
        await new Promise<void>((resolve) => s.idp.listen(idpPort, '127.0.0.1', resolve));
        s.database = await createTestDatabase(dialect);
        s.config = testConfig({
          SIGHTLINE_PUBLIC_URL: s.publicUrl,
          SIGHTLINE_OIDC_ISSUER: s.issuer,
          SIGHTLINE_OIDC_CLIENT_ID: CLIENT_ID,
          SIGHTLINE_OIDC_CLIENT_SECRET: CLIENT_SECRET,
        });
        s.app = await buildApp({ config: s.config, storage: s.database.storage, clock });
        await s.app.listen({ port: appPort, host: '127.0.0.1' });
        const keys = new Keyring(s.database.storage.db, clock);
        await keys.init();
        s.tokens = new TokenService(s.database.storage.db, keys, s.config, clock);
        s.make = new Factories(s.database.storage.db, s.tokens, clock);
      }, 60_000);

      afterAll(async () => {
        await s.app?.close();
        await new Promise((resolve) => s.idp?.close(resolve));
        await s.database?.destroy();
      });

      body(helpers(s), s);
    });
  }
}
