/**
 * Several evaluators on one database (README, Monitors: the background evaluation): `Monitoring.evaluateDue()`
 * claims due monitors under a lease, so two instances never evaluate one monitor twice in a cycle, and
 * between them they evaluate every enabled monitor exactly once per interval. On PostgreSQL the two
 * instances are truly separate (two connection pools on one database, as two processes would be); on
 * SQLite they share the one connection an instance has. A lease left by a crashed instance blocks the
 * others until it expires, then another instance takes the monitor.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../src/db/dialect.js';
import { openStorage, type Storage } from '../src/db/index.js';
import type { Database } from '../src/db/schema.js';
import { ensureOrganization } from '../src/features/organizations/organizations.repo.js';
import { createProject } from '../src/features/projects/projects.repo.js';
import { ingestRuns } from '../src/features/runs/runs.ingest.js';
import { Monitoring, type MonitoringSettings } from '../src/features/monitors/monitors.service.js';
import { manualClock } from '../src/lib/clock.js';
import { Keyring } from '../src/lib/keys.js';
import { createTestDatabase, dialects, type TestDatabase } from './helpers/storage.js';

const NOW = Date.parse('2026-11-20T12:00:00.000Z');
const MINUTE = 60_000;
const INTERVAL = MINUTE;
/** A cycle is one interval and a second later: every monitor evaluated in the previous cycle is due again. */
const CYCLE = INTERVAL + 1000;
const MONITORS = 200;
const CYCLES = 6;

const SETTINGS: MonitoringSettings = {
  intervalMs: INTERVAL,
  webhookAllowPrivate: false,
  webhookTimeoutMs: 1000,
  webhookBackoffMs: 1000,
  webhookRetryForMs: 60_000,
};

const iso = (ms: number) => new Date(ms).toISOString();

/** A logger that keeps what `evaluateDue` reports as failures, so that none goes unnoticed. */
function recordingLogger(into: unknown[]): FastifyBaseLogger {
  const ignore = () => {};
  const logger = {
    level: 'error',
    error: (...args: unknown[]) => into.push(args),
    fatal: (...args: unknown[]) => into.push(args),
    warn: ignore,
    info: ignore,
    debug: ignore,
    trace: ignore,
    silent: ignore,
    child: () => logger,
  };
  return logger as unknown as FastifyBaseLogger;
}

interface Instance {
  monitoring: Monitoring;
  db: Kysely<Database>;
}

/**
 * An organization with a project whose runs give states that change over the cycles: runs a minute
 * before NOW are inside the 5-minute window for the first cycles and leave it later, so monitors with a
 * threshold record events while both evaluators run.
 */
async function seedProject(db: Kysely<Database>): Promise<string> {
  const org = await ensureOrganization(db, `evaluators-${process.pid}-${Math.random().toString(36).slice(2)}`, 'enterprise', NOW);
  const project = await createProject(db, org.id, { name: 'evaluated' }, NOW);
  const raws = Array.from({ length: 5 }, (_, i) => ({
    name: 'ChatOpenAI',
    kind: 'llm',
    status: 'succeeded',
    startTime: iso(NOW - MINUTE + i * 1000),
    endTime: iso(NOW - MINUTE + i * 1000 + 250),
  }));
  const results = await ingestRuns(db, project.id, raws, NOW, (k) => `/runs/${k}`);
  expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
  return project.id;
}

/** Monitors of several shapes; every tenth one paused. Returns the ids of the enabled and the paused ones. */
async function createMonitors(monitoring: Monitoring, projectId: string, n: number): Promise<{ enabled: string[]; paused: string[] }> {
  const enabled: string[] = [];
  const paused: string[] = [];
  for (let i = 0; i < n; i++) {
    const isPaused = i % 10 === 9;
    const shape = i % 3;
    const { row } = await monitoring.create(projectId, {
      name: `m${i}`,
      metric: 'count',
      window: shape === 0 ? '1h' : '5m',
      ...(shape === 1 ? { threshold: { op: '>=' as const, value: 1 } } : shape === 2 ? { threshold: { op: '<' as const, value: 1 } } : {}),
      ...(isPaused ? { enabled: false } : {}),
    });
    (isPaused ? paused : enabled).push(row.id);
  }
  return { enabled, paused };
}

const sorted = (ids: string[]) => [...ids].sort();

function expectDisjointCover(a: string[], b: string[], enabled: string[], paused: string[], label: string): void {
  expect(new Set(a).size, `${label}: instance A returned an id twice`).toBe(a.length);
  expect(new Set(b).size, `${label}: instance B returned an id twice`).toBe(b.length);
  const inB = new Set(b);
  expect(
    a.filter((id) => inB.has(id)),
    `${label}: evaluated by both instances`,
  ).toEqual([]);
  expect(sorted([...a, ...b]), `${label}: the two instances evaluated exactly the enabled monitors`).toEqual(sorted(enabled));
  const pausedSet = new Set(paused);
  expect(
    [...a, ...b].filter((id) => pausedSet.has(id)),
    `${label}: a paused monitor was evaluated`,
  ).toEqual([]);
}

