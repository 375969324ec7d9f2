#!/usr/bin/env node
// Experiment traffic at scale (issue 28, "Lists"): a project of BENCH_EXPERIMENT_RUNS runs (default 1,000,000,
// each a trace of its own, over 30 days, ingested through the batch API), then an experiment whose results
// name the newest BENCH_EXPERIMENT_TRACES of them (default 2,000: more than the 1,000 a list names by id, so
// lists of runs check each run's trace; 500 shows the other plan) — the worst case for `exclude`: the
// experiment traffic is where a list starts. Then, one request at a time like a dashboard, each list's first
// page and the day's metrics with `experiment` absent (include), `exclude` and `only`, on SQLite and PostgreSQL.
//
//   npm run build && node bench/experiments.js        (or: npm run bench:experiments)
//
// Knobs (env): BENCH_EXPERIMENT_RUNS, BENCH_EXPERIMENT_TRACES, BENCH_EXPERIMENT_SAMPLES (default 11),
// BENCH_EXPERIMENT_ENGINES (sqlite,pg), BENCH_PG_URL, BENCH_LOG_LEVEL.
import { join } from 'node:path';
import {
  api,
  atScale,
  benchConfig,
  createPgDatabase,
  engineName,
  enginesFrom,
  envInt,
  fmtInt,
  fmtMb,
  log,
  readsTable,
  runBench,
  sendBatches,
  state,
} from './harness.js';
import { RunGenerator } from './runs-gen.js';

const cfg = benchConfig({
  runs: envInt('BENCH_EXPERIMENT_RUNS', 1_000_000, 1000),
  traces: envInt('BENCH_EXPERIMENT_TRACES', 2000, 1),
  samples: envInt('BENCH_EXPERIMENT_SAMPLES', 11, 1),
  engines: enginesFrom('BENCH_EXPERIMENT_ENGINES'),
});

const BATCH = 1000;
// Every read measured, none answered again from the read cache (the lists are `cacheable`: in a database
// that does not change, a repeated read would time the cache).
process.env.SIGHTLINE_READ_CACHE_MB = '0';

async function fill(name, server, token, project) {
  const base = `/v1/projects/${project.id}`;
  const gen = new RunGenerator({ seed: 20261130, now: Date.now(), total: cfg.runs });
  let n = 0;
  const batches = Array.from(
    { length: Math.ceil(cfg.runs / BATCH) },
    (_, b) => () =>
      Array.from({ length: Math.min(BATCH, cfg.runs - b * BATCH) }, () => {
        const run = gen.run();
        run.id = `r-${(n++).toString(36)}`;
        run.inputs = { question: `question ${n}` };
        if (run.outputs) run.outputs = { answer: 'ok' };
        return run;
      }),
  );
  const runs = await sendBatches(`${name} runs`, server, token, `${base}/runs/batch`, 'runs', batches);
  log(`${name}: ${fmtInt(runs.count)} runs at ${fmtInt(runs.perSec)} runs/s`);

  // The newest runs (each its trace's root) become the experiment's: a dataset of as many items, one result each.
  const newest = [];
  for (let cursor = null; newest.length < cfg.traces;) {
    const { json } = await api(server, token, 'GET', `${base}/runs?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    newest.push(...json.items.map((r) => r.id));
    if (!json.nextCursor) break;
    cursor = json.nextCursor;
  }
  const chosen = newest.slice(0, cfg.traces);
  const dataset = (await api(server, token, 'POST', '/v1/datasets', { name: 'bench-experiment' })).json;
  for (let i = 0; i < chosen.length; i += 1000)
    await api(server, token, 'POST', `/v1/datasets/${dataset.id}/items`, {
      items: chosen.slice(i, i + 1000).map((_, j) => ({ id: `item-${i + j}`, input: { i: i + j } })),
    });
  const experiment = (await api(server, token, 'POST', '/v1/experiments', { name: 'bench', datasetId: dataset.id, projectId: project.id })).json;
  const started = performance.now();
  for (let i = 0; i < chosen.length; i += 100)
    await api(server, token, 'POST', `/v1/experiments/${experiment.id}/results`, {
      results: chosen.slice(i, i + 100).map((runId, j) => ({ itemId: `item-${i + j}`, runId, output: 'ok', latencyMs: 10 })),
    });
  const recordMs = performance.now() - started;
  log(`${name}: ${fmtInt(chosen.length)} results recorded (their traces marked) in ${fmtInt(recordMs)} ms`);

  const reads = [['GET /v1/me (baseline)', '/v1/me', null]];
  const day = `from=${new Date(Date.now() - 86_400_000).toISOString()}&bucket=1h`;
  for (const [label, path] of [
    ['runs', `${base}/runs?limit=50`],
    ['traces', `${base}/traces?limit=50`],
    ['sessions', `${base}/sessions?limit=50`],
    ['users', `${base}/users?limit=50`],
    ['runs metrics, last 24 h by hour', `${base}/runs/metrics?${day}`],
  ])
    for (const experimentParam of [null, 'exclude', 'only'])
      reads.push([
        `${label}: ${experimentParam ? `experiment=${experimentParam}` : 'all (include)'}`,
        experimentParam ? `${path}&experiment=${experimentParam}` : path,
        null,
      ]);
  return { runs, marked: chosen.length, recordMs, reads };
}

function table(all) {
  const lines = ['| Engine | Runs (traces) | Ingested per second | Experiment traces | Recording their results |', '|---|---|---|---|---|'];
  for (const e of all)
    lines.push(`| ${engineName(e.engine)} | ${fmtInt(e.runs.count)} | ${fmtInt(e.runs.perSec)} | ${fmtInt(e.marked)} | ${fmtInt(e.recordMs)} ms |`);
  lines.push('', ...readsTable(all), '', ...all.map((e) => `- ${engineName(e.engine)}: server peak RSS ${fmtMb(e.rss?.peakKb)}`));
  return lines.join('\n');
}

await runBench(() =>
  atScale({
    name: 'experiments',
    title: 'Experiment traffic at scale',
    cfg,
    database: (engine) => (engine === 'sqlite' ? `sqlite:${join(state.tmp, 'experiments.db')}` : createPgDatabase(`sl_bench_experiments_${process.pid}`)),
    keepPg: () => (process.env.BENCH_KEEP_PG === '1' ? `kept PostgreSQL database ${state.pgDatabase} (BENCH_KEEP_PG=1)` : null),
    fill,
    table,
  }),
);
