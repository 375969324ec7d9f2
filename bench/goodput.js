#!/usr/bin/env node
// Goodput under overload: reads (the dashboard's lists), then reads mixed with batch writes (an SDK's
// batches), sent by 20 connections, then by 200, to a server pinned to one core. Shedding is meant to cut the
// excess and keep serving near capacity: the bench reports requests served (2xx) per second at each
// and their ratio (200 connections against 20: at least 0.8), the rest answered 503, none timing out.
//
//   npm run bench:goodput        (builds when needed)
//
// Knobs (env):
//   BENCH_GOODPUT_SECONDS   seconds per measurement (default 30)
//   BENCH_GOODPUT_LOW       connections of the baseline (default 20)
//   BENCH_GOODPUT_HIGH      connections of the overload (default 200)
//   BENCH_GOODPUT_SEED      runs stored before measuring (default 20000)
//   BENCH_GOODPUT_ENGINES   sqlite,pg (default both)
//   BENCH_PG_URL, BENCH_LOG_LEVEL   as for bench/run.js
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import {
  api,
  cannon,
  configureBench,
  createPgDatabase,
  dropPgDatabase,
  envInt,
  fmtInt,
  fmtMb,
  fmtRatio,
  log,
  pinSelf,
  runBench,
  startWithToken,
  state,
  stopServer,
} from './harness.js';
import { RunGenerator } from './runs-gen.js';

const cfg = {
  seconds: envInt('BENCH_GOODPUT_SECONDS', 30, 1),
  low: envInt('BENCH_GOODPUT_LOW', 20, 1),
  high: envInt('BENCH_GOODPUT_HIGH', 200, 1),
  seed: envInt('BENCH_GOODPUT_SEED', 20_000, 0),
  batch: envInt('BENCH_GOODPUT_BATCH', 100, 1),
  engines: (process.env.BENCH_GOODPUT_ENGINES ?? 'sqlite,pg').split(',').map((e) => e.trim()),
  pgUrl: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  logLevel: process.env.BENCH_LOG_LEVEL || 'warn',
  /** The client's timeout: an answer slower than this counts as a timeout (autocannon's default is 10 s). */
  timeoutS: 10,
};
configureBench({ pgUrl: cfg.pgUrl, logLevel: cfg.logLevel, cpuProfDir: null });

const TARGET_RATIO = 0.8;

const measureLoad = (connections, seconds, requests) => cannon({ url: requests.base, connections, seconds, requests: requests.list, timeout: cfg.timeoutS });

/**
 * What every connection cycles through: the reads a dashboard makes (a runs page, a traces page, the
 * projects, the runs chart), and in the mixed scenario one SDK batch of BENCH_GOODPUT_BATCH runs among them.
 */
function requestMix(server, token, projectId, generator, withBatch) {
  const auth = { authorization: `Bearer ${token}` };
  const reads = [
    { method: 'GET', path: `/v1/projects/${projectId}/runs?limit=50`, headers: auth },
    { method: 'GET', path: `/v1/projects/${projectId}/traces?limit=50`, headers: auth },
    { method: 'GET', path: '/v1/projects', headers: auth },
    // The runs chart: every run of the last 30 days (all of them) aggregated by day.
    {
      method: 'GET',
      path: `/v1/projects/${projectId}/runs/metrics?from=${new Date(Date.now() - 30 * 86_400_000).toISOString()}&to=${new Date(Date.now() + 86_400_000).toISOString()}&bucket=1d`,
      headers: auth,
    },
  ];
  if (!withBatch) return { base: server.base, list: reads };
  const batch = JSON.stringify({ runs: generator.batch(cfg.batch) });
  return {
    base: server.base,
    list: [
      ...reads.slice(0, 2),
      { method: 'POST', path: `/v1/projects/${projectId}/runs/batch`, headers: { ...auth, 'content-type': 'application/json' }, body: batch },
      ...reads.slice(2),
    ],
  };
}

function served(result) {
  const ok = Object.entries(result.statusCodes).reduce((n, [code, count]) => (code.startsWith('2') ? n + count : n), 0);
  const shed = result.statusCodes['503'] ?? 0;
  const other = Object.entries(result.statusCodes).reduce((n, [code, count]) => (!code.startsWith('2') && code !== '503' ? n + count : n), 0);
  return {
    ok,
    okPerSec: ok / result.durationS,
    shed,
    other,
    timeouts: result.timeouts,
    errors: result.errors,
    p99: result.latencyMs.p99,
    statusCodes: result.statusCodes,
  };
}

