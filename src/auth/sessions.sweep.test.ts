/**
 * Ended dashboard sessions do not pile up: /auth/login sweeps sessions that ended (expired, idle too
 * long, or revoked) more than a day ago, and expired sign-in requests; live sessions are kept.
 */
import { beforeAll, expect, it } from 'vitest';
import { SessionService } from './sessions.js';
import { TokenService } from './tokens.js';
import { Keyring } from '../lib/keys.js';
import { describeEachDialect, manualClock } from '../../test/helpers/harness.js';

const DAY = 86_400_000;
const clock = manualClock(Date.parse('2026-11-20T00:00:00.000Z'));

describeEachDialect(
  'session sweep',
  (ctx) => {
    let sessions: SessionService;
    beforeAll(async () => {
      const keys = new Keyring(ctx.database.storage.db, clock);
      await keys.init();
      sessions = new SessionService(
        ctx.database.storage.db,
        new TokenService(ctx.database.storage.db, keys, ctx.config, clock),
        { sessionIdleMinutes: 60, sessionAbsoluteHours: 24 },
        clock,
      );
    });

    it('deletes sessions ended more than a day ago and expired sign-in requests, and keeps the rest', async () => {
      const db = ctx.database.storage.db;
      const caller = await ctx.make.caller();
      const start = clock.now();
      const make = async () => (await sessions.create(caller.userId, caller.organizationId)).row.id;
      const expiredLongAgo = await make(); // absolute expiry start + 24 h
      const revokedLongAgo = await make();
      await db.updateTable('sessions').set({ revoked_at: start }).where('id', '=', revokedLongAgo).execute();
      clock.set(start + 2 * DAY);
      const revokedRecently = await make();
      await db.updateTable('sessions').set({ revoked_at: clock.now() }).where('id', '=', revokedRecently).execute();
      const live = await make();
      await db
        .insertInto('auth_requests')
        .values([
          { state_hash: 'old', nonce: 'n', code_verifier: 'v', created_at: start, expires_at: start + 600_000 },
          { state_hash: 'fresh', nonce: 'n', code_verifier: 'v', created_at: clock.now(), expires_at: clock.now() + 600_000 },
        ])
        .execute();

      await sessions.sweep();

      const left = (await db.selectFrom('sessions').select('id').where('user_id', '=', caller.userId).execute()).map((r) => r.id).sort();
      expect(left).toEqual([revokedRecently, live].sort());
      expect(left).not.toContain(expiredLongAgo);
      expect(left).not.toContain(revokedLongAgo);
      const requests = (await db.selectFrom('auth_requests').select('state_hash').execute()).map((r) => r.state_hash);
      expect(requests).toContain('fresh');
      expect(requests).not.toContain('old');
      // The live session still works.
      expect(
        await sessions.exchange(
          await (async () => {
            const { secret } = await sessions.create(caller.userId, caller.organizationId);
            return secret;
          })(),
        ),
      ).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    });
  },
  { clock },
);
