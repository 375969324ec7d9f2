#!/usr/bin/env node
// The traces pages in a real browser at scale (issue 28: "the traces page with 1,000,000 runs (first row
// ≤ 1 s) and a 25,000-run trace (first paint ≤ 2 s)"). On each engine (SQLite, then PostgreSQL) the built
// server (pinned to core 0; this script and Debian's chromium, driven by playwright-core, on core 1) on a
// fresh database; signed in through the built-in development identity provider, a project is seeded
// through the batch API with BENCH_PAGES_RUNS runs in traces as a tracer sends them (bench/runs-gen.js's
// TraceGenerator, as bench/traces.js seeds: a root agent and 0..8 children, sessions of five traces,
// 10,000 end users, over 30 days) and one trace of BENCH_PAGES_BIG runs as a long-running agent records
// it (agentTrace: steps of nested chains calling LLMs, tools and retrievers, 7 levels deep, one run in 20
// failed). Then each page below is loaded as a new document navigated to from the dashboard page before it
// (a reload or a typed URL of a returning user: the hashed assets from the browser's cache), all of them
// in rotation, BENCH_PAGES_SAMPLES times after 2 unrecorded rounds: the time from navigation until the
// frame that first draws what the page is for (a trace row; a waterfall row; a waterfall row and the
// opened run's details), the browser's first contentful paint, and the API requests the page made before
// that (resource timing: from the request's start to its answer's end). Medians are printed against the
// targets and written to bench/results/pages-latest.md and .json.
//
//   npm run bench:pages                                            (builds dist/ and the dashboard first when needed)
//   BENCH_PAGES_RUNS=100000 BENCH_PAGES_ENGINES=sqlite npm run bench:pages    (the quick mode: a few minutes)
//
// Knobs (env): BENCH_PAGES_RUNS (default 1,000,000), BENCH_PAGES_BIG (runs of the big trace, default
// 25,000), BENCH_PAGES_SAMPLES (loads per page, default 7), BENCH_PAGES_ENGINES (sqlite,pg),
// BENCH_PAGES_READ_CACHE_MB (the server's read cache, default 0: off, so that every load runs its queries as
// a page opened for the first time does; 8 is the server's default), BENCH_PG_URL, BENCH_CHROMIUM, BENCH_LOG_LEVEL.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import {
  api,
  benchConfig,
  createPgDatabase,
  dropPgDatabase,
  engineName,
  enginesFrom,
  envInt,
  fmtInt,
  fmtMs,
  freePort,
  log,
  median,
  pinSelf,
  runBench,
  sendBatches,
  startSightline,
  state,
  stopServer,
  tail,
  writeResults,
} from './harness.js';
import { CHROMIUM, firstContent, firstContentProbe, launchChromium, signIn, useDevelopmentIdentity } from './browser.js';
import { agentTrace, TraceGenerator } from './runs-gen.js';

const cfg = benchConfig({
  runs: envInt('BENCH_PAGES_RUNS', 1_000_000, 1000),
  big: envInt('BENCH_PAGES_BIG', 25_000, 100),
  samples: envInt('BENCH_PAGES_SAMPLES', 7, 1),
  readCacheMb: envInt('BENCH_PAGES_READ_CACHE_MB', 0, 0),
  engines: enginesFrom('BENCH_PAGES_ENGINES'),
  chromium: CHROMIUM,
});

const BATCH = 1000;
const HOUR = 3_600_000;
const BIG_TRACE = 'agent-trace';
const TRACE_ROW = '[role="table"][aria-label="Traces"] [role="row"] [role="cell"]';
const WATERFALL_ROW = '[role="table"][aria-label="Runs of the trace on a time axis"] [role="row"] [role="cell"]';
const RUN_DETAILS = '.sl-run-panel .sl-facts';
/** What each page is for, by its path and query (the probe's rules: the first that matches). */
const PROBE = {
  byUrl: [
    ['/traces/[^/?]+\\?(.*&)?run=', [WATERFALL_ROW, RUN_DETAILS]],
    ['/traces/[^/?]+', WATERFALL_ROW],
    ['/traces', TRACE_ROW],
  ],
};

