import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { createDevProvider } from '../../auth/dev-idp.js';
import { TokenService } from '../../auth/tokens.js';
import type { App } from '../../deps.js';
import { systemClock } from '../../lib/clock.js';
import { Keyring } from '../../lib/keys.js';
import { Factories, dialects, testConfig } from '../../../test/helpers/harness.js';
import { freePort } from '../../../test/helpers/services.js';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/storage.js';
import { Jar } from './signin.test-support.js';

/** The sign-in state and session cookies keep every attribute, over http and https, and a junk cookie never shadows the real one. */
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
