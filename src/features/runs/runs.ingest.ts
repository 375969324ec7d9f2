import type { Kysely } from 'kysely';
import { adoptWaitingRuns, insertRuns, runsByIds, storedParents } from './runs.repo.js';
import { replaceRuns } from './runs.replace.js';
import type { Database, RunRow } from '../../db/schema.js';
import type { RunsStored } from '../../deps.js';
import { parseTimestamp, TIMESTAMP_FAULT } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { jsonValueFault } from '../../lib/json.js';
import { contentHash, isTextDigest, sameContent, spanIdentity } from '../../lib/content-hash.js';
import { Problem, problems, type FieldError } from '../../lib/problems.js';
import { textFaults, toFieldErrors, validatorFor } from '../../lib/validation.js';
import { recordDigest, runRecord, sameRecord, serializeRun, type RunBody } from './runs.document.js';
import { cycleMembers, runStateFaults, usageWithTotal, type UsageInput } from './runs.rules.js';
import { searchText } from '../query/index.js';
import { needsPrice, type PriceOverride, projectPrices, runCost } from '../models/index.js';
import { estimateUsages } from './runs.estimate.js';
import { RunInputSchema, type RunInput } from './runs.schemas.js';

export type IngestResult =
  | { index: number; id: string; status: 'created' | 'existing' | 'updated'; row: Pick<RunRow, 'doc'> }
  | { index: number; id: string | null; status: 'rejected'; problem: Problem };

interface Candidate {
  index: number;
  input: RunInput;
  body: RunBody;
  row: RunRow;
  explicitTrace: boolean;
}

/**
 * What a retry of a run with a client id is compared by: its content (the API: the same content is
 * `existing`, other content a 409), or for runs made from OpenTelemetry spans their trace (OTLP: the
 * same trace and span id is the same span); or `replace`: other content is the run as it is now, stored
 * again (`updated`; Langfuse's ingestion API, which sends a run in pieces; runs.replace.ts).
 */
export type RetryIdentity = 'content' | 'span' | 'replace';

/** Validates one run (schema, then the rules the schema cannot say) and builds its row. */
function prepare(
  raw: unknown,
  index: number,
  pointerPrefix: string,
  projectId: string,
  now: number,
  retries: RetryIdentity,
  prices: readonly PriceOverride[],
  estimate: UsageInput | undefined,
): Candidate | Problem {
  const validate = validatorFor(RunInputSchema);
  if (!validate(raw)) return problems.validation(toFieldErrors(validate.errors ?? [], 'body', pointerPrefix));
  const input = raw as RunInput;
  const faults: FieldError[] = textFaults(RunInputSchema, input, 'body', pointerPrefix);
  const startTime = parseTimestamp(input.startTime);
  const endTime = input.endTime == null ? null : parseTimestamp(input.endTime);
  if (startTime === null) faults.push({ pointer: `${pointerPrefix}/startTime`, detail: TIMESTAMP_FAULT });
  if (input.endTime != null && endTime === null) faults.push({ pointer: `${pointerPrefix}/endTime`, detail: TIMESTAMP_FAULT });
  const status = input.status ?? 'running';
  for (const fault of runStateFaults({ status, startTime, endTime, error: input.error }))
    faults.push({ pointer: `${pointerPrefix}${fault.field}`, detail: fault.detail });
  for (const field of ['inputs', 'outputs', 'metadata'] as const) {
    const fault = jsonValueFault(input[field], field === 'metadata');
    if (fault) faults.push({ pointer: `${pointerPrefix}/${field}`, detail: fault });
  }
  if (input.id !== undefined && input.parentRunId === input.id)
    faults.push({ pointer: `${pointerPrefix}/parentRunId`, detail: 'A run cannot be its own parent.' });
  if (faults.length > 0 || startTime === null) return problems.validation(faults); // (a bad startTime is among the faults)

  const id = input.id ?? newId('run', now);
  const usage = input.usage ?? estimate ?? null;
  const stored = usage ? usageWithTotal(usage) : null;
  const priced = runCost(input.cost, { model: input.model ?? null, provider: input.provider ?? null, usage: stored, startTime }, prices);
  return {
    index,
    input,
    explicitTrace: input.traceId !== undefined,
    body: {
      inputs: input.inputs === undefined ? {} : input.inputs,
      outputs: input.outputs ?? null,
      error: input.error ?? null,
      usage: stored,
      tags: input.tags ?? [],
      metadata: input.metadata ?? {},
      provider: input.provider ?? null,
      costSource: priced.costSource,
      price: priced.price,
    },
    row: {
      project_id: projectId,
      id,
      trace_id: input.traceId ?? id,
      parent_run_id: input.parentRunId ?? null,
      name: input.name,
      kind: input.kind,
      status,
      start_time: startTime,
      end_time: endTime,
      latency_ms: endTime === null ? null : endTime - startTime,
      model: input.model ?? null,
      total_tokens: stored?.totalTokens ?? null,
      cost: priced.cost,
      metadata: JSON.stringify(input.metadata ?? {}),
      // Only a client-chosen id can be retried into; generated ids never collide. A run compared by its
      // content gets the digest of its record once that is written (insertAccepted).
      content_hash: input.id !== undefined && retries === 'span' && input.traceId !== undefined ? spanIdentity(input.traceId) : '',
      created_at: now,
      doc: '', // serialized once the trace is resolved, just before insertion
      session_id: input.sessionId ?? null,
      user_id: input.userId ?? null,
      trace_pending: 0,
    },
  };
}

