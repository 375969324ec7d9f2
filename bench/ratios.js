#!/usr/bin/env node
// Sightline against the physical limits (issue 26): every target as a ratio measured in one run, with the
// server pinned to core 0 (taskset) and the load generator on core 1, medians of interleaved rounds.
//   1. Ingestion (100,000 runs of ~1 KB with client ids, traces and parents, 1,000 a request, 2 in flight;
//      bench/ratios-ingest.js) through the batch API and OTLP/HTTP protobuf against the storage engine
//      writing the same rows alone (bench/limit-writer.js): ≥ 0.5; OTLP/HTTP and OTLP/gRPC against the batch
//      API on the same runs: ≥ 0.95; and a CPU profile of the server during SQLite batch ingestion.
//   2. Reads at 50 connections against a bare Fastify route serving the same bytes (bench/ratios-reads.js):
//      runs page 1, the traces list, a trace of 1,000 runs ≥ 0.5; depth 10,000 ≥ 0.95 × page 1; a `q` search
//      ≥ 0.2 with p99 ≤ 100 ms.
//   3. Start to /healthz ≤ 1.5 s, idle RSS ≤ 120 MB (bench/ratios-start.js).
//   4. Peak RSS ≤ 200 MB through ingestion and reads, on each engine.
//   5. The same jobs on an earlier commit built beside this tree (BENCH_BASE), in the same rounds: "vs base".
// ("Every read over 1,000,000 runs ≤ 100 ms" is bench/million.js: `npm run bench:million`.)
//
//   npm run bench              (builds dist/ first when needed; ~45 min)
//   npm run bench:quick        (BENCH_QUICK=1: 15,000 runs, 1 ingestion round, 2 read rounds of 1 s; ~5 min)
//
// Knobs (env): BENCH_QUICK=1; BENCH_RUNS (100000; quick 15000; a multiple of 1,000); BENCH_ROUNDS of ingestion
// (3; quick 1); BENCH_READ_ROUNDS (3; quick 2);
// BENCH_SECONDS per read measurement (5; quick 1); BENCH_WARMUP_SECONDS per read before round 1 (1);
// BENCH_WARMUP_REQUESTS per ingestion measurement, into another project (3; quick 1); BENCH_ENGINES
// (sqlite,pg); BENCH_BASE (2ef54e2; `none`: no base); BENCH_ONLY (ingest,reads,start: the phases to run;
// reads without ingest still ingest once, unmeasured, to have something to read); BENCH_STARTS (3);
// BENCH_IDLE_SECONDS (30); BENCH_INGEST_CONCURRENCY (2); BENCH_PROFILE=0 (no CPU profile); BENCH_PROFILE_WAY (batch; otlp or grpc: the way in
// the profiled ingestion takes); BENCH_PROFILE_ENGINE (sqlite; pg: the engine it runs on);
// BENCH_CPU_PROF_DIR (keep the profile there); BENCH_PG_URL; BENCH_LOG_LEVEL.
import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchConfig, enginesFrom, envInt, fmtMb, log, pinSelf, root, runBench, state, stopServer, writeResults } from './harness.js';
import { summarizeProfile } from './cpu-profile.js';
import { drive, otlpCodec } from './ingest-client.js';
import { buildPayloads, ingestOnce, limitOnce, logIngest, profileDirectory, WAYS } from './ratios-ingest.js';
import { prepareReader, readRounds } from './ratios-reads.js';
import { report } from './ratios-report.js';
import { startPhase } from './ratios-start.js';
import { baseTree, currentTree } from './trees.js';

const quick = process.env.BENCH_QUICK === '1';
const PHASES = ['ingest', 'reads', 'start'];
const only = new Set((process.env.BENCH_ONLY || PHASES.join(',')).split(',').filter(Boolean));
if ([...only].some((p) => !PHASES.includes(p))) throw new Error(`BENCH_ONLY must list phases among ${PHASES.join(', ')}`);
// The base is built with this tree's node_modules: it must need no package this tree no longer has
// (d296969, the issue's "four days ago", needed @fastify/helmet, since replaced by lib/security-headers.ts).
const base = process.env.BENCH_BASE ?? '2ef54e2';

