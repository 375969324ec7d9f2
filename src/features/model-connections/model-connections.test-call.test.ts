import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, expectProblem, manualClock } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { completion, failure, startOpenAiServer, type OpenAiServer } from '../../../test/helpers/openai-server.js';
import { buildApp } from '../../app.js';
import type { App } from '../../deps.js';
import { openStorage, type Storage } from '../../db/index.js';
import { TEST_CALL_GRACE_MS, TEST_LEASE_EXTRA_MS } from './model-connections.rules.js';
import { connectionsWorld, JUDGE_USAGE, LOCAL_ENV, localConnection } from './model-connections.test-support.js';

/**
 * The connection test under load: one test call at a time per connection across instances (a lease in
 * the database), the others a 409 with Retry-After; the lease given back on every path and expiring when
 * its instance dies; no call once the month's spend has reached the budget.
 */

const clock = manualClock(Date.parse('2026-11-27T12:00:00.000Z'));
/** JUDGE_USAGE at the connection's PRICING. */
const CALL_COST = 0.0045;
/** The model timeout here: room for the checks made while a call waits. */
const TIMEOUT_SECONDS = 3;
/** The longest a lease lasts: the model timeout, the call's grace and the lease's extra. */
const LEASE_SECONDS = TIMEOUT_SECONDS + (TEST_CALL_GRACE_MS + TEST_LEASE_EXTRA_MS) / 1000;