async function measure(engine, databaseUrl) {
  const { server, token } = await startWithToken(`goodput-${engine}`, databaseUrl);
  try {
    const project = (await api(server, token, 'POST', '/v1/projects', { name: `goodput-${engine}` })).json;
    const generator = new RunGenerator({ seed: 20261127, total: cfg.seed + 1000 });
    for (let stored = 0; stored < cfg.seed; stored += 1000) {
      await api(server, token, 'POST', `/v1/projects/${project.id}/runs/batch`, JSON.stringify({ runs: generator.batch(Math.min(1000, cfg.seed - stored)) }));
    }
    log(`${engine}: ${fmtInt(cfg.seed)} runs stored; warming up`);
    const results = [];
    for (const scenario of ['reads', 'mixed']) {
      const mix = requestMix(server, token, project.id, generator, scenario === 'mixed');
      await measureLoad(cfg.low, 5, mix);
      const low = served(await measureLoad(cfg.low, cfg.seconds, mix));
      log(
        `${engine} ${scenario}: ${cfg.low} connections: ${fmtInt(low.okPerSec)} served/s, ${fmtInt(low.shed)} shed, ${low.timeouts} timeouts, p99 ${Math.round(low.p99)} ms`,
      );
      const high = served(await measureLoad(cfg.high, cfg.seconds, mix));
      log(
        `${engine} ${scenario}: ${cfg.high} connections: ${fmtInt(high.okPerSec)} served/s, ${fmtInt(high.shed)} shed, ${high.timeouts} timeouts, p99 ${Math.round(high.p99)} ms`,
      );
      const health = await fetch(`${server.base}/healthz`);
      if (!health.ok) throw new Error(`${engine}: /healthz answered ${health.status} after the overload`);
      results.push({ engine, scenario, low, high, ratio: high.okPerSec / low.okPerSec });
    }
    return results;
  } finally {
    const rss = await stopServer(server);
    log(`${engine}: server peak RSS ${fmtMb(rss.peakKb)}`);
  }
}

async function main() {
  pinSelf();
  state.tmp = mkdtempSync(join(os.tmpdir(), 'sightline-goodput-'));
  const results = [];
  for (const engine of cfg.engines) {
    if (engine === 'sqlite') results.push(...(await measure('sqlite', `sqlite:${join(state.tmp, 'goodput.db')}`)));
    else if (engine === 'pg') {
      results.push(...(await measure('pg', await createPgDatabase(`sightline_goodput_${process.pid}`))));
      await dropPgDatabase();
    } else throw new Error(`unknown engine ${engine}`);
  }
  const lines = [
    '',
    `Goodput: requests served (2xx) per second, ${cfg.seconds} s each; reads: a runs page, a traces page, the projects and the runs chart; mixed: the same with a ${cfg.batch}-run batch`,
    '',
    `| engine | scenario | ${cfg.low} connections | ${cfg.high} connections | ratio (target >= ${TARGET_RATIO}) | shed (503) at ${cfg.high} | other non-2xx | timeouts | p99 at ${cfg.high} |`,
    '|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.engine} | ${r.scenario} | ${fmtInt(r.low.okPerSec)}/s | ${fmtInt(r.high.okPerSec)}/s | ${fmtRatio(r.ratio)} | ${fmtInt(r.high.shed)} | ${fmtInt(r.high.other + r.low.other)} | ${r.high.timeouts + r.low.timeouts} | ${Math.round(r.high.p99)} ms |`,
    ),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const failed = results.filter((r) => r.ratio < TARGET_RATIO || r.high.timeouts + r.low.timeouts > 0 || r.high.other + r.low.other > 0);
  for (const r of failed)
    log(
      `${r.engine} ${r.scenario}: below target (ratio ${fmtRatio(r.ratio)}, ${r.high.timeouts + r.low.timeouts} timeouts, statuses ${JSON.stringify(r.high.statusCodes)})`,
    );
  if (failed.length > 0) process.exitCode = 1;
}

await runBench(main);
