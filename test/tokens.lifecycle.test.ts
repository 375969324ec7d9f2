import type { LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { App } from '../src/deps.js';
import { newId } from '../src/lib/ids.js';
import { describeEachDialect, expectProblem, manualClock, testConfig, type TestContext } from './helpers/harness.js';
import { decodePayload, expectUnauthorized, tokenHash } from './helpers/auth.js';

/**
 * Personal access token lifecycle (README, Using the API: tokens): minting, listing, last use, revocation, rotation
 * with reuse detection and grace, expiry. Time is a manual clock, so nothing here sleeps for a window.
 */

const DAY = 86_400_000;
const RECORD_KEYS = ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'revokedAt'];
const NEW_TOKEN_KEYS = [...RECORD_KEYS, 'token'].sort();
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type ManualClock = ReturnType<typeof manualClock>;
interface TokenRecord {
  id: string;
  name: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}
interface NewToken extends TokenRecord {
  token: string;
}

const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** What the service does to a JWT expiry: whole seconds (the JWT's `exp`), rounded down. */
const toSecond = (ms: number) => Math.floor(ms / 1000) * 1000;

function helpers(ctx: TestContext) {
  const clock = () => ctx.clock as ManualClock;

  const inject = (app: App, method: 'GET' | 'POST' | 'DELETE', url: string, token: string, body?: unknown) =>
    app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });

  const me = (token: string, app: App = ctx.app) => inject(app, 'GET', '/v1/me', token);

  const mint = async (token: string, body: Record<string, unknown> = { name: 'minted' }, app: App = ctx.app): Promise<NewToken> => {
    const res = await inject(app, 'POST', '/v1/tokens', token, body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as NewToken;
  };

  const rotate = (token: string, id: string, app: App = ctx.app) => inject(app, 'POST', `/v1/tokens/${id}/rotate`, token);

  const rotateOk = async (token: string, id: string, app: App = ctx.app): Promise<NewToken> => {
    const res = await rotate(token, id, app);
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as NewToken;
  };

  const revoke = (token: string, id: string) => ctx.request('DELETE', `/v1/tokens/${id}`, { token });

  /** Every token on the caller's list, following the cursor. */
  const list = async (token: string): Promise<{ items: TokenRecord[]; bodies: string[] }> => {
    const items: TokenRecord[] = [];
    const bodies: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await ctx.request('GET', `/v1/tokens?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
      expect(res.statusCode, res.body).toBe(200);
      bodies.push(res.body);
      const page = res.json() as { items: TokenRecord[]; nextCursor: string | null; limit: number };
      expect(Object.keys(page).sort()).toEqual(['items', 'limit', 'nextCursor']);
      items.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return { items, bodies };
  };

  const record = async (token: string, id: string): Promise<TokenRecord> => {
    const found = (await list(token)).items.find((t) => t.id === id);
    expect(found, `token ${id} on the list`).toBeDefined();
    return found!;
  };

  /** Polls until `ok` holds or ~2 s pass (for fire-and-forget writes); returns the last value. */
  const eventually = async <T>(probe: () => Promise<T>, ok: (value: T) => boolean, ms = 2000): Promise<T> => {
    const until = Date.now() + ms;
    for (;;) {
      const value = await probe();
      if (ok(value) || Date.now() > until) return value;
      await sleep(25);
    }
  };

  /** Moves the manual clock forward to the next whole second plus `fraction` ms. */
  const atFraction = (fraction: number) => clock().set(Math.floor(clock().now() / 1000) * 1000 + 1000 + fraction);

  const extraApp = async (env: Record<string, string>): Promise<App> => {
    const app = await buildApp({ config: testConfig(env), storage: ctx.database.storage, clock: ctx.clock });
    await app.ready();
    return app;
  };

  return { clock, me, mint, rotate, rotateOk, revoke, list, record, eventually, atFraction, extraApp };
}

const expectOk = (res: LightMyRequestResponse, tokenId: string) => {
  expect(res.statusCode, res.body).toBe(200);
  expect((res.json() as { token: { id: string } }).token.id).toBe(tokenId);
};

describeEachDialect(
  'tokens: minting, listing and last use',
  (ctx) => {
    const h = helpers(ctx);

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
      expect(body.token).toEqual({ kind: 'personal_access_token', id: minted.id, expiresAt: minted.expiresAt });
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
  },
  { clock: manualClock(Date.now()) },
);

describeEachDialect(
  'tokens: revocation',
  (ctx) => {
    const h = helpers(ctx);

    it('DELETE own token: 204, then that token gets 401 token_revoked; the list shows revokedAt', async () => {
      const caller = await ctx.make.caller({ role: 'member' });
      const minted = await h.mint(caller.token, { name: 'to revoke' });
      expectOk(await h.me(minted.token), minted.id);
      const now = h.clock().now();
      const res = await h.revoke(caller.token, minted.id);
      expect(res.statusCode, res.body).toBe(204);
      expect(res.body).toBe('');
      expectUnauthorized(await h.me(minted.token), 'token_revoked', minted.token);
      expect((await h.record(caller.token, minted.id)).revokedAt).toBe(iso(now));
      expectOk(await h.me(caller.token), caller.tokenId);
    });

    it('a token may revoke itself', async () => {
      const caller = await ctx.make.caller({ role: 'viewer' });
      const res = await h.revoke(caller.token, caller.tokenId);
      expect(res.statusCode, res.body).toBe(204);
      expectUnauthorized(await h.me(caller.token), 'token_revoked', caller.token);
    });

    it('revoking twice: 204 both times, and the first revocation time stays', async () => {
      const caller = await ctx.make.caller();
      const minted = await h.mint(caller.token, { name: 'twice' });
      const first = h.clock().now();
      expect((await h.revoke(caller.token, minted.id)).statusCode).toBe(204);
      h.clock().advance(5_000);
      const again = await h.revoke(caller.token, minted.id);
      expect(again.statusCode, again.body).toBe(204);
      expect((await h.record(caller.token, minted.id)).revokedAt).toBe(iso(first));
      expectUnauthorized(await h.me(minted.token), 'token_revoked', minted.token);
    });

    it("another member's token: 404 for a member (and it keeps working), 204 for an admin (and it stops)", async () => {
      const owner = await ctx.make.caller({ role: 'owner' });
      const target = await ctx.make.caller({ role: 'member', organizationId: owner.organizationId });
      const member = await ctx.make.caller({ role: 'member', organizationId: owner.organizationId });
      const admin = await ctx.make.caller({ role: 'admin', organizationId: owner.organizationId });

      const refused = await h.revoke(member.token, target.tokenId);
      expectProblem(refused, 404, 'not-found');
      expectOk(await h.me(target.token), target.tokenId);

      const res = await h.revoke(admin.token, target.tokenId);
      expect(res.statusCode, res.body).toBe(204);
      expectUnauthorized(await h.me(target.token), 'token_revoked', target.token);
      expectOk(await h.me(admin.token), admin.tokenId);
    });

    it("an unknown token id, or another organization's token (even for its admin): 404", async () => {
      const admin = await ctx.make.caller({ role: 'admin' });
      const stranger = await ctx.make.caller({ role: 'member' });
      expectProblem(await h.revoke(admin.token, newId('tok')), 404, 'not-found');
      expectProblem(await h.revoke(admin.token, stranger.tokenId), 404, 'not-found');
      expectOk(await h.me(stranger.token), stranger.tokenId);
    });

    it('a revocation holds on every instance, also one that verified the token a moment ago', async () => {
      const other = await h.extraApp({});
      try {
        const caller = await ctx.make.caller();
        const minted = await h.mint(caller.token, { name: 'everywhere' });
        expectOk(await h.me(minted.token, other), minted.id);
        expect((await h.revoke(caller.token, minted.id)).statusCode).toBe(204);
        expectUnauthorized(await h.me(minted.token, other), 'token_revoked', minted.token);
      } finally {
        await other.close();
      }
    });

    it('an expired token: 401 token_expired', async () => {
      const caller = await ctx.make.caller();
      const minted = await h.mint(caller.token, { name: 'short', expiresInDays: 1 });
      expectOk(await h.me(minted.token), minted.id);
      h.clock().set(Date.parse(minted.expiresAt) - 1000);
      expectOk(await h.me(minted.token), minted.id);
      h.clock().set(Date.parse(minted.expiresAt) + 1000);
      expectUnauthorized(await h.me(minted.token), 'token_expired', minted.token);
      // The longer-lived token of the same user is unaffected.
      expectOk(await h.me(caller.token), caller.tokenId);
    });
  },
  { clock: manualClock(Date.now()) },
);

describeEachDialect(
  'tokens: rotation',
  (ctx) => {
    const h = helpers(ctx);

    it('rotate: 201 with a new token of the same name and lifetime; the old one is refused at once, the new one works', async () => {
      const caller = await ctx.make.caller({ role: 'member' });
      h.atFraction(900);
      const original = await h.mint(caller.token, { name: 'deploy bot', expiresInDays: 7 });
      expect(original.expiresAt).toBe(iso(toSecond(Date.parse(original.createdAt) + 7 * DAY)));
      expectOk(await h.me(original.token), original.id);

      h.clock().advance(3_600_000);
      h.atFraction(100);
      const now = h.clock().now();
      const res = await h.rotate(caller.token, original.id);
      expect(res.statusCode, res.body).toBe(201);
      const rotated = res.json() as NewToken;
      expect(Object.keys(rotated).sort()).toEqual(NEW_TOKEN_KEYS);
      expect(rotated).toEqual({
        id: expect.stringMatching(/^tok_/),
        name: 'deploy bot',
        createdAt: iso(now),
        // Same lifetime (7 days) counted from the rotation, like a token minted now with expiresInDays 7.
        expiresAt: iso(toSecond(now + 7 * DAY)),
        lastUsedAt: null,
        revokedAt: null,
        token: expect.stringMatching(JWT),
      });
      expect(rotated.id).not.toBe(original.id);
      expect(rotated.token).not.toBe(original.token);

      expectOk(await h.me(rotated.token), rotated.id);
      expectOk(await h.me(caller.token), caller.tokenId);
      const old = await h.record(caller.token, original.id);
      expect(old.revokedAt).toBe(iso(now));
      expectUnauthorized(await h.me(original.token), 'token_revoked', original.token);
    });

    it('a token rotates itself (the automated client flow), and the successor rotates again with the same lifetime', async () => {
      const caller = await ctx.make.caller();
      const first = await h.mint(caller.token, { name: 'self', expiresInDays: 30 });
      h.atFraction(50);
      const second = await h.rotateOk(first.token, first.id);
      expect(second.expiresAt).toBe(iso(toSecond(Date.parse(second.createdAt) + 30 * DAY)));
      expectOk(await h.me(second.token), second.id);
      h.clock().advance(1_000);
      h.atFraction(999);
      const third = await h.rotateOk(second.token, second.id);
      expect(third.name).toBe('self');
      expect(third.expiresAt).toBe(iso(toSecond(Date.parse(third.createdAt) + 30 * DAY)));
      expectOk(await h.me(third.token), third.id);
      expectUnauthorized(await h.me(second.token), 'token_revoked', second.token);
    });

    it('rotating the rotated-away token again: 401, and the whole family (the new token too) is revoked', async () => {
      const caller = await ctx.make.caller();
      const original = await h.mint(caller.token, { name: 'family' });
      const successor = await h.rotateOk(caller.token, original.id);
      expectOk(await h.me(successor.token), successor.id);

      const res = await h.rotate(caller.token, original.id);
      const problem = expectProblem(res, 401, 'unauthorized');
      expect(problem.reason).toBe('token_revoked');
      expect(res.body).not.toContain('"token":"');

      expectUnauthorized(await h.me(successor.token), 'token_revoked', successor.token);
      expect((await h.record(caller.token, successor.id)).revokedAt).not.toBeNull();
      // Tokens outside the family are untouched.
      expectOk(await h.me(caller.token), caller.tokenId);
      // No token was minted by the refused rotation.
      expect((await h.list(caller.token)).items.map((t) => t.id).sort()).toEqual([caller.tokenId, original.id, successor.id].sort());
    });

    it('a rotated-away token used on GET /v1/me: 401, and every token of its family is revoked (reuse detection)', async () => {
      const caller = await ctx.make.caller();
      const sibling = await h.mint(caller.token, { name: 'sibling' });
      const a = await h.mint(caller.token, { name: 'chain' });
      const b = await h.rotateOk(a.token, a.id);
      const c = await h.rotateOk(b.token, b.id);
      expectOk(await h.me(c.token), c.id);

      expectUnauthorized(await h.me(a.token), 'token_revoked', a.token);
      expectUnauthorized(await h.me(c.token), 'token_revoked', c.token);
      expectUnauthorized(await h.me(b.token), 'token_revoked', b.token);
      expect((await h.record(caller.token, c.id)).revokedAt).not.toBeNull();
      expectOk(await h.me(sibling.token), sibling.id);
      expectOk(await h.me(caller.token), caller.tokenId);
    });

    it('the middle of a chain reused: the family is revoked as well', async () => {
      const caller = await ctx.make.caller();
      const a = await h.mint(caller.token, { name: 'chain' });
      const b = await h.rotateOk(caller.token, a.id);
      const c = await h.rotateOk(caller.token, b.id);
      const res = await h.rotate(caller.token, b.id);
      expect(expectProblem(res, 401, 'unauthorized').reason).toBe('token_revoked');
      expectUnauthorized(await h.me(c.token), 'token_revoked', c.token);
    });

    it('rotating a revoked token: 401 token_revoked, no new token', async () => {
      const caller = await ctx.make.caller();
      const minted = await h.mint(caller.token, { name: 'gone' });
      expect((await h.revoke(caller.token, minted.id)).statusCode).toBe(204);
      expect(expectProblem(await h.rotate(caller.token, minted.id), 401, 'unauthorized').reason).toBe('token_revoked');
      expect((await h.list(caller.token)).items).toHaveLength(2);
    });

    it("rotating another user's token: 404 (for a member and for the owner), and that token keeps working", async () => {
      const owner = await ctx.make.caller({ role: 'owner' });
      const target = await ctx.make.caller({ role: 'member', organizationId: owner.organizationId });
      const member = await ctx.make.caller({ role: 'member', organizationId: owner.organizationId });
      const stranger = await ctx.make.caller({ role: 'owner' });
      for (const caller of [member, owner, stranger]) {
        expectProblem(await h.rotate(caller.token, target.tokenId), 404, 'not-found');
      }
      expectOk(await h.me(target.token), target.tokenId);
      expect((await h.list(target.token)).items.map((t) => t.id)).toEqual([target.tokenId]);
      // …and a later rotation by its owner is a normal one, not reuse.
      const rotated = await h.rotateOk(target.token, target.tokenId);
      expectOk(await h.me(rotated.token), rotated.id);
    });

    it('rotating an unknown id: 404', async () => {
      const caller = await ctx.make.caller();
      expectProblem(await h.rotate(caller.token, newId('tok')), 404, 'not-found');
      expectProblem(await h.rotate(caller.token, 'tok_nope'), 404, 'not-found');
      expectOk(await h.me(caller.token), caller.tokenId);
    });

    it('with SIGHTLINE_PAT_ROTATION_GRACE_SECONDS=60 the old token keeps working for 60 s, then stops', async () => {
      const app = await h.extraApp({ SIGHTLINE_PAT_ROTATION_GRACE_SECONDS: '60' });
      try {
        const caller = await ctx.make.caller();
        const old = await h.mint(caller.token, { name: 'graceful' }, app);
        const rotatedAt = h.clock().now();
        const fresh = await h.rotateOk(caller.token, old.id, app);
        expectOk(await h.me(old.token, app), old.id);
        expectOk(await h.me(fresh.token, app), fresh.id);
        h.clock().advance(59_000);
        expectOk(await h.me(old.token, app), old.id);
        // Using the old token within the grace is not reuse: the new one is unaffected.
        expectOk(await h.me(fresh.token, app), fresh.id);
        h.clock().set(rotatedAt + 60_000);
        expectUnauthorized(await h.me(old.token, app), 'token_revoked', old.token);
      } finally {
        await app.close();
      }
    });

    it('with a rotation grace, DELETE of the rotated-away token ends its grace at once', async () => {
      const app = await h.extraApp({ SIGHTLINE_PAT_ROTATION_GRACE_SECONDS: '60' });
      try {
        const caller = await ctx.make.caller();
        const old = await h.mint(caller.token, { name: 'leaked' }, app);
        const fresh = await h.rotateOk(caller.token, old.id, app);
        expectOk(await h.me(old.token, app), old.id);
        const res = await app.inject({ method: 'DELETE', url: `/v1/tokens/${old.id}`, headers: { authorization: `Bearer ${caller.token}` } });
        expect(res.statusCode, res.body).toBe(204);
        expect((await h.record(caller.token, old.id)).revokedAt).toBe(iso(h.clock().now()));
        expectOk(await h.me(fresh.token, app), fresh.id);
        expectUnauthorized(await h.me(old.token, app), 'token_revoked', old.token);
      } finally {
        await app.close();
      }
    });
  },
  { clock: manualClock(Date.now()) },
);
