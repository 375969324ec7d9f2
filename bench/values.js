#!/usr/bin/env node
// Filter values at scale (issue 28, "Lists"): a project of BENCH_VALUES_RUNS runs (default 1,000,000) over
// 30 days, ingested through the batch API (short inputs and outputs: no page reads them) with wide vocabularies — 5,000 names, 300 models, 2,000 tags,
// 200,000 sessions, 50,000 end users, 203 metadata keys, 20,000 customers and a request id new on every
// run (the worst case of the values table: one new row per run) — and BENCH_VALUES_SCORES scores (default
// 100,000) of 5,000 names; then, one request at a time like a dashboard (3 unrecorded, then
// BENCH_VALUES_SAMPLES recorded), each field's first page of 100 values and a page of 100 at depth 10,000
// (or half the field's values, when it has fewer), beside GET /v1/me, on SQLite and on PostgreSQL.
//
// Then what the values table costs ingestion: BENCH_VALUES_COST_RUNS runs of ~1 KB (default 25,000) into fresh
// projects of the same server, BENCH_VALUES_COST_ROUNDS times (default 2) in alternating order, once with
// metadata keys the table does not list (dotted: `request.id`) and once with keys it does (`request_id`),
// so that every run brings a new value; the server's CPU time per 1,000 runs of each.
//
//   npm run build && node bench/values.js        (or: npm run bench:values)
//
// Knobs (env): BENCH_VALUES_RUNS, BENCH_VALUES_SCORES, BENCH_VALUES_SAMPLES (default 11), BENCH_VALUES_COST_RUNS
// (0: skip), BENCH_VALUES_COST_ROUNDS, BENCH_VALUES_ENGINES (sqlite,pg), BENCH_PG_URL, BENCH_LOG_LEVEL.
import { join } from 'node:path';
import {
  api,
  atScale,
  benchConfig,
  cpuMsNow,
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
  runs: envInt('BENCH_VALUES_RUNS', 1_000_000, 1000),
  scores: envInt('BENCH_VALUES_SCORES', 100_000, 1000),
  samples: envInt('BENCH_VALUES_SAMPLES', 11, 1),
  costRuns: envInt('BENCH_VALUES_COST_RUNS', 25_000, 0),
  costRounds: envInt('BENCH_VALUES_COST_ROUNDS', 2, 1),
  engines: enginesFrom('BENCH_VALUES_ENGINES'),
});

const BATCH = 1000;
const PAGE = 100;
const DEPTH = 10_000;
const VOCABULARY = { name: 5000, model: 300, tag: 2000, sessionId: 200_000, userId: 50_000, customer: 20_000, feature: 200 };
const pad = (n, width) => String(n).padStart(width, '0');

/**
 * Runs of RunGenerator's shapes, with the fields a picker lists drawn from wide vocabularies; `listed`: metadata
 * keys the values table keeps (else dotted ones it skips); `texts`: RunGenerator's ~1 KB of inputs and outputs
 * (without them, a short question: the values pages read none of it, and it is quicker to ingest).
 */
class ValuesGenerator {
  constructor(total, now, seed, { listed = true, texts = true } = {}) {
    this.runs = new RunGenerator({ seed, now, total });
    this.rand = this.runs.rand;
    this.listed = listed;
    this.texts = texts;
    this.n = 0;
  }

  pick(size) {
    return Math.floor(this.rand() * size);
  }

  run() {
    const run = this.runs.run();
    const n = this.n++;
    const key = (name) => (this.listed ? name : name.replace('_', '.'));
    run.id = `r-${n.toString(36)}`;
    if (!this.texts) {
      run.inputs = { question: `question ${n}` };
      if (run.outputs) run.outputs = { answer: 'ok' };
    }
    run.name = `${run.name}.${pad(this.pick(VOCABULARY.name), 4)}`;
    if (run.model) run.model = `${run.model}-${pad(this.pick(VOCABULARY.model), 3)}`;
    run.tags = [...new Set(run.tags.map(() => `tag-${pad(this.pick(VOCABULARY.tag), 4)}`))];
    run.sessionId = `session-${pad((n * 2654435761) % VOCABULARY.sessionId, 6)}`;
    run.userId = `user-${pad(this.pick(VOCABULARY.userId), 5)}`;
    run.metadata = {
      environment: run.metadata.environment,
      [key('customer_id')]: `c-${pad(this.pick(VOCABULARY.customer), 5)}`,
      [key('request_id')]: `req-${((n * 2654435761) >>> 0).toString(16).padStart(8, '0')}-${n.toString(36)}`,
      [`feature_${pad(this.pick(VOCABULARY.feature), 3)}`]: this.rand() < 0.5,
    };
    return run;
  }