const cfg = benchConfig({
  quick,
  runs: envInt('BENCH_RUNS', quick ? 15_000 : 100_000, 1000),
  batch: 1000,
  concurrency: envInt('BENCH_INGEST_CONCURRENCY', 2, 1),
  rounds: envInt('BENCH_ROUNDS', quick ? 1 : 3, 1),
  readRounds: envInt('BENCH_READ_ROUNDS', quick ? 2 : 3, 1),
  seconds: envInt('BENCH_SECONDS', quick ? 1 : 5, 1),
  readWarmupSeconds: envInt('BENCH_WARMUP_SECONDS', 1, 0),
  warmupRequests: envInt('BENCH_WARMUP_REQUESTS', quick ? 1 : 3, 1),
  connections: 50,
  depth: 10_000,
  bigTrace: 1000,
  // Runs whose input has the searched word: 0.5% (500 of 100,000), a search that finds some runs, not most.
  plantRate: 0.005,
  starts: envInt('BENCH_STARTS', 3, 1),
  idleSeconds: envInt('BENCH_IDLE_SECONDS', 30, 2),
  engines: enginesFrom('BENCH_ENGINES'),
  base: base === '' || base === 'none' ? null : base,
  only: [...only],
  profile: process.env.BENCH_PROFILE !== '0',
  profileWay: process.env.BENCH_PROFILE_WAY || 'batch',
  profileEngine: process.env.BENCH_PROFILE_ENGINE || 'sqlite',
});
cfg.cpuProfDir = process.env.BENCH_CPU_PROF_DIR || null;
if (cfg.runs % cfg.batch !== 0) throw new Error('BENCH_RUNS must be a multiple of 1,000');
if (cfg.runs < cfg.depth + 1000) {
  cfg.depth = Math.floor(cfg.runs / 2 / 100) * 100;
  log(`warning: ${cfg.runs} runs: the depth read goes ${cfg.depth} deep, not 10,000`);
}

/** A result without what only the checks needed. */
const bare = ({ docs: _docs, window: _window, ...rest }) => rest;

/** The stored records of the same runs, sent two ways, must be equal but for project and creation time. */
function compareDocs(a, b) {
  const strip = (doc) => {
    const { projectId: _project, createdAt: _created, ...rest } = JSON.parse(doc);
    return JSON.stringify(rest);
  };
  for (const [id, doc] of a.docs) {
    if (strip(doc) !== strip(b.docs.get(id) ?? '{}')) throw new Error(`run ${id} is stored differently by ${a.way} and ${b.way} (${a.tree}, ${a.engine})`);
  }
}

/** The ingestion rounds of one engine; returns the servers kept for the reads (last round's batch, each build). */
async function ingestPhase(engine, trees, data, results) {
  const measuring = only.has('ingest');
  const rounds = measuring ? cfg.rounds : 1;
  const ways = measuring ? WAYS.map((w) => w.key) : ['batch'];
  const readers = [];
  for (let round = 1; round <= rounds; round++) {
    const stored = [];
    for (const way of ways.map((_, i) => ways[(i + round - 1) % ways.length])) {
      for (const tree of round % 2 === 1 ? trees : [...trees].reverse()) {
        // Without measured ingestion, the one batch ingestion is the readers'; with it, the readers ingest
        // after the rounds (below): a server kept idle here did its after-ingestion work (the WAL's
        // checkpoint, above all) on the servers' core while the round's other ways were measured.
        const keep = !measuring && only.has('reads');
        const limit = measuring && tree.key === 'current' && way === 'batch';
        const snapshotFile = limit ? join(state.tmp, `snapshot-${engine}-${round}.json`) : null;
        const then = limit ? (source) => limitOnce({ tree, engine, round, source, snapshotFile, cfg }) : null;
        const { result, after, reader } = await ingestOnce({ tree, engine, way, round, data, cfg, snapshotFile, then, keep });
        logIngest(result);
        stored.push(result);
        if (measuring) results.ingest.push(bare(result));
        if (after) results.limits.push(after);
        if (reader) readers.push(reader);
        if (result.peakRssKb) notePeak(results, engine, tree.key, result.peakRssKb);
      }
    }
    for (const r of stored.filter((s) => s.way !== 'batch'))
      compareDocs(
        r,
        stored.find((s) => s.way === 'batch' && s.tree === r.tree),
      );
  }
  if (measuring && cfg.profile && engine === cfg.profileEngine) await profileRun(trees[0], engine, data, results);
  if (measuring && only.has('reads'))
    for (const tree of trees) {
      const { result, reader } = await ingestOnce({ tree, engine, way: 'batch', round: 'readers', data, cfg, keep: true });
      logIngest(result);
      readers.push(reader);
    }
  return readers.sort((a, b) => (a.key === 'current' ? -1 : b.key === 'current' ? 1 : 0));
}

