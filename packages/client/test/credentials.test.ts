/** The SDK and credentials: asking for a new token after a 401, rotating one close to expiry. */
import { describe, expect, it } from 'vitest';
import { rotateBeforeExpiry, Sightline } from '../src/index.js';
import { countingFetch, describeSdk, expectProblem, sleep, startProxy } from './client.test-support.js';

describeSdk((sdk) => {
  describe('credentials', () => {
    it('after a 401 of a previously working token asks onUnauthorized once, retries with the new token; a second 401 surfaces', async () => {
      const first = await sdk.client.tokens.create({ name: 'provider' });
      let current = first.token;
      let calls = 0;
      let mint = async () => (await sdk.client.tokens.create({ name: 'provider' })).token;
      const counting = countingFetch();
      const c = new Sightline({
        baseUrl: sdk.server.url,
        fetch: counting.fetch,
        tokenProvider: {
          getToken: () => current,
          onUnauthorized: async (problem) => {
            calls += 1;
            expect(problem.status).toBe(401);
            current = await mint();
            return current;
          },
        },
      });
      expect((await c.me.get()).token.id).toBe(first.id);
      await sdk.client.tokens.revoke(first.id);

      // Several requests fail together: one renewal serves them all.
      const answers = await Promise.all([c.me.get(), c.projects.list().toArray(), c.organization.get()]);
      expect(calls).toBe(1);
      expect(answers[0].token.id).not.toBe(first.id);
      const renewed = counting.seen.filter((s) => s.authorization === `Bearer ${current}`);
      expect(renewed.length).toBeGreaterThanOrEqual(3);

      // The renewal hands back a token that does not work either: one call, one retry, then the 401.
      const second = answers[0].token.id;
      await sdk.client.tokens.revoke(second);
      const revoked = current;
      mint = async () => revoked;
      counting.seen.length = 0;
      const problem = await expectProblem(c.me.get(), 401, 'unauthorized');
      expect(problem.reason).toBe('token_revoked');
      expect(calls).toBe(2);
      expect(counting.seen.map((s) => s.status)).toEqual([401, 401]);

      // A fixed token is never renewed: its 401 surfaces at once.
      const fixed = new Sightline(sdk.options({ token: revoked, fetch: counting.fetch }));
      counting.seen.length = 0;
      await expectProblem(fixed.me.get(), 401, 'unauthorized');
      expect(counting.seen).toHaveLength(1);
    });

    it('rotates a token close to expiry (reading Sightline-Token-Expires-At), hands it to the store and uses it', async () => {
      const short = await sdk.client.tokens.create({ name: 'rotating', expiresInDays: 3 });
      // Reads of the project list are slow through this proxy: they are still in flight when the rotation starts.
      const proxy = await startProxy(sdk.server.url, ({ path }) => (path.startsWith('/v1/projects') ? { delayMs: 300 } : 'forward'));
      try {
        const counting = countingFetch();
        const c = new Sightline(sdk.options({ baseUrl: proxy.url, token: short.token, fetch: counting.fetch }));
        const stored: string[] = [];
        const store = async (token: string) => void stored.push(token);

        expect(await rotateBeforeExpiry({ client: c, store, thresholdDays: 2 })).toMatchObject({ rotated: false, reason: 'not_due' });
        expect(await c.tokenExpiresAt()).toBe(short.expiresAt); // known from the header now

        const inFlight = c.projects.list().toArray();
        await sleep(50);
        const rotation = rotateBeforeExpiry({ client: c, store, thresholdDays: 7 });
        await sleep(20);
        const during = c.me.get(); // asked while the rotation waits for the list: held, then sent with the new token
        const result = await rotation;
        expect(result.rotated).toBe(true);
        const fresh = result.rotated ? result.token : null!;
        expect(stored).toEqual([fresh.token]);
        await inFlight;
        expect((await during).token.id).toBe(fresh.id);
        // Nothing carried the old token after the rotation was sent.
        const rotateAt = counting.seen.findIndex((s) => s.url.pathname.endsWith('/rotate'));
        expect(counting.seen.slice(rotateAt + 1).every((s) => s.authorization === `Bearer ${fresh.token}`)).toBe(true);
        expect((await c.me.get()).token.id).toBe(fresh.id);
        expect((await sdk.client.tokens.list().toArray()).find((t) => t.id === fresh.id)?.revokedAt).toBeNull();

        // Why it matters: the old token used after the rotation is taken for theft and the new one dies with it.
        await expectProblem(new Sightline(sdk.options({ token: short.token })).me.get(), 401, 'unauthorized');
        await expectProblem(c.me.get(), 401, 'unauthorized');
      } finally {
        await proxy.close();
      }
    });
  });
});
