#!/usr/bin/env node
// Sightline at a million runs: ingestion through the real API (SQLite, then PostgreSQL), list reads
// against a bare-Fastify baseline, and the metrics, with the server pinned to core 0 and the load
// generator to core 1. What measures "every read over 1,000,000 runs ≤ 100 ms" (issue 26, target 5);
// the ratios against the physical limits are `npm run bench` (bench/ratios.js).
//
//   npm run bench:million                (builds dist/ first when needed)
//   BENCH_RUNS=20000 BENCH_PG_RUNS=5000 BENCH_SECONDS=2 BENCH_ROUNDS=1 npm run bench:million
//
// Knobs (env):
//   BENCH_RUNS               runs seeded on SQLite (default 1000000)
//   BENCH_PG_RUNS            runs ingested on PostgreSQL (default 1000000)
//   BENCH_METRICS_SAMPLES    sequential requests per metrics measurement (default 21), after 3 unrecorded
//   BENCH_SKIP_PG=1          skip the PostgreSQL ingestion
//   BENCH_BACKFILL_RUNS      runs ingested afterwards in random start-time order into a second SQLite project
//                            (default 100000; 0 = skip). Seeding itself replays 30 days in arrival order.
//   BENCH_SYNC_RUNS          runs ingested into a fresh SQLite database with SIGHTLINE_SQLITE_SYNCHRONOUS=NORMAL and
//                            again with FULL, BENCH_ROUNDS times in alternating order (default 100000; 0 = skip):
//                            what fsyncing every commit costs (reported as the FULL/NORMAL throughput ratio)
//   BENCH_ONLY               comma-separated phases to run: sqlite (seeding, reads, metrics, backfill), sync, pg
//                            (default all of them); e.g. BENCH_ONLY=sync BENCH_SYNC_RUNS=100000 for the durability cost alone
//   BENCH_SECONDS            seconds per autocannon measurement (default 5)
//   BENCH_ROUNDS             interleaved rounds (default 3)
//   BENCH_WARMUP_SECONDS     one unrecorded warm-up per scenario before round 1 (default 2; 0 = none)
//   BENCH_INGEST_CONCURRENCY batch requests in flight while seeding (default 2: one being processed by the
//                            single-threaded server, the next already uploaded and waiting)
//   BENCH_PG_URL             admin URL of the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/test);
//                            the bench creates and drops its own database next to it
//   BENCH_CPU_PROF_DIR       when set, the real servers run with --cpu-prof and write their profiles there
//   BENCH_LOG_LEVEL          the servers' LOG_LEVEL (default warn)
//
// Processes: the real server and the bare baseline both run pinned to core 0 for the whole read phase;
// only one of them is under load at any moment (scenarios are measured one after the other, and an idle
// Node process uses no CPU), which lets the rounds interleave (a),(b),(c) without restarting anything.
// autocannon runs as a child pinned to core 1; this orchestrator pins itself to core 1 as well, so the
// payload generation of the seeding never competes with the server.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import pg from 'pg';
import {
  api,
  cannon,
  CLIENT_CPU,
  configureBench,
  createPgDatabase,
  dropPgDatabase,
  envInt,
  fmtBytes,
  fmtInt,
  fmtMb,
  fmtMs,
  fmtRatio,
  freePort,
  log,
  median,
  percentile,
  pinSelf,
  readRssNow,
  runBench,
  root,
  SERVER_CPU,
  startPinned,
  startWithToken,
  state,
  stopServer,
  writeResults,
} from './harness.js';
import { RunGenerator } from './runs-gen.js';

const PHASES = ['sqlite', 'sync', 'pg'];

function phases(raw) {
  if (raw === undefined || raw.trim() === '') return PHASES;
  const list = raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const unknown = list.filter((p) => !PHASES.includes(p));
  if (unknown.length > 0 || list.length === 0) throw new Error(`BENCH_ONLY must list phases among ${PHASES.join(', ')} (got ${JSON.stringify(raw)})`);
  return list;
}

const cfg = {
  runs: envInt('BENCH_RUNS', 1_000_000, 1),
  pgRuns: envInt('BENCH_PG_RUNS', 1_000_000, 1),
  metricsSamples: envInt('BENCH_METRICS_SAMPLES', 21, 1),
  skipPg: process.env.BENCH_SKIP_PG === '1',
  backfillRuns: envInt('BENCH_BACKFILL_RUNS', 100_000, 0),
  syncRuns: envInt('BENCH_SYNC_RUNS', 100_000, 0),
  only: phases(process.env.BENCH_ONLY),
  seconds: envInt('BENCH_SECONDS', 5, 1),
  rounds: envInt('BENCH_ROUNDS', 3, 1),
  warmupSeconds: envInt('BENCH_WARMUP_SECONDS', 2, 0),
  ingestConcurrency: envInt('BENCH_INGEST_CONCURRENCY', 2, 1),
  pgUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test',
  cpuProfDir: process.env.BENCH_CPU_PROF_DIR || null,
  logLevel: process.env.BENCH_LOG_LEVEL || 'warn',
  batchSize: 1000,
  pageSize: 25,
  depth: 10_000,
  walkLimit: 100,
  connections: [1, 50],
};

