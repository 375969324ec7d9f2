import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { refusal } from '../../auth/permissions.js';
import type { Principal } from '../../auth/tokens.js';
import type { Database } from '../../db/schema.js';
import type { RunsStored } from '../../deps.js';
import { TIMESTAMP_FAULT } from '../../lib/clock.js';
import { problems, type Problem } from '../../lib/problems.js';
import { storedRunsByIds, ingestRuns } from '../runs/index.js';
import { ingestScores } from '../scores/index.js';
import { readEvent, type ReadEvent, type Refusal } from './langfuse.events.js';
import { applyObservation, applyTrace, runInputOf, stateOf, TYPE_KEY, type RunState } from './langfuse.fold.js';
import { scoreItemOf } from './langfuse.scores.js';
import type { IngestionResult } from './langfuse.schemas.js';

type Entity = Extract<ReadEvent, { entity: 'trace' | 'observation' }>;
type ScoreEvent = Extract<ReadEvent, { entity: 'score' }>;

/** A refusal's entry in the answer: the status the event alone would have had, the problem's words. */
function errorOf({ id, problem }: Refusal): IngestionResult['errors'][number] {
  return { id, status: problem.status, message: problem.detail, ...(problem.errors ? { error: problem.errors } : {}) };
}

/** Events grouped by what they are about, each group in the order Langfuse applies them (timestamp, then batch order). */
function grouped(events: Entity[]): Map<string, Entity[]> {
  const groups = new Map<string, Entity[]>();
  for (const event of events) {
    const group = groups.get(event.key);
    if (group) group.push(event);
    else groups.set(event.key, [event]);
  }
  // Langfuse's order: by timestamp, a create first among events of the same time (an SDK may send an
  // update before its create, with the same timestamp), then as sent.
  const rank = (e: Entity) => (e.entity === 'trace' || e.create ? 0 : 1);
  for (const group of groups.values()) group.sort((a, b) => a.at - b.at || rank(a) - rank(b) || a.index - b.index);
  return groups;
}

/** A stored root of a trace made by this API (a trace, not an observation), that its observations' ends may stretch. */
const isTraceRoot = (state: RunState) => state.parentRunId === null && state.traceId === state.id && state.metadata[TYPE_KEY] === undefined;

/**
 * Langfuse's batch ingestion (`POST /api/public/ingestion`) into the project: every event checked on its
 * own; the events about one trace or observation folded, on top of what is stored of it, into the run it
 * is now (langfuse.fold.ts), and all those runs stored by the one ingestion pipeline (`ingestRuns`,
 * replacing a run whose content changed); scores through the scores pipeline. The answer names each
 * event: a success (201) when what it is about is stored, else its own error.
 */
