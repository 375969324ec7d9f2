import type { RunRow } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { textDigest } from '../../lib/content-hash.js';
import { canonicalJson } from '../../lib/json.js';
import type { Run } from './runs.schemas.js';

/**
 * The run's wire record as stored in `runs.doc` and sent as it is. `runRecord` builds exactly the
 * response schema's fields in its order, so this is the text the schema's serializer would produce
 * (runs.document.test.ts beside it checks it). Native JSON.stringify rather than fast-json-stringify: as fast
 * on real runs, and it does not build a string piece by piece for free-form inputs, which took a
 * 700,000-key `inputs` object past the heap limit.
 */
export const serializeRun = (run: Run): string => JSON.stringify(run);

/** What a run's record holds beyond its columns. */
export interface RunBody {
  inputs: Run['inputs'];
  outputs: Run['outputs'];
  error: string | null;
  usage: Run['usage'];
  tags: string[];
  metadata: Run['metadata'];
  provider: string | null;
  costSource: Run['costSource'];
  price: Run['price'];
}

type RunColumns = Omit<RunRow, 'doc' | 'metadata' | 'content_hash' | 'trace_pending'>;

export function runRecord(row: RunColumns, body: RunBody): Run {
  return {
    id: row.id,
    projectId: row.project_id,
    traceId: row.trace_id,
    parentRunId: row.parent_run_id,
    name: row.name,
    kind: row.kind as Run['kind'],
    status: row.status as Run['status'],
    startTime: toIso(row.start_time),
    endTime: toIso(row.end_time),
    latencyMs: row.latency_ms,
    inputs: body.inputs,
    outputs: body.outputs,
    error: body.error,
    model: row.model,
    usage: body.usage,
    cost: row.cost,
    tags: body.tags,
    metadata: body.metadata,
    createdAt: toIso(row.created_at),
    // Last, in this order: where the records stored before these fields existed have them too (migrations 006, 011).
    provider: body.provider,
    sessionId: row.session_id,
    userId: row.user_id,
    costSource: body.costSource,
    price: body.price && {
      source: body.price.source,
      id: body.price.id,
      model: body.price.model,
      provider: body.price.provider,
      inputPrice: body.price.inputPrice,
      outputPrice: body.price.outputPrice,
      cacheReadPrice: body.price.cacheReadPrice,
      cacheWritePrice: body.price.cacheWritePrice,
      reasoningPrice: body.price.reasoningPrice,
    },
  };
}

export function toRun(row: Pick<RunRow, 'doc'>): Run {
  return JSON.parse(row.doc) as Run;
}

const CREATED_AT = '"createdAt":"';

/**
 * What a run with a client id is compared by when it is sent again: the digest of its record's text
 * (`serializeRun`, written anyway) less its creation time, the one field a retry always changes. Nothing
 * after `createdAt` in the record can hold the text `"createdAt":"` outside a string (its fields are
 * strings and the price), so the last one is the field's. Records whose digests differ are compared by
 * content, `sameRecord`.
 */
export function recordDigest(doc: string): string {
  const at = doc.lastIndexOf(CREATED_AT);
  const end = doc.indexOf('"', at + CREATED_AT.length) + 1;
  return textDigest(doc.slice(0, at) + doc.slice(end));
}

/**
 * Whether two records of a run (as stored, and as a retry would store it) hold the same content, in any
 * key order: what the client sent as the server keeps it. The server's own additions are left out: the
 * creation time, and a cost it priced (its prices may have changed between the two).
 */
export function sameRecord(stored: string, doc: string): boolean {
  return comparable(stored) === comparable(doc);
}

function comparable(doc: string): string {
  const { createdAt: _created, cost, price, ...rest } = toRun({ doc });
  return canonicalJson(rest.costSource === 'computed' ? rest : { ...rest, cost, price });
}
