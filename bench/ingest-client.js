// Sending runs the three ways in (the batch API, OTLP/HTTP protobuf, OTLP/gRPC) as the benches do: prebuilt
// request bodies, `concurrency` requests in flight, every answer checked (status, every run created, no
// partial success), and a request the server sheds (HTTP 503 with Retry-After; gRPC UNAVAILABLE or
// RESOURCE_EXHAUSTED with RetryInfo) sent again after the delay it names, as exporters and the SDK do,
// counted. The OTLP codec and span mapping are the built server's own (dist/features/otlp).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import Database from 'better-sqlite3';
import pg from 'pg';

export const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
const MAX_RETRIES = 20;
/** The longest wait a server's Retry-After is honoured for (a longer one is a fault to report, not to sit out). */
const MAX_WAIT_S = 30;
const OK_STATUSES = new Set([200, 201, 207]);

/** The built server's OTLP codec and span mapping, from the tree at `tree`. */
export async function otlpCodec(tree) {
  const built = (path) => import(pathToFileURL(join(tree, 'dist/features/otlp', path)).href);
  if (!existsSync(join(tree, 'dist/features/otlp/otlp.decode.js'))) throw new Error(`${tree}/dist is missing: run \`npm run build\` first`);
  const { decodeOtlpResponse, encodeOtlpRequest, readOtlpProtobuf } = await built('otlp.decode.js');
  const { inheritedOf, mapSpan, resourceOf } = await built('otlp.map.js');
  const { runInputOf } = await built('otlp.ingest.js');
  return { decodeOtlpResponse, encodeOtlpRequest, readOtlpProtobuf, inheritedOf, mapSpan, resourceOf, runInputOf };
}

/** The runs the server hands to ingestion for one encoded OTLP request: what the batch API is sent to store the same runs. */
export async function runsOf(codec, bytes) {
  const runs = [];
  for (const resource of (await codec.readOtlpProtobuf(bytes)).resources) {
    const inherited = resource.scopes.map((scope) => codec.inheritedOf(codec.resourceOf(resource.attributes), scope));
    for (const ref of resource.spans) {
      const mapped = codec.mapSpan(resource.span(ref), inherited[ref.scope]);
      if ('rejected' in mapped) throw new Error(`the generator made a span the server rejects: ${mapped.rejected}`);
      runs.push(codec.runInputOf(mapped));
    }
  }
  return runs;
}

/** `google.rpc.RetryInfo { retry_delay: Duration { seconds } }` as the server writes it: the seconds, or null. */
function retryInfoSeconds(bytes) {
  if (!bytes || bytes.length < 2 || bytes[0] !== 0x0a) return null;
  const inner = bytes.subarray(2, 2 + bytes[1]);
  if (inner[0] !== 0x08) return null;
  let seconds = 0;
  for (let i = 1, shift = 1; i < inner.length; i++, shift *= 128) {
    seconds += (inner[i] & 0x7f) * shift;
    if (inner[i] < 0x80) return seconds;
  }
  return null;
}

function grpcExport(client, message, token) {
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return new Promise((resolve) => {
    let answer = { error: null, response: null };
    const call = client.makeUnaryRequest(
      EXPORT_PATH,
      (b) => b,
      (b) => b,
      message,
      metadata,
      { deadline: Date.now() + 120_000 },
      (error, response) => (answer = { error: error ?? null, response: response ?? null }),
    );
    call.on('status', (status) => resolve({ ...answer, trailers: status.metadata }));
  });
}