/** Whether a run named twice in one call is sent the same both times (key order aside): rare, so compared as sent. */
function sameTwin(first: Candidate, again: Candidate): boolean {
  if (first.row.content_hash !== '' || again.row.content_hash !== '') return first.row.content_hash === again.row.content_hash;
  return contentHash(first.input) === contentHash(again.input);
}

function idConflict(id: string, retries: RetryIdentity): Problem {
  return problems.conflict(
    retries === 'span'
      ? `A run with id ${id} already exists in this project, in another trace or sent other than as a span.`
      : `A run with id ${id} already exists in this project with different content.`,
  );
}

/**
 * Creates runs, idempotently: a client id that exists with the same content is "existing", with
 * other content "rejected" (409). Each bad run gets its own problem and does not sink the others.
 *
 * Children may come before their parents, in one call or across calls (exporters send a span when it
 * ends, before its parent ends). A run's parent may be an earlier run of the project, any run of the
 * call, or one that has not arrived: the run is stored with its parent's id all the same. Its trace is
 * its own `traceId`, else its parent's; when the parent is not there yet either, the trace is
 * provisional (the parent's id, `trace_pending`) until the parent arrives and hands its trace down.
 *
 * Nothing is looked up before inserting but the stored parents of runs that name no trace: ids the
 * project already has are found by the insert itself (ON CONFLICT DO NOTHING), and only those are read.
 */
export async function ingestRuns(
  db: Kysely<Database>,
  projectId: string,
  raws: unknown[],
  now: number,
  pointerPrefix: (index: number) => string,
  onStored: RunsStored,
  retries: RetryIdentity = 'content',
): Promise<IngestResult[]> {
  const results: IngestResult[] = new Array(raws.length);
  // Duplicates within the call: a repeat with the same content shares the first one's fate.
  const fresh = new Map<string, Candidate>();
  const repeats: Candidate[] = [];
  // Read once, only when needed: the organization's prices when some run is to be priced (a model, no cost), the
  // tokenizer's worker when some model run reports no usage (its tokens are estimated, then priced: runs.estimate.ts).
  const estimates = await estimateUsages(raws);
  const prices = estimates.size > 0 || raws.some(needsPrice) ? await projectPrices(db, projectId) : [];
  for (let i = 0; i < raws.length; i++) {
    const c = prepare(raws[i], i, pointerPrefix(i), projectId, now, retries, prices, estimates.get(i));
    if (c instanceof Problem) {
      const raw = raws[i] as { id?: unknown };
      results[i] = { index: i, id: typeof raw?.id === 'string' ? raw.id : null, status: 'rejected', problem: c };
      continue;
    }
    const twin = fresh.get(c.row.id);
    if (!twin) fresh.set(c.row.id, c);
    else if (sameTwin(twin, c)) repeats.push(c);
    else results[c.index] = { index: c.index, id: c.row.id, status: 'rejected', problem: idConflict(c.row.id, retries) };
  }

  // Stored parents, read only for runs whose parent is not in the call: their trace, or the check of it.
  const outside = [...fresh.values()].filter((c) => c.row.parent_run_id && !fresh.has(c.row.parent_run_id));
  const parents = await storedParents(db, projectId, [...new Set(outside.map((c) => c.row.parent_run_id!))]);

  type Trace = { trace: string; pending: boolean };
  const cycles = cycleMembers(fresh, (c) => c.row.parent_run_id);
  const resolved = new Map<string, Trace | Problem>();
  const resolve = (c: Candidate): Trace | Problem => {
    const known = resolved.get(c.row.id);
    if (known) return known;
    const fault = (detail: string, field: string) => problems.validation([{ pointer: `${pointerPrefix(c.index)}/${field}`, detail }]);
    const parentId = c.row.parent_run_id;
    let result: Trace | Problem;
    if (cycles.has(c.row.id)) result = fault('Parent runs form a cycle.', 'parentRunId');
    else if (!parentId) result = { trace: c.row.trace_id, pending: false };
    else {
      // A parent of the call that was refused has not arrived: the child waits for it like for any other.
      const inCall = fresh.get(parentId);
      const fromCall = inCall && !cycles.has(parentId) ? resolve(inCall) : null;
      const stored = parents.get(parentId);
      const parent: Trace | null =
        fromCall && !(fromCall instanceof Problem) ? fromCall : stored ? { trace: stored.trace_id, pending: stored.trace_pending === 1 } : null;
      if (!c.explicitTrace) result = parent ?? { trace: parentId, pending: true };
      else if (parent && !parent.pending && parent.trace !== c.row.trace_id)
        result = fault(`traceId must match the parent's trace (${parent.trace}).`, 'traceId');
      else result = { trace: c.row.trace_id, pending: false };
    }
    resolved.set(c.row.id, result);
    return result;
  };
  const accepted: Candidate[] = [];
  for (const c of fresh.values()) {
    const trace = resolve(c);
    if (trace instanceof Problem) results[c.index] = { index: c.index, id: c.row.id, status: 'rejected', problem: trace };
    else {
      c.row.trace_id = trace.trace;
      c.row.trace_pending = trace.pending ? 1 : 0;
      accepted.push(c);
    }
  }

  if (accepted.length > 0) await insertAccepted(db, projectId, accepted, results, retries, now, onStored);
  for (const c of repeats) {
    const first = results[fresh.get(c.row.id)!.index]!;
    results[c.index] =
      first.status === 'rejected'
        ? { index: c.index, id: c.row.id, status: 'rejected', problem: repointed(first.problem, pointerPrefix(first.index), pointerPrefix(c.index)) }
        : { index: c.index, id: c.row.id, status: 'existing', row: first.row };
  }
  return results;
}

