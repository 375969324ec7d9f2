// Ingestion against its limit (issue 26, target 1): the same runs (agent traces as an OpenTelemetry GenAI
// instrumentation exports them: client ids, traces, parents, ~1 KB each) sent the three ways in, each
// measurement on a fresh server and database; and the limit, the rows the batch API's ingestion wrote,
// written again by the storage engine alone (bench/limit-writer.js), pinned to the server's core.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { apiRetrying, cpuMsNow, fmtInt, fmtMb, log, outputOf, percentile, root, SERVER_CPU, spawnTracked, state, stopServer } from './harness.js';
import { snapshot } from './db-tables.js';
import { drive, runsOf, storedRuns } from './ingest-client.js';
import { OtlpTraceGenerator } from './otlp-gen.js';
import { copyOf, startTree, templateOf } from './trees.js';

export const PROJECT = 'bench-ratios';
const WARMUP_PROJECT = 'bench-ratios-warmup';
/** A word the corpus does not have, planted in some runs: what the `q` read searches for. */
export const WORD = 'zyzzyva';

/** The ways in; `unit` is what the rate counts. */
export const WAYS = [
  { key: 'batch', label: 'batch API', unit: 'runs' },
  { key: 'otlp', label: 'OTLP/HTTP protobuf', unit: 'spans' },
  { key: 'grpc', label: 'OTLP/gRPC', unit: 'spans' },
];

/**
 * The requests, encoded before any server starts: `requests` of `batch` spans each as protobuf (OTLP/HTTP and
 * gRPC alike) and as the batch API's JSON of the runs the server maps them to; the warm-up's the same way
 * into another project; a trace of `bigTrace` runs as one batch; ids of a sample of runs to compare.
 */
export async function buildPayloads(codec, cfg) {
  const encode = async (generator, count) => {
    const out = { otlp: [], batch: [], sampleIds: [] };
    for (let i = 0; i < count; i++) {
      const bytes = Buffer.from(codec.encodeOtlpRequest(generator.request(cfg.batch)));
      const runs = await runsOf(codec, bytes);
      out.otlp.push(bytes);
      out.batch.push(Buffer.from(JSON.stringify({ runs })));
      for (let j = 0; j < runs.length; j += 97) out.sampleIds.push(runs[j].id);
    }
    out.grpc = out.otlp;
    return out;
  };
  const plant = { word: WORD, rate: cfg.plantRate };
  const measured = await encode(new OtlpTraceGenerator({ seed: 20261128, service: PROJECT, plant }), cfg.runs / cfg.batch);
  const warmup = await encode(new OtlpTraceGenerator({ seed: 7, service: WARMUP_PROJECT }), cfg.warmupRequests);
  const big = new OtlpTraceGenerator({ seed: 1000, service: PROJECT });
  const bigRuns = await runsOf(codec, Buffer.from(codec.encodeOtlpRequest(big.requestOf(big.trace(cfg.bigTrace)))));
  const bigTrace = { body: Buffer.from(JSON.stringify({ runs: bigRuns })), traceId: bigRuns[0].traceId, runs: bigRuns.length };
  const avg = (list) => list.reduce((n, b) => n + b.length, 0) / list.length;
  return { measured, warmup, bigTrace, word: WORD, sizes: { otlp: avg(measured.otlp), batch: avg(measured.batch) } };
}

/**
 * One measurement: `tree`'s server on a fresh database, the warm-up into its own project, then every request
 * of `way` timed, the stored runs checked. `snapshotFile`: where to write the database as it was just before
 * the measured requests (for the limit). `then(databaseUrl)`: run once the server has stopped (or, with `keep`,
 * while it idles), before the database goes: what it answers is returned as `after`. `keep`: leave the server
 * running and the database in place (the reads use them). `profileDir`: run the server with --cpu-prof (the
 * profile is written when it stops).
 */