  batch(size) {
    return Array.from({ length: size }, () => this.run());
  }
}

/** `count` items of `make(size)`, as `sendBatches` takes them: a function per batch of 1,000. */
const batchesOf = (count, make) => Array.from({ length: Math.ceil(count / BATCH) }, (_, b) => () => make(Math.min(BATCH, count - b * BATCH)));

/** The cursor of the page that starts `depth` values into a list (followed 100 at a time), and how deep it really is (a list may end first). */
async function cursorAt(server, token, path, depth) {
  let cursor = null;
  let seen = 0;
  while (seen < depth) {
    const { json } = await api(server, token, 'GET', `${path}&limit=${PAGE}${cursor ? `&cursor=${cursor}` : ''}`);
    seen += json.items.length;
    if (!json.nextCursor) break;
    cursor = json.nextCursor;
  }
  return { cursor, seen };
}

/** What the values table costs ingestion on this server: runs whose metadata it skips against runs whose every request id is new to it. */
async function ingestionCost(name, server, token) {
  const rounds = [];
  for (let round = 1; round <= cfg.costRounds; round++) {
    for (const listed of round % 2 === 1 ? [false, true] : [true, false]) {
      const project = (await api(server, token, 'POST', '/v1/projects', { name: `cost-${round}-${listed ? 'listed' : 'skipped'}` })).json;
      const gen = new ValuesGenerator(cfg.costRuns, Date.now(), 20261130 + round, { listed });
      const cpu0 = cpuMsNow(server.child.pid);
      const sent = await sendBatches(
        `${name} cost`,
        server,
        token,
        `/v1/projects/${project.id}/runs/batch`,
        'runs',
        batchesOf(cfg.costRuns, (size) => gen.batch(size)),
      );
      const cpuPer1000 = ((cpuMsNow(server.child.pid) - cpu0) / sent.count) * 1000;
      rounds.push({ round, listed, perSec: sent.perSec, cpuPer1000 });
      log(`${name} cost round ${round} ${listed ? 'listed' : 'skipped'}: ${fmtInt(sent.perSec)} runs/s, server CPU ${fmtInt(cpuPer1000)} ms per 1,000`);
    }
  }
  const mean = (listed, key) => {
    const of = rounds.filter((r) => r.listed === listed);
    return of.reduce((sum, r) => sum + r[key], 0) / of.length;
  };
  return {
    rounds,
    skipped: { perSec: mean(false, 'perSec'), cpu: mean(false, 'cpuPer1000') },
    listed: { perSec: mean(true, 'perSec'), cpu: mean(true, 'cpuPer1000') },
  };
}