/** The same problem, its pointers moved from one run of the call to another. */
function repointed(problem: Problem, from: string, to: string): Problem {
  const errors = problem.errors?.map((e) => (e.pointer?.startsWith(`${from}/`) ? { ...e, pointer: to + e.pointer.slice(from.length) } : e));
  return new Problem(problem.slug, { detail: problem.detail, errors });
}

async function insertAccepted(
  db: Kysely<Database>,
  projectId: string,
  accepted: Candidate[],
  results: IngestResult[],
  retries: RetryIdentity,
  now: number,
  onStored: RunsStored,
): Promise<void> {
  for (const c of accepted) {
    c.row.doc = serializeRun(runRecord(c.row, c.body));
    if (c.row.content_hash === '' && c.input.id !== undefined) c.row.content_hash = recordDigest(c.row.doc);
  }
  const inserted = await insertRuns(
    db,
    projectId,
    accepted.map((c) => ({
      row: c.row,
      tags: c.body.tags,
      metadata: c.body.metadata,
      usage: c.body.usage,
      costSource: c.body.costSource,
      text: searchText({ name: c.row.name, ...c.body }),
    })),
  );
  // Ids the project already had (an earlier call, or a concurrent one): idempotent when the content matches.
  const taken = accepted.filter((c) => !inserted.has(c.row.id));
  const takenIds = taken.map((c) => c.row.id);
  const stored = takenIds.length > 0 ? await runsByIds(db, projectId, takenIds) : new Map<string, Pick<RunRow, 'content_hash' | 'doc'>>();
  // Runs that were waiting for one of these, and these that were waiting for a run that is now there.
  const arrived = accepted.filter((c) => inserted.has(c.row.id));
  const awaited = arrived.filter((c) => c.row.trace_pending === 1).map((c) => c.row.trace_id);
  const arrivedIds = arrived.map((c) => c.row.id);
  const adopted = await adoptWaitingRuns(db, projectId, [...arrivedIds, ...awaited]);
  // The project's evaluator rules sample the new runs (docs/design/quality-loop.md: Evaluators).
  await onStored(db, projectId, arrivedIds, now);
  const same = (c: Candidate, prior = stored.get(c.row.id)) =>
    prior !== undefined &&
    (sameContent(prior.content_hash, c.input, c.row.content_hash) ||
      (retries !== 'span' && isTextDigest(prior.content_hash) && sameRecord(prior.doc, c.row.doc)));
  const changed = retries === 'replace' ? taken.filter((c) => stored.has(c.row.id) && !same(c)) : [];
  const replaced = await replaceRuns(db, projectId, changed);
  for (const c of accepted) {
    const [id, index, redone] = [c.row.id, c.index, replaced.get(c.row.id)];
    if (inserted.has(id)) results[index] = { index, id, status: 'created', row: { doc: adopted.get(id) ?? c.row.doc } };
    else if (redone)
      results[index] = redone instanceof Problem ? { index, id, status: 'rejected', problem: redone } : { index, id, status: 'updated', row: redone };
    else if (same(c)) results[index] = { index, id, status: 'existing', row: stored.get(id)! };
    else results[index] = { index, id, status: 'rejected', problem: idConflict(id, retries) };
  }
}