/** One attempt: `{ retryAfterS }` when the server shed it, else the checked answer (throws on anything but success). */
async function attempt(target, way, body, client) {
  const { base, token, projectId, codec } = target;
  if (way === 'grpc') {
    const { error, response, trailers } = await grpcExport(client, body, token);
    if (error && (error.code === grpc.status.UNAVAILABLE || error.code === grpc.status.RESOURCE_EXHAUSTED)) {
      const seconds = retryInfoSeconds(trailers?.get('google.rpc.retryinfo-bin')?.[0]);
      if (seconds !== null) return { retryAfterS: seconds };
    }
    if (error) throw new Error(`OTLP/gRPC export failed: ${error.code} ${error.details}`);
    const { partialSuccess } = codec.decodeOtlpResponse(response);
    if (partialSuccess) throw new Error(`OTLP/gRPC export partly refused: ${JSON.stringify(partialSuccess)}`);
    return {};
  }
  const otlp = way === 'otlp';
  const res = await fetch(otlp ? `${base}/v1/traces` : `${base}/v1/projects/${projectId}/runs/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': otlp ? 'application/x-protobuf' : 'application/json' },
    body,
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.status === 503 && res.headers.has('retry-after')) return { retryAfterS: Number(res.headers.get('retry-after')) };
  if (!OK_STATUSES.has(res.status)) throw new Error(`${way}: answered ${res.status}: ${bytes.toString('utf8').slice(0, 1000)}`);
  if (otlp) {
    const { partialSuccess } = codec.decodeOtlpResponse(bytes);
    if (partialSuccess) throw new Error(`OTLP/HTTP export partly refused: ${JSON.stringify(partialSuccess)}`);
    return {};
  }
  const refused = JSON.parse(bytes.toString('utf8')).results.filter((r) => r.status !== 'created');
  if (refused.length > 0) throw new Error(`batch: ${refused.length} runs not created; first: ${JSON.stringify(refused[0])}`);
  return {};
}

/**
 * Sends `bodies` one way (`batch`: JSON to POST …/runs/batch; `otlp`: protobuf to POST /v1/traces; `grpc`: the
 * same protobuf to the gRPC Export method), `concurrency` at a time; `target`: `{ base, token, projectId,
 * grpcPort, codec }`. Returns the seconds taken, each request's latency (retries included) and the retries.
 */
export async function drive(target, way, bodies, concurrency) {
  const client = way === 'grpc' ? new grpc.Client(`127.0.0.1:${target.grpcPort}`, grpc.credentials.createInsecure()) : null;
  const latencies = [];
  const retries = { count: 0, waitedS: 0 };
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const t0 = performance.now();
      for (let n = 0; ; n++) {
        const { retryAfterS } = await attempt(target, way, body, client);
        if (retryAfterS === undefined) break;
        if (n === MAX_RETRIES || !(retryAfterS >= 0 && retryAfterS <= MAX_WAIT_S))
          throw new Error(`${way}: shed ${n + 1} times in a row (last Retry-After ${retryAfterS} s)`);
        retries.count++;
        retries.waitedS += retryAfterS;
        await sleep(retryAfterS * 1000);
      }
      latencies.push(performance.now() - t0);
    }
  };
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, bodies.length) }, worker));
  } finally {
    client?.close();
  }
  return { elapsedS: (performance.now() - started) / 1000, latencies, retries };
}

/** How many runs the project holds, how many still wait for a trace, and the stored records of some. */
export async function storedRuns(engine, databaseUrl, projectId, sampleIds) {
  const sql = (p) => `select count(*) as n, coalesce(sum(trace_pending), 0) as pending from runs where project_id = ${p}`;
  if (engine === 'sqlite') {
    const db = new Database(databaseUrl.slice('sqlite:'.length), { readonly: true, fileMustExist: true });
    try {
      const { n, pending } = db.prepare(sql('?')).get(projectId);
      const docs =
        sampleIds.length === 0
          ? []
          : db.prepare(`select id, doc from runs where project_id = ? and id in (${sampleIds.map(() => '?').join(',')})`).all(projectId, ...sampleIds);
      return { count: Number(n), pending: Number(pending), docs: new Map(docs.map((r) => [r.id, r.doc])) };
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { n, pending } = (await client.query(sql('$1'), [projectId])).rows[0];
    const docs = (await client.query('select id, doc from runs where project_id = $1 and id = any($2)', [projectId, sampleIds])).rows;
    return { count: Number(n), pending: Number(pending), docs: new Map(docs.map((r) => [r.id, r.doc])) };
  } finally {
    await client.end();
  }
}
