import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { insertRuns, runsByIds } from './runs.repo.js';
import type { Database, RunRow } from '../../db/schema.js';
import { parseTimestamp, TIMESTAMP_FAULT } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { canonicalJson, jsonValueFault } from '../../lib/json.js';
import { Problem, problems, type FieldError } from '../../lib/problems.js';
import { textFaults, toFieldErrors, validatorFor } from '../../lib/validation.js';
import { runRecord, serializeRun, type RunBody } from './runs.document.js';
import { runStateFaults, usageWithTotal } from './runs.rules.js';
import { RunInputSchema, type RunInput } from './runs.schemas.js';

export type IngestResult =
  { index: number; id: string; status: 'created' | 'existing'; row: RunRow } | { index: number; id: string | null; status: 'rejected'; problem: Problem };

interface Candidate {
  index: number;
  input: RunInput;
  body: RunBody;
  row: RunRow;
  explicitTrace: boolean;
}

/** Validates one run (schema, then the rules the schema cannot say) and builds its row. */
function prepare(raw: unknown, index: number, pointerPrefix: string, projectId: string, now: number): Candidate | Problem {
  const validate = validatorFor(RunInputSchema);
  if (!validate(raw)) return problems.validation(toFieldErrors(validate.errors ?? [], 'body', pointerPrefix));
  const input = raw as RunInput;
  const faults: FieldError[] = textFaults(RunInputSchema as never, input, 'body', pointerPrefix);
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
  const usage = input.usage ?? null;
  const stored = usage ? usageWithTotal(usage) : null;
  return {
    index,
    input,
    explicitTrace: input.traceId !== undefined,
    body: {
      inputs: input.inputs ?? {},
      outputs: input.outputs ?? null,
      error: input.error ?? null,
      usage: stored,
      tags: input.tags ?? [],
      metadata: input.metadata ?? {},
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
      cost: input.cost ?? null,
      metadata: JSON.stringify(input.metadata ?? {}),
      // Only a client-chosen id can be retried into; generated ids never collide.
      content_hash: input.id === undefined ? '' : createHash('sha256').update(canonicalJson(input)).digest('base64url'),
      created_at: now,
      doc: '', // serialized once the trace is resolved, just before insertion
    },
  };
}

function idConflict(id: string): Problem {
  return problems.conflict(`A run with id ${id} already exists in this project with different content.`);
}

/**
 * Creates runs, idempotently: a client id that exists with the same content is "existing", with
 * other content "rejected" (409). Each bad run gets its own problem and does not sink the others.
 * Parents may be earlier runs of the project or any run of the same call; traces follow parents.
 */