async function fill(name, server, token, project) {
  const base = `/v1/projects/${project.id}`;
  const gen = new ValuesGenerator(cfg.runs, Date.now(), 20261129, { texts: false });
  const post = (key, count, make) => sendBatches(`${name} ${key}`, server, token, `${base}/${key}/batch`, key, batchesOf(count, make));
  const runs = await post('runs', cfg.runs, (size) => gen.batch(size));
  log(`${name}: ${fmtInt(runs.count)} runs at ${fmtInt(runs.perSec)} runs/s`);
  let s = 0;
  const scores = await post('scores', cfg.scores, (size) =>
    Array.from({ length: size }, () => {
      const i = s++;
      return { runId: `r-${((i * 7919) % cfg.runs).toString(36)}`, name: `metric-${pad((i * 31) % 5000, 4)}`, value: (i % 10) / 10 };
    }),
  );
  log(`${name}: ${fmtInt(scores.count)} scores at ${fmtInt(scores.perSec)} scores/s`);

  const fields = [
    ['name', `${base}/runs/values?field=name`, VOCABULARY.name],
    ['model', `${base}/runs/values?field=model`, VOCABULARY.model * 3],
    ['tag', `${base}/runs/values?field=tag`, VOCABULARY.tag],
    ['sessionId', `${base}/runs/values?field=sessionId`, VOCABULARY.sessionId],
    ['userId', `${base}/runs/values?field=userId`, VOCABULARY.userId],
    ['metadataKey', `${base}/runs/values?field=metadataKey`, VOCABULARY.feature + 3],
    ['metadataValue customer_id', `${base}/runs/values?field=metadataValue&key=customer_id`, VOCABULARY.customer],
    ['metadataValue request_id', `${base}/runs/values?field=metadataValue&key=request_id`, cfg.runs],
    ['score names', `${base}/scores/values?field=name`, 5000],
  ];
  const reads = [['GET /v1/me (baseline)', '/v1/me', null]];
  for (const [field, path, about] of fields) {
    reads.push([`${field}: first page (100)`, `${path}&limit=${PAGE}`, 100]);
    const { cursor, seen } = await cursorAt(server, token, path, Math.min(DEPTH, Math.floor(about / 2)));
    if (cursor) reads.push([`${field}: page at depth ${fmtInt(seen)} (100)`, `${path}&limit=${PAGE}&cursor=${cursor}`, 100]);
  }
  reads.push(
    ['name: prefix chat.completion.1 (100)', `${base}/runs/values?field=name&prefix=chat.completion.1&limit=${PAGE}`, 100],
    ['sessionId: prefix session-1999 (100)', `${base}/runs/values?field=sessionId&prefix=session-1999&limit=${PAGE}`, 100],
    ['metadataValue request_id: prefix req-8 (100)', `${base}/runs/values?field=metadataValue&key=request_id&prefix=req-8&limit=${PAGE}`, 100],
  );
  const cost = cfg.costRuns > 0 ? await ingestionCost(name, server, token) : null;
  return { runs, scores, cost, reads };
}

function table(all) {
  const lines = ['| Engine | Ingestion | Per second |', '|---|---|---|'];
  for (const e of all) {
    lines.push(`| ${engineName(e.engine)} | ${fmtInt(e.runs.count)} runs | ${fmtInt(e.runs.perSec)} |`);
    lines.push(`| ${engineName(e.engine)} | ${fmtInt(e.scores.count)} scores | ${fmtInt(e.scores.perSec)} |`);
  }
  lines.push('', ...readsTable(all), '');
  for (const e of all.filter((x) => x.cost)) {
    const { skipped, listed } = e.cost;
    lines.push(
      `- ${engineName(e.engine)}, what the values table costs ingestion (${fmtInt(cfg.costRuns)} runs, ${cfg.costRounds} rounds each): ` +
        `metadata it skips ${fmtInt(skipped.perSec)} runs/s at ${fmtInt(skipped.cpu)} ms of server CPU per 1,000; ` +
        `a new value on every run ${fmtInt(listed.perSec)} runs/s at ${fmtInt(listed.cpu)} ms (CPU ×${fmtRatio(listed.cpu / skipped.cpu)})`,
    );
  }
  lines.push(...all.map((e) => `- ${engineName(e.engine)}: server peak RSS ${fmtMb(e.rss?.peakKb)}`));
  return lines.join('\n');
}

await runBench(() =>
  atScale({
    name: 'values',
    title: 'Filter values at scale',
    cfg,
    database: (engine) => (engine === 'sqlite' ? `sqlite:${join(state.tmp, 'values.db')}` : createPgDatabase(`sl_bench_values_${process.pid}`)),
    keepPg: () => (process.env.BENCH_KEEP_PG === '1' ? `kept PostgreSQL database ${state.pgDatabase} (BENCH_KEEP_PG=1)` : null),
    fill,
    table,
  }),
);
