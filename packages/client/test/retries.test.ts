/** The SDK retries: Retry-After on 429, backoff on 502/503/504 and dropped connections, idempotent requests only. */
import { describe, expect, it } from 'vitest';
import { Sightline, SightlineNetworkError, type RunCreate } from '../src/index.js';
import { manualClock } from '../../../test/helpers/harness.js';
import { allRuns, countingFetch, describeSdk, expectProblem, startProxy, startServer } from './client.test-support.js';

describeSdk((sdk) => {
  describe('retries', () => {
    it('honours Retry-After on a real 429, for idempotent requests only', async () => {
      const minute = 60_000;
      const clock = manualClock(Math.floor(Date.now() / minute) * minute + minute - 700); // 0.7 s before a window ends
      const limited = await startServer({ SIGHTLINE_RATE_LIMIT: '2' }, clock);
      try {
        const caller = await limited.make.caller();
        // The server's clock moves to the next window as soon as it has answered 429.
        const counting = countingFetch((seen) => {
          if (seen.status === 429) clock.advance(minute);
        });
        const retries: { reason: string; delayMs: number }[] = [];
        const c = new Sightline({ baseUrl: limited.url, token: caller.token, fetch: counting.fetch, onRetry: (r) => retries.push(r) });
        await c.me.get();
        await c.me.get();
        const started = Date.now();
        await c.me.get();
        expect(Date.now() - started).toBeGreaterThanOrEqual(950);
        expect(counting.seen.map((s) => s.status)).toEqual([200, 200, 429, 200]);
        expect(retries).toEqual([expect.objectContaining({ reason: '429', delayMs: expect.any(Number) })]);
        expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);

        // A POST that is not idempotent is never sent twice: the 429 surfaces, with its Retry-After.
        await c.me.get();
        counting.seen.length = 0;
        const problem = await expectProblem(c.projects.create({ name: 'limited' }), 429, 'rate-limited');
        expect(problem.retryAfter).toBe(1);
        expect(counting.seen.map((s) => `${s.method} ${s.status}`)).toEqual(['POST 429']);
      } finally {
        await limited.close();
      }
    });

    it('backs off on 502/503/504 and dropped connections for idempotent requests, bounded; never a plain POST', async () => {
      const statuses = [503, 502, 504];
      const proxy = await startProxy(sdk.server.url, ({ n }) =>
        n <= 3 ? { status: statuses[n - 1]!, headers: { 'content-type': 'application/problem+json' }, body: '{"title":"busy","status":503}' } : 'forward',
      );
      try {
        const retries: string[] = [];
        const c = new Sightline(sdk.options({ baseUrl: proxy.url, backoffMs: 20, onRetry: (r) => retries.push(`${r.attempt}:${r.reason}`) }));
        const started = Date.now();
        expect((await c.me.get()).token.id).toBe(sdk.owner.tokenId);
        expect(retries).toEqual(['1:503', '2:502', '3:504']);
        expect(Date.now() - started).toBeGreaterThanOrEqual(10 + 20 + 40); // at least half of each doubling delay
      } finally {
        await proxy.close();
      }

      const always = await startProxy(sdk.server.url, () => ({ status: 503, body: 'down' }));
      try {
        const c = new Sightline(sdk.options({ baseUrl: always.url, retries: 2 }));
        await expect(c.me.get()).rejects.toMatchObject({ status: 503 });
        expect(always.requests).toHaveLength(3);
        always.requests.length = 0;
        await expect(c.projects.create({ name: 'never-twice' })).rejects.toMatchObject({ status: 503 });
        expect(always.requests).toHaveLength(1);
      } finally {
        await always.close();
      }

      const dropping = await startProxy(sdk.server.url, ({ n }) => (n === 1 ? 'forward-then-drop' : 'forward'));
      try {
        const c = new Sightline(sdk.options({ baseUrl: dropping.url }));
        const error = await c.projects.create({ name: 'dropped-once' }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(SightlineNetworkError);
        expect(dropping.requests).toHaveLength(1); // not retried: the server did create it
      } finally {
        await dropping.close();
      }

      const slow = await startProxy(sdk.server.url, ({ n }) => (n === 1 ? { delayMs: 500 } : 'forward'));
      try {
        const retries: string[] = [];
        const c = new Sightline(sdk.options({ baseUrl: slow.url, timeoutMs: 150, onRetry: (r) => retries.push(r.reason) }));
        expect((await c.me.get()).role).toBe('owner');
        expect(retries).toEqual(['timeout']);
      } finally {
        await slow.close();
      }

      const patient = await startProxy(sdk.server.url, () => ({ status: 429, headers: { 'retry-after': '120' }, body: '{}' }));
      try {
        const c = new Sightline(sdk.options({ baseUrl: patient.url }));
        await expect(c.me.get()).rejects.toMatchObject({ status: 429, retryAfter: 120 }); // longer than maxRetryAfterMs: not waited for
        expect(patient.requests).toHaveLength(1);
      } finally {
        await patient.close();
      }
    });

    it('retries a batch whose connection dropped after the server stored it, without duplicating a run', async () => {
      const project = await sdk.client.projects.create({ name: 'dropped-batch' });
      const proxy = await startProxy(sdk.server.url, ({ method, path }) =>
        method === 'POST' && path.endsWith('/runs/batch') && proxy.requests.filter((r) => r.method === 'POST').length === 1 ? 'forward-then-drop' : 'forward',
      );
      try {
        const c = new Sightline(sdk.options({ baseUrl: proxy.url }));
        const runs: RunCreate[] = Array.from({ length: 50 }, (_, i) => ({
          name: `run-${i}`,
          kind: 'tool',
          startTime: new Date(Date.UTC(2026, 10, 21, 10, 0, i)).toISOString(),
        }));
        const result = await c.runs.batch(project.id, runs);
        expect(proxy.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
        expect(result.results.map((r) => r.status)).toEqual(Array(50).fill('existing')); // the first attempt created them
        expect(await allRuns(sdk.client, project.id)).toHaveLength(50);

        // The tracer's batches go the same way: a dropped connection, a retry, one copy of each run.
        proxy.requests.length = 0;
        const tracer = c.tracer(project.id, { flushIntervalMs: 0, batchSize: 500 });
        for (let i = 0; i < 20; i++) tracer.enqueue({ name: `traced-${i}`, kind: 'chain', startTime: new Date().toISOString() });
        await tracer.shutdown();
        expect(proxy.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
        expect(tracer.stats).toMatchObject({ sent: 20, dropped: 0, rejected: 0 });
        expect(await allRuns(sdk.client, project.id)).toHaveLength(70);
      } finally {
        await proxy.close();
      }
    });
  });
});