describeEachDialect(
  'model connections: one test call at a time',
  (ctx) => {
    /** Answers every chat completion with a JSON `{"ok": true}` that costs CALL_COST, after 300 ms. */
    let server: OpenAiServer;
    /** A second instance: its own app and storage over the same database. */
    let other: { app: App; storage: Storage };
    beforeAll(async () => {
      server = await startOpenAiServer({ always: { ...completion('{"ok": true}', JUDGE_USAGE), delayMs: 300 } });
      const storage = await openStorage({ database: ctx.database.config, sqliteSynchronous: 'NORMAL' });
      other = { storage, app: await buildApp({ config: ctx.config, storage, clock }) };
      await other.app.ready();
    });
    afterAll(async () => {
      await other?.app.close();
      await other?.storage.close();
      await server?.close();
    });

    const db = () => ctx.database.storage.db;
    const leaseOf = (id: string) =>
      db().selectFrom('model_connections').select(['test_lease_owner', 'test_lease_until']).where('id', '=', id).executeTakeFirstOrThrow();

    async function world(connection: Json = {}) {
      const w = await connectionsWorld(ctx);
      const created = await w.connect(localConnection(server, connection));
      const id = created.id as string;
      const test = (app: App = ctx.app) =>
        app.inject({ method: 'POST', url: `/v1/model-connections/${id}/test`, headers: { authorization: `Bearer ${w.admin.token}` } });
      const spent = async () => ok(await ctx.request('GET', `/v1/model-connections/${id}`, { token: w.admin.token })).spentThisMonthUsd as number;
      return { ...w, id, test, spent };
    }

    /** A refused concurrent test: a 409 saying when to come back. */
    function expectInProgress(res: LightMyRequestResponse, id: string): void {
      const body = expectProblem(res, 409, 'conflict');
      expect(body.detail).toMatch(new RegExp(`^A test of model connection ${id} is in progress; try again when it ends \\(within \\d+ s\\)\\.$`));
      const retryAfter = Number(res.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(LEASE_SECONDS);
    }

    it('40 concurrent tests on two instances against a slow endpoint: one at a time reaches it, the others are 409; the spend stops within one call of the budget', async () => {
      const { id, test, spent } = await world({ monthlyBudgetUsd: 0.01 });
      server.chats.peak = 0;
      const before = server.requests.length;
      let conflicts = 0;
      let exhausted = false;
      for (let round = 0; round < 20 && !exhausted; round++) {
        const sent = server.requests.length;
        const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => test(i % 2 === 0 ? ctx.app : other.app)));
        const reports: Json[] = [];
        for (const res of answers) {
          if (res.statusCode === 409) {
            expectInProgress(res, id);
            conflicts++;
          } else reports.push(ok(res));
        }
        expect(reports.length).toBeGreaterThanOrEqual(1);
        // Once the spend has reached the budget, a test is refused without a call.
        exhausted = server.requests.length === sent;
        if (exhausted)
          for (const report of reports)
            expect(report).toMatchObject({ ok: false, status: null, costUsd: 0, retryable: false, problem: expect.stringMatching(/^Budget exhausted: /) });
      }
      expect(server.chats.peak).toBe(1);
      expect(await spent()).toBeLessThanOrEqual(0.01 + CALL_COST);
      // $0.0045 a call: the third starts at $0.009 (under $0.01) and takes the spend to $0.0135; none after it.
      expect(await spent()).toBe(0.0135);
      expect(exhausted).toBe(true);
      expect(conflicts).toBeGreaterThan(0);
      expect(server.requests.length - before).toBeGreaterThanOrEqual(3);
      expect(await leaseOf(id)).toEqual({ test_lease_owner: null, test_lease_until: null });
    });

    it('gives the lease back on every path: an answer, an error, a timeout, a refused target, the budget', async () => {
      const { id, test, admin } = await world();
      const paths: [string, () => void | Promise<unknown>, Json][] = [
        ['ok', () => server.script(completion('{"ok": true}', JUDGE_USAGE)), { ok: true, status: 200 }],
        ['an error answer', () => server.script(failure(500, 'The server had an error')), { ok: false, status: 500, retryable: true }],
        ['content that is not JSON', () => server.script(completion('not json', JUDGE_USAGE)), { ok: false, status: 200, retryable: false }],
        [
          'a timeout',
          () => server.script({ ...completion('{"ok": true}'), delayMs: TIMEOUT_SECONDS * 1000 + 500 }),
          { ok: false, status: null, retryable: true },
        ],
        [
          'a refused target',
          () => db().updateTable('model_connections').set({ base_url: 'http://user:pw@127.0.0.1:1/v1' }).where('id', '=', id).execute(),
          { ok: false, status: null, retryable: false, problem: 'The model endpoint is refused: Must not contain credentials.' },
        ],
        [
          'the budget',
          () => ctx.request('PATCH', `/v1/model-connections/${id}`, { token: admin.token, body: { baseUrl: server.baseURL, monthlyBudgetUsd: 0 } }),
          { ok: false, status: null, retryable: false, problem: expect.stringMatching(/^Budget exhausted: /) },
        ],
      ];
      for (const [path, arrange, expected] of paths) {
        await arrange();
        const running = test();
        if (path === 'a timeout') {
          // While it waits on the endpoint, it holds the lease: another instance's test is refused.
          await expect.poll(async () => (await leaseOf(id)).test_lease_owner, { timeout: TIMEOUT_SECONDS * 1000, interval: 20 }).not.toBeNull();
          expect((await leaseOf(id)).test_lease_until).toBe(clock.now() + LEASE_SECONDS * 1000);
          expectInProgress(await test(other.app), id);
        }
        expect(ok(await running), path).toMatchObject(expected);
        expect(await leaseOf(id), path).toEqual({ test_lease_owner: null, test_lease_until: null });
      }
    });

    it("a dead instance's lease expires: 409 with Retry-After until it ends, then the test runs", async () => {
      const { id, test } = await world();
      const until = clock.now() + LEASE_SECONDS * 1000;
      await db().updateTable('model_connections').set({ test_lease_owner: 'crashed-instance', test_lease_until: until }).where('id', '=', id).execute();
      const sent = server.requests.length;
      const refused = await test(other.app);
      expectInProgress(refused, id);
      expect(refused.headers['retry-after']).toBe(String(LEASE_SECONDS));
      clock.advance(LEASE_SECONDS * 1000 - 1);
      expectInProgress(await test(), id);
      expect(server.requests.length).toBe(sent);
      clock.advance(1);
      expect(ok(await test())).toMatchObject({ ok: true, status: 200, costUsd: CALL_COST });
      expect(server.requests.length).toBe(sent + 1);
      expect(await leaseOf(id)).toEqual({ test_lease_owner: null, test_lease_until: null });
    });
  },
  { clock, env: { ...LOCAL_ENV, SIGHTLINE_MODEL_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS) } },
);