function notePeak(results, engine, tree, kb) {
  results.peakRss[engine] ??= {};
  results.peakRss[engine][tree] = Math.max(results.peakRss[engine][tree] ?? 0, kb);
}

/** One more ingestion on `engine` (the batch API, or BENCH_PROFILE_WAY), unmeasured, with the server under --cpu-prof: where its time goes. */
async function profileRun(tree, engine, data, results) {
  const dir = profileDirectory(cfg);
  const way = cfg.profileWay;
  const { result } = await ingestOnce({ tree, engine, way, round: 'profile', data, cfg, profileDir: dir });
  const file = readdirSync(dir).find((f) => f.startsWith(`${tree.key}-${engine}-${way}-rprofile`));
  if (!file) throw new Error(`no CPU profile in ${dir}`);
  results.profile = {
    engine: engine === 'sqlite' ? 'SQLite' : 'PostgreSQL',
    note: `${cfg.runs.toLocaleString('en-US')} runs through ${way === 'batch' ? 'the batch API' : way === 'otlp' ? 'OTLP/HTTP protobuf' : 'OTLP/gRPC'} at ${Math.round(result.rate).toLocaleString('en-US')} runs/s under the profiler; ${cfg.cpuProfDir ? `kept in ${join(dir, file)}` : 'not kept'}`,
    summary: summarizeProfile(join(dir, file), result.window),
  };
  log(
    `CPU profile: ${results.profile.summary.packages
      .slice(0, 5)
      .map((p) => `${p.name} ${(p.share * 100).toFixed(0)}%`)
      .join(', ')}`,
  );
}

async function readsPhase(engine, readers, data, results) {
  for (const reader of readers) {
    const sendBatch = (r, bodies) => drive({ base: r.server.base, token: r.token, projectId: r.projectId, codec: data.codec }, 'batch', bodies, 1);
    reader.captures = await prepareReader(`${engine}-${reader.key}`, reader, data, cfg, sendBatch);
    results.captures.push({ engine, tree: reader.key, captures: reader.captures });
  }
  results.reads.push(...(await readRounds(engine, readers, cfg)));
}

async function main() {
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  pinSelf();
  state.tmp = mkdtempSync(join(os.tmpdir(), 'sightline-bench-ratios-'));
  log(`config: ${JSON.stringify({ ...cfg, pgUrl: undefined })}`);
  const trees = [await currentTree()];
  if (cfg.base) trees.push(await baseTree(cfg.base));
  // Start first, on a quiet core; the last servers' idle minutes overlap what follows.
  const start = only.has('start') ? await startPhase(trees, cfg) : null;
  const codec = await otlpCodec(root);
  const data = only.has('ingest') || only.has('reads') ? { ...(await buildPayloads(codec, cfg)), codec } : { sizes: {} };
  if (data.codec) {
    const kib = (bytes) => Math.round(bytes / 1024);
    log(`payloads: ${cfg.runs / cfg.batch} requests of ${cfg.batch}: protobuf ~${kib(data.sizes.otlp)} KiB, batch JSON ~${kib(data.sizes.batch)} KiB each`);
  }
  const results = { ingest: [], limits: [], reads: [], captures: [], peakRss: {}, start: null, profile: null };
  for (const engine of data.codec ? cfg.engines : []) {
    const readers = await ingestPhase(engine, trees, data, results);
    try {
      if (only.has('reads')) await readsPhase(engine, readers, data, results);
    } finally {
      for (const reader of readers) {
        const rss = await stopServer(reader.server);
        notePeak(results, engine, reader.key, rss.peakKb);
        log(`${engine} ${reader.key}: reads done; peak RSS of the server that ingested and served them ${fmtMb(rss.peakKb)}`);
        await reader.database.drop();
      }
    }
  }
  if (start) results.start = await start.idle;
  const meta = { startedAt, seconds: (performance.now() - t0) / 1000, sizes: data.sizes };
  const { table, markdown, json } = report(cfg, trees, results, meta);
  writeResults(`ratios${cfg.quick ? '-quick' : ''}-latest.md`, markdown, table, json);
  log(`done in ${Math.round(meta.seconds)} s`);
}

await runBench(main);
