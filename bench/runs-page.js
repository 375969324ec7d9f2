#!/usr/bin/env node
// The runs page in a real browser with 10,000 runs (issue 14: "the runs page first content ≤ 500 ms in
// the browser with 10,000 loaded rows scrolled"). The built server on SQLite; a project of
// BENCH_RUNS_PAGE_RUNS runs (default 10,000: traces of a root and three children, realistic inputs and
// outputs, all in the last 24 hours so the page's default range shows them) ingested through the batch
// API, and an empty project; Debian's chromium driven by playwright-core, signed in through the built-in
// development identity provider; the server pinned to core 0, this script and chromium to core 1. Then, in
// one run:
//   (a) first content: from navigation to /projects/{p}/runs (a new document, navigated to from the
//       dashboard page before it: a reload or a typed URL of a returning user) until the first run row is
//       drawn (and the browser's first-contentful-paint), beside two baselines loaded the same way in
//       rotation: the same page of the empty project (until its empty state is drawn) and the traces page
//       of the same project;
//   (b) with the list scrolled until all its runs are loaded (the page, which the list scrolls with, scrolled
//       to its end again and again; loaded = aria-rowcount): the document's element count and the JS heap (after a collection),
//       against the same with the first page loaded; a scroll to the middle (and other places) until the row
//       there is drawn, against the same jump with the first page loaded; then a run opened and Back to the
//       runs page: the time to its first row again, against (a).
// Prints medians and ratios (measured in this run), and writes bench/results/runs-page-latest.md.
//
//   npm run build && npm run build:web && node bench/runs-page.js        (or: npm run bench:runs-page)
//
// Knobs (env): BENCH_RUNS_PAGE_RUNS, BENCH_RUNS_PAGE_SAMPLES (first-content samples per page, default 11),
// BENCH_RUNS_PAGE_SCROLLS (full 10,000-row loads, default 5), BENCH_CHROMIUM (default SIGHTLINE_TEST_CHROMIUM
// or /usr/bin/chromium), BENCH_LOG_LEVEL.
/* global window, document, history, requestAnimationFrame -- functions that run in the page */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CHROMIUM, firstContent, firstContentProbe, launchChromium, signIn, useDevelopmentIdentity } from './browser.js';
import {
  api,
  configureBench,
  envInt,
  fmtInt,
  fmtMs,
  fmtRatio,
  freePort,
  log,
  median,
  pinSelf,
  runBench,
  startSightline,
  state,
  stopServer,
  tail,
  writeResults,
} from './harness.js';
import { RunGenerator } from './runs-gen.js';

const cfg = {
  runs: envInt('BENCH_RUNS_PAGE_RUNS', 10_000, 300),
  samples: envInt('BENCH_RUNS_PAGE_SAMPLES', 11, 1),
  scrolls: envInt('BENCH_RUNS_PAGE_SCROLLS', 5, 1),
  chromium: CHROMIUM,
  logLevel: process.env.BENCH_LOG_LEVEL || 'warn',
  cpuProfDir: null,
};
configureBench(cfg);

const TARGET_MS = 500;
const BATCH = 1000;
const FIRST_ROW = '[role="table"] [role="rowgroup"] [role="row"]';
/** Where the list's scroll jumps to, as fractions of its height. */
const PLACES = [0.5, 0.25, 0.75, 0.1, 0.9];

/** Traces of a root agent and three children (ids of the client's), realistic payloads, spread over the last 21.6 hours. */
function* batches(total, now) {
  const gen = new RunGenerator({ seed: 20261125, now, spreadDays: 0.9, total });
  for (let from = 0; from < total; from += BATCH) {
    const runs = [];
    for (let n = from; n < Math.min(total, from + BATCH); n++) {
      const run = { ...gen.run(), id: `run-${n}` };
      if (n % 4 !== 0) run.parentRunId = `run-${n - (n % 4)}`;
      else Object.assign(run, { name: 'support_agent', kind: 'agent' });
      runs.push(run);
    }
    yield runs;
  }
}

async function ingest(server, token, projectId) {
  const started = performance.now();
  let created = 0;
  for (const runs of batches(cfg.runs, Date.now())) {
    const { json } = await api(server, token, 'POST', `/v1/projects/${projectId}/runs/batch`, { runs });
    const refused = json.results.filter((r) => r.status !== 'created');
    if (refused.length > 0) throw new Error(`${refused.length} runs refused; first: ${JSON.stringify(refused[0])}`);
    created += runs.length;
  }
  return { runs: created, runsPerSec: created / ((performance.now() - started) / 1000) };
}

