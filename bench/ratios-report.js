// The ratio bench's report: one table (Job | Sightline | Its limit, same run | Ratio | Target | met / not met
// | vs base), each ratio the median of its per-round ratios (both sides measured in the same round), then
// every measurement, the limit's rows, the CPU profile, the machine. "vs base" is current against the base
// build in the same rounds, oriented so that below 1 is a regression: rates current/base, times and memory
// base/current.
import os from 'node:os';
import { engineName, fmtInt, fmtMb, fmtMs, fmtRatio, median, shedSetup } from './harness.js';
import { profileMarkdown } from './cpu-profile.js';
import { READS } from './ratios-reads.js';
import { WAYS } from './ratios-ingest.js';

/** Counted when this module loads, before the bench pins itself to one core. */
const CORES = os.availableParallelism();

const TARGETS = { ingestVsLimit: 0.5, otlpVsBatch: 0.95, startMs: 1500, idleRssMb: 120, peakRssMb: 200 };

/** The median over rounds of `num(round) / den(round)`, for the rounds that have both. */
function pairedRatio(num, den, rounds) {
  const per = [];
  for (const round of rounds) {
    const [n, d] = [num(round), den(round)];
    if (Number.isFinite(n) && Number.isFinite(d) && d > 0) per.push(n / d);
  }
  return { median: median(per), perRound: per };
}

const verdict = (ok, wrong = 0) =>
  wrong > 0 ? `**not met** (${fmtInt(wrong)} answers failed: not 2xx, other bodies, errors or timeouts)` : ok ? 'met' : '**not met**';
const vs = (r) => (r && Number.isFinite(r.median) ? fmtRatio(r.median) : '—');

function ingestRows(engine, results, rounds) {
  const rate = (tree, way) => (round) => results.ingest.find((m) => m.engine === engine && m.tree === tree && m.way === way && m.round === round)?.rate;
  const limit = (round) => results.limits.find((l) => l.engine === engine && l.round === round)?.rate;
  const rates = (f) => median(rounds.map(f));
  const base = (way) => pairedRatio(rate('current', way), rate('base', way), rounds);
  const E = engineName(engine);
  const rows = [];
  for (const way of ['batch', 'otlp']) {
    const w = WAYS.find((x) => x.key === way);
    const r = pairedRatio(rate('current', way), limit, rounds);
    rows.push([
      `Ingestion, ${w.label}, ${E}`,
      `${fmtInt(rates(rate('current', way)))} ${w.unit}/s`,
      `${fmtInt(rates(limit))} runs/s (the same rows, written by the engine alone)`,
      fmtRatio(r.median),
      `≥ ${TARGETS.ingestVsLimit}`,
      verdict(r.median >= TARGETS.ingestVsLimit),
      vs(base(way)),
    ]);
  }
  for (const way of ['otlp', 'grpc']) {
    const w = WAYS.find((x) => x.key === way);
    const r = pairedRatio(rate('current', way), rate('current', 'batch'), rounds);
    rows.push([
      `${w.label} vs the batch API, ${E}`,
      `${fmtInt(rates(rate('current', way)))} ${w.unit}/s`,
      `${fmtInt(rates(rate('current', 'batch')))} runs/s (batch API, the same runs)`,
      fmtRatio(r.median),
      `≥ ${TARGETS.otlpVsBatch}`,
      verdict(r.median >= TARGETS.otlpVsBatch),
      vs(base(way)),
    ]);
  }
  return rows;
}

