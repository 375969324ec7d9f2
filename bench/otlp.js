#!/usr/bin/env node
// OTLP ingestion benchmark: the same spans stored as runs three ways, on SQLite and on PostgreSQL, each
// phase on a fresh server process and a fresh database (so peaks of memory are the phase's own):
//   (1) OTLP/HTTP protobuf: POST /v1/traces, BENCH_OTLP_BATCH spans per request;
//   (2) JSON batch with ids: POST /v1/projects/{id}/runs/batch with the runs the server maps those spans
//       to (the span ids as client ids, traceId, parentRunId, …): the same runs, stored the same way;
//   (3) JSON batch without ids: the same runs without id, traceId and parentRunId (server ids, all roots).
// Requests are encoded before any server starts (protobuf with the server's own encoder, JSON bodies
// stringified), so the client costs only the sending. The server is pinned to core 0, this client to core 1.
//
//   npm run build && node bench/otlp.js        (or: npm run bench:otlp, which builds when needed)
//
// Knobs (env):
//   BENCH_OTLP_SPANS         spans (= runs) per phase (default 100000)
//   BENCH_OTLP_BATCH         spans per request (default 1000)
//   BENCH_OTLP_CONCURRENCY   requests in flight (default 2)
//   BENCH_OTLP_ROUNDS        rounds; each measures every engine and scenario once, the scenarios' order
//                            rotated from round to round; rates are medians, ratios medians of per-round
//                            ratios, peak RSS the highest of the rounds (default 3)
//   BENCH_OTLP_WARMUP        unrecorded requests into another project before each measurement (default 3)
//   BENCH_OTLP_ENGINES       sqlite,pg (default both)
//   BENCH_PG_URL, BENCH_CPU_PROF_DIR, BENCH_LOG_LEVEL   as for bench/run.js
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  api,
  CLIENT_CPU,
  configureBench,
  cpuMsNow,
  createPgDatabase,
  dropPgDatabase,
  envInt,
  fmtInt,
  fmtMb,
  fmtMs,
  fmtRatio,
  log,
  median,
  percentile,
  pinSelf,
  root,
  runBench,
  SERVER_CPU,
  startWithToken,
  state,
  stopServer,
  writeResults,
} from './harness.js';
import { drive, otlpCodec, runsOf, storedRuns } from './ingest-client.js';
import { OtlpTraceGenerator } from './otlp-gen.js';

const codec = await otlpCodec(root);

const ENGINES = ['sqlite', 'pg'];
const engines = (process.env.BENCH_OTLP_ENGINES || ENGINES.join(','))
  .split(',')
  .map((e) => e.trim())
  .filter(Boolean);
if (engines.length === 0 || engines.some((e) => !ENGINES.includes(e))) throw new Error(`BENCH_OTLP_ENGINES must list engines among ${ENGINES.join(', ')}`);

const cfg = {
  spans: envInt('BENCH_OTLP_SPANS', 100_000, 1),
  batch: envInt('BENCH_OTLP_BATCH', 1000, 1),
  concurrency: envInt('BENCH_OTLP_CONCURRENCY', 2, 1),
  rounds: envInt('BENCH_OTLP_ROUNDS', 3, 1),
  warmup: envInt('BENCH_OTLP_WARMUP', 3, 0),
  engines,
  pgUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test',
  cpuProfDir: process.env.BENCH_CPU_PROF_DIR || null,
  logLevel: process.env.BENCH_LOG_LEVEL || 'warn',
  rssIntervalMs: 50,
};
configureBench(cfg);

const SCENARIOS = [
  { key: 'otlp', label: 'OTLP/HTTP protobuf, POST /v1/traces', unit: 'spans' },
  { key: 'ids', label: 'JSON batch with ids, POST …/runs/batch', unit: 'runs' },
  { key: 'noids', label: 'JSON batch without ids (server ids, all roots)', unit: 'runs' },
];
const ENGINE_LABEL = { sqlite: 'SQLite', pg: 'PostgreSQL' };
const PROJECT = 'bench-otlp';
const WARMUP_PROJECT = 'bench-warmup';

// ---------------------------------------------------------------------------------------------
// Payloads: OTLP requests, and the runs the server maps their spans to (its own mapping, from dist/).