/** Scrolls the page (the runs list scrolls with it) to its end, frame after frame, until `target` runs are loaded; ms taken. */
function scrollUntilLoaded(page, target) {
  return page.evaluate(async (want) => {
    const table = document.querySelector('[role="table"][aria-label="Runs"]');
    const t0 = performance.now();
    while (Number(table.getAttribute('aria-rowcount')) < want) {
      if (performance.now() - t0 > 300_000) throw new Error(`only ${table.getAttribute('aria-rowcount')} runs loaded after 300 s`);
      window.scrollTo(0, document.documentElement.scrollHeight);
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
    return performance.now() - t0;
  }, target);
}

/** Jumps the page to each fraction of the list's height: ms until the row there is in the document and a frame has drawn it. */
function scrollJumps(page, fractions) {
  return page.evaluate(async (places) => {
    const table = document.querySelector('[role="table"][aria-label="Runs"]');
    const rows = table.querySelector('.sl-vbox');
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    const rowHeight = rows.firstElementChild.offsetHeight / Number(table.getAttribute('aria-rowcount'));
    const times = [];
    for (const fraction of places) {
      await frame();
      const index = Math.floor((Number(table.getAttribute('aria-rowcount')) - 1) * fraction);
      const t0 = performance.now();
      window.scrollTo(0, rows.getBoundingClientRect().top + window.scrollY + index * rowHeight);
      await frame();
      await frame();
      while (!table.querySelector(`[aria-rowindex="${index + 1}"]`)) await frame();
      times.push(performance.now() - t0);
    }
    return times;
  }, fractions);
}

/** The document's element count, and the JS heap in use after a full collection (CDP). */
async function weight(page, cdp) {
  await cdp.send('HeapProfiler.collectGarbage');
  const heap = await cdp.send('Runtime.getHeapUsage');
  return { nodes: await page.evaluate(() => document.getElementsByTagName('*').length), heapMb: heap.usedSize / 2 ** 20 };
}

async function main() {
  pinSelf();
  state.tmp = mkdtempSync(join(os.tmpdir(), 'sightline-bench-runs-page-'));
  log(`config: ${JSON.stringify(cfg)}`);
  useDevelopmentIdentity();
  const port = await freePort();
  const server = await startSightline('runs-page', port, `sqlite:${join(state.tmp, 'runs-page.db')}`);
  const browser = await launchChromium(cfg.chromium);
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: server.base, locale: 'en-US', timezoneId: 'UTC' });
    context.setDefaultTimeout(30_000);
    await context.addInitScript(firstContentProbe, `${FIRST_ROW}, .empty`);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const token = await signIn(page, 'bench-runs-page@example.test');
    const project = (await api(server, token, 'POST', '/v1/projects', { name: 'bench-runs-page' })).json.id;
    const empty = (await api(server, token, 'POST', '/v1/projects', { name: 'bench-empty' })).json.id;
    const ingested = await ingest(server, token, project);
    log(`ingested ${fmtInt(ingested.runs)} runs at ${fmtInt(ingested.runsPerSec)} runs/s`);
    const runsPath = `/projects/${project}/runs`;

    // (a) First content, the three pages in rotation (2 unrecorded rounds first).
    const pages = { runs: runsPath, empty: `/projects/${empty}/runs`, traces: `/projects/${project}/traces` };
    const cold = { runs: [], empty: [], traces: [], fcp: [] };
    for (let i = -2; i < cfg.samples; i++)
      for (const [name, path] of Object.entries(pages)) {
        const r = await firstContent(page, path);
        if (i < 0) continue;
        cold[name].push(r.first);
        if (name === 'runs') cold.fcp.push(r.fcp);
      }
    log(`first content: runs ${fmtMs(median(cold.runs))} ms, empty ${fmtMs(median(cold.empty))} ms, traces ${fmtMs(median(cold.traces))} ms`);

    // (b) The list with every run loaded, then a run and Back.
    const full = { load: [], nodes: [], heap: [], nodes1: [], heap1: [], jump: [], jump1: [], back: [], heapBack: [] };
    for (let i = 0; i < cfg.scrolls; i++) {
      await firstContent(page, runsPath);
      await page.waitForFunction(() => Number(document.querySelector('[role="table"][aria-label="Runs"]')?.getAttribute('aria-rowcount')) >= 100);
      const one = await weight(page, cdp);
      full.nodes1.push(one.nodes);
      full.heap1.push(one.heapMb);
      full.jump1.push(...(await scrollJumps(page, PLACES)));
      full.load.push(await scrollUntilLoaded(page, cfg.runs));
      const all = await weight(page, cdp);
      full.nodes.push(all.nodes);
      full.heap.push(all.heapMb);
      full.jump.push(...(await scrollJumps(page, PLACES)));
      // A run opened from its row (where the last jump left the list), then Back to the list.
      await page.locator(`${FIRST_ROW} a`).first().click();
      await page.waitForURL(/\/runs\/run-/);
      await page.getByRole('heading', { name: 'Inputs' }).first().waitFor();
      await page.evaluate((selector) => {
        window.__slMark(selector);
        history.back();
      }, FIRST_ROW);
      await page.waitForFunction(() => typeof window.__slFirst === 'number', null, { polling: 50 });
      full.back.push(await page.evaluate(() => window.__slFirst));
      full.heapBack.push((await weight(page, cdp)).heapMb);
      log(
        `scroll ${i + 1}: ${fmtInt(cfg.runs)} runs loaded in ${fmtMs(full.load.at(-1))} ms; ${fmtInt(all.nodes)} elements, heap ${all.heapMb.toFixed(1)} MB; back: first row ${fmtMs(full.back.at(-1))} ms`,
      );
    }
    await context.close();
    await stopServer(server);
    report({ ingested, cold, full });
  } catch (error) {
    log(`server log, last lines:\n${tail(server.logFile, 30)}`);
    await stopServer(server).catch(() => {});
    throw error;
  } finally {
    await browser.close().catch(() => {});
  }
}