export async function ingestLangfuseBatch(
  db: Kysely<Database>,
  principal: Principal,
  projectId: string,
  batch: unknown[],
  now: number,
  runsStored: RunsStored,
): Promise<IngestionResult> {
  const refusals: Refusal[] = [];
  const entities: Entity[] = [];
  const scores: ScoreEvent[] = [];
  const logs = new Set<number>();
  for (let index = 0; index < batch.length; index++) {
    const event = readEvent(batch[index], index, randomUUID);
    if ('problem' in event) refusals.push(event);
    else if (event.entity === 'score') scores.push(event);
    else if (event.entity === 'log') logs.add(index);
    else entities.push(event);
  }
  const traces = grouped(entities.filter((e) => e.entity === 'trace'));
  const observations = grouped(entities.filter((e) => e.entity === 'observation'));
  for (const [key, events] of observations) {
    if (!traces.has(key)) continue;
    const problem = problems.conflict(`Observation ${key} has the id of a trace of the same batch.`);
    for (const e of events) refusals.push({ index: e.index, id: e.id, problem });
    observations.delete(key);
  }

  // What is stored of each, and of the traces the observations name (their ends may stretch the trace's).
  const named = new Set([...traces.keys(), ...observations.keys()]);
  for (const events of observations.values()) for (const e of events) if (e.entity === 'observation' && e.body.traceId) named.add(e.body.traceId);
  const stored = await storedRunsByIds(db, projectId, [...named]);

  const runs: { input: Record<string, unknown>; events: Entity[] }[] = [];
  const refuseAll = (events: Entity[], problem: Problem) => events.forEach((e) => refusals.push({ index: e.index, id: e.id, problem }));
  const latestEnd = new Map<string, number>();
  for (const [key, events] of observations) {
    const state = stateOf(key, stored.get(key));
    const faults: string[] = [];
    for (const event of events) applyObservation(state, event as Extract<Entity, { entity: 'observation' }>, faults);
    if (faults.length > 0) {
      refuseAll(events, problems.validation(faults.map((field) => ({ pointer: `/batch/${events[0]!.index}/body/${field}`, detail: TIMESTAMP_FAULT }))));
      continue;
    }
    const input = runInputOf(state, false, events[0]!.at, null);
    runs.push({ input, events });
    if (state.traceId !== null) {
      const end = Date.parse((input.endTime as string | null) ?? (input.startTime as string));
      latestEnd.set(state.traceId, Math.max(latestEnd.get(state.traceId) ?? 0, end));
    }
  }
  for (const [key, events] of traces) {
    const state = stateOf(key, stored.get(key));
    const faults: string[] = [];
    for (const event of events) applyTrace(state, event as Extract<Entity, { entity: 'trace' }>, faults);
    if (faults.length > 0) refuseAll(events, problems.validation([{ pointer: `/batch/${events[0]!.index}/body/timestamp`, detail: TIMESTAMP_FAULT }]));
    else runs.push({ input: runInputOf(state, true, events[0]!.at, latestEnd.get(key) ?? null), events });
  }
  // Stored traces whose new observations end after them.
  for (const [traceId, end] of latestEnd) {
    const run = stored.get(traceId);
    if (traces.has(traceId) || !run || run.endTime === null || Date.parse(run.endTime) >= end) continue;
    const state = stateOf(traceId, run);
    if (isTraceRoot(state)) runs.push({ input: runInputOf(state, true, end, end), events: [] });
  }

  const results = await ingestRuns(
    db,
    projectId,
    runs.map((r) => r.input),
    now,
    (i) => `/batch/${runs[i]!.events[0]?.index ?? 0}/body`,
    runsStored,
    'replace',
  );
  for (const result of results) if (result.status === 'rejected') refuseAll(runs[result.index]!.events, result.problem);

  if (scores.length > 0) {
    const refused = refusal(principal, 'scores:write');
    if (refused !== null) {
      const problem = problems.forbidden(refused);
      for (const e of scores) refusals.push({ index: e.index, id: e.id, problem });
    } else {
      const author = { organizationId: principal.organizationId, projectId, kind: 'user' as const, id: principal.userId };
      const items = scores.map((e) => scoreItemOf(e.body));
      const scored = await ingestScores(db, author, items, now, (i) => `/batch/${scores[i]!.index}/body`);
      for (const result of scored)
        if (result.status === 'rejected') refusals.push({ index: scores[result.index]!.index, id: scores[result.index]!.id, problem: result.problem });
    }
  }

  // Each event once: a success, else its first error. SDK log lines are in neither list, as in Langfuse.
  const firsts = new Map<number, Refusal>();
  for (const refusal of refusals) if (!firsts.has(refusal.index)) firsts.set(refusal.index, refusal);
  const successes: IngestionResult['successes'] = [];
  for (let index = 0; index < batch.length; index++)
    if (!firsts.has(index) && !logs.has(index)) successes.push({ id: (batch[index] as { id: string }).id, status: 201 });
  return { successes, errors: [...firsts.values()].sort((a, b) => a.index - b.index).map(errorOf) };
}
