import fc from 'fast-check';
import { expect, it } from 'vitest';
import * as rollupsMigration from '../../db/migrations/2026-11-23-008-rollups.js';
import * as computedCostMigration from '../../db/migrations/2026-11-26-013-computed-cost.js';
import * as traceWideMigration from '../../db/migrations/2026-11-28-023-trace-wide-sessions.js';
import * as traceRevisionMigration from '../../db/migrations/2026-11-29-024-trace-revision.js';
import * as estimatedTotalsMigration from '../../db/migrations/2026-11-29-025-estimated-totals.js';
import type { Database } from '../../db/schema.js';
import { addTotals, SUMMED } from './runs.totals.js';
import { describeRuns, HOUR, iso, NOW, projectFor } from './runs.test-support.js';
import type { Kysely } from 'kysely';

type Row = Record<string, unknown>;

it('adds and takes away every summed column, and only those', () => {
  const totals = (value: number) => ({ ...Object.fromEntries(SUMMED.map((k) => [k, value])), start_time: 5, end_time: 6 }) as Parameters<typeof addTotals>[0];
  const target = totals(10);
  addTotals(target, totals(3), 1);
  expect(target).toEqual({ ...totals(13), start_time: 5, end_time: 6 });
  addTotals(target, totals(4), -1);
  expect(target).toEqual({ ...totals(9), start_time: 5, end_time: 6 });
});
const TOTALS = SUMMED.filter((k) => k !== 'cost' && k !== 'computed_cost' && k !== 'estimated_cost');
const cents = (n: number) => Math.round(n * 1e9) / 1e9;

/** The rollups as stored, with numbers as numbers (PostgreSQL returns bigints as text) and costs rounded. */
async function stored(db: Kysely<Database>, projectId: string) {
  const norm = (rows: Row[], key: string) =>
    Object.fromEntries(
      rows.map((r) => [
        r[key] as string,
        {
          ...Object.fromEntries(TOTALS.map((k) => [k, Number(r[k])])),
          cost: cents(Number(r.cost)),
          computed_cost: cents(Number(r.computed_cost)),
          estimated_cost: cents(Number(r.estimated_cost)),
          start_time: Number(r.start_time),
          end_time: Number(r.end_time),
          ...(key === 'trace_id' ? { root_run_id: r.root_run_id, name: r.name, session_id: r.session_id, user_id: r.user_id } : {}),
        },
      ]),
    );
  return {
    traces: norm(await db.selectFrom('traces').selectAll().where('project_id', '=', projectId).execute(), 'trace_id'),
    sessions: norm(await db.selectFrom('run_sessions').selectAll().where('project_id', '=', projectId).execute(), 'session_id'),
    users: norm(await db.selectFrom('run_users').selectAll().where('project_id', '=', projectId).execute(), 'user_id'),
  };
}

/** One of the values named (a matcher): the text of one of them. */
const oneOf = (named: unknown[]) => expect.toSatisfy((value: unknown) => typeof value === 'string' && named.includes(value));

/**
 * The rollups recomputed from the runs the API lists; sessions and end users sum every run of their
 * traces, each trace under the session and end user it keeps (`traces`: the stored ones, one of those its
 * runs named, which one depending on the order they arrived in).
 */