/**
 * The shared scenario: `CYCLES` cycles of both instances at once. Every cycle the two id lists are
 * disjoint and cover every enabled monitor; each enabled row then carries the cycle's time, no lease
 * and its next due time; paused rows are untouched; and each monitor has exactly one event per change
 * of its state (two instances evaluating one monitor from the same prior state would both record the
 * change; an evaluation that was lost would record none).
 */
async function runCycles(options: {
  a: Instance;
  b: Instance;
  clock: ReturnType<typeof manualClock>;
  enabled: string[];
  paused: string[];
  failures: unknown[];
}): Promise<{ byA: number; byB: number }> {
  const { a, b, clock, enabled, paused, failures } = options;
  const db = a.db;
  const ids = [...enabled, ...paused];
  const before = new Map(
    (await db.selectFrom('monitors').select(['id', 'last_evaluated_at']).where('id', 'in', ids).execute()).map((r) => [r.id, r.last_evaluated_at]),
  );
  const history = new Map<string, string[]>(
    (await db.selectFrom('monitors').select(['id', 'state']).where('id', 'in', ids).execute()).map((r) => [r.id, [r.state]]),
  );
  let byA = 0;
  let byB = 0;
  for (let cycle = 1; cycle <= CYCLES; cycle++) {
    const at = NOW + cycle * CYCLE;
    clock.set(at);
    const [fromA, fromB] = await Promise.all([a.monitoring.evaluateDue(), b.monitoring.evaluateDue()]);
    const label = `cycle ${cycle}`;
    expect(failures, `${label}: evaluation failures`).toEqual([]);
    expectDisjointCover(fromA, fromB, enabled, paused, label);
    byA += fromA.length;
    byB += fromB.length;

    const rows = await db.selectFrom('monitors').selectAll().where('id', 'in', ids).execute();
    expect(rows).toHaveLength(ids.length);
    const pausedSet = new Set(paused);
    for (const row of rows) {
      if (pausedSet.has(row.id)) {
        expect(Number(row.enabled), row.id).toBe(0);
        expect(row.last_evaluated_at === null ? null : Number(row.last_evaluated_at), `${label}: paused ${row.id} untouched`).toBe(before.get(row.id) ?? null);
        expect(row.state).toBe('no_data');
        continue;
      }
      expect(Number(row.last_evaluated_at), `${label}: ${row.id} last_evaluated_at`).toBe(at);
      expect(Number(row.next_evaluation_at), `${label}: ${row.id} next_evaluation_at`).toBe(at + INTERVAL);
      expect(row.lease_owner, `${label}: ${row.id} lease released`).toBeNull();
      expect(row.lease_until, `${label}: ${row.id} lease released`).toBeNull();
      const states = history.get(row.id)!;
      if (states[states.length - 1] !== row.state) states.push(row.state);
    }
    // Nothing is due any more at this instant: a second pass of either instance finds no work.
    expect(await a.monitoring.evaluateDue(), `${label}: second pass of A`).toEqual([]);
    expect(await b.monitoring.evaluateDue(), `${label}: second pass of B`).toEqual([]);
  }

  // One event per state change, never a duplicate from a monitor evaluated twice.
  const events = await db
    .selectFrom('monitor_events')
    .select(['monitor_id', 'from_state', 'to_state', 'created_at', 'reason'])
    .where('monitor_id', 'in', ids)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const perMonitor = new Map<string, typeof events>();
  for (const e of events) perMonitor.set(e.monitor_id, [...(perMonitor.get(e.monitor_id) ?? []), e]);
  let changes = 0;
  for (const id of enabled) {
    const states = history.get(id)!;
    const later = (perMonitor.get(id) ?? []).filter((e) => Number(e.created_at) > NOW);
    expect(
      later.map((e) => [e.from_state, e.to_state]),
      `${id}: events after creation`,
    ).toEqual(states.slice(1).map((s, i) => [states[i], s]));
    for (const e of later) expect(e.reason).toBe('evaluated');
    const createdAt = later.map((e) => Number(e.created_at));
    expect(new Set(createdAt).size, `${id}: two events in one cycle`).toBe(createdAt.length);
    changes += later.length;
  }
  // The scenario really changes states while both instances run (runs leave the 5-minute windows).
  expect(changes).toBeGreaterThan(0);
  return { byA, byB };
}

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
