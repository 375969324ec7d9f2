import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { CLIENT_ID, CLIENT_SECRET, clock, describeSignIn, expectProblem, Jar, SESSION, sha256 } from './signin.test-support.js';

/** Dashboard sessions after sign-in: expiry, logout, fixation, cross-site requests, credentials never taken for one another, invitations. */
describeSignIn(({ db, get, toCallback, signIn, me, pendingRow }, s) => {
  it('refuses a tampered, an idle-expired and an absolutely expired session cookie with 401', async () => {
    const jar = await signIn('expiry@example.test');
    const secret = jar.cookies.get(SESSION)!;
    const tampered = new Jar();
    tampered.cookies.set(SESSION, `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`);
    expect((await expectProblem(await me(tampered), 401, 'unauthorized', s.problemBase)).reason).toBe('invalid_token');
    const garbage = new Jar();
    garbage.cookies.set(SESSION, 'not-a-session');
    await expectProblem(await me(garbage), 401, 'unauthorized', s.problemBase);

    expect((await me(jar)).status).toBe(200);
    clock.skew = (s.config.sessionIdleMinutes + 1) * 60_000;
    try {
      expect((await expectProblem(await me(jar), 401, 'unauthorized', s.problemBase)).reason).toBe('token_expired');
    } finally {
      clock.skew = 0;
    }
    expect((await me(jar)).status).toBe(200);
    await db()
      .updateTable('sessions')
      .set({ expires_at: Date.now() - 1 })
      .where('secret_hash', '=', sha256(secret))
      .execute();
    expect((await expectProblem(await me(jar), 401, 'unauthorized', s.problemBase)).reason).toBe('token_expired');
  });

  it('logs out: the session ends, the cookie is cleared, and the old cookie is refused', async () => {
    const jar = await signIn('leaving@example.test');
    const old = jar.header();
    expect((await me(jar)).status).toBe(200);
    const crossSite = await fetch(`${s.publicUrl}/auth/logout`, { method: 'POST', headers: { cookie: old, origin: 'https://evil.example' } });
    await expectProblem(crossSite, 403, 'forbidden', s.problemBase);
    const out = await fetch(`${s.publicUrl}/auth/logout`, { method: 'POST', headers: { cookie: old, origin: s.publicUrl } });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().some((c) => c.startsWith(`${SESSION}=;`) && /Max-Age=0/.test(c))).toBe(true);
    const body = await expectProblem(await get('/v1/me', undefined, { cookie: old }), 401, 'unauthorized', s.problemBase);
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
    await expectProblem(await me(stale), 401, 'unauthorized', s.problemBase);
  });

  it('refuses cross-site state-changing requests with the cookie (403) and allows same-origin ones; bearer requests are unaffected', async () => {
    const jar = await signIn('csrf@example.test');
    const post = (headers: Record<string, string>, name: string) =>
      fetch(`${s.publicUrl}/v1/projects`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ name }) });
    await expectProblem(await post({ cookie: jar.header(), origin: 'https://evil.example' }, 'evil-1'), 403, 'forbidden', s.problemBase);
    await expectProblem(await post({ cookie: jar.header(), 'sec-fetch-site': 'cross-site' }, 'evil-2'), 403, 'forbidden', s.problemBase);
    await expectProblem(await post({ cookie: jar.header() }, 'evil-3'), 403, 'forbidden', s.problemBase);
    const sameOrigin = await post({ cookie: jar.header(), origin: s.publicUrl }, 'mine-1');
    expect(sameOrigin.status, await sameOrigin.clone().text()).toBe(201);
    expect((await post({ cookie: jar.header(), 'sec-fetch-site': 'same-origin' }, 'mine-2')).status).toBe(201);
    // Reading with the cookie from another site is not state-changing (CORS decides what the page may read).
    expect((await get('/v1/projects', jar, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await get('/v1/projects', jar)).status).toBe(200);
    const caller = await s.make.caller();
    expect((await post({ authorization: `Bearer ${caller.token}` }, 'bearer-1')).status).toBe(201);
  });

  it('never takes a PAT as the session, the session JWT or the provider’s tokens as a bearer credential', async () => {
    const jar = await signIn('kinds@example.test');
    const principal = (await (await me(jar)).json()) as { user: { id: string }; organization: { id: string }; token: { id: string } };
    // A PAT of the same user, sent as the cookie value.
    const caller = await s.make.caller({ organizationId: principal.organization.id, email: 'kinds@example.test' });
    const patCookie = new Jar();
    patCookie.cookies.set(SESSION, caller.token);
    await expectProblem(await me(patCookie), 401, 'unauthorized', s.problemBase);
    expect((await get('/v1/me', undefined, { authorization: `Bearer ${caller.token}` })).status).toBe(200);
    // The very JWT the server mints from this session, sent as a bearer token.
    const now = Date.now();
    const sessionJwt = await s.tokens.sign('session', {
      sub: principal.user.id,
      org: principal.organization.id,
      jti: principal.token.id,
      iat: now,
      exp: now + 60_000,
    });
    expect((await expectProblem(await get('/v1/me', undefined, { authorization: `Bearer ${sessionJwt}` }), 401, 'unauthorized', s.problemBase)).reason).toBe(
      'invalid_token',
    );

    // The identity provider's own ID and access tokens (the test redeems a code itself, as a client would).
    const { callback: url, state } = await toCallback('kinds@example.test');
    const pending = await pendingRow(state);
    const grant = await fetch(`${s.issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: url.searchParams.get('code')!,
        redirect_uri: `${s.publicUrl}/auth/callback`,
        code_verifier: pending.code_verifier,
      }),
    });
    const idpTokens = (await grant.json()) as { id_token: string; access_token: string };
    expect(grant.status).toBe(200);
    expect(idpTokens.id_token.split('.')).toHaveLength(3);
    for (const foreign of [idpTokens.id_token, idpTokens.access_token]) {
      await expectProblem(await get('/v1/me', undefined, { authorization: `Bearer ${foreign}` }), 401, 'unauthorized', s.problemBase);
    }
  });

  it('lets an invited email join the inviting organization with the invited role', async () => {
    const owner = await s.make.caller({ role: 'owner' });
    const invite = await fetch(`${s.publicUrl}/v1/organization/invitations`, {
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
    const denied = await fetch(`${s.publicUrl}/v1/projects`, {
      method: 'POST',
      headers: { cookie: jar.header(), origin: s.publicUrl, 'content-type': 'application/json' },
      body: '{"name":"nope"}',
    });
    await expectProblem(denied, 403, 'forbidden', s.problemBase);
  });
});
