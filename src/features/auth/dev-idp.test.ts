import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import type { App } from '../../deps.js';
import { testConfig } from '../../../test/helpers/harness.js';
import { freePort } from '../../../test/helpers/services.js';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/storage.js';
import { Jar } from './signin.test-support.js';

/** The built-in development identity provider: sign-in with any email when no issuer is configured, and never in production. */
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