export async function ingestRuns(
  db: Kysely<Database>,
  projectId: string,
  raws: unknown[],
  now: number,
  pointerPrefix: (index: number) => string,
): Promise<IngestResult[]> {
  const results: IngestResult[] = new Array(raws.length);
  const candidates: Candidate[] = [];
  for (let i = 0; i < raws.length; i++) {
    const prepared = prepare(raws[i], i, pointerPrefix(i), projectId, now);
    if (prepared instanceof Problem) {
      const raw = raws[i] as { id?: unknown };
      results[i] = { index: i, id: typeof raw?.id === 'string' ? raw.id : null, status: 'rejected', problem: prepared };
    } else {
      candidates.push(prepared);
    }
  }

  // One query for every id and parent the call names.
  const referenced = new Set<string>();
  for (const c of candidates) {
    if (c.input.id !== undefined) referenced.add(c.row.id);
    if (c.row.parent_run_id) referenced.add(c.row.parent_run_id);
  }
  const stored = await runsByIds(db, projectId, [...referenced]);

  // Idempotency against stored runs and duplicates within the call. A repeat of a run earlier in the
  // call shares that run's fate, which is only known once it has been resolved and inserted.
  const fresh = new Map<string, Candidate>();
  const repeats: Candidate[] = [];
  for (const c of candidates) {
    const prior = stored.get(c.row.id);
    const twin = fresh.get(c.row.id);
    if (prior) {
      results[c.index] =
        prior.content_hash === c.row.content_hash
          ? { index: c.index, id: c.row.id, status: 'existing', row: prior }
          : { index: c.index, id: c.row.id, status: 'rejected', problem: idConflict(c.row.id) };
    } else if (twin) {
      if (twin.row.content_hash === c.row.content_hash) repeats.push(c);
      else results[c.index] = { index: c.index, id: c.row.id, status: 'rejected', problem: idConflict(c.row.id) };
    } else {
      fresh.set(c.row.id, c);
    }
  }

  // Parents and traces: resolved through stored runs or runs of this call, in any order.
  const resolving = new Set<string>();
  const resolveTrace = (c: Candidate): string | Problem => {
    const parentId = c.row.parent_run_id;
    if (!parentId) return c.row.trace_id;
    const parentStored = stored.get(parentId);
    let parentTrace: string | Problem;
    if (parentStored) parentTrace = parentStored.trace_id;
    else {
      const parent = fresh.get(parentId);
      if (!parent)
        return problems.validation([
          { pointer: `${pointerPrefix(c.index)}/parentRunId`, detail: `Run ${parentId} does not exist in this project or in this call.` },
        ]);
      if (resolving.has(parent.row.id)) return problems.validation([{ pointer: `${pointerPrefix(c.index)}/parentRunId`, detail: 'Parent runs form a cycle.' }]);
      resolving.add(c.row.id);
      parentTrace = resolveTrace(parent);
      resolving.delete(c.row.id);
      if (parentTrace instanceof Problem)
        return problems.validation([{ pointer: `${pointerPrefix(c.index)}/parentRunId`, detail: `Parent run ${parentId} was rejected.` }]);
    }
    if (c.explicitTrace && c.row.trace_id !== parentTrace) {
      return problems.validation([{ pointer: `${pointerPrefix(c.index)}/traceId`, detail: `traceId must match the parent's trace (${parentTrace}).` }]);
    }
    return parentTrace;
  };
  const accepted: Candidate[] = [];
  for (const c of fresh.values()) {
    const trace = resolveTrace(c);
    if (trace instanceof Problem) results[c.index] = { index: c.index, id: c.row.id, status: 'rejected', problem: trace };
    else {
      c.row.trace_id = trace;
      accepted.push(c);
    }
  }
  // A run whose parent was rejected above is rejected too (its parent will not exist).
  const acceptedIds = new Set(accepted.map((c) => c.row.id));
  let changed = true;
  while (changed) {
    changed = false;
    for (let i = accepted.length - 1; i >= 0; i--) {
      const c = accepted[i]!;
      const parentId = c.row.parent_run_id;
      if (parentId && !stored.has(parentId) && !acceptedIds.has(parentId)) {
        acceptedIds.delete(c.row.id);
        results[c.index] = {
          index: c.index,
          id: c.row.id,
          status: 'rejected',
          problem: problems.validation([{ pointer: `${pointerPrefix(c.index)}/parentRunId`, detail: `Parent run ${parentId} was rejected.` }]),
        };
        accepted.splice(i, 1);
        changed = true;
      }
    }
  }

  if (accepted.length > 0) await insertAccepted(db, projectId, accepted, results);
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

async function insertAccepted(db: Kysely<Database>, projectId: string, accepted: Candidate[], results: IngestResult[]): Promise<void> {
  for (const c of accepted) c.row.doc = serializeRun(runRecord(c.row, c.body));
  const inserted = await insertRuns(
    db,
    projectId,
    accepted.map((c) => ({ row: c.row, tags: c.body.tags })),
  );
  // Runs another request created concurrently: idempotent when their content matches.
  const raced = accepted.filter((c) => !inserted.has(c.row.id));
  const winners =
    raced.length > 0
      ? await runsByIds(
          db,
          projectId,
          raced.map((c) => c.row.id),
        )
      : new Map<string, RunRow>();
  for (const c of accepted) {
    if (inserted.has(c.row.id)) results[c.index] = { index: c.index, id: c.row.id, status: 'created', row: c.row };
    else {
      const winner = winners.get(c.row.id);
      results[c.index] =
        winner && winner.content_hash === c.row.content_hash
          ? { index: c.index, id: c.row.id, status: 'existing', row: winner }
          : { index: c.index, id: c.row.id, status: 'rejected', problem: idConflict(c.row.id) };
    }
  }
}
