/**
 * Several evaluators on one database (docs/monitors-and-webhooks.md: the background evaluation): `Monitoring.evaluateDue()`
 * claims due monitors under a lease, so two instances never evaluate one monitor twice in a cycle, and
 * between them they evaluate every enabled monitor exactly once per interval. On PostgreSQL the two
 * instances are truly separate (two connection pools on one database, as two processes would be); on
 * SQLite they share the one connection an instance has. A lease left by a crashed instance blocks the
 * others until it expires, then another instance takes the monitor.
 */
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../db/dialect.js';
import { openStorage, type Storage } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { Monitoring } from './monitors.service.js';
import { manualClock } from '../../lib/clock.js';
import { Keyring } from '../../lib/keys.js';
import { createTestDatabase, dialects, type TestDatabase } from '../../../test/helpers/storage.js';
import {
  createMonitors,
  CYCLE,
  CYCLES,
  expectDisjointCover,
  type Instance,
  INTERVAL,
  MONITORS,
  NOW,
  recordingLogger,
  runCycles,
  seedProject,
  SETTINGS,
} from './monitors.evaluator.test-support.js';

function evaluatorInstances(dialect: Dialect): void {
  describe(`two evaluators on one ${dialect === 'postgres' ? 'PostgreSQL database (two connection pools)' : 'SQLite database (one connection)'}`, () => {
    const clock = manualClock(NOW);
    const failures: unknown[] = [];
    let database: TestDatabase;
    let second: Storage | null = null;
    let a: Instance;
    let b: Instance;

    beforeAll(async () => {
      clock.set(NOW);
      database = await createTestDatabase(dialect);
      const dbA = database.storage.db;
      let dbB = dbA;
      if (dialect === 'postgres') {
        // A second, independent storage on the same database URL: its own pool, its own connections.
        second = await openStorage({ database: database.config, sqliteSynchronous: 'NORMAL' });
        dbB = second.db;
      }
      const keysA = new Keyring(dbA, clock);
      await keysA.init();
      const keysB = new Keyring(dbB, clock);
      await keysB.init();
      a = { db: dbA, monitoring: new Monitoring(dbA, dialect, clock, keysA, SETTINGS, recordingLogger(failures)) };
      b = { db: dbB, monitoring: new Monitoring(dbB, dialect, clock, keysB, SETTINGS, recordingLogger(failures)) };
    }, 60_000);

    afterAll(async () => {
      await second?.close();
      await database?.destroy();
    });

    // Each scenario starts from no monitors, so only its own are ever due.
    beforeEach(async () => {
      failures.length = 0;
      for (const table of ['webhook_attempts', 'webhook_deliveries', 'monitor_events', 'monitors'] as const)
        await database.storage.db.deleteFrom(table).execute();
    });

    if (dialect === 'postgres') {
      it('the two instances really are separate connection pools (separate backends)', async () => {
        const { sql } = await import('kysely');
        const pidOf = async (db: Kysely<Database>) => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid;
        expect(a.db).not.toBe(b.db);
        expect(await pidOf(a.db)).not.toBe(await pidOf(b.db));
        const name = async (db: Kysely<Database>) => (await sql<{ name: string }>`select current_database() as name`.execute(db)).rows[0]!.name;
        expect(await name(a.db)).toBe(await name(b.db));
      });
    }

    it(`${CYCLES} cycles over ${MONITORS} monitors: the id lists are disjoint, cover every enabled monitor, never a paused one; last_evaluated_at is the cycle's time`, async () => {
      clock.set(NOW);
      const projectId = await seedProject(a.db);
      // Created through both instances (each evaluates its new monitor at once).
      const half = await createMonitors(a.monitoring, projectId, MONITORS / 2);
      const rest = await createMonitors(b.monitoring, projectId, MONITORS / 2);
      const enabled = [...half.enabled, ...rest.enabled];
      const paused = [...half.paused, ...rest.paused];
      expect(enabled.length + paused.length).toBe(MONITORS);
      expect(paused.length).toBe(MONITORS / 10);
      // Created at NOW and evaluated then: nothing is due before the interval has passed.
      clock.set(NOW + INTERVAL - 1);
      expect(await Promise.all([a.monitoring.evaluateDue(), b.monitoring.evaluateDue()])).toEqual([[], []]);

      const { byA, byB } = await runCycles({ a, b, clock, enabled, paused, failures });
      expect(byA + byB).toBe(CYCLES * enabled.length);
      if (dialect === 'postgres') {
        // Separate pools claim concurrently (FOR UPDATE SKIP LOCKED): both instances take part.
        expect(byA, 'instance A evaluated something').toBeGreaterThan(0);
        expect(byB, 'instance B evaluated something').toBeGreaterThan(0);
      }
      // The monitors created paused were never evaluated at all.
      const pausedRows = await a.db.selectFrom('monitors').select(['last_evaluated_at', 'state']).where('id', 'in', paused).execute();
      for (const row of pausedRows) expect(row).toEqual({ last_evaluated_at: null, state: 'no_data' });
    }, 120_000);

    it('a lease held by a crashed instance blocks both others until it expires; then exactly one of them takes the monitor', async () => {
      clock.set(NOW);
      const projectId = await seedProject(a.db);
      const { enabled, paused } = await createMonitors(a.monitoring, projectId, 30);
      const crashed = enabled.slice(0, 5);
      const free = enabled.slice(5);
      const due = NOW + CYCLE;
      const leaseUntil = due + 30_000;
      // The crashed instance claimed these (its lease runs past the next cycle) and never completed them.
      await a.db.updateTable('monitors').set({ lease_owner: 'crashed:0123456789ab', lease_until: leaseUntil }).where('id', 'in', crashed).execute();

      clock.set(due);
      const [a1, b1] = await Promise.all([a.monitoring.evaluateDue(), b.monitoring.evaluateDue()]);
      expectDisjointCover(a1, b1, free, [...paused, ...crashed], 'while leased');
      // Evaluate-on-read does not take a leased monitor either.
      const leasedRow = await a.db.selectFrom('monitors').selectAll().where('id', '=', crashed[0]!).executeTakeFirstOrThrow();
      expect(await b.monitoring.fresh(leasedRow)).toEqual(leasedRow);
      for (const row of await a.db.selectFrom('monitors').selectAll().where('id', 'in', crashed).execute()) {
        expect(row.lease_owner).toBe('crashed:0123456789ab');
        expect(Number(row.lease_until)).toBe(leaseUntil);
        expect(Number(row.last_evaluated_at), 'still the evaluation at creation').toBe(NOW);
      }

      // Up to and including the instant the lease ends, it still holds.
      clock.set(leaseUntil);
      expect(await Promise.all([a.monitoring.evaluateDue(), b.monitoring.evaluateDue()])).toEqual([[], []]);

      // A millisecond later it has expired: the monitors are taken over, each by exactly one instance.
      clock.set(leaseUntil + 1);
      const [a2, b2] = await Promise.all([a.monitoring.evaluateDue(), b.monitoring.evaluateDue()]);
      expectDisjointCover(a2, b2, crashed, [...paused, ...free], 'after expiry');
      for (const row of await a.db.selectFrom('monitors').selectAll().where('id', 'in', crashed).execute()) {
        expect(row.lease_owner).toBeNull();
        expect(row.lease_until).toBeNull();
        expect(Number(row.last_evaluated_at)).toBe(leaseUntil + 1);
        expect(Number(row.next_evaluation_at)).toBe(leaseUntil + 1 + INTERVAL);
      }
      expect(failures).toEqual([]);
    });

    it('monitors paused between cycles (through either instance) drop out of the next cycle; resumed ones are back in it', async () => {
      clock.set(NOW);
      const projectId = await seedProject(a.db);
      const { enabled, paused } = await createMonitors(a.monitoring, projectId, 40);
      const t1 = NOW + CYCLE;
      clock.set(t1);
      const [a1, b1] = await Promise.all([a.monitoring.evaluateDue(), b.monitoring.evaluateDue()]);
      expectDisjointCover(a1, b1, enabled, paused, 'cycle 1');

      const pausedNow = enabled.slice(0, 8);
      for (const [i, id] of pausedNow.entries()) await (i % 2 === 0 ? a : b).monitoring.update(projectId, id, { enabled: false });
      const resumed = paused.slice(0, 2);
      for (const id of resumed) await b.monitoring.update(projectId, id, { enabled: true });

      const t2 = t1 + CYCLE;
      clock.set(t2);
      const stillEnabled = [...enabled.slice(8), ...resumed];
      const [a2, b2] = await Promise.all([a.monitoring.evaluateDue(), b.monitoring.evaluateDue()]);
      expectDisjointCover(a2, b2, stillEnabled, [...pausedNow, ...paused.slice(2)], 'cycle 2');
      for (const row of await a.db.selectFrom('monitors').selectAll().where('id', 'in', pausedNow).execute()) {
        expect(Number(row.enabled)).toBe(0);
        expect(row.state).toBe('no_data');
        expect(Number(row.last_evaluated_at), 'not evaluated since it was paused').toBe(t1);
      }
      for (const row of await a.db.selectFrom('monitors').selectAll().where('id', 'in', stillEnabled).execute()) {
        expect(Number(row.last_evaluated_at)).toBe(t2);
      }
      expect(failures).toEqual([]);
    });

    it('a lease on a monitor that is not due yet does not make it due; an expired lease on a paused monitor is ignored', async () => {
      clock.set(NOW);
      const projectId = await seedProject(a.db);
      const { enabled, paused } = await createMonitors(a.monitoring, projectId, 10);
      // Expired leases everywhere (an instance crashed long ago).
      await a.db
        .updateTable('monitors')
        .set({ lease_owner: 'crashed:ffffffffffff', lease_until: NOW - 1 })
        .where('id', 'in', [...enabled, ...paused])
        .execute();
      clock.set(NOW + INTERVAL - 1);
      expect(await Promise.all([a.monitoring.evaluateDue(), b.monitoring.evaluateDue()])).toEqual([[], []]);
      clock.set(NOW + INTERVAL);
      const [a1, b1] = await Promise.all([a.monitoring.evaluateDue(), b.monitoring.evaluateDue()]);
      expectDisjointCover(a1, b1, enabled, paused, 'expired leases');
      expect(failures).toEqual([]);
    });
  });
}

describe('monitor evaluators', () => {
  it('runs on every engine the suites run on (PostgreSQL is required in CI)', () => {
    expect(dialects).toContain('sqlite');
    if (process.env.CI) expect(dialects).toContain('postgres');
  });
  for (const dialect of dialects) evaluatorInstances(dialect);
});
