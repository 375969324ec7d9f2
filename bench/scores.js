#!/usr/bin/env node
// Scores at scale (issue 15): a project of BENCH_SCORES_RUNS runs (default 1,000,000) ingested through
// the runs batch API, then BENCH_SCORES_COUNT scores (default 2,000,000: two per run, `quality` numeric
// and `thumbs` boolean, client ids as the SDK gives them) through the scores batch API, 1,000 a request,
// two requests at a time. Reports the score ingestion rate beside the run ingestion rate of the same
// server (the baseline, measured in the same run), then times, one request at a time like a dashboard
// (median of BENCH_SCORES_SAMPLES after 3 unrecorded), the runs list filtered by score and the score
// metrics over 24 hours in hourly buckets, beside GET /v1/me. A rare score (`verdict`, on one run in a
// thousand, not counted in the rate) gives a list that starts from its few matches.
//
//   npm run build && node bench/scores.js        (or: npm run bench:scores)
//
// Knobs (env): BENCH_SCORES_RUNS, BENCH_SCORES_COUNT, BENCH_SCORES_SAMPLES (default 21),
// BENCH_SCORES_ENGINES (sqlite,pg), BENCH_PG_URL, BENCH_LOG_LEVEL, BENCH_KEEP_PG=1 (keep the PostgreSQL
// database afterwards, to study its plans).
import { join } from 'node:path';
import {
  atScale,
  benchConfig,
  createPgDatabase,
  engineName,
  enginesFrom,
  envInt,
  fmtInt,
  fmtMb,
  fmtRatio,
  log,
  readsTable,
  runBench,
  sendBatches,
  state,
} from './harness.js';
import { RunGenerator } from './runs-gen.js';

const cfg = benchConfig({
  runs: envInt('BENCH_SCORES_RUNS', 1_000_000, 1000),
  scores: envInt('BENCH_SCORES_COUNT', 2_000_000, 1000),
  samples: envInt('BENCH_SCORES_SAMPLES', 21, 1),
  engines: enginesFrom('BENCH_SCORES_ENGINES'),
});

const BATCH = 1000;
const HOUR = 3_600_000;

/** Runs as the batch API takes them (the baseline), then two scores a run and a rare one; the reads the score views make. */
async function fill(name, server, token, project) {
  const now = Date.now();
  const gen = new RunGenerator({ seed: 20261126, now, total: cfg.runs });
  const runId = (i) => `r-${i.toString(36).padStart(7, '0')}`;
  const runBatches = Array.from(
    { length: Math.ceil(cfg.runs / BATCH) },
    (_, b) => () =>
      Array.from({ length: Math.min(BATCH, cfg.runs - b * BATCH) }, (_, k) => ({ ...gen.run(), id: runId(b * BATCH + k), parentRunId: undefined })),
  );
  const runs = await sendBatches(`${name} runs`, server, token, `/v1/projects/${project.id}/runs/batch`, 'runs', runBatches);
  log(`${name}: ${fmtInt(runs.count)} runs at ${fmtInt(runs.perSec)} runs/s`);
  // Scores in the order an evaluator gives them: run by run, a number and a thumb each.
  const scoreAt = (i) => {
    const run = Math.floor(i / 2) % cfg.runs;
    return i % 2 === 0
      ? { id: `s-${i.toString(36)}`, runId: runId(run), name: 'quality', value: (run % 100) / 100, source: 'evaluator' }
      : { id: `s-${i.toString(36)}`, runId: runId(run), name: 'thumbs', value: run % 7 !== 0, source: 'annotation' };
  };
  const scoreBatches = Array.from(
    { length: Math.ceil(cfg.scores / BATCH) },
    (_, b) => () => Array.from({ length: Math.min(BATCH, cfg.scores - b * BATCH) }, (_, k) => scoreAt(b * BATCH + k)),
  );
  const scores = await sendBatches(`${name} scores`, server, token, `/v1/projects/${project.id}/scores/batch`, 'scores', scoreBatches);
  log(`${name}: ${fmtInt(scores.count)} scores at ${fmtInt(scores.perSec)} scores/s`);
  // A rare score (a reviewer's verdict on one run in a thousand), for the lists that start from few matches.
  const rare = Math.max(1, Math.floor(cfg.runs / 1000));
  await sendBatches(`${name} rare scores`, server, token, `/v1/projects/${project.id}/scores/batch`, 'scores', [
    () =>
      Array.from({ length: rare }, (_, k) => ({
        id: `v-${k}`,
        runId: runId(k * 1000),
        name: 'verdict',
        value: k % 2 === 0 ? 'ok' : 'wrong',
        source: 'annotation',
      })),
  ]);
  const base = `/v1/projects/${project.id}`;
  const from = new Date(Math.floor((Date.now() - 24 * HOUR) / HOUR) * HOUR).toISOString();
  const reads = [
    ['GET /v1/me (baseline)', '/v1/me', null],
    ['runs list, score.quality>=0.9 (50)', `${base}/runs?limit=50&score.quality%3E=0.9`, 100],
    ['runs list, score.thumbs=false (50)', `${base}/runs?limit=50&score.thumbs=false`, 100],
    ['runs list, hasScore=quality (50)', `${base}/runs?limit=50&hasScore=quality`, 100],
    ['runs list, score.verdict=wrong (50; few)', `${base}/runs?limit=50&score.verdict=wrong`, 100],
    ['score metrics, 24 h in hourly buckets', `${base}/scores/metrics?bucket=1h&from=${from}`, 100],
    ['score metrics, 24 h by name', `${base}/scores/metrics?groupBy=name&from=${from}`, 100],
  ];
  return { runs, scores, reads };
}

function table(all) {
  const lines = ['| Engine | Ingestion | Per second | vs runs batch |', '|---|---|---|---|'];
  for (const e of all) {
    lines.push(`| ${engineName(e.engine)} | ${fmtInt(e.runs.count)} runs (baseline) | ${fmtInt(e.runs.perSec)} | — |`);
    lines.push(`| ${engineName(e.engine)} | ${fmtInt(e.scores.count)} scores | ${fmtInt(e.scores.perSec)} | ${fmtRatio(e.scores.perSec / e.runs.perSec)} |`);
  }
  lines.push('', ...readsTable(all));
  lines.push('', ...all.map((e) => `- ${engineName(e.engine)}: server peak RSS ${fmtMb(e.rss?.peakKb)}`));
  return lines.join('\n');
}

await runBench(() =>
  atScale({
    name: 'scores',
    title: 'Scores at scale',
    cfg,
    database: (engine) => (engine === 'sqlite' ? `sqlite:${join(state.tmp, 'scores.db')}` : createPgDatabase(`sl_bench_scores_${process.pid}`)),
    keepPg: () => (process.env.BENCH_KEEP_PG === '1' ? `kept PostgreSQL database ${state.pgDatabase} (BENCH_KEEP_PG=1)` : null),
    fill,
    table,
  }),
);