configureBench(cfg);

const TARGETS = {
  readRatio: 0.2, // (b)/(a) at 50 connections
  depthRatio: 0.85, // (c)/(b)
  sqliteRunsPerSec: 30_000,
  pgRunsPerSec: 15_000,
  peakRssMb: 200,
  metricsMedianMs: 100, // runs metrics (last 24 h, hourly) and monitor metrics (last 24 windows), each
};

// ---------------------------------------------------------------------------------------------
// Ingestion: BENCH_RUNS runs, 1,000 per POST …/runs/batch, `concurrency` requests in flight.

async function ingest(label, server, token, projectId, total, now, order = 'chronological') {
  const generator = new RunGenerator({ seed: 20261122, now, total, order });
  const path = `/v1/projects/${projectId}/runs/batch`;
  const batches = Math.ceil(total / cfg.batchSize);
  const latencies = [];
  let next = 0;
  let created = 0;
  let generateMs = 0;
  let bodyBytes = 0;
  let firstRejection = null;
  let rejected = 0;
  const started = performance.now();
  let lastReport = started;
  let lastCreated = 0;
  const timeline = []; // every ~5 s: shows whether ingestion slows down as the tables grow

  const worker = async () => {
    while (next < batches) {
      const index = next++;
      const size = Math.min(cfg.batchSize, total - index * cfg.batchSize);
      const g0 = performance.now();
      const body = JSON.stringify({ runs: generator.batch(size) });
      generateMs += performance.now() - g0;
      bodyBytes += Buffer.byteLength(body);
      const r0 = performance.now();
      const { json } = await api(server, token, 'POST', path, body);
      latencies.push(performance.now() - r0);
      for (const result of json.results) {
        if (result.status === 'created') created++;
        else {
          rejected++;
          firstRejection ??= result;
        }
      }
      const now = performance.now();
      if (now - lastReport >= 5000) {
        const point = {
          elapsedS: (now - started) / 1000,
          runs: created,
          intervalRunsPerSec: (created - lastCreated) / ((now - lastReport) / 1000),
          rssKb: readRssNow(server.pid),
        };
        timeline.push(point);
        lastReport = now;
        lastCreated = created;
        log(
          `${label}: ${fmtInt(created)}/${fmtInt(total)} runs, ${fmtInt(point.intervalRunsPerSec)} runs/s over the last interval, ${fmtInt(created / point.elapsedS)} runs/s overall, server RSS ${fmtMb(point.rssKb)}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(cfg.ingestConcurrency, batches) }, worker));
  const elapsedS = (performance.now() - started) / 1000;
  if (rejected > 0) throw new Error(`${label}: ${rejected} runs were rejected; first: ${JSON.stringify(firstRejection)}`);
  return {
    runs: created,
    batches,
    batchSize: cfg.batchSize,
    concurrency: Math.min(cfg.ingestConcurrency, batches),
    elapsedS,
    runsPerSec: created / elapsedS,
    batchMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies) },
    clientGenerateMsPerBatch: generateMs / batches,
    avgBodyBytes: Math.round(bodyBytes / batches),
    timeline,
  };
}

// ---------------------------------------------------------------------------------------------
// Load generation: autocannon in a child pinned to the client core.

const measure = (url, connections, seconds, headers) => cannon({ url, connections, seconds, headers });

// ---------------------------------------------------------------------------------------------
// Phases

// ---------------------------------------------------------------------------------------------
// Metrics at a million runs: GET …/runs/metrics for the last 24 hours in hourly buckets, and a monitor's
// GET …/metrics over its last 24 windows (1 h), as sequential requests (one client, like a dashboard),
// with GET /v1/me measured the same way as the baseline (authentication and HTTP, no aggregation).

async function timeRequests(server, token, path) {
  for (let i = 0; i < 3; i++) await api(server, token, 'GET', path);
  const samples = [];
  for (let i = 0; i < cfg.metricsSamples; i++) {
    const t0 = performance.now();
    await api(server, token, 'GET', path);
    samples.push(performance.now() - t0);
  }
  return { median: median(samples), p95: percentile(samples, 95), samples: samples.length };
}

/** The aggregation queries as the server sends them (see src/features/runs/runs.aggregate.ts). */
const PLAN_SQL = {
  sqlite:
    'select runs.start_time as t, runs.status as s, runs.latency_ms as l, runs.total_tokens as k, runs.cost as c, null as g from runs where runs.project_id = ? and runs.start_time >= ? and runs.start_time < ?',
  postgres:
    "select (runs.start_time - ((runs.start_time % 3600000) + 3600000) % 3600000) as b, null as g, count(*) as count, count(*) filter (where runs.status = 'failed') as error_count, " +
    'coalesce(sum(runs.total_tokens), 0) as total_tokens, coalesce(sum(runs.cost), 0) as cost, percentile_disc(0.5) within group (order by runs.latency_ms) as p50, ' +
    'percentile_disc(0.95) within group (order by runs.latency_ms) as p95, percentile_disc(0.99) within group (order by runs.latency_ms) as p99 ' +
    'from runs where runs.project_id = $1 and runs.start_time >= $2 and runs.start_time < $3 group by 1, 2',
};

async function metricsPhase(label, server, token, projectId, plan) {
  const monitor = (
    await api(server, token, 'POST', `/v1/projects/${projectId}/monitors`, {
      name: 'p95 latency',
      metric: 'latency_p95',
      window: '1h',
      threshold: { op: '>', value: 5000 },
    })
  ).json;
  const to = Date.now();
  const from = to - 86_400_000;
  const runsPath = `/v1/projects/${projectId}/runs/metrics?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}&bucket=1h`;
  const runsCheck = (await api(server, token, 'GET', runsPath)).json;
  const monitorPath = `/v1/projects/${projectId}/monitors/${monitor.id}/metrics`;
  const monitorCheck = (await api(server, token, 'GET', monitorPath)).json;
  const result = {
    runsInRange: runsCheck.total.count,
    monitorSeries: monitorCheck.series.length,
    monitorRuns: monitorCheck.series.reduce((n, b) => n + b.count, 0),
    baseline: await timeRequests(server, token, '/v1/me'),
    runsMetrics: await timeRequests(server, token, runsPath),
    monitorMetrics: await timeRequests(server, token, monitorPath),
    plan: await plan(projectId, from, to),
  };
  log(
    `${label} metrics: runs/metrics median ${fmtMs(result.runsMetrics.median)} ms over ${fmtInt(result.runsInRange)} runs; monitor metrics median ${fmtMs(result.monitorMetrics.median)} ms over ${fmtInt(result.monitorRuns)} runs; /v1/me ${fmtMs(result.baseline.median)} ms`,
  );
  return result;
}

async function sqlitePhase(results) {
  const dbPath = join(state.tmp, 'bench.db');
  const databaseUrl = `sqlite:${dbPath}`;
  const { server, token } = await startWithToken('sightline-sqlite', databaseUrl);
  log(`SQLite server pid ${server.pid} on core ${SERVER_CPU}, ${server.base}, db ${dbPath}`);
  let bare = null;
  try {
    const project = (await api(server, token, 'POST', '/v1/projects', { name: 'bench-sqlite' })).json;
    const now = Date.now();

    // 1. Seeding = the SQLite ingestion measurement.
    log(`ingest sqlite: ${fmtInt(cfg.runs)} runs, ${cfg.batchSize}/request, ${cfg.ingestConcurrency} in flight`);
    results.ingestSqlite = await ingest('ingest sqlite', server, token, project.id, cfg.runs, now);
    results.ingestSqlite.rssAfterKb = readRssNow(server.pid);
    server.rss.mark('ingest');
    log(`ingest sqlite: ${fmtInt(results.ingestSqlite.runsPerSec)} runs/s (${results.ingestSqlite.elapsedS.toFixed(1)} s)`);
    const files = [dbPath, `${dbPath}-wal`].filter(existsSync);
    results.ingestSqlite.dbBytes = files.reduce((s, f) => s + statSync(f).size, 0);
    {
      const db = new Database(dbPath, { readonly: true, fileMustExist: true });
      try {
        const { n } = db.prepare('select count(*) as n from runs where project_id = ?').get(project.id);
        const tags = db.prepare('select count(*) as n from run_tags where project_id = ?').get(project.id).n;
        results.ingestSqlite.storedRuns = n;
        results.ingestSqlite.storedTags = tags;
        if (n !== cfg.runs) throw new Error(`SQLite holds ${n} runs, expected ${cfg.runs}`);
      } finally {
        db.close();
      }
    }

    results.metricsSqlite = await metricsPhase('sqlite', server, token, project.id, async (projectId, from, to) => {
      const db = new Database(dbPath, { readonly: true, fileMustExist: true });
      try {
        return db
          .prepare(`explain query plan ${PLAN_SQL.sqlite}`)
          .all(projectId, from, to)
          .map((r) => r.detail)
          .join('\n');
      } finally {
        db.close();
      }
    });
    server.rss.mark('metrics');

    // 2. Capture page 1 and walk to depth 10,000.
    const listPath = `/v1/projects/${project.id}/runs`;
    const first = await api(server, token, 'GET', listPath);
    if (first.json.items.length !== Math.min(cfg.pageSize, cfg.runs)) throw new Error(`page 1 has ${first.json.items.length} items`);
    const pageFile = join(state.tmp, 'page.json');
    writeFileSync(pageFile, first.text);
    let cursor = null;
    let depth = 0;
    const walkStarted = performance.now();
    while (depth < cfg.depth) {
      const q = `?limit=${cfg.walkLimit}${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await api(server, token, 'GET', `${listPath}${q}`)).json;
      if (!page.nextCursor) break; // fewer runs than the depth: bench the deepest page there is
      depth += page.items.length;
      cursor = page.nextCursor;
    }
    const walkMs = performance.now() - walkStarted;
    if (depth < cfg.depth) log(`warning: only ${depth} runs deep (BENCH_RUNS too small for depth ${cfg.depth})`);
    const deepPath = cursor ? `${listPath}?limit=${cfg.pageSize}&cursor=${cursor}` : `${listPath}?limit=${cfg.pageSize}`;
    const deep = await api(server, token, 'GET', deepPath);
    results.pages = {
      page1Bytes: Buffer.byteLength(first.text),
      deepBytes: Buffer.byteLength(deep.text),
      deepItems: deep.json.items.length,
      depth,
      walk: { pages: Math.ceil(depth / cfg.walkLimit), limit: cfg.walkLimit, ms: walkMs },
      cursorLength: cursor?.length ?? 0,
    };

    // 3. The bare baseline, pinned to the same core.
    const barePort = await freePort();
    bare = await startPinned(
      'bare-fastify',
      [join(root, 'bench/bare-server.js')],
      { ...process.env, PORT: String(barePort), HOST: '127.0.0.1', BARE_PAGE_FILE: pageFile },
      barePort,
    );
    const bareCheck = await api(bare, token, 'GET', listPath);
    results.pages.bareBytes = Buffer.byteLength(bareCheck.text);
    log(
      `bare Fastify pid ${bare.pid} on core ${SERVER_CPU}; page bytes: bare ${results.pages.bareBytes}, real ${results.pages.page1Bytes}, deep ${results.pages.deepBytes}`,
    );

    server.rss.mark('page capture + cursor walk');
    const headers = { authorization: `Bearer ${token}` };
    const scenarios = [
      { key: 'a', label: '(a) bare Fastify, fixed 25-run page', url: `${bare.base}${listPath}` },
      { key: 'b', label: '(b) GET /v1/projects/{id}/runs, page 1', url: `${server.base}${listPath}` },
      { key: 'c', label: `(c) same, depth ${fmtInt(depth)} (limit=25&cursor)`, url: `${server.base}${deepPath}` },
    ];
    results.scenarios = scenarios.map(({ key, label }) => ({ key, label }));

    if (cfg.warmupSeconds > 0) {
      for (const s of scenarios) {
        log(`warm-up ${s.key}: 50 connections, ${cfg.warmupSeconds}s`);
        await measure(s.url, 50, cfg.warmupSeconds, headers);
      }
      server.rss.mark('warm-up');
    }
    results.reads = [];
    for (let round = 1; round <= cfg.rounds; round++) {
      for (const connections of cfg.connections) {
        for (const s of scenarios) {
          const r = await measure(s.url, connections, cfg.seconds, headers);
          results.reads.push({ round, scenario: s.key, ...r });
          if (s.key !== 'a') server.rss.mark(`reads ${s.key} c=${connections} r${round}`);
          log(
            `round ${round}/${cfg.rounds} ${s.key} c=${connections}: ${fmtInt(r.rps)} req/s, p99 ${fmtMs(r.latencyMs.p99)} ms${r.non2xx || r.errors ? `, non2xx ${r.non2xx}, errors ${r.errors}` : ''}`,
          );
        }
      }
    }
    // 4. A backfill: runs in random start-time order into a second project (after the reads, so the
    //    read measurements see only the seeded project). Informational: live traffic arrives in order.
    if (cfg.backfillRuns > 0) {
      const other = (await api(server, token, 'POST', '/v1/projects', { name: 'bench-backfill' })).json;
      log(`backfill sqlite: ${fmtInt(cfg.backfillRuns)} runs in random start-time order`);
      results.backfillSqlite = await ingest('backfill sqlite', server, token, other.id, cfg.backfillRuns, now, 'random');
      server.rss.mark('backfill');
      log(`backfill sqlite: ${fmtInt(results.backfillSqlite.runsPerSec)} runs/s`);
    }
  } finally {
    if (bare) await stopServer(bare);
    results.rssSqlite = await stopServer(server);
    log(`SQLite server peak RSS ${fmtMb(results.rssSqlite.peakKb)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Durability: the same runs ingested into a fresh SQLite database with synchronous=NORMAL and with FULL
// (SIGHTLINE_SQLITE_SYNCHRONOUS; the CLI that mints the token opens storage the same way), in
// alternating order over BENCH_ROUNDS rounds; the ratio is the median of the per-round FULL/NORMAL ratios.

function filesystemOf(dir) {
  try {
    return execFileSync('findmnt', ['-n', '-o', 'FSTYPE,SOURCE', '-T', dir], { encoding: 'utf8' }).trim().replace(/\s+/, ' on ');
  } catch {
    return 'unknown filesystem';
  }
}

async function syncIngest(mode, round, now) {
  const dir = mkdtempSync(join(state.tmp, `sync-${mode.toLowerCase()}-`));
  const databaseUrl = `sqlite:${join(dir, 'bench.db')}`;
  const extra = { SIGHTLINE_SQLITE_SYNCHRONOUS: mode };
  const { server, token } = await startWithToken(`sightline-sync-${mode.toLowerCase()}-${round}`, databaseUrl, extra);
  try {
    const project = (await api(server, token, 'POST', '/v1/projects', { name: `bench-sync-${mode.toLowerCase()}` })).json;
    return await ingest(`sync ${mode} round ${round}`, server, token, project.id, cfg.syncRuns, now);
  } finally {
    await stopServer(server);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function syncPhase(results) {
  results.sync = { runs: cfg.syncRuns, filesystem: filesystemOf(state.tmp), rounds: [] };
  log(`sync: ${fmtInt(cfg.syncRuns)} runs per database, NORMAL and FULL, ${cfg.rounds} round(s), databases on ${results.sync.filesystem}`);
  for (let round = 1; round <= cfg.rounds; round++) {
    const order = round % 2 === 1 ? ['NORMAL', 'FULL'] : ['FULL', 'NORMAL'];
    const measured = {};
    const now = Date.now(); // the same runs (seed and start times) for both settings
    for (const mode of order) {
      measured[mode] = await syncIngest(mode, round, now);
      log(`sync round ${round}/${cfg.rounds} ${mode}: ${fmtInt(measured[mode].runsPerSec)} runs/s, batch p99 ${fmtMs(measured[mode].batchMs.p99)} ms`);
    }
    results.sync.rounds.push({ round, normal: measured.NORMAL, full: measured.FULL, ratio: measured.FULL.runsPerSec / measured.NORMAL.runsPerSec });
  }
  const rounds = results.sync.rounds;
  results.sync.normalRunsPerSec = median(rounds.map((r) => r.normal.runsPerSec));
  results.sync.fullRunsPerSec = median(rounds.map((r) => r.full.runsPerSec));
  results.sync.normalBatchP99 = median(rounds.map((r) => r.normal.batchMs.p99));
  results.sync.fullBatchP99 = median(rounds.map((r) => r.full.batchMs.p99));
  results.sync.ratio = median(rounds.map((r) => r.ratio));
  log(`sync: FULL/NORMAL = ${fmtRatio(results.sync.ratio)} (per round ${rounds.map((r) => fmtRatio(r.ratio)).join(', ')})`);
}

async function pgPhase(results) {
  const name = `sightline_bench_${process.pid}`;
  const databaseUrl = await createPgDatabase(name);
  const { server, token } = await startWithToken('sightline-postgres', databaseUrl);
  log(`PostgreSQL server pid ${server.pid} on core ${SERVER_CPU}, database ${name} (PostgreSQL backends are not pinned)`);
  try {
    const project = (await api(server, token, 'POST', '/v1/projects', { name: 'bench-postgres' })).json;
    log(`ingest postgres: ${fmtInt(cfg.pgRuns)} runs, ${cfg.batchSize}/request, ${cfg.ingestConcurrency} in flight`);
    results.ingestPg = await ingest('ingest postgres', server, token, project.id, cfg.pgRuns, Date.now());
    results.ingestPg.rssAfterKb = readRssNow(server.pid);
    server.rss.mark('ingest');
    log(`ingest postgres: ${fmtInt(results.ingestPg.runsPerSec)} runs/s (${results.ingestPg.elapsedS.toFixed(1)} s)`);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const n = Number((await client.query('select count(*) as n from runs where project_id = $1', [project.id])).rows[0].n);
      results.ingestPg.storedRuns = n;
      results.ingestPg.dbBytes = Number((await client.query('select pg_database_size(current_database()) as n')).rows[0].n);
      if (n !== cfg.pgRuns) throw new Error(`PostgreSQL holds ${n} runs, expected ${cfg.pgRuns}`);
      results.metricsPg = await metricsPhase('postgres', server, token, project.id, async (projectId, from, to) => {
        const rows = (await client.query(`explain (analyze, buffers) ${PLAN_SQL.postgres}`, [projectId, from, to])).rows;
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
      server.rss.mark('metrics');
    } finally {
      await client.end();
    }
  } finally {
    results.rssPg = await stopServer(server);
    log(`PostgreSQL server peak RSS ${fmtMb(results.rssPg.peakKb)}`);
    await dropPgDatabase();
  }
}

// ---------------------------------------------------------------------------------------------
// Report

function summarize(results) {
  const reads = results.reads ?? [];
  const byKey = (scenario, connections) => reads.filter((r) => r.scenario === scenario && r.connections === connections);
  const summary = {};
  for (const s of results.scenarios ?? []) {
    for (const c of cfg.connections) {
      const rows = byKey(s.key, c);
      summary[`${s.key}@${c}`] = {
        rps: median(rows.map((r) => r.rps)),
        p99: median(rows.map((r) => r.latencyMs.p99)),
        failures: rows.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0),
      };
    }
  }
  const ratio = (num, den, c) => {
    const per = [];
    for (let round = 1; round <= cfg.rounds; round++) {
      const n = reads.find((r) => r.round === round && r.scenario === num && r.connections === c);
      const d = reads.find((r) => r.round === round && r.scenario === den && r.connections === c);
      if (n && d && d.rps > 0) per.push(n.rps / d.rps);
    }
    return { median: median(per), perRound: per };
  };
  const ratios = {};
  for (const c of cfg.connections) {
    ratios[`b/a@${c}`] = ratio('b', 'a', c);
    ratios[`c/b@${c}`] = ratio('c', 'b', c);
  }
  return { summary, ratios };
}

function buildTable(results, { summary, ratios }) {
  const rows = [];
  const met = (ok, failures = 0) => (failures > 0 ? 'NO (non-2xx/errors)' : ok ? 'yes' : 'NO');
  if (results.reads) {
    for (const s of results.scenarios) {
      for (const c of cfg.connections) {
        const m = summary[`${s.key}@${c}`];
        let ratioCell = '— (baseline)';
        let target = '—';
        let ok = '—';
        if (s.key === 'b') {
          const r = ratios[`b/a@${c}`].median;
          ratioCell = `(b)/(a) = ${fmtRatio(r)}`;
          if (c === 50) {
            target = `(b)/(a) ≥ ${TARGETS.readRatio}`;
            ok = met(r >= TARGETS.readRatio, m.failures + summary[`a@${c}`].failures);
          } else if (m.failures > 0) ok = met(true, m.failures);
        } else if (s.key === 'c') {
          const r = ratios[`c/b@${c}`].median;
          ratioCell = `(c)/(b) = ${fmtRatio(r)}`;
          target = `(c)/(b) ≥ ${TARGETS.depthRatio}`;
          ok = met(r >= TARGETS.depthRatio, m.failures + summary[`b@${c}`].failures);
        } else if (m.failures > 0) ok = met(true, m.failures);
        rows.push([s.label, String(c), `${fmtInt(m.rps)} req/s`, fmtMs(m.p99), ratioCell, target, ok]);
      }
    }
  }
  const ingestRow = (label, r, target) =>
    r
      ? [
          label,
          `${r.concurrency} batches in flight`,
          `${fmtInt(r.runsPerSec)} runs/s`,
          `${fmtMs(r.batchMs.p99)} (per batch)`,
          '—',
          `≥ ${fmtInt(target)} runs/s`,
          met(r.runsPerSec >= target),
        ]
      : null;
  rows.push(ingestRow(`Ingest SQLite: ${fmtInt(cfg.runs)} runs, POST …/runs/batch × ${cfg.batchSize}`, results.ingestSqlite, TARGETS.sqliteRunsPerSec));
  if (results.backfillSqlite) {
    const r = results.backfillSqlite;
    rows.push([
      `Ingest SQLite, backfill: ${fmtInt(cfg.backfillRuns)} runs in random start-time order (informational)`,
      `${r.concurrency} batches in flight`,
      `${fmtInt(r.runsPerSec)} runs/s`,
      `${fmtMs(r.batchMs.p99)} (per batch)`,
      '—',
      '—',
      '—',
    ]);
  }
  if (results.sync) {
    const y = results.sync;
    const label = (mode) => `Ingest SQLite, synchronous=${mode}: ${fmtInt(y.runs)} runs into a fresh database, ${y.rounds.length} round(s)`;
    rows.push([
      label('NORMAL'),
      `${cfg.ingestConcurrency} batches in flight`,
      `${fmtInt(y.normalRunsPerSec)} runs/s`,
      `${fmtMs(y.normalBatchP99)} (per batch)`,
      '— (baseline)',
      '—',
      '—',
    ]);
    rows.push([
      label('FULL'),
      `${cfg.ingestConcurrency} batches in flight`,
      `${fmtInt(y.fullRunsPerSec)} runs/s`,
      `${fmtMs(y.fullBatchP99)} (per batch)`,
      `FULL/NORMAL = ${fmtRatio(y.ratio)}`,
      '—',
      '—',
    ]);
  }
  if (cfg.skipPg || !cfg.only.includes('pg'))
    rows.push([
      `Ingest PostgreSQL`,
      '—',
      `skipped (${cfg.skipPg ? 'BENCH_SKIP_PG=1' : 'BENCH_ONLY'})`,
      '—',
      '—',
      `≥ ${fmtInt(TARGETS.pgRunsPerSec)} runs/s`,
      '—',
    ]);
  else rows.push(ingestRow(`Ingest PostgreSQL: ${fmtInt(cfg.pgRuns)} runs, POST …/runs/batch × ${cfg.batchSize}`, results.ingestPg, TARGETS.pgRunsPerSec));
  const rssRow = (label, r) =>
    r ? [label, '—', `peak RSS ${fmtMb(r.peakKb)}`, '—', '—', `≤ ${TARGETS.peakRssMb} MB`, met(r.peakKb / 1024 <= TARGETS.peakRssMb)] : null;
  rows.push(rssRow('Server peak RSS, SQLite (ingest + reads)', results.rssSqlite));
  rows.push(rssRow('Server peak RSS, PostgreSQL (ingest)', results.rssPg));
  for (const [engine, m, runs] of [
    ['SQLite', results.metricsSqlite, cfg.runs],
    ['PostgreSQL', results.metricsPg, cfg.pgRuns],
  ]) {
    if (!m) continue;
    const row = (label, t) => [
      `${label}, ${engine}, ${fmtInt(runs)} runs`,
      '1 (sequential)',
      `median ${fmtMs(t.median)} ms (p95 ${fmtMs(t.p95)})`,
      '—',
      `${fmtRatio(t.median / m.baseline.median)}× GET /v1/me (${fmtMs(m.baseline.median)} ms)`,
      `≤ ${TARGETS.metricsMedianMs} ms median`,
      met(t.median <= TARGETS.metricsMedianMs),
    ];
    rows.push(row(`GET …/runs/metrics, last 24 h hourly (${fmtInt(m.runsInRange)} runs)`, m.runsMetrics));
    rows.push(row(`GET …/monitors/{id}/metrics, last 24 windows of 1 h (${fmtInt(m.monitorRuns)} runs)`, m.monitorMetrics));
  }

  const header = ['Scenario', 'Conns', 'Throughput (median)', 'p99 ms (median)', 'Ratio vs baseline (median of per-round)', 'Target', 'Met'];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows.filter(Boolean)) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}

function rawSection(results, { ratios }) {
  const lines = [];
  lines.push('## Read measurements, every round', '');
  lines.push('| Round | Conns | Scenario | req/s | mean ms (conns ÷ req/s) | p50 ms | p99 ms | max ms | bytes/response | non-2xx | errors | timeouts |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results.reads ?? []) {
    lines.push(
      `| ${r.round} | ${r.connections} | ${r.scenario} | ${fmtInt(r.rps)} | ${fmtMs((1000 * r.connections) / r.rps)} | ${fmtMs(r.latencyMs.p50)} | ${fmtMs(r.latencyMs.p99)} | ${fmtMs(r.latencyMs.max)} | ${r.bytesPerResponse} | ${r.non2xx} | ${r.errors} | ${r.timeouts} |`,
    );
  }
  lines.push(
    '',
    'Latency percentiles come from autocannon\'s HDR histogram, which keeps whole milliseconds (values are truncated, so p50 "0" means under 1 ms). ' +
      'The mean is derived from the closed loop instead (each connection has one request in flight: mean latency ≈ connections ÷ req/s). bytes/response includes headers.',
  );
  lines.push(
    '',
    'Per-round ratios: ' +
      Object.entries(ratios)
        .map(([k, v]) => `${k} [${v.perRound.map(fmtRatio).join(', ')}]`)
        .join('; '),
    '',
  );
  if (results.pages) {
    const p = results.pages;
    lines.push(
      `Pages: real page 1 ${p.page1Bytes} B, bare page ${p.bareBytes} B, deep page ${p.deepBytes} B (${p.deepItems} items at depth ${fmtInt(p.depth)}, ` +
        `reached in ${p.walk.pages} pages of ${p.walk.limit} in ${fmtInt(p.walk.ms)} ms; cursor ${p.cursorLength} chars).`,
      '',
    );
  }
  lines.push('## Ingestion', '');
  for (const [label, r, rss] of [
    ['SQLite', results.ingestSqlite, results.rssSqlite],
    ['PostgreSQL', results.ingestPg, results.rssPg],
  ]) {
    if (!r) continue;
    lines.push(
      `- ${label}: ${fmtInt(r.runs)} runs in ${r.elapsedS.toFixed(2)} s = **${fmtInt(r.runsPerSec)} runs/s**; ${r.batches} batches of ≤${r.batchSize}, ${r.concurrency} in flight; ` +
        `batch latency p50 ${fmtMs(r.batchMs.p50)} ms, p99 ${fmtMs(r.batchMs.p99)} ms, max ${fmtMs(r.batchMs.max)} ms; ` +
        `client-side generation ${fmtMs(r.clientGenerateMsPerBatch)} ms/batch (core ${CLIENT_CPU}, overlapped); request body ~${fmtInt(r.avgBodyBytes / 1024)} KiB; ` +
        `stored ${fmtInt(r.storedRuns)} runs${r.storedTags ? ` / ${fmtInt(r.storedTags)} tags` : ''}, database ${fmtBytes(r.dbBytes)}; server RSS right after ${fmtMb(r.rssAfterKb)}` +
        (rss ? `; server peak RSS ${fmtMb(rss.peakKb)} (VmHWM ${fmtMb(rss.hwmKb)}, max sampled VmRSS ${fmtMb(rss.peakSampledKb)})` : ''),
    );
    if (r.timeline.length > 0) {
      lines.push(
        `  - ${label} timeline (runs stored → runs/s over the preceding ~5 s, server RSS): ` +
          r.timeline.map((t) => `${fmtInt(t.runs)} → ${fmtInt(t.intervalRunsPerSec)} (${fmtMb(t.rssKb)})`).join(' · '),
      );
    }
  }
  if (results.sync) {
    const y = results.sync;
    lines.push('', `## Durability: synchronous=NORMAL vs FULL (${fmtInt(y.runs)} runs per fresh database, databases on ${y.filesystem})`, '');
    lines.push('| Round | NORMAL runs/s | NORMAL batch p99 ms | FULL runs/s | FULL batch p99 ms | FULL/NORMAL |', '|---|---|---|---|---|---|');
    for (const r of y.rounds) {
      lines.push(
        `| ${r.round} | ${fmtInt(r.normal.runsPerSec)} | ${fmtMs(r.normal.batchMs.p99)} | ${fmtInt(r.full.runsPerSec)} | ${fmtMs(r.full.batchMs.p99)} | ${fmtRatio(r.ratio)} |`,
      );
    }
    lines.push('', `Median of the per-round ratios: **FULL/NORMAL = ${fmtRatio(y.ratio)}**.`);
  }
  for (const [label, m] of [
    ['SQLite', results.metricsSqlite],
    ['PostgreSQL', results.metricsPg],
  ]) {
    if (!m) continue;
    lines.push('', `## Metrics query plan, ${label} (the last 24 hours)`, '', '```', m.plan, '```');
  }
  lines.push('', '## Server memory by phase (highest VmRSS sampled every 200 ms)', '');
  for (const [label, rss] of [
    ['SQLite server', results.rssSqlite],
    ['PostgreSQL server', results.rssPg],
  ]) {
    if (!rss) continue;
    lines.push(
      `- ${label}: ${Object.entries(rss.phases)
        .map(([phase, kb]) => `${phase} ${fmtMb(kb)}`)
        .join(' · ')}; peak ${fmtMb(rss.peakKb)} (VmHWM ${fmtMb(rss.hwmKb)})`,
    );
  }
  lines.push('', '## Raw JSON', '', '```json', JSON.stringify({ config: cfg, targets: TARGETS, results }, null, 2), '```', '');
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const cores = os.availableParallelism();
  if (cores < 2) log('warning: fewer than 2 cores; server and load generator will share a core');
  pinSelf();
  state.tmp = mkdtempSync(join(os.tmpdir(), 'sightline-bench-'));
  if (cfg.cpuProfDir) mkdirSync(cfg.cpuProfDir, { recursive: true });
  log(`config: ${JSON.stringify({ ...cfg, pgUrl: undefined })}`);
  const results = { startedAt: new Date().toISOString() };
  const started = performance.now();

  if (cfg.only.includes('sqlite')) await sqlitePhase(results);
  if (cfg.only.includes('sync') && cfg.syncRuns > 0) await syncPhase(results);
  if (cfg.only.includes('pg') && !cfg.skipPg) await pgPhase(results);
  results.totalSeconds = (performance.now() - started) / 1000;

  const stats = summarize(results);
  const table = buildTable(results, stats);
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const header = [
    '# Sightline benchmark',
    '',
    `${results.startedAt} · Node ${process.version} · ${cores} cores (${cpu}) · ${os.type()} ${os.release()} · total ${results.totalSeconds.toFixed(0)} s`,
    '',
    `Server pinned to core ${SERVER_CPU} (real and bare server both, loaded one at a time); autocannon and the seeding client on core ${CLIENT_CPU}. ` +
      `Reads: ${cfg.rounds} interleaved round(s) × ${cfg.seconds} s per scenario and connection count${cfg.warmupSeconds ? `, after a ${cfg.warmupSeconds} s warm-up per scenario` : ''}. ` +
      `(a) is bench/bare-server.js: Fastify 5 without auth, database or schemas, answering the page captured from (b) (serialized with JSON.stringify per request). ` +
      `Settings: BENCH_ONLY=${cfg.only.join(',')} BENCH_RUNS=${cfg.runs} BENCH_PG_RUNS=${cfg.skipPg ? 'skipped' : cfg.pgRuns} BENCH_SYNC_RUNS=${cfg.syncRuns} BENCH_SECONDS=${cfg.seconds} BENCH_ROUNDS=${cfg.rounds} BENCH_INGEST_CONCURRENCY=${cfg.ingestConcurrency}.`,
    '',
  ].join('\n');
  const markdown = `${header}\n${table}\n\n${rawSection(results, stats)}`;
  writeResults('million-latest.md', markdown, table);
}

await runBench(main);
