#!/usr/bin/env node
// The reads of issue 26 against a bare Fastify route serving the same bytes, at 50 connections: runs page 1,
// runs at depth 10,000 (limit=25 and a cursor), the traces list (a project's home page), the runs searched for a
// common word (q=refund), and a trace of 1,000 runs. A project of BENCH_READS_RUNS runs (default 100,000, ~1 KB
// each, in traces of 5 runs on average, plus the trace of BENCH_READS_BIG runs) is seeded through the batch API;
// then the rounds interleave, for each read: the bare route, the server of BENCH_READS_BASE (another tree, built:
// the "before"), and this tree's server. The servers take turns on the server core (only one is under load at a
// time), autocannon runs on the other core.
//
//   npm run build && node bench/reads.js
//   BENCH_READS_BASE=/tmp/base-tree BENCH_READS_ENGINES=sqlite BENCH_SECONDS=3 node bench/reads.js
//
// Knobs (env): BENCH_READS_RUNS, BENCH_READS_BIG (default 1000), BENCH_READS_ENGINES (sqlite,pg),
// BENCH_READS_BASE (the root of a built tree: seeds with it, then this tree's server runs on a copy of its
// database, migrated forward), BENCH_READS_ONLY (comma-separated read keys: page1,deep,traces,search,trace),
// BENCH_SECONDS (default 5), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (default 50), BENCH_CPU_PROF_DIR
// (this tree's server runs with --cpu-prof and writes its profile there), BENCH_PG_URL, BENCH_LOG_LEVEL.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startEnv, startFlags } from '../scripts/start-flags.js';
import {
  api,
  benchConfig,
  cannon,
  cpuMsNow,
  engineName,
  enginesFrom,
  envInt,
  freePort,
  log,
  outputOf,
  pinSelf,
  root,
  runBench,
  spawnTracked,
  startPinned,
  state,
  stopServer,
} from './harness.js';
import * as harness from './harness.js';
import { RunGenerator } from './runs-gen.js';

const { fmtInt, fmtMs, fmtRatio, median } = harness;

const cfg = benchConfig({
  runs: envInt('BENCH_READS_RUNS', 100_000, 1000),
  big: envInt('BENCH_READS_BIG', 1000, 2),
  engines: enginesFrom('BENCH_READS_ENGINES'),
  base: process.env.BENCH_READS_BASE || null,
  only: (process.env.BENCH_READS_ONLY || 'page1,deep,traces,search,trace').split(','),
  seconds: envInt('BENCH_SECONDS', 5, 1),
  rounds: envInt('BENCH_ROUNDS', 3, 1),
  connections: envInt('BENCH_CONNECTIONS', 50, 1),
});
cfg.cpuProfDir = process.env.BENCH_CPU_PROF_DIR || null;

const BATCH = 1000;
const DAY = 86_400_000;
// One issuer for every server: the token minted once works on the copy of the database too.
const PUBLIC_URL = 'http://127.0.0.1:1';

function env(port, databaseUrl) {
  return {
    ...process.env,
    ...startEnv(),
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    SIGHTLINE_PUBLIC_URL: PUBLIC_URL,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'warn',
    SIGHTLINE_RATE_LIMIT: '10000000',
  };
}

/** `sightline token create` of `tree` (a CLI of another tree would migrate the database to its own migrations). */
async function mintWith(tree, environment) {
  const child = spawnTracked(
    process.execPath,
    [join(tree, 'bin/sightline.js'), 'token', 'create', '--email', 'bench@sightline.test', '--org', 'bench', '--role', 'owner', '--name', 'bench'],
    { env: environment, stdout: 'pipe' },
  );
  const { code, out, err } = await outputOf(child);
  if (code !== 0) throw new Error(`token create failed (exit ${code}): ${err.slice(-2000)}`);
  return out.trim().split('\n').pop().trim();
}