export async function ingestOnce({ tree, engine, way, round, data, cfg, snapshotFile = null, then = null, keep = false, profileDir = null }) {
  const name = `${tree.key}-${engine}-${way}-r${round}`;
  const template = await templateOf(tree, engine);
  const database = await copyOf(template, name);
  const token = template.token;
  let started = null;
  try {
    started = await startTree(tree, name, database.url, { profileDir });
    const { server, grpcPort } = started;
    const project = (await apiRetrying(server, token, 'POST', '/v1/projects', { name: PROJECT })).json;
    const warm = (await apiRetrying(server, token, 'POST', '/v1/projects', { name: WARMUP_PROJECT })).json;
    const target = { base: server.base, token, grpcPort, codec: data.codec };
    const warmup = await drive({ ...target, projectId: warm.id }, way, data.warmup[way], cfg.concurrency);
    if (snapshotFile) writeFileSync(snapshotFile, JSON.stringify(await snapshot(database.url)));
    const cpu0 = cpuMsNow(server.pid);
    // On the monotonic clock the server's CPU profile is timed by (µs), to keep the measured requests' samples.
    const window = { fromUs: Number(process.hrtime.bigint() / 1000n) };
    const measured = await drive({ ...target, projectId: project.id }, way, data.measured[way], cfg.concurrency);
    window.toUs = Number(process.hrtime.bigint() / 1000n);
    const serverCpuMs = cpuMsNow(server.pid) - cpu0;
    server.rss.mark(`ingest ${way}`);
    const check = await storedRuns(engine, database.url, project.id, data.measured.sampleIds);
    if (check.count !== cfg.runs) throw new Error(`${name}: the project holds ${check.count} runs, ${cfg.runs} were sent`);
    if (check.pending !== 0) throw new Error(`${name}: ${check.pending} runs still wait for their trace`);
    if (check.docs.size !== data.measured.sampleIds.length) throw new Error(`${name}: sampled runs missing`);
    const result = {
      tree: tree.key,
      engine,
      way,
      round,
      rate: cfg.runs / measured.elapsedS,
      elapsedS: measured.elapsedS,
      serverCpuMsPer1000: (serverCpuMs / cfg.runs) * 1000,
      requestMs: { p50: percentile(measured.latencies, 50), p99: percentile(measured.latencies, 99) },
      retries: measured.retries.count,
      retriedWaitS: measured.retries.waitedS,
      warmupRetries: warmup.retries.count,
      window,
      docs: check.docs,
    };
    if (!keep) {
      result.peakRssKb = (await stopServer(server)).peakKb;
      started = null;
    }
    const after = then ? await then(database.url) : null;
    return { result, after, reader: keep ? { key: tree.key, tree, server, token, grpcPort, projectId: project.id, database } : null };
  } catch (error) {
    if (started) await stopServer(started.server).catch(() => {});
    started = null;
    throw error;
  } finally {
    if (!keep || !started) await database.drop();
  }
}

/** Logs one measurement. */
export function logIngest(r) {
  log(
    `ingest ${r.engine} round ${r.round} ${r.tree} ${r.way}: ${fmtInt(r.rate)}/s (${r.elapsedS.toFixed(2)} s), server CPU ${fmtInt(r.serverCpuMsPer1000)} ms per 1,000` +
      (r.peakRssKb ? `, peak RSS ${fmtMb(r.peakRssKb)}` : '') +
      (r.retries + r.warmupRetries ? `; shed and retried after Retry-After: ${r.retries} measured, ${r.warmupRetries} warm-up` : ''),
  );
}

/**
 * The limit of one round: the rows in `source` that are not in the snapshot, written into a fresh copy of
 * `tree`'s template database (migrated by its CLI), by bench/limit-writer.js pinned to the server's core.
 */
export async function limitOnce({ tree, engine, round, source, snapshotFile, cfg }) {
  const name = `limit-${engine}-r${round}`;
  const target = await copyOf(await templateOf(tree, engine), name);
  try {
    const argsFile = join(state.tmp, `${name}.json`);
    writeFileSync(argsFile, JSON.stringify({ source, target: target.url, snapshotFile, tree: tree.root, runsPerTransaction: cfg.batch, checkWord: WORD }));
    const t0 = performance.now();
    const child = spawnTracked('taskset', ['-c', SERVER_CPU, process.execPath, join(root, 'bench/limit-writer.js'), argsFile], { stdout: 'pipe' });
    const { code, out, err } = await outputOf(child);
    if (code !== 0) throw new Error(`the limit writer failed (code ${code}):\n${err.slice(-3000)}`);
    const r = JSON.parse(out.trim().split('\n').pop());
    if (r.runs !== cfg.runs) throw new Error(`the limit wrote ${r.runs} runs, the server stored ${cfg.runs}`);
    log(
      `limit ${engine} round ${round}: ${fmtInt(r.runs / r.seconds)} runs/s (${r.seconds.toFixed(2)} s for ${fmtInt(r.rowsTotal)} rows in ${r.transactions} transactions: ` +
        `${Object.entries(r.rows)
          .map(([t, n]) => `${t} ${fmtInt(n)}`)
          .join(', ')}; ${((performance.now() - t0) / 1000).toFixed(1)} s in all)`,
    );
    return { engine, round, rate: r.runs / r.seconds, ...r };
  } finally {
    await target.drop();
  }
}

/** A directory for CPU profiles: BENCH_CPU_PROF_DIR, or one in the temporary directory. */
export function profileDirectory(cfg) {
  const dir = cfg.cpuProfDir ?? join(state.tmp, 'profiles');
  mkdirSync(dir, { recursive: true });
  return dir;
}