/** A page measured: its key, what the table calls it, its path under the project, and its target in ms (or none). */
function pagesOf(seeded) {
  const n = fmtInt(cfg.runs);
  const b = fmtInt(cfg.big);
  return [
    { key: 'list', label: `Traces page (the project's home), first trace row: ${n} runs, last 24 hours (the default)`, path: 'traces', target: 1000 },
    { key: 'list30d', label: `Traces page, first trace row: last 30 days (every run in range)`, path: 'traces?range=30d', target: 1000 },
    { key: 'failed', label: 'Traces page, first trace row: last 30 days, status failed', path: 'traces?range=30d&status=failed', target: 1000 },
    {
      key: 'user',
      label: `Traces page, first trace row: last 30 days, one user's (${seeded.userTraces} traces)`,
      path: `traces?range=30d&userId=user-42`,
      target: 1000,
    },
    { key: 'search', label: 'Traces page, first trace row: last 30 days, q=refund', path: 'traces?range=30d&q=refund', target: 1000 },
    {
      key: 'small',
      label: `Trace page, first waterfall row: a trace of ${seeded.smallRuns} runs (baseline)`,
      path: `traces/${seeded.smallTrace}`,
      target: null,
    },
    { key: 'big', label: `Trace page, first waterfall row: a trace of ${b} runs`, path: `traces/${BIG_TRACE}`, target: 2000 },
    {
      key: 'bigRun',
      label: `Trace page of ${b} runs with ?run= a run ${seeded.deepestDepth} levels deep: its row and its details drawn`,
      path: `traces/${BIG_TRACE}?run=${seeded.deepest}`,
      target: null,
    },
  ];
}

/** The project's runs through POST …/runs/batch, 1,000 a request, two in flight: the traces, then the big one. */
async function seed(engine, server, token, projectId) {
  const now = Date.now();
  const gen = new TraceGenerator(cfg.runs, now);
  const batches = Array.from({ length: Math.ceil(cfg.runs / BATCH) }, (_, i) => () => gen.batch(Math.min(BATCH, cfg.runs - i * BATCH)));
  const big = agentTrace({ traceId: BIG_TRACE, total: cfg.big, start: now - 6 * HOUR });
  for (let i = 0; i < big.runs.length; i += BATCH) batches.push(() => big.runs.slice(i, i + BATCH));
  const sent = await sendBatches(`seed ${engine}`, server, token, `/v1/projects/${projectId}/runs/batch`, 'runs', batches);
  log(`${engine}: ${fmtInt(sent.count)} runs seeded at ${fmtInt(sent.perSec)} runs/s`);
  // A trace of the middle of the range, as it was seeded (its root and children), for the small trace's baseline.
  const middle = TraceGenerator.traceId(Math.floor(gen.trace / 2));
  const small = (await api(server, token, 'GET', `/v1/projects/${projectId}/traces/${middle}`)).json;
  const user = (await api(server, token, 'GET', `/v1/projects/${projectId}/traces?userId=user-42&limit=200`)).json;
  return {
    runs: sent.count,
    runsPerSec: sent.perSec,
    shed: sent.shed,
    traces: gen.trace + 1,
    smallTrace: middle,
    smallRuns: small.runs.length,
    userTraces: user.items.length,
    deepest: big.deepest,
    deepestDepth: big.depth,
  };
}

/** The API requests of a page's loads, by path (ids replaced): median ms of each and its bytes. */
function requestsOf(loads, projectId) {
  const byPath = new Map();
  for (const load of loads)
    for (const r of load.requests) {
      const path = r.path
        .replace(projectId, '{p}')
        .replace(/\/traces\/[^/]+$/, '/traces/{id}')
        .replace(/\/runs\/[^/]+$/, '/runs/{id}');
      if (!byPath.has(path)) byPath.set(path, []);
      byPath.get(path).push(r);
    }
  return [...byPath].map(([path, list]) => ({
    path,
    ms: median(list.map((r) => r.ms)),
    bytes: median(list.map((r) => r.bytes)),
    start: median(list.map((r) => r.start)),
  }));
}

/**
 * `firstContent`, or what the page showed when nothing was drawn within a minute (an answer refused with
 * a 503 while the overloaded server shed load shows as an error box: the page then never draws a row).
 */
async function load(page, path) {
  try {
    const drawn = await firstContent(page, path, { withRequests: true });
    // The page's later requests (a big trace's whole outline, the chart) end before the next page is
    // timed: a page is measured on a server that is not still answering the one before.
    await page.waitForLoadState('networkidle', { timeout: 60_000 }).catch(() => {});
    return drawn;
  } catch (error) {
    const shown = await page
      .locator('[role="alert"]')
      .allTextContents()
      .catch(() => []);
    return { failed: shown.length > 0 ? shown.join(' / ').slice(0, 200) : error.message.split('\n')[0] };
  }
}