function expected(runs: Row[], traces: Record<string, Row>) {
  const group = (keyOf: (r: Row) => string | null, withTrace: boolean) => {
    const out: Record<string, Row> = {};
    const byKey = new Map<string, Row[]>();
    for (const r of runs) {
      const key = keyOf(r);
      if (key !== null) byKey.set(key, [...(byKey.get(key) ?? []), r]);
    }
    for (const [key, list] of byKey) {
      const usage = (f: string) => list.reduce((n, r) => n + (((r.usage as Row | null)?.[f] as number | undefined) ?? 0), 0);
      const root = list.find((r) => r.parentRunId === null);
      const estimated = list.filter((r) => (r.usage as Row | null)?.estimated === true);
      const firstWith = (f: string) => (list.find((r) => r[f] !== null)?.[f] as string | undefined) ?? null;
      out[key] = {
        run_count: list.length,
        error_count: list.filter((r) => r.status === 'failed').length,
        running_count: list.filter((r) => r.status === 'running').length,
        prompt_tokens: usage('promptTokens'),
        completion_tokens: usage('completionTokens'),
        total_tokens: usage('totalTokens'),
        cache_read_tokens: usage('cacheReadTokens'),
        cache_creation_tokens: usage('cacheCreationTokens'),
        reasoning_tokens: usage('reasoningTokens'),
        cost: cents(list.reduce((n, r) => n + ((r.cost as number | null) ?? 0), 0)),
        computed_cost: cents(list.reduce((n, r) => n + (r.costSource === 'computed' ? (r.cost as number) : 0), 0)),
        estimated_tokens: estimated.reduce((n, r) => n + ((r.usage as Row).totalTokens as number), 0),
        estimated_cost: cents(estimated.reduce((n, r) => n + ((r.cost as number | null) ?? 0), 0)),
        start_time: Math.min(...list.map((r) => Date.parse(r.startTime as string))),
        end_time: Math.max(...list.map((r) => Date.parse((r.endTime ?? r.startTime) as string))),
        ...(withTrace
          ? {
              root_run_id: root?.id ?? null,
              name: expect.any(String),
              session_id: firstWith('sessionId') === null ? null : oneOf(list.map((r) => r.sessionId)),
              user_id: firstWith('userId') === null ? null : oneOf(list.map((r) => r.userId)),
            }
          : {}),
      };
      if (withTrace && root) out[key]!.name = root.name;
    }
    return out;
  };
  return {
    traces: group((r) => r.traceId as string, true),
    sessions: group((r) => (traces[r.traceId as string]?.session_id as string | null) ?? null, false),
    users: group((r) => (traces[r.traceId as string]?.user_id as string | null) ?? null, false),
  };
}