async function start(name, tree, databaseUrl, profile = false) {
  const port = await freePort();
  const prof = profile && cfg.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cfg.cpuProfDir}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`] : [];
  return startPinned(name, [...startFlags(), ...prof, join(tree, 'bin/sightline.js'), 'serve'], env(port, databaseUrl), port);
}

/** Traces of 1 + 0..8 runs (5 on average) as a tracer sends them, over 30 days. */
function* traceBatches(total, now) {
  const gen = new RunGenerator({ seed: 20261126, now, total });
  let pending = [];
  for (let t = 0, sent = 0; sent < total; t++) {
    const traceId = `tr-${t.toString(36).padStart(8, '0')}`;
    const rootRun = { ...gen.run(), id: `${traceId}-0`, traceId, name: 'support_agent', kind: 'agent' };
    pending.push(rootRun);
    const children = Math.floor(gen.rand() * 9);
    for (let i = 1; i <= children; i++) pending.push({ ...gen.run(), id: `${traceId}-${i}`, traceId, parentRunId: rootRun.id });
    while (pending.length >= BATCH || (pending.length > 0 && sent + pending.length >= total)) {
      const size = Math.min(BATCH, total - sent, pending.length);
      yield pending.slice(0, size);
      sent += size;
      pending = sent >= total ? [] : pending.slice(size);
    }
  }
}

function* bigTrace(count, now) {
  const gen = new RunGenerator({ seed: 7, now, total: count });
  const start = now - DAY;
  for (let i = 0; i < count; i += BATCH)
    yield Array.from({ length: Math.min(BATCH, count - i) }, (_, k) => ({
      ...gen.run(),
      id: `big-${i + k}`,
      traceId: 'big-trace',
      parentRunId: i + k === 0 ? null : 'big-0',
      startTime: new Date(start + (i + k) * 10).toISOString(),
      endTime: new Date(start + (i + k) * 10 + 5).toISOString(),
      status: 'succeeded',
      error: undefined,
    }));
}

async function seed(server, token, projectId) {
  const now = Date.now();
  const batches = [...traceBatches(cfg.runs - cfg.big, now), ...bigTrace(cfg.big, now)];
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < batches.length) {
      const runs = batches[next++];
      const body = JSON.stringify({ runs });
      let json;
      for (let attempt = 0; ; attempt++) {
        try {
          ({ json } = await api(server, token, 'POST', `/v1/projects/${projectId}/runs/batch`, body));
          break;
        } catch (error) {
          // The shedder's 503 while the server falls behind (another process on its core): later, again.
          if (attempt >= 20 || !/answered 503/.test(error.message)) throw error;
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }
      const refused = json.results.filter((r) => r.status !== 'created');
      if (refused.length > 0) throw new Error(`${refused.length} runs refused; first: ${JSON.stringify(refused[0])}`);
    }
  };
  await Promise.all([worker(), worker()]);
  log(`seeded ${fmtInt(cfg.runs)} runs in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/** The bare baseline: one Fastify route answering each captured body (parsed, serialized again per request) by its URL. */
const BARE = `
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
const pages = new Map(Object.entries(JSON.parse(readFileSync(process.env.BARE_PAGES_FILE, 'utf8'))));
const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ status: 'ok' }));
app.get('/v1/*', async (request, reply) => {
  const page = pages.get(request.url);
  if (page === undefined) return reply.code(404).send({ missing: request.url });
  return page;
});
process.once('SIGTERM', async () => { await app.close(); process.exit(0); });
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
`;

async function readsOf(server, token, projectId) {
  const base = `/v1/projects/${projectId}`;
  let cursor = null;
  for (let depth = 0; depth < 10_000;) {
    const page = (await api(server, token, 'GET', `${base}/runs?limit=100${cursor ? `&cursor=${cursor}` : ''}`)).json;
    if (!page.nextCursor) break;
    depth += page.items.length;
    cursor = page.nextCursor;
  }
  const all = [
    { key: 'page1', label: 'runs, page 1', path: `${base}/runs` },
    { key: 'deep', label: 'runs, depth 10,000 (limit=25&cursor)', path: `${base}/runs?limit=25&cursor=${cursor}` },
    { key: 'traces', label: 'traces list (home page)', path: `${base}/traces` },
    { key: 'search', label: 'runs?q=refund', path: `${base}/runs?q=refund` },
    { key: 'trace', label: `a trace of ${fmtInt(cfg.big)} runs`, path: `${base}/traces/big-trace` },
  ];
  return all.filter((r) => cfg.only.includes(r.key));
}

