import fastJson from 'fast-json-stringify';
import type { RunRow } from '../../db/schema.js';
import { RunSchema, type Run } from './runs.schemas.js';

/** The run's wire record, serialized by the response schema itself (stored in `runs.doc`). */
export const serializeRun = fastJson(RunSchema as never) as (run: Run) => string;

/** What a run's record holds beyond its columns. */
export interface RunBody {
  inputs: Run['inputs'];
  outputs: Run['outputs'];
  error: string | null;
  usage: Run['usage'];
  tags: string[];
  metadata: Run['metadata'];
}

type RunColumns = Omit<RunRow, 'doc' | 'metadata' | 'content_hash'>;

export function runRecord(row: RunColumns, body: RunBody): Run {
  return {
    id: row.id,
    projectId: row.project_id,
    traceId: row.trace_id,
    parentRunId: row.parent_run_id,
    name: row.name,
    kind: row.kind as Run['kind'],
    status: row.status as Run['status'],
    startTime: new Date(row.start_time).toISOString(),
    endTime: row.end_time === null ? null : new Date(row.end_time).toISOString(),
    latencyMs: row.latency_ms,
    inputs: body.inputs,
    outputs: body.outputs,
    error: body.error,
    model: row.model,
    usage: body.usage,
    cost: row.cost,
    tags: body.tags,
    metadata: body.metadata,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export function toRun(row: Pick<RunRow, 'doc'>): Run {
  return JSON.parse(row.doc) as Run;
}