async function onEngine(engine, browser) {
  const databaseUrl = engine === 'sqlite' ? `sqlite:${join(state.tmp, 'pages.db')}` : await createPgDatabase(`sl_bench_pages_${process.pid}`);
  // The read cache off by default: every load runs its queries, as a page opened for the first time does.
  const server = await startSightline(`pages-${engine}`, await freePort(), databaseUrl, { SIGHTLINE_READ_CACHE_MB: String(cfg.readCacheMb) });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, baseURL: server.base, locale: 'en-US', timezoneId: 'UTC' });
  try {
    context.setDefaultTimeout(60_000);
    await context.addInitScript(firstContentProbe, PROBE);
    const page = await context.newPage();
    const token = await signIn(page, `bench-pages-${engine}@example.test`);
    const projectId = (await api(server, token, 'POST', '/v1/projects', { name: `bench-pages-${engine}` })).json.id;
    const seeded = await seed(engine, server, token, projectId);
    // What the server does after a bulk load (the WAL's checkpoint above all) is left to end before the pages are timed.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const pages = pagesOf(seeded);
    const loads = Object.fromEntries(pages.map((p) => [p.key, []]));
    const failures = Object.fromEntries(pages.map((p) => [p.key, []]));
    for (let round = -2; round < cfg.samples; round++)
      for (const p of pages) {
        const r = await load(page, `/projects/${projectId}/${p.path}`);
        if (r.failed) {
          log(`${engine}: ${p.key}: a load failed (${r.failed}); it is counted, and left out of the medians`);
          failures[p.key].push(r.failed);
        } else if (round >= 0) loads[p.key].push(r);
      }
    const measured = pages.map((p) => ({
      ...p,
      failures: failures[p.key],
      first: loads[p.key].map((r) => r.first),
      fcp: loads[p.key].map((r) => r.fcp),
      requests: requestsOf(loads[p.key], projectId),
    }));
    for (const m of measured) log(`${engine}: ${m.key}: first ${fmtMs(median(m.first))} ms (${m.first.map(fmtMs).join(', ')}), FCP ${fmtMs(median(m.fcp))} ms`);
    await context.close();
    const rss = await stopServer(server);
    return { engine, seeded, measured, peakRssMb: rss.peakKb / 1024 };
  } catch (error) {
    log(`server log, last lines:\n${tail(server.logFile, 30)}`);
    await context.close().catch(() => {});
    await stopServer(server).catch(() => {});
    throw error;
  } finally {
    if (engine === 'pg') await dropPgDatabase();
  }
}

function report(all, startedAt, load) {
  const lines = ['| Engine | Page (median of loads) | First drawn | First contentful paint | Target | Met |', '|---|---|---|---|---|---|'];
  for (const e of all)
    for (const m of e.measured) {
      const first = median(m.first);
      const met = m.target === null ? '—' : first <= m.target ? 'yes' : 'NO';
      lines.push(
        `| ${engineName(e.engine)} | ${m.label} | ${fmtMs(first)} ms${m.failures.length > 0 ? ` (${m.failures.length} load(s) failed)` : ''} | ${fmtMs(median(m.fcp))} ms | ${m.target === null ? '—' : `≤ ${fmtInt(m.target)} ms`} | ${met} |`,
      );
    }
  const notes = all.map(
    (e) =>
      `- ${engineName(e.engine)}: ${fmtInt(e.seeded.runs)} runs (${fmtInt(e.seeded.traces)} traces) seeded through POST …/runs/batch at ${fmtInt(e.seeded.runsPerSec)} runs/s${e.seeded.shed ? ` (${e.seeded.shed} batches shed and sent again)` : ''}; server peak RSS ${e.peakRssMb.toFixed(1)} MB`,
  );
  const shown = [...lines, '', ...notes].join('\n');
  const requests = ['## The API requests before the first drawn (median ms from request start to answer end; bytes as sent)', ''];
  for (const e of all)
    for (const m of e.measured)
      requests.push(
        `- ${engineName(e.engine)}, ${m.key}: ${m.requests.map((r) => `${r.path} ${fmtMs(r.ms)} ms at +${fmtMs(r.start)} (${fmtInt(r.bytes)} B)`).join('; ')}`,
      );
  const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), load average ${load.start} at the start and ${os.loadavg()[0].toFixed(2)} at the end`;
  const settings = { runs: cfg.runs, big: cfg.big, samples: cfg.samples, engines: cfg.engines, readCacheMb: cfg.readCacheMb };
  const markdown = `# The traces pages at scale\n\n${startedAt} · Node ${process.version} · ${machine} · ${JSON.stringify(settings)}\n\n${shown}\n\n${requests.join('\n')}\n`;
  writeResults('pages-latest.md', markdown, shown, { startedAt, machine, settings, engines: all });
}

async function main() {
  pinSelf();
  state.tmp = mkdtempSync(join(os.tmpdir(), 'sightline-bench-pages-'));
  const startedAt = new Date().toISOString();
  const load = { start: os.loadavg()[0].toFixed(2) };
  log(`config: ${JSON.stringify({ ...cfg, pgUrl: undefined })}`);
  useDevelopmentIdentity();
  const browser = await launchChromium(cfg.chromium);
  try {
    const all = [];
    for (const engine of cfg.engines) all.push(await onEngine(engine, browser));
    report(all, startedAt, load);
  } finally {
    await browser.close().catch(() => {});
  }
}

await runBench(main);