const PG_ADMIN = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';

async function pgAdmin(statements) {
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  try {
    const rows = [];
    for (const statement of statements) rows.push(...(await admin.query(statement)).rows);
    return rows;
  } finally {
    await admin.end();
  }
}

function pgUrl(name) {
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A copy of the seeded database for one server (`serve` migrates it to its tree's migrations). */
async function copyOf(engine, seeded, name) {
  if (engine === 'sqlite') {
    const copy = join(state.tmp, `${name}.db`);
    for (const suffix of ['', '-wal', '-shm']) if (existsSync(`${seeded}${suffix}`)) copyFileSync(`${seeded}${suffix}`, `${copy}${suffix}`);
    return { url: `sqlite:${copy}`, drop: async () => {} };
  }
  const db = `sl_bench_reads_${name}`;
  await pgAdmin([`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`, `CREATE DATABASE "${db}" TEMPLATE "${seeded}"`]);
  return { url: pgUrl(db), drop: () => pgAdmin([`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`]) };
}

/**
 * The seeded database (a SQLite file or a PostgreSQL database name), its token and project: seeded by the base
 * tree (or this one), or, with BENCH_READS_KEEP=<dir>, kept in that directory (and as the PostgreSQL database
 * sl_bench_reads_seeded) and reused when already there.
 */
async function seeded(engine) {
  const tree = cfg.base ?? root;
  const keep = process.env.BENCH_READS_KEEP || null;
  const dir = keep ?? state.tmp;
  const infoFile = join(dir, `${engine}-${cfg.runs}.json`);
  const source = engine === 'sqlite' ? join(dir, `seeded-${cfg.runs}.db`) : `sl_bench_reads_seeded_${cfg.runs}`;
  if (keep && existsSync(infoFile)) {
    const exists = engine === 'sqlite' ? existsSync(source) : (await pgAdmin([`SELECT 1 FROM pg_database WHERE datname = '${source}'`])).length > 0;
    if (exists) {
      log(`${engine}: reusing the seeded database ${source}`);
      return { source, ...JSON.parse(readFileSync(infoFile, 'utf8')) };
    }
  }
  if (engine === 'pg') await pgAdmin([`DROP DATABASE IF EXISTS "${source}" WITH (FORCE)`, `CREATE DATABASE "${source}"`]);
  const url = engine === 'sqlite' ? `sqlite:${source}` : pgUrl(source);
  const seeder = await start(`seed-${engine}`, tree, url);
  try {
    const token = await mintWith(tree, env(1, url));
    const project = (await api(seeder, token, 'POST', '/v1/projects', { name: 'bench-reads' })).json;
    await seed(seeder, token, project.id);
    writeFileSync(infoFile, JSON.stringify({ token, projectId: project.id }));
    return { source, token, projectId: project.id };
  } finally {
    await stopServer(seeder);
  }
}

async function onEngine(engine) {
  const { source, token, projectId } = await seeded(engine);
  const copies = [];
  const servers = [];
  try {
    if (cfg.base) {
      copies.push(await copyOf(engine, source, 'base'));
      servers.push({ key: 'base', server: await start(`base-${engine}`, cfg.base, copies.at(-1).url) });
    }
    copies.push(await copyOf(engine, source, 'current'));
    servers.push({ key: 'current', server: await start(`current-${engine}`, root, copies.at(-1).url, true) });
    const reads = await readsOf(servers.at(-1).server, token, projectId);
    // The bodies every server answers must be the same bytes (the base's are the reference).
    const pages = {};
    for (const read of reads) {
      const bodies = [];
      for (const { key, server } of servers) {
        const r = await api(server, token, 'GET', read.path);
        bodies.push({ key, text: r.text });
      }
      read.bytes = Buffer.byteLength(bodies[0].text);
      for (const b of bodies.slice(1)) if (b.text !== bodies[0].text) log(`WARNING: ${read.label}: ${b.key} answers other bytes than ${bodies[0].key}`);
      pages[read.path] = JSON.parse(bodies[0].text);
    }
    const pagesFile = join(state.tmp, `pages-${engine}.json`);
    writeFileSync(pagesFile, JSON.stringify(pages));
    const bareFile = join(state.tmp, 'bare-reads.mjs');
    writeFileSync(bareFile, BARE.replace("from 'fastify'", `from '${join(root, 'node_modules/fastify/fastify.js')}'`));
    const barePort = await freePort();
    const bare = await startPinned('bare', [bareFile], { ...process.env, PORT: String(barePort), BARE_PAGES_FILE: pagesFile }, barePort);
    servers.unshift({ key: 'bare', server: bare });

    const results = [];
    const measure = async (read, { key, server }, record) => {
      const cpu0 = cpuMsNow(server.pid);
      const r = await cannon({
        url: `${server.base}${read.path}`,
        connections: cfg.connections,
        seconds: record ? cfg.seconds : 1,
        headers: key === 'bare' ? {} : { authorization: `Bearer ${token}` },
      });
      const cpuMs = cpuMsNow(server.pid) - cpu0;
      if (r.non2xx > 0 || r.errors > 0) log(`WARNING: ${read.label} on ${key}: ${r.non2xx} non-2xx, ${r.errors} errors ${JSON.stringify(r.statusCodes)}`);
      if (record) {
        results.push({ read: read.key, server: key, rps: r.rps, p99: r.latencyMs.p99, cpuMsPerReq: cpuMs / r.requests });
        log(
          `${engine} r${results.length}: ${read.label} on ${key}: ${fmtInt(r.rps)} req/s, p99 ${fmtMs(r.latencyMs.p99)} ms, ${(cpuMs / r.requests).toFixed(3)} CPU-ms/req`,
        );
      }
    };
    for (const read of reads) for (const s of servers) await measure(read, s, false);
    for (let round = 0; round < cfg.rounds; round++) for (const read of reads) for (const s of servers) await measure(read, s, true);
    return { engine, reads, results, serverKeys: servers.map((s) => s.key) };
  } finally {
    for (const { server } of servers) await stopServer(server).catch((error) => log(`stopping ${server.name}: ${error.message}`));
    for (const copy of copies) await copy.drop();
  }
}

function table(all) {
  const lines = [
    `${fmtInt(cfg.runs)} runs, ${cfg.connections} connections, ${cfg.rounds} rounds of ${cfg.seconds} s; medians of the rounds`,
    '',
    '| Engine | Read | Bytes | Server | req/s | p99 ms | CPU-ms/req | vs bare | vs page 1 |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { engine, reads, results, serverKeys } of all) {
    const stat = (read, server, field) => median(results.filter((r) => r.read === read && r.server === server).map((r) => r[field]));
    for (const read of reads)
      for (const server of serverKeys) {
        const rps = stat(read.key, server, 'rps');
        const vsBare = server === 'bare' ? '—' : fmtRatio(rps / stat(read.key, 'bare', 'rps'));
        const vsPage1 = server === 'bare' || read.key === 'page1' || !reads.some((r) => r.key === 'page1') ? '—' : fmtRatio(rps / stat('page1', server, 'rps'));
        lines.push(
          `| ${engineName(engine)} | ${read.label} | ${fmtInt(read.bytes)} | ${server} | ${fmtInt(rps)} | ${fmtMs(stat(read.key, server, 'p99'))} | ${stat(read.key, server, 'cpuMsPerReq').toFixed(3)} | ${vsBare} | ${vsPage1} |`,
        );
      }
  }
  return lines.join('\n');
}

await runBench(async () => {
  pinSelf();
  state.tmp = mkdtempSync(join(os.tmpdir(), 'sl-bench-reads-'));
  const all = [];
  for (const engine of cfg.engines) all.push(await onEngine(engine));
  const text = table(all);
  writeFileSync(join(state.tmp, '..', `sl-bench-reads-${Date.now()}.md`), text);
  process.stdout.write(`\n${text}\n`);
});
