/**
 * Personal access token lifecycle (docs/tokens-and-access.md, Token lifecycle): minting, listing, last use, revocation, rotation
 * with reuse detection and grace, expiry. Here: minting, listing and last use; revocation and rotation have files
 * of their own. Time is a manual clock, so nothing here sleeps for a window.
 */
import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { decodePayload, tokenHash } from '../../../test/helpers/auth.js';
import { DAY, describeTokens, expectOk, ISO, iso, JWT, NEW_TOKEN_KEYS, type NewToken, RECORD_KEYS, sleep, toSecond } from './tokens.test-support.js';

describeTokens('tokens: minting, listing and last use', (ctx, h) => {
  it('POST /v1/tokens: 201 with the record and the token string, 90 days by default', async () => {
    const caller = await ctx.make.caller({ role: 'member' });
    h.atFraction(250);
    const now = h.clock().now();
    const res = await ctx.request('POST', '/v1/tokens', { token: caller.token, body: { name: 'ci deploy' } });
    expect(res.statusCode, res.body).toBe(201);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    const body = res.json() as NewToken;
    expect(Object.keys(body).sort()).toEqual(NEW_TOKEN_KEYS);
    expect(body).toEqual({
      id: expect.stringMatching(/^tok_[0-9a-z]+$/),
      name: 'ci deploy',
      createdAt: iso(now),
      expiresAt: iso(toSecond(now + 90 * DAY)),
      lastUsedAt: null,
      revokedAt: null,
      scopes: null,
      projectIds: null,
      token: expect.stringMatching(JWT),
    });
    // The JWT carries the same id and expiry.
    const claims = decodePayload(body.token)!;
    expect(claims.jti).toBe(body.id);
    expect(claims.sub).toBe(caller.userId);
    expect((claims.exp as number) * 1000).toBe(Date.parse(body.expiresAt));

    // The server keeps a hash, never the string.
    const row = await ctx.database.storage.db.selectFrom('personal_access_tokens').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(body.token);
    expect(row.token_hash).toBe(tokenHash(body.token));
  });

  it('the new token works on GET /v1/me, with sightline-token-expires-at equal to its expiresAt', async () => {
    const caller = await ctx.make.caller({ role: 'viewer' });
    const minted = await h.mint(caller.token, { name: 'reader', expiresInDays: 7 });
    const res = await h.me(minted.token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['sightline-token-expires-at']).toBe(minted.expiresAt);
    const body = res.json() as { user: { id: string }; organization: { id: string }; role: string; token: unknown };
    expect(body.user.id).toBe(caller.userId);
    expect(body.organization.id).toBe(caller.organizationId);
    expect(body.role).toBe('viewer');
    expect(body.token).toEqual({ kind: 'personal_access_token', id: minted.id, expiresAt: minted.expiresAt, scopes: null, projectIds: null });
  });

  it('expiresInDays 1 and 365 are accepted', async () => {
    const caller = await ctx.make.caller();
    for (const days of [1, 365]) {
      h.atFraction(700);
      const now = h.clock().now();
      const minted = await h.mint(caller.token, { name: `d${days}`, expiresInDays: days });
      expect(minted.createdAt).toBe(iso(now));
      expect(minted.expiresAt, `${days} days`).toBe(iso(toSecond(now + days * DAY)));
      expectOk(await h.me(minted.token), minted.id);
    }
  });

  for (const value of [0, 366, -1, 1.5, 'never', null, '30', true]) {
    it(`expiresInDays ${JSON.stringify(value)}: 400 naming /expiresInDays, and no token is minted`, async () => {
      const caller = await ctx.make.caller();
      const res = await ctx.request('POST', '/v1/tokens', { token: caller.token, body: { name: 'bad', expiresInDays: value } });
      const problem = expectProblem(res, 400, 'validation');
      const errors = problem.errors as { pointer?: string; detail: string }[];
      expect(Array.isArray(errors), res.body).toBe(true);
      expect(
        errors.map((e) => e.pointer),
        res.body,
      ).toEqual(['/expiresInDays']);
      expect(res.body).not.toMatch(/"token":/);
      expect((await h.list(caller.token)).items.map((t) => t.id)).toEqual([caller.tokenId]);
    });
  }

  it('a server with SIGHTLINE_PAT_MAX_DAYS=30 refuses 31 days and accepts 30', async () => {
    // The default (90) may not exceed the maximum, so such a server also sets its default (config.ts).
    const app = await h.extraApp({ SIGHTLINE_PAT_MAX_DAYS: '30', SIGHTLINE_PAT_DEFAULT_DAYS: '30' });
    try {
      const caller = await ctx.make.caller();
      const refused = await app.inject({
        method: 'POST',
        url: '/v1/tokens',
        headers: { authorization: `Bearer ${caller.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ name: 'long', expiresInDays: 31 }),
      });
      const problem = expectProblem(refused, 400, 'validation');
      expect((problem.errors as { pointer?: string }[]).map((e) => e.pointer)).toEqual(['/expiresInDays']);
      const now = h.clock().now();
      const ok = await h.mint(caller.token, { name: 'month', expiresInDays: 30 }, app);
      expect(ok.expiresAt).toBe(iso(toSecond(now + 30 * DAY)));
      const byDefault = await h.mint(caller.token, { name: 'default' }, app);
      expect(byDefault.expiresAt).toBe(iso(toSecond(now + 30 * DAY)));
      // The default server still accepts 31.
      await h.mint(caller.token, { name: 'elsewhere', expiresInDays: 31 });
    } finally {
      await app.close();
    }
  });

  it("GET /v1/tokens lists only the caller's own tokens, with exactly the record fields and no secret", async () => {
    const alice = await ctx.make.caller({ role: 'owner' });
    const bob = await ctx.make.caller({ role: 'member', organizationId: alice.organizationId });
    const a1 = await h.mint(alice.token, { name: 'alice one' });
    const a2 = await h.mint(alice.token, { name: 'alice two' });
    const b1 = await h.mint(bob.token, { name: 'bob one' });
    const outsider = await ctx.make.caller();

    const aliceList = await h.list(alice.token);
    expect(aliceList.items.map((t) => t.id).sort()).toEqual([alice.tokenId, a1.id, a2.id].sort());
    for (const item of aliceList.items) {
      expect(Object.keys(item).sort()).toEqual(RECORD_KEYS);
      expect(item.createdAt).toMatch(ISO);
      expect(item.expiresAt).toMatch(ISO);
    }
    expect(aliceList.items.find((t) => t.id === a1.id)).toEqual({
      id: a1.id,
      name: 'alice one',
      createdAt: a1.createdAt,
      expiresAt: a1.expiresAt,
      lastUsedAt: null,
      revokedAt: null,
      scopes: null,
      projectIds: null,
    });
    const text = aliceList.bodies.join('\n');
    for (const secret of [alice.token, a1.token, a2.token, b1.token, bob.token]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(tokenHash(secret));
    }

    // Even an owner sees only their own tokens; a member sees only theirs.
    const bobList = await h.list(bob.token);
    expect(bobList.items.map((t) => t.id).sort()).toEqual([bob.tokenId, b1.id].sort());
    expect((await h.list(outsider.token)).items.map((t) => t.id)).toEqual([outsider.tokenId]);
  });

  it('lastUsedAt: null before first use, set by a request, then updated at most once a minute', async () => {
    const caller = await ctx.make.caller();
    const fresh = await h.mint(caller.token, { name: 'used' });
    expect(fresh.lastUsedAt).toBeNull();
    expect((await h.record(caller.token, fresh.id)).lastUsedAt).toBeNull();

    const t0 = h.clock().now();
    expectOk(await h.me(fresh.token), fresh.id);
    const first = await h.eventually(
      () => h.record(caller.token, fresh.id),
      (r) => r.lastUsedAt !== null,
    );
    expect(first.lastUsedAt).toBe(iso(t0));

    // 10 s later: not written again.
    h.clock().advance(10_000);
    expectOk(await h.me(fresh.token), fresh.id);
    await sleep(300); // give a (wrong) fire-and-forget write the time to land
    expect((await h.record(caller.token, fresh.id)).lastUsedAt).toBe(iso(t0));

    // 61 s after the first use: it moves.
    h.clock().advance(51_000);
    const t1 = h.clock().now();
    expectOk(await h.me(fresh.token), fresh.id);
    const moved = await h.eventually(
      () => h.record(caller.token, fresh.id),
      (r) => r.lastUsedAt !== iso(t0),
    );
    expect(moved.lastUsedAt).toBe(iso(t1));
    // Unused tokens stay untouched.
    const untouched = await h.mint(caller.token, { name: 'idle' });
    await sleep(100);
    expect((await h.record(caller.token, untouched.id)).lastUsedAt).toBeNull();
  });

  it('lastUsedAt: a use exactly a minute after the recorded one does not hold back the next update', async () => {
    const caller = await ctx.make.caller();
    const fresh = await h.mint(caller.token, { name: 'boundary' });
    const t0 = h.clock().now();
    expectOk(await h.me(fresh.token), fresh.id);
    expect(
      (
        await h.eventually(
          () => h.record(caller.token, fresh.id),
          (r) => r.lastUsedAt !== null,
        )
      ).lastUsedAt,
    ).toBe(iso(t0));
    h.clock().set(t0 + 60_000);
    expectOk(await h.me(fresh.token), fresh.id);
    await sleep(100);
    h.clock().set(t0 + 61_000);
    expectOk(await h.me(fresh.token), fresh.id);
    // 61 s after the recorded use, lastUsedAt must have moved (to the use at +60 s or the one at +61 s).
    const moved = await h.eventually(
      () => h.record(caller.token, fresh.id),
      (r) => r.lastUsedAt !== iso(t0),
    );
    expect([iso(t0 + 60_000), iso(t0 + 61_000)]).toContain(moved.lastUsedAt);
  });
});