/** Traces, sessions and end users add up their runs, whatever order runs and parents arrive in and however they end. */
describeRuns('rollups', (ctx) => {
  const at = (offset: number) => iso(NOW - HOUR + offset);
  const specArb = fc.record({
    parent: fc.option(fc.nat(), { nil: undefined }),
    status: fc.constantFrom('running', 'succeeded', 'failed'),
    session: fc.constantFrom(undefined, 's1', 's2'),
    user: fc.constantFrom(undefined, 'u1'),
    // Usage a client estimated itself (`estimated`), or none on a model run with text, which Sightline estimates.
    tokens: fc.option(fc.record({ p: fc.nat(1000), c: fc.nat(1000), cache: fc.boolean(), estimated: fc.boolean() }), { nil: undefined }),
    said: fc.option(fc.constantFrom('Hello', 'How are you today?'), { nil: undefined }),
    cost: fc.option(fc.constantFrom(0.1, 0.0003, 2.5), { nil: undefined }),
    // A priced model: a run with usage and no cost of its own gets one computed.
    model: fc.constantFrom(undefined, 'gpt-4o-mini', 'claude-3-5-sonnet-20241022'),
    offset: fc.nat(100_000),
    latency: fc.nat(5000),
  });

  it('equal the sums over their runs, for any arrival order, ended runs and children before parents', async () => {
    let computedSeen = false;
    let estimatedSeen = false;
    await fc.assert(
      fc.asyncProperty(fc.array(specArb, { minLength: 1, maxLength: 12 }), fc.nat(), fc.boolean(), async (specs, split, endLater) => {
        const p = await projectFor(ctx);
        const runs = specs.map((s, i) => ({
          id: `r${i}`,
          name: `step-${i}`,
          kind: s.said !== undefined ? 'llm' : 'chain',
          ...(s.said !== undefined ? { inputs: { prompt: s.said } } : {}),
          status: endLater && s.status !== 'running' ? 'running' : s.status,
          startTime: at(s.offset),
          ...(s.status !== 'running' && !endLater ? { endTime: at(s.offset + s.latency) } : {}),
          ...(s.parent !== undefined && i > 0 ? { parentRunId: `r${s.parent % i}` } : {}),
          ...(s.session ? { sessionId: s.session } : {}),
          ...(s.user ? { userId: s.user } : {}),
          ...(s.tokens
            ? {
                usage: {
                  promptTokens: s.tokens.p,
                  completionTokens: s.tokens.c,
                  ...(s.tokens.cache ? { cacheReadTokens: Math.floor(s.tokens.p / 2) } : {}),
                  ...(s.tokens.estimated ? { estimated: true } : {}),
                },
              }
            : {}),
          ...(s.cost !== undefined ? { cost: s.cost } : {}),
          ...(s.model ? { model: s.model } : {}),
        }));
        // Children first, in two calls: the later half (children) before the earlier one (their parents).
        const cut = split % (runs.length + 1);
        for (const part of [runs.slice(cut).reverse(), runs.slice(0, cut).reverse()]) if (part.length > 0) await p.seed(part);
        if (endLater) {
          for (const [i, s] of specs.entries()) {
            if (s.status === 'running') continue;
            const res = await p.patch(`r${i}`, { status: s.status, endTime: at(s.offset + s.latency), ...(s.status === 'failed' ? { error: 'boom' } : {}) });
            expect(res.statusCode, res.body).toBe(200);
          }
        }
        const db = ctx.database.storage.db;
        const walked = await p.walk();
        const rollups = await stored(db, p.id);
        expect(rollups).toEqual(expected(walked, rollups.traces));
        // The property covers computed costs (the generator's priced models make them often enough).
        computedSeen ||= walked.some((r) => r.costSource === 'computed');
        // …and estimated tokens, Sightline's own (a model run with text and no usage) among them.
        estimatedSeen ||= walked.some((r) => (r.usage as Row | null)?.estimated === true && !specs[Number((r.id as string).slice(1))]!.tokens);
      }),
      { numRuns: 15 },
    );
    expect(computedSeen).toBe(true);
    expect(estimatedSeen).toBe(true);
  });

  it('are what the migrations compute from the runs alone (the backfills of runs stored before rollups, computed costs and estimated totals)', async () => {
    const p = await projectFor(ctx);
    await p.seed([
      {
        id: 'root',
        name: 'agent',
        kind: 'agent',
        startTime: at(0),
        sessionId: 'chat',
        userId: 'ada',
        usage: { promptTokens: 3, completionTokens: 4, reasoningTokens: 1 },
        model: 'gpt-4o-mini',
      },
      {
        id: 'leaf',
        name: 'llm',
        kind: 'llm',
        startTime: at(10),
        status: 'failed',
        endTime: at(20),
        error: 'x',
        parentRunId: 'root',
        sessionId: 'chat',
        cost: 0.5,
      },
      // No usage: its tokens are estimated from its text, and priced.
      { id: 'guess', name: 'llm', kind: 'llm', startTime: at(15), parentRunId: 'root', model: 'gpt-4o-mini', inputs: { prompt: 'How are you today?' } },
      { id: 'orphan', name: 'tool', kind: 'tool', startTime: at(30), parentRunId: 'missing', userId: 'bob' },
    ]);
    const db = ctx.database.storage.db;
    const before = await stored(db, p.id);
    expect(Object.keys(before.traces).sort()).toEqual(['missing', 'root']);
    expect(before.traces.root!.computed_cost).toBeGreaterThan(0);
    expect(before.traces.root!.cost).toBeGreaterThan(0.5);
    // Ada is the root's user: the leaf, which names none, is hers too (its trace's).
    expect(before.users.ada).toMatchObject({ run_count: 3, error_count: 1, cost: before.traces.root!.cost });
    expect((before.traces.root as Row).estimated_tokens).toBeGreaterThan(0);
    expect(before.traces.root!.estimated_cost).toBeGreaterThan(0);
    expect(before.sessions.chat).toMatchObject({
      estimated_tokens: (before.traces.root as Row).estimated_tokens,
      estimated_cost: before.traces.root!.estimated_cost,
    });
    await rollupsMigration.down(db);
    await rollupsMigration.up(db);
    await computedCostMigration.up(db);
    await traceWideMigration.up(db);
    // The later migrations that touch these tables, in order (the columns in the order `select *` was prepared with).
    await traceRevisionMigration.up(db);
    await estimatedTotalsMigration.up(db);
    expect(await stored(db, p.id)).toEqual(before);
  });
});
