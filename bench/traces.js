#!/usr/bin/env node
// Trace-debugging reads at scale (issue 14): a project of BENCH_TRACES_RUNS runs (default 1,000,000) in
// traces of 5 runs on average (so 200,000 traces) over 30 days, with sessions and end users, plus one
// trace of BENCH_TRACES_BIG runs (default 25,000), ingested through the batch API with the ids, traces
// and parents a tracer sends; then, as sequential requests (one client, like the dashboard: 3 unrecorded,
// then BENCH_TRACES_SAMPLES recorded), the reads the trace views make, beside GET /v1/me (authentication
// and HTTP, no query) as the baseline, on SQLite and on PostgreSQL.
//
//   npm run build && node bench/traces.js        (or: npm run bench:traces)
//
// Knobs (env): BENCH_TRACES_RUNS, BENCH_TRACES_BIG, BENCH_TRACES_SAMPLES (default 21),
// BENCH_TRACES_ENGINES (sqlite,pg), BENCH_PG_URL, BENCH_LOG_LEVEL.
import { join } from 'node:path';
import { atScale, benchConfig, createPgDatabase, engineName, enginesFrom, envInt, fmtInt, fmtMb, readsTable, runBench, sendBatches, state } from './harness.js';
import { RunGenerator, TraceGenerator } from './runs-gen.js';

const cfg = benchConfig({
  runs: envInt('BENCH_TRACES_RUNS', 1_000_000, 1000),
  big: envInt('BENCH_TRACES_BIG', 25_000, 2),
  samples: envInt('BENCH_TRACES_SAMPLES', 21, 1),
  engines: enginesFrom('BENCH_TRACES_ENGINES'),
});

const BATCH = 1000;
const DAY = 86_400_000;

/** Traces as a tracer sends them, and one trace of `cfg.big` runs; the reads the trace views make. */
async function fill(name, server, token, project) {
  const now = Date.now();
  const gen = new TraceGenerator(cfg.runs, now);
  const batches = Array.from({ length: Math.ceil(cfg.runs / BATCH) }, (_, i) => () => gen.batch(Math.min(BATCH, cfg.runs - i * BATCH)));
  const big = new RunGenerator({ seed: 7, now, total: cfg.big });
  const bigStart = now - DAY;
  const bigRun = (i) => ({
    ...big.run(),
    id: `big-${i}`,
    traceId: 'big-trace',
    parentRunId: i === 0 ? null : 'big-0',
    startTime: new Date(bigStart + i * 10).toISOString(),
    endTime: new Date(bigStart + i * 10 + 5).toISOString(),
    status: 'succeeded',
    error: undefined,
  });
  for (let i = 0; i < cfg.big; i += BATCH) batches.push(() => Array.from({ length: Math.min(BATCH, cfg.big - i) }, (_, k) => bigRun(i + k)));
  const sent = await sendBatches(name, server, token, `/v1/projects/${project.id}/runs/batch`, 'runs', batches);
  const ingested = { runs: sent.count, runsPerSec: sent.perSec };
  const base = `/v1/projects/${project.id}`;
  const middle = Math.floor(gen.trace / 2);
  const day = new Date(now - DAY).toISOString();
  const reads = [
    ['GET /v1/me (baseline)', '/v1/me', null],
    ['traces list, page 1 (50)', `${base}/traces?limit=50`, 100],
    ['traces list, last 24 h (50)', `${base}/traces?limit=50&startedAfter=${day}`, 100],
    ['traces list, q=refund (50)', `${base}/traces?limit=50&q=refund`, 100],
    ['traces list, q=zyzzyva (rare: 1 trace in 10,000)', `${base}/traces?limit=50&q=zyzzyva`, 100],
    ['runs list, q=refund invoice (50)', `${base}/runs?limit=50&q=refund%20invoice`, 100],
    ['runs list, q=zyzzyva (rare)', `${base}/runs?limit=50&q=zyzzyva`, 100],
    ['sessions list, q=refund (50)', `${base}/sessions?limit=50&q=refund`, 100],
    ['sessions list, page 1 (50)', `${base}/sessions?limit=50`, 100],
    ['a session (5 traces)', `${base}/sessions/session-${Math.floor(middle / 5)}`, 100],
    ['a trace (5 runs on average)', `${base}/traces/${TraceGenerator.traceId(middle)}`, 100],
    [`the trace of ${fmtInt(cfg.big)} runs`, `${base}/traces/big-trace`, 500],
  ];
  return { ingested, reads };
}

function table(all) {
  const ingestLines = all.map(
    (e) =>
      `- ${engineName(e.engine)}: ${fmtInt(e.ingested.runs)} runs ingested at ${fmtInt(e.ingested.runsPerSec)} runs/s; server peak RSS ${fmtMb(e.rss?.peakKb)}`,
  );
  return [...readsTable(all), '', ...ingestLines].join('\n');
}

await runBench(() =>
  atScale({
    name: 'traces',
    title: 'Trace reads at scale',
    cfg,
    // BENCH_TRACES_SQLITE_PATH keeps the SQLite database where it says (to look at its query plans afterwards).
    database: (engine) =>
      engine === 'sqlite' ? `sqlite:${process.env.BENCH_TRACES_SQLITE_PATH || join(state.tmp, 'traces.db')}` : createPgDatabase('sl_bench_traces'),
    // BENCH_TRACES_KEEP_PG=1 keeps the PostgreSQL database (to look at its query plans afterwards).
    keepPg: (databaseUrl) => (process.env.BENCH_TRACES_KEEP_PG === '1' ? `kept ${databaseUrl}` : null),
    fill,
    table,
  }),
);
