// What monitors.evaluator.test.ts builds on: monitors of several shapes, and cycles of two evaluators checked after each.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../db/schema.js';
import { ensureOrganization } from '../organizations/organizations.repo.js';
import { createProject } from '../projects/projects.repo.js';
import { ingestRuns } from '../runs/runs.ingest.js';
import { Monitoring, type MonitoringSettings } from './monitors.service.js';
import { manualClock } from '../../lib/clock.js';
import { queueEvaluations } from '../evaluators/evaluators.sampling.js';

export const NOW = Date.parse('2026-11-20T12:00:00.000Z');
export const MINUTE = 60_000;
export const INTERVAL = MINUTE;
/** A cycle is one interval and a second later: every monitor evaluated in the previous cycle is due again. */
export const CYCLE = INTERVAL + 1000;
export const MONITORS = 200;
export const CYCLES = 6;

export const SETTINGS: MonitoringSettings = {
  intervalMs: INTERVAL,
  webhookAllowPrivate: false,
  webhookTimeoutMs: 1000,
  webhookBackoffMs: 1000,
  webhookRetryForMs: 60_000,
};

export const iso = (ms: number) => new Date(ms).toISOString();

/** A logger that keeps what `evaluateDue` reports as failures, so that none goes unnoticed. */
export function recordingLogger(into: unknown[]): FastifyBaseLogger {
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

export interface Instance {
  monitoring: Monitoring;
  db: Kysely<Database>;
}

/**
 * An organization with a project whose runs give states that change over the cycles: runs a minute
 * before NOW are inside the 5-minute window for the first cycles and leave it later, so monitors with a
 * threshold record events while both evaluators run.
 */
export async function seedProject(db: Kysely<Database>): Promise<string> {
  const org = await ensureOrganization(db, `evaluators-${process.pid}-${Math.random().toString(36).slice(2)}`, 'enterprise', NOW);
  const project = await createProject(db, org.id, { name: 'evaluated' }, NOW);
  const raws = Array.from({ length: 5 }, (_, i) => ({
    name: 'ChatOpenAI',
    kind: 'llm',
    status: 'succeeded',
    startTime: iso(NOW - MINUTE + i * 1000),
    endTime: iso(NOW - MINUTE + i * 1000 + 250),
  }));
  const results = await ingestRuns(db, project.id, raws, NOW, (k) => `/runs/${k}`, queueEvaluations);
  expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
  return project.id;
}

/** Monitors of several shapes; every tenth one paused. Returns the ids of the enabled and the paused ones. */
export async function createMonitors(monitoring: Monitoring, projectId: string, n: number): Promise<{ enabled: string[]; paused: string[] }> {
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

export const sorted = (ids: string[]) => [...ids].sort();

export function expectDisjointCover(a: string[], b: string[], enabled: string[], paused: string[], label: string): void {
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
export async function runCycles(options: {
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
