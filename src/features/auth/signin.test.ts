import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { clock, describeSignIn, Jar, SESSION, sha256, STATE } from './signin.test-support.js';

/** Dashboard sign-in through OpenID Connect (docs/tokens-and-access.md, Sign-in): the session cookie, and every way a callback is refused. */
describeSignIn(({ db, toCallback, callback, signIn, me, pendingRow, expectRefused }) => {
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
});