function readRows(engine, results, rounds) {
  const of = (read, target) => results.reads.filter((m) => m.engine === engine && m.read === read && m.target === target);
  const at =
    (read, target, field = 'rps') =>
    (round) =>
      of(read, target).find((m) => m.round === round)?.[field];
  const E = engineName(engine);
  return READS.map((read) => {
    const rps = median(of(read.key, 'current').map((m) => m.rps));
    const p99 = median(of(read.key, 'current').map((m) => m.p99));
    const against = read.vs === 'bare' ? 'bare' : 'current';
    // A read compared with another read: that read's measurements just before and after it (ratios-reads.js).
    const againstKey = read.vs === 'bare' ? read.key : `${read.key}:${read.vs}`;
    // The bare route does strictly less than the server: a round where it answered slower, while the load
    // generator had time to spare, is a stall of the machine during its measurement, not a limit, and that
    // round's pair is left out (counted in the cell). With the load generator at its limit on the bare route
    // (a large answer, read as fast as one core can), both sides measure the load generator: the pair stays.
    const stall = (round) => at(againstKey, against)(round) < at(read.key, 'current')(round) && !(at(againstKey, against, 'clientCpuShare')(round) >= 0.9);
    const valid = read.vs === 'bare' ? rounds.filter((round) => !stall(round)) : rounds;
    const stalled = rounds.length - valid.length;
    const r = pairedRatio(at(read.key, 'current'), at(againstKey, against), valid);
    const wrong = [...of(read.key, 'current'), ...of(againstKey, against)].reduce((n, m) => n + m.bad, 0);
    const ok = r.median >= read.target && (read.p99Ms === undefined || p99 <= read.p99Ms);
    const limitRps = median(
      of(againstKey, against)
        .filter((m) => valid.includes(m.round))
        .map((m) => m.rps),
    );
    // A load generator near 100% of its core limits the bare route: its rate is then a floor, the ratio a ceiling.
    const clientBound = read.vs === 'bare' && median(of(againstKey, against).map((m) => m.clientCpuShare)) >= 0.9;
    const silent = of(read.key, 'current').filter((m) => m.rps === 0).length;
    return [
      `${read.label}, ${E}, 50 connections`,
      `${fmtInt(rps)} req/s (p99 ${fmtMs(p99)} ms)${silent ? `; no answer at all in ${silent} measurement(s)` : ''}`,
      read.vs === 'bare'
        ? `${fmtInt(limitRps)} req/s (bare Fastify, the same bytes${clientBound ? '; bound by the load generator, so a floor' : ''}` +
          `${stalled ? `; ${stalled} round(s) left out, the bare route slower than the server: a stall` : ''})`
        : `${fmtInt(limitRps)} req/s (runs page 1, same server, measured just before and after)`,
      fmtRatio(r.median),
      `≥ ${read.target}${read.p99Ms ? `, p99 ≤ ${read.p99Ms} ms` : ''}`,
      verdict(ok, wrong),
      vs(pairedRatio(at(read.key, 'current'), at(read.key, 'base'), rounds)),
    ];
  });
}

function memoryRow(engine, results) {
  const peak = (tree) => results.peakRss[engine]?.[tree];
  const cur = peak('current');
  const reads = results.reads.some((m) => m.engine === engine);
  return [
    `Peak RSS through ingestion${reads ? ' and reads' : ''}, ${engineName(engine)}`,
    fmtMb(cur),
    `${TARGETS.peakRssMb} MB`,
    fmtRatio(cur / 1024 / TARGETS.peakRssMb),
    `≤ ${TARGETS.peakRssMb} MB`,
    verdict(cur / 1024 <= TARGETS.peakRssMb),
    peak('base') ? fmtRatio(peak('base') / cur) : '—',
  ];
}

function startRows(start, idleSeconds) {
  const cur = start.current;
  const base = start.base;
  const ms = median(cur.ms);
  const rss2 = median(cur.rss2Kb);
  const idleOk = cur.rssIdleKb / 1024 <= TARGETS.idleRssMb || rss2 / 1024 <= TARGETS.idleRssMb;
  return [
    [
      'Start: `sightline serve` to `/healthz` 200 (SQLite)',
      `${fmtInt(ms)} ms`,
      `${TARGETS.startMs} ms`,
      fmtRatio(ms / TARGETS.startMs),
      '≤ 1.5 s',
      verdict(ms <= TARGETS.startMs),
      base ? fmtRatio(median(base.ms) / ms) : '—',
    ],
    [
      `Idle RSS after start (2 s after ready; ${idleSeconds} s after)`,
      `${fmtMb(rss2)}; ${fmtMb(cur.rssIdleKb)}`,
      `${TARGETS.idleRssMb} MB`,
      fmtRatio(cur.rssIdleKb / 1024 / TARGETS.idleRssMb),
      `≤ ${TARGETS.idleRssMb} MB`,
      verdict(idleOk),
      base ? fmtRatio(base.rssIdleKb / cur.rssIdleKb) : '—',
    ],
  ];
}

