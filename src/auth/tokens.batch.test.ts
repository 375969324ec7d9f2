/**
 * Token rows are read for the requests that arrive together in one read started after they arrived
 * (`TokenService`'s batch: one statement on PostgreSQL, one reading of the state on SQLite): each caller
 * still gets its own identity and role, and every revocation, as of its own request.
 */
import { expect, it } from 'vitest';
import { describeEachDialect, type Caller } from '../../test/helpers/harness.js';
import { Keyring } from '../lib/keys.js';
import { Problem } from '../lib/problems.js';
import { TokenService } from './tokens.js';

describeEachDialect('token rows read in batches', (ctx) => {
  it('answers each request of a burst with its own caller and role, revoked tokens refused, in far fewer reads than requests', async () => {
    const { db } = ctx.database.storage;
    const callers: Caller[] = [];
    for (let i = 0; i < 12; i++) callers.push(await ctx.make.caller({ role: i % 3 === 0 ? 'viewer' : 'member' }));
    const revoked = new Set([callers[4]!.tokenId, callers[9]!.tokenId]);
    await db
      .updateTable('personal_access_tokens')
      .set({ revoked_at: ctx.clock.now() - 1000, revoked_reason: 'revoked' })
      .where('id', 'in', [...revoked])
      .execute();
    const keys = new Keyring(db, ctx.clock);
    await keys.init();
    const tokens = new TokenService(db, keys, ctx.config, ctx.clock);
    // Signatures verified (and kept) first, so that the burst's requests all ask for their rows in one turn.
    await Promise.allSettled(callers.map((c) => tokens.authenticate(c.token)));

    const before = tokens.rowReads;
    const burst = await Promise.allSettled([...callers, ...callers].map((c) => tokens.authenticate(c.token)));
    burst.forEach((result, i) => {
      const caller = callers[i % callers.length]!;
      if (revoked.has(caller.tokenId)) {
        expect(result.status).toBe('rejected');
        const problem = (result as PromiseRejectedResult).reason as Problem;
        expect(problem).toBeInstanceOf(Problem);
        expect([problem.status, problem.detail]).toEqual([401, 'The bearer token has been revoked.']);
      } else {
        expect(result.status).toBe('fulfilled');
        const principal = (result as PromiseFulfilledResult<Awaited<ReturnType<TokenService['authenticate']>>>).value;
        expect([principal.userId, principal.organizationId, principal.role, principal.credential.id]).toEqual([
          caller.userId,
          caller.organizationId,
          caller.role,
          caller.tokenId,
        ]);
      }
    });
    expect(tokens.rowReads - before).toBeLessThanOrEqual(2);

    // A revocation after a burst applies to the next request: its read starts after it arrived.
    await db
      .updateTable('personal_access_tokens')
      .set({ revoked_at: ctx.clock.now() - 1000, revoked_reason: 'revoked' })
      .where('id', '=', callers[0]!.tokenId)
      .execute();
    await expect(tokens.authenticate(callers[0]!.token)).rejects.toMatchObject({ status: 401, detail: 'The bearer token has been revoked.' });
  });
});