async function payloads(seed, service, requests, spansPerRequest) {
  const generator = new OtlpTraceGenerator({ seed, service });
  const out = { otlp: [], ids: [], noids: [], sampleIds: [] };
  for (let i = 0; i < requests; i++) {
    const bytes = Buffer.from(codec.encodeOtlpRequest(generator.request(spansPerRequest)));
    const runs = await runsOf(codec, bytes);
    out.otlp.push(bytes);
    out.ids.push(Buffer.from(JSON.stringify({ runs })));
    out.noids.push(Buffer.from(JSON.stringify({ runs: runs.map(({ id: _id, traceId: _trace, parentRunId: _parent, ...rest }) => rest) })));
    // Runs whose stored records the phases compare: a few of every request, roots and children.
    for (let j = 0; j < runs.length; j += 97) out.sampleIds.push(runs[j].id);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// One phase: a fresh database and server, warm-up, the measured requests, the stored runs checked.

/** Sends one phase's requests (bench/ingest-client.js: answers checked, sheds retried after Retry-After and counted). */
async function send(server, token, scenario, projectId, bodies) {
  const { elapsedS, latencies, retries } = await drive(
    { base: server.base, token, projectId, codec },
    scenario === 'otlp' ? 'otlp' : 'batch',
    bodies,
    cfg.concurrency,
  );
  return { elapsedS, latencies, shed: retries.count };
}

async function phase(engine, scenario, round, data) {
  const name = `otlp-${engine}-${scenario}-r${round}`;
  const dir = mkdtempSync(join(state.tmp, `${name}-`));
  const databaseUrl = engine === 'sqlite' ? `sqlite:${join(dir, 'bench.db')}` : await createPgDatabase(`sightline_bench_otlp_${process.pid}`);
  try {
    const { server, token } = await startWithToken(name, databaseUrl);
    let rss;
    let measured;
    let project;
    let warmShed = 0;
    try {
      project = (await api(server, token, 'POST', '/v1/projects', { name: PROJECT })).json;
      const warm = (await api(server, token, 'POST', '/v1/projects', { name: WARMUP_PROJECT })).json;
      // The warm-up spans name their own service (the warm-up project), so OTLP routes them there too.
      if (data.warmup[scenario].length > 0) warmShed = (await send(server, token, scenario, warm.id, data.warmup[scenario])).shed;
      const cpu0 = cpuMsNow(server.pid);
      measured = await send(server, token, scenario, project.id, data.measured[scenario]);
      measured.serverCpuMs = cpuMsNow(server.pid) - cpu0;
    } finally {
      rss = await stopServer(server);
    }
    const check = await storedRuns(engine, databaseUrl, project.id, scenario === 'noids' ? [] : data.measured.sampleIds);
    if (check.count !== cfg.spans) throw new Error(`${name}: the project holds ${check.count} runs, expected ${cfg.spans}`);
    if (check.pending !== 0) throw new Error(`${name}: ${check.pending} runs still wait for their trace`);
    const rate = cfg.spans / measured.elapsedS;
    const cpuPer1000 = (measured.serverCpuMs / cfg.spans) * 1000;
    log(
      `round ${round} ${ENGINE_LABEL[engine]} ${scenario}: ${fmtInt(rate)}/s (${measured.elapsedS.toFixed(2)} s), request p50 ${fmtMs(percentile(measured.latencies, 50))} ms, ` +
        `server CPU ${fmtMs(cpuPer1000)} ms per 1,000, peak RSS ${fmtMb(rss.peakKb)}` +
        (measured.shed + warmShed > 0 ? `; shed with 503 and retried: ${measured.shed} measured, ${warmShed} warm-up` : ''),
    );
    return {
      engine,
      scenario,
      round,
      rate,
      elapsedS: measured.elapsedS,
      serverCpuMsPer1000: cpuPer1000,
      shed: measured.shed,
      warmupShed: warmShed,
      requestMs: { p50: percentile(measured.latencies, 50), p99: percentile(measured.latencies, 99), max: Math.max(...measured.latencies) },
      peakRssKb: rss.peakKb,
      hwmKb: rss.hwmKb,
      peakSampledKb: rss.peakSampledKb,
      docs: check.docs,
    };
  } finally {
    if (engine === 'pg') await dropPgDatabase();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The records OTLP stored and the JSON batch stored for the same ids: equal but for project and creation time. */
function compareDocs(a, b) {
  const strip = (doc) => {
    const { projectId: _project, createdAt: _created, ...rest } = JSON.parse(doc);
    return JSON.stringify(rest);
  };
  let compared = 0;
  for (const [id, doc] of a.docs) {
    const other = b.docs.get(id);
    if (other === undefined) throw new Error(`run ${id} stored by ${a.scenario} is missing from ${b.scenario}`);
    if (strip(doc) !== strip(other)) throw new Error(`run ${id} differs between ${a.scenario} and ${b.scenario}:\n${doc}\n${other}`);
    compared++;
  }
  return compared;
}

// ---------------------------------------------------------------------------------------------
// Report

function summarize(measurements) {
  const rows = [];
  for (const engine of cfg.engines) {
    const of = (scenario) => measurements.filter((m) => m.engine === engine && m.scenario === scenario);
    for (const s of SCENARIOS) {
      const ms = of(s.key);
      const ratios = ms.map((m) => m.rate / of('ids').find((i) => i.round === m.round).rate);
      rows.push({
        engine,
        scenario: s.key,
        label: s.label,
        unit: s.unit,
        rate: median(ms.map((m) => m.rate)),
        ratio: median(ratios),
        perRound: ratios,
        rates: ms.map((m) => m.rate),
        cpu: median(ms.map((m) => m.serverCpuMsPer1000)),
        p50: median(ms.map((m) => m.requestMs.p50)),
        p99: median(ms.map((m) => m.requestMs.p99)),
        peakRssKb: Math.max(...ms.map((m) => m.peakRssKb)),
        shed: ms.reduce((n, m) => n + m.shed, 0),
      });
    }
  }
  return rows;
}

function table(rows) {
  const target = (r) =>
    r.scenario === 'otlp'
      ? [`≥ 1.000 (no slower than the JSON batch)`, r.ratio >= 1 ? 'yes' : 'NO']
      : r.scenario === 'noids'
        ? [`≤ 1.000 (runs with ids at least as fast)`, r.ratio <= 1 ? 'yes' : 'NO']
        : ['— (baseline)', '—'];
  const header = [
    'Engine',
    'Scenario',
    'Rate (median)',
    'Ratio vs JSON with ids (median of per-round)',
    'Per-round ratios',
    'Server CPU ms per 1,000 (median)',
    'Request p50 / p99 ms',
    'Peak RSS',
    'Target',
    'Met',
  ];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const r of rows) {
    lines.push(
      `| ${ENGINE_LABEL[r.engine]} | ${r.label} | ${fmtInt(r.rate)} ${r.unit}/s | ${fmtRatio(r.ratio)} | ${r.perRound.map(fmtRatio).join(', ')} | ${fmtMs(r.cpu)} | ` +
        `${fmtMs(r.p50)} / ${fmtMs(r.p99)}${r.shed ? ` (${r.shed} shed with 503, retried)` : ''} | ${fmtMb(r.peakRssKb)} | ${target(r).join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

async function main() {
  const cores = os.availableParallelism(); // before this process pins itself to one core
  pinSelf();
  state.tmp = mkdtempSync(join(os.tmpdir(), 'sightline-bench-otlp-'));
  if (cfg.cpuProfDir) mkdirSync(cfg.cpuProfDir, { recursive: true });
  log(`config: ${JSON.stringify({ ...cfg, pgUrl: undefined })}`);
  const requests = Math.ceil(cfg.spans / cfg.batch);
  if (cfg.spans % cfg.batch !== 0) throw new Error('BENCH_OTLP_SPANS must be a multiple of BENCH_OTLP_BATCH');
  const t0 = performance.now();
  const data = { measured: await payloads(20261124, PROJECT, requests, cfg.batch), warmup: await payloads(7, WARMUP_PROJECT, cfg.warmup, cfg.batch) };
  const avg = (list) => list.reduce((n, b) => n + b.length, 0) / list.length;
  const sizes = { otlp: avg(data.measured.otlp), ids: avg(data.measured.ids), noids: avg(data.measured.noids) };
  log(
    `encoded ${requests} requests of ${cfg.batch} spans in ${((performance.now() - t0) / 1000).toFixed(1)} s; average body: protobuf ${fmtInt(sizes.otlp / 1024)} KiB, ` +
      `JSON with ids ${fmtInt(sizes.ids / 1024)} KiB, without ${fmtInt(sizes.noids / 1024)} KiB`,
  );

  const started = new Date().toISOString();
  const measurements = [];
  let compared = 0;
  for (let round = 1; round <= cfg.rounds; round++) {
    for (const engine of cfg.engines) {
      const order = SCENARIOS.map((_, i) => SCENARIOS[(i + round - 1) % SCENARIOS.length].key);
      const byScenario = {};
      for (const scenario of order) {
        byScenario[scenario] = await phase(engine, scenario, round, data);
        measurements.push(byScenario[scenario]);
      }
      compared += compareDocs(byScenario.otlp, byScenario.ids);
    }
  }
  for (const m of measurements) delete m.docs;
  const rows = summarize(measurements);
  const summary = table(rows);
  const markdown = [
    '# Sightline OTLP ingestion benchmark',
    '',
    `${started} · Node ${process.version} · ${cores} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}) · load average at the end ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
    '',
    `${fmtInt(cfg.spans)} spans (= runs) per phase, ${cfg.batch} per request, ${cfg.concurrency} in flight, ${cfg.rounds} round(s), ${cfg.warmup} warm-up request(s) per phase; ` +
      `each phase on a fresh server (pinned to core ${SERVER_CPU}; the client on core ${CLIENT_CPU}) and a fresh database. ` +
      `Average body: protobuf ${fmtInt(sizes.otlp / 1024)} KiB, JSON with ids ${fmtInt(sizes.ids / 1024)} KiB, without ids ${fmtInt(sizes.noids / 1024)} KiB. ` +
      `Server CPU: user and system time of the Sightline process over the measured requests (PostgreSQL's processes not included), less sensitive than rates to other load on the machine. ` +
      `Peak RSS: the server's VmHWM (and VmRSS sampled every ${cfg.rssIntervalMs} ms), the highest of the rounds. ` +
      `${compared} stored records compared between OTLP and the JSON batch with ids: equal but for projectId and createdAt.`,
    '',
    summary,
    '',
    'For reference: Phoenix took 238 spans/s on SQLite over OTLP (another product, not measured here).',
    '',
    '## Every measurement',
    '',
    '```json',
    JSON.stringify({ config: { ...cfg, pgUrl: undefined }, sizes, measurements }, null, 2),
    '```',
    '',
  ].join('\n');
  writeResults('otlp-latest.md', markdown, summary);
}

await runBench(main);