/** The table, printed and written. */
export function ratioTable(cfg, results) {
  const rounds = Array.from({ length: cfg.rounds }, (_, i) => i + 1);
  const readRounds = Array.from({ length: cfg.readRounds }, (_, i) => i + 1);
  const rows = [];
  for (const engine of cfg.engines) {
    if (results.limits.some((l) => l.engine === engine)) rows.push(...ingestRows(engine, results, rounds));
    if (results.reads.some((m) => m.engine === engine)) rows.push(...readRows(engine, results, readRounds));
    if (results.peakRss[engine]?.current) rows.push(memoryRow(engine, results));
  }
  if (results.start) rows.push(...startRows(results.start, cfg.idleSeconds));
  const header = ['Job', 'Sightline', 'Its limit, same run', 'Ratio', 'Target', 'met / not met', 'vs base'];
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
    'Ratios: medians of the per-round ratios (both sides measured in the same round). vs base: this build against the base build in the same rounds, ' +
      'rates current/base, times and memory base/current: below 1 is a regression.',
    '',
    'Every read over 1,000,000 runs ≤ 100 ms (target 5) is measured by `npm run bench:million` (bench/million.js), not here.',
  ].join('\n');
}

/** The machine, in one line. */
export function machine() {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${CORES} cores (${cpu}), ${fmtInt(os.totalmem() / 2 ** 20)} MiB, ${os.type()} ${os.release()}, Node ${process.version}`;
}

/** The same ratios from CPU time instead of rates: what each side spent per run or per answer, steadier on a busy machine. */
function cpuRatios(cfg, results) {
  const lines = [
    '## The same ratios by CPU time',
    '',
    'What each side spent per 1,000 runs or per answer, medians over the rounds: less sensitive than rates to other work on the machine. ' +
      'The limit writer counts its own process (on SQLite the engine runs inside it; on PostgreSQL most of the work is the backend, not counted, so no ratio).',
    '',
    '| Job | Sightline CPU | Its limit CPU | Ratio (limit / Sightline) |',
    '|---|---|---|---|',
  ];
  const med = (list) => median(list);
  for (const engine of cfg.engines) {
    const E = engineName(engine);
    const cpu = (tree, way) => med(results.ingest.filter((m) => m.engine === engine && m.tree === tree && m.way === way).map((m) => m.serverCpuMsPer1000));
    const limit = med(results.limits.filter((l) => l.engine === engine).map((l) => (l.cpuMs / l.runs) * 1000));
    if (results.limits.some((l) => l.engine === engine)) {
      for (const way of WAYS) {
        const c = cpu('current', way.key);
        if (engine === 'sqlite' && way.key !== 'grpc')
          lines.push(`| Ingestion, ${way.label}, ${E} | ${fmtInt(c)} ms per 1,000 | ${fmtInt(limit)} ms per 1,000 | ${fmtRatio(limit / c)} |`);
        if (way.key !== 'batch')
          lines.push(
            `| ${way.label} vs the batch API, ${E} | ${fmtInt(c)} ms per 1,000 | ${fmtInt(cpu('current', 'batch'))} ms per 1,000 (batch API) | ${fmtRatio(cpu('current', 'batch') / c)} |`,
          );
      }
    }
    for (const read of READS.filter((r) => r.vs === 'bare')) {
      const of = (target) =>
        med(results.reads.filter((m) => m.engine === engine && m.read === read.key && m.target === target).map((m) => m.serverCpuMsPerRequest));
      if (!results.reads.some((m) => m.engine === engine && m.read === read.key)) continue;
      lines.push(
        `| ${read.label}, ${E} | ${fmtMs(of('current'))} ms per answer | ${fmtMs(of('bare'))} ms per answer (bare) | ${fmtRatio(of('bare') / of('current'))} |`,
      );
    }
  }
  return lines;
}

function details(cfg, results) {
  const lines = [...cpuRatios(cfg, results), '', '## Ingestion, every measurement', ''];
  lines.push('| Engine | Round | Build | Way | Rate /s | Server CPU ms per 1,000 | Request p50 / p99 ms | Retried after 503 (measured + warm-up) | Peak RSS |');
  lines.push('|---|---|---|---|---|---|---|---|---|');
  for (const m of results.ingest)
    lines.push(
      `| ${engineName(m.engine)} | ${m.round} | ${m.tree} | ${m.way} | ${fmtInt(m.rate)} | ${fmtInt(m.serverCpuMsPer1000)} | ${fmtMs(m.requestMs.p50)} / ${fmtMs(m.requestMs.p99)} | ${m.retries} + ${m.warmupRetries} | ${m.peakRssKb ? fmtMb(m.peakRssKb) : 'kept for the reads'} |`,
    );
  lines.push('', '## The limit, every measurement', '');
  lines.push(
    '| Engine | Round | Runs/s | Seconds | Writer CPU ms per 1,000 runs | Transactions | Rows written by table | Time by table | Untimed preparation s |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const l of results.limits)
    lines.push(
      `| ${engineName(l.engine)} | ${l.round} | ${fmtInt(l.rate)} | ${l.seconds.toFixed(2)} | ${fmtInt((l.cpuMs / l.runs) * 1000)} | ${l.transactions} | ${Object.entries(
        l.rows,
      )
        .map(([t, n]) => `${t} ${fmtInt(n)}`)
        .join(', ')} | ${Object.entries(l.msByTable)
        .map(([t, ms]) => `${t} ${fmtInt(ms)} ms`)
        .join(', ')} | ${l.prepareS.toFixed(1)} |`,
    );
  lines.push(
    '',
    '## Reads, every measurement',
    '',
    '| Engine | Round | Read | Server | req/s | p50 ms | p99 ms | Wrong answers | Statuses |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const m of results.reads)
    lines.push(
      `| ${engineName(m.engine)} | ${m.round} | ${m.read} | ${m.target} | ${fmtInt(m.rps)} | ${fmtMs(m.p50)} | ${fmtMs(m.p99)} | ${m.bad} | ${JSON.stringify(m.statusCodes)} |`,
    );
  if (results.captures.length > 0) {
    lines.push('', 'Captured answers (bytes): ');
    for (const c of results.captures)
      lines.push(
        `- ${engineName(c.engine)} ${c.tree}: ${Object.entries(c.captures)
          .map(([k, v]) => `${k} ${fmtInt(v.bytes)} (${v.items} items)`)
          .join(', ')}`,
      );
  }
  if (results.start) {
    lines.push('', '## Start, every measurement', '');
    for (const [tree, s] of Object.entries(results.start))
      lines.push(
        `- ${tree}: ready in ${s.ms.map((x) => `${fmtInt(x)} ms`).join(', ')}; RSS 2 s after ready ${s.rss2Kb.map(fmtMb).join(', ')}; ${cfg.idleSeconds} s after ${fmtMb(s.rssIdleKb)}`,
      );
  }
  if (results.profile)
    lines.push(
      '',
      `## CPU profile of the server during ${results.profile.engine ?? 'SQLite'} ingestion (${results.profile.note})`,
      '',
      profileMarkdown(results.profile.summary),
    );
  return lines.join('\n');
}