function report({ ingested, cold, full }) {
  const m = (values) => median(values);
  const mb = (values) => `${m(values).toFixed(1)} MB`;
  const n = fmtInt(cfg.runs);
  const row = (what, value, baseline, ratio, target = '—', met = '—') => `| ${what} | ${value} | ${baseline} | ${ratio} | ${target} | ${met} |`;
  const backMet = m(full.back) <= TARGET_MS ? 'yes' : 'NO';
  const coldMet = m(cold.runs) <= TARGET_MS ? 'yes' : 'NO';
  const lines = [
    '| Measure (median) | Value | Baseline (same run) | Ratio | Target | Met |',
    '|---|---|---|---|---|---|',
    row(
      `Runs page, first row: new document, ${n} runs in range`,
      `${fmtMs(m(cold.runs))} ms`,
      `empty project's runs page, empty state: ${fmtMs(m(cold.empty))} ms`,
      fmtRatio(m(cold.runs) / m(cold.empty)),
      `≤ ${TARGET_MS} ms`,
      coldMet,
    ),
    row('Runs page, first contentful paint', `${fmtMs(m(cold.fcp))} ms`, '—', '—'),
    row(
      'Runs page, first row: new document',
      `${fmtMs(m(cold.runs))} ms`,
      `traces page of the same project: ${fmtMs(m(cold.traces))} ms`,
      fmtRatio(m(cold.runs) / m(cold.traces)),
    ),
    row(
      `Runs page, first row after ${n} loaded rows scrolled, a run opened and Back`,
      `${fmtMs(m(full.back))} ms`,
      `new document: ${fmtMs(m(cold.runs))} ms`,
      fmtRatio(m(full.back) / m(cold.runs)),
      `≤ ${TARGET_MS} ms`,
      backMet,
    ),
    row(`Scrolling until ${n} runs are loaded (pages of 100)`, `${fmtInt(m(full.load))} ms`, '—', '—'),
    row(
      `Elements in the document, ${n} runs loaded`,
      fmtInt(m(full.nodes)),
      `first page (100): ${fmtInt(m(full.nodes1))}`,
      fmtRatio(m(full.nodes) / m(full.nodes1)),
    ),
    row(`JS heap used, ${n} runs loaded`, mb(full.heap), `first page (100): ${mb(full.heap1)}`, fmtRatio(m(full.heap) / m(full.heap1))),
    row(
      'JS heap used, back on the runs page (first page again)',
      mb(full.heapBack),
      `first page (100): ${mb(full.heap1)}`,
      fmtRatio(m(full.heapBack) / m(full.heap1)),
    ),
    row(
      `A jump of the list's scroll (middle, quarters, tenths) until its row is drawn, ${n} loaded`,
      `${fmtMs(m(full.jump))} ms`,
      `first page (100): ${fmtMs(m(full.jump1))} ms`,
      fmtRatio(m(full.jump) / m(full.jump1)),
    ),
  ];
  const notes = [
    `- ${fmtInt(ingested.runs)} runs ingested through POST …/runs/batch at ${fmtInt(ingested.runsPerSec)} runs/s (traces of a root and three children, over the last 21.6 hours)`,
    `- first content: ${cfg.samples} samples per page after 2 unrecorded rounds, the three pages in rotation; ${cfg.scrolls} full loads of ${n} runs, ${PLACES.length} jumps each`,
  ];
  const table = [...lines, '', ...notes].join('\n');
  writeResults('runs-page-latest.md', `# The runs page with ${n} runs\n\n${new Date().toISOString()} · ${JSON.stringify(cfg)}\n\n${table}\n`, table);
}

await runBench(main);
