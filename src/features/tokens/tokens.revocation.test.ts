/** Revoking personal access tokens: own, another member's, on every instance; expiry. */
import { expect, it } from 'vitest';
import { newId } from '../../lib/ids.js';
import { expectProblem } from '../../../test/helpers/harness.js';
import { expectUnauthorized } from '../../../test/helpers/auth.js';
import { describeTokens, expectOk, iso } from './tokens.test-support.js';

describeTokens('tokens: revocation', (ctx, h) => {
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
});