/** The whole Markdown report and its JSON. */
export function report(cfg, trees, results, meta) {
  const table = ratioTable(cfg, results);
  const config = { ...cfg, pgUrl: undefined };
  const retries = results.ingest.reduce((n, m) => n + m.retries, 0);
  const markdown = [
    '# Sightline against its limits (issue 26)',
    '',
    `${meta.startedAt} · ${machine()} · load average at the end ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} · ${fmtInt(meta.seconds)} s in all`,
    '',
    `Builds: current ${trees[0].commit}${trees[1] ? `, base ${trees[1].commit} (BENCH_BASE)` : ', no base'}. ${cfg.quick ? 'Quick form (BENCH_QUICK=1). ' : ''}` +
      `${fmtInt(cfg.runs)} runs (~${fmtInt((meta.sizes.batch ?? NaN) / cfg.batch)} bytes of batch JSON each) in requests of ${cfg.batch}, ${cfg.concurrency} in flight, ${cfg.rounds} interleaved round(s); ` +
      `reads at ${cfg.connections} connections, ${cfg.seconds} s each, ${cfg.readRounds} round(s). Server pinned to core 0 (so is the limit writer), load generator on core 1. ` +
      `Requests shed with 503 and sent again after Retry-After: ${retries} during the measured ingestion, ${fmtInt(
        results.ingest.reduce((n, m) => n + m.warmupRetries, 0),
      )} during the warm-ups, ${shedSetup.count} among the setup calls (projects, captures).`,
    '',
    table,
    '',
    details(cfg, results),
    '',
  ].join('\n');
  const json = {
    ...meta,
    shedSetup: shedSetup.count,
    machine: machine(),
    trees: trees.map(({ key, commit, flags }) => ({ key, commit, flags })),
    config,
    results,
  };
  return { table, markdown, json };
}
