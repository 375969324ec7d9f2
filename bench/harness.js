// What the benchmarks share (bench/run.js, bench/otlp.js, …): processes tracked and cleaned up on any exit,
// the built server started pinned to the server core with a token of its own, autocannon pinned to the
// client core, requests, timed reads and their table, resident memory, PostgreSQL databases created and
// dropped next to the admin URL, number formats and the results file.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startEnv, startFlags } from '../scripts/start-flags.js';

/** What the helpers below read of a benchmark's configuration; `configureBench` sets it once. */
const settings = { pgUrl: 'postgres://postgres@127.0.0.1:5432/test', logLevel: 'warn', cpuProfDir: null, rssIntervalMs: 200 };

export function configureBench({ pgUrl, logLevel, cpuProfDir, rssIntervalMs }) {
  Object.assign(settings, { pgUrl, logLevel, cpuProfDir }, rssIntervalMs ? { rssIntervalMs } : {});
}

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_CPU = '0';
export const CLIENT_CPU = '1';

/** The engines a bench measures, from a comma-separated list in `name` (default: all of them). */
export function enginesFrom(name, all = ['sqlite', 'pg']) {
  const engines = (process.env[name] || all.join(',')).split(',').filter(Boolean);
  if (engines.some((e) => !all.includes(e))) throw new Error(`${name} must list engines among ${all.join(', ')}`);
  return engines;
}

/** A bench's settings: its own, then the PostgreSQL admin URL and the servers' log level from the environment; the harness is configured with them. */
export function benchConfig(own) {
  const cfg = {
    ...own,
    pgUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test',
    logLevel: process.env.BENCH_LOG_LEVEL || 'warn',
    cpuProfDir: null,
  };
  configureBench(cfg);
  return cfg;
}

export function envInt(name, fallback, min = 0) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw.replace(/_/g, ''));
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min} (got ${JSON.stringify(raw)})`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Process bookkeeping and cleanup (on success, on error, on Ctrl-C)

const children = new Set();
/** `pgDatabase`: the last database `createPgDatabase` made (what `dropPgDatabase()` drops); `pgDatabases`: every one not dropped yet. */
export const state = { tmp: null, pgDatabase: null, pgDatabases: new Set(), cleaning: null };
/** Synchronous undo steps (a git worktree to remove, …) run at cleanup and, as a last resort, at exit: newest first. */
const undoSteps = [];

/** Registers a synchronous step for cleanup; returns a function that runs it now (once) and forgets it. */
export function onCleanup(step) {
  const entry = { step, done: false };
  undoSteps.push(entry);
  return () => runUndo(entry);
}

function runUndo(entry) {
  if (entry.done) return;
  entry.done = true;
  try {
    entry.step();
  } catch (error) {
    log(`cleanup step failed: ${error.message}`);
  }
}

export function log(message) {
  process.stderr.write(`[bench +${Math.round(process.uptime())}s] ${message}\n`);
}

export function spawnTracked(command, args, { env = process.env, logFile = null, stdout = null } = {}) {
  const fd = logFile ? openSync(logFile, 'a') : null;
  const child = spawn(command, args, {
    cwd: root,
    env,
    stdio: ['ignore', stdout ?? fd ?? 'ignore', fd ?? 'pipe'],
  });
  if (fd !== null) closeSync(fd);
  children.add(child);
  child.exited = new Promise((resolve) => {
    // 'close' (not 'exit'): fires once the process has exited and its stdio is drained.
    child.once('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  child.once('error', (error) => log(`could not start ${command}: ${error.message}`));
  return child;
}

export async function stopChild(child, timeoutMs = 30_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const done = await Promise.race([child.exited.then(() => true), sleep(timeoutMs).then(() => false)]);
  if (!done) {
    child.kill('SIGKILL');
    await child.exited;
  }
}

/** Drops a database `createPgDatabase` made (by default the last one). */
export async function dropPgDatabase(name = state.pgDatabase) {
  if (!name) return;
  const client = new pg.Client({ connectionString: settings.pgUrl });
  try {
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    state.pgDatabases.delete(name);
    if (state.pgDatabase === name) state.pgDatabase = null;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Keeps a database past the bench's end (to study it afterwards): cleanup no longer drops it. */
export function keepPgDatabase(name = state.pgDatabase) {
  state.pgDatabases.delete(name);
  if (state.pgDatabase === name) state.pgDatabase = null;
}

export function cleanup() {
  state.cleaning ??= (async () => {
    await Promise.all([...children].map((child) => stopChild(child, 10_000).catch(() => {})));
    for (const name of [...state.pgDatabases]) {
      try {
        await dropPgDatabase(name);
      } catch (error) {
        log(`could not drop PostgreSQL database ${name}: ${error.message}`);
      }
    }
    for (const entry of [...undoSteps].reverse()) runUndo(entry);
    if (state.tmp) {
      rmSync(state.tmp, { recursive: true, force: true });
      state.tmp = null;
    }
  })();
  return state.cleaning;
}

process.on('exit', () => {
  // Last resort (e.g. process.exit from elsewhere): nothing async runs here.
  for (const child of children) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const entry of [...undoSteps].reverse()) runUndo(entry);
  if (state.tmp) rmSync(state.tmp, { recursive: true, force: true });
  for (const name of state.pgDatabases) {
    try {
      execFileSync('psql', [settings.pgUrl, '-Atqc', `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`], { stdio: 'ignore', timeout: 10_000 });
    } catch {
      // reported nowhere: the process is exiting
    }
  }
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    cleanup().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------
// Small helpers

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export const median = (values) => {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
export const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
export const fmtInt = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
export const fmtMs = (n) => (!Number.isFinite(n) ? 'n/a' : Number.isInteger(n) || n >= 100 ? Math.round(n).toString() : n < 10 ? n.toFixed(2) : n.toFixed(1));
export const fmtRatio = (n) => (Number.isFinite(n) ? n.toFixed(3) : 'n/a');
export const fmtMb = (kb) => (Number.isFinite(kb) ? `${(kb / 1024).toFixed(1)} MB` : 'n/a');
export const fmtBytes = (b) => (b >= 1 << 30 ? `${(b / (1 << 30)).toFixed(2)} GiB` : `${(b / (1 << 20)).toFixed(1)} MiB`);

export function pinSelf() {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', CLIENT_CPU, String(process.pid)], { stdio: 'ignore' });
  } catch (error) {
    log(`warning: could not pin the orchestrator to core ${CLIENT_CPU}: ${error.message}`);
  }
}

/** Peak resident memory of a process: VmRSS sampled every `rssIntervalMs` (200 ms unless configured), and VmHWM (the kernel's own peak). */
export function trackRss(pid) {
  const sample = { peakSampledKb: 0, hwmKb: 0, lastKb: 0, phases: {} };
  let phasePeakKb = 0;
  const read = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
      const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
      sample.lastKb = rss;
      sample.peakSampledKb = Math.max(sample.peakSampledKb, rss);
      phasePeakKb = Math.max(phasePeakKb, rss);
      sample.hwmKb = Math.max(sample.hwmKb, hwm);
    } catch {
      // the process is gone
    }
  };
  const timer = setInterval(read, settings.rssIntervalMs);
  timer.unref();
  read();
  return {
    read,
    /** Ends a phase: records the highest VmRSS sampled since the previous mark (or the start). */
    mark(label) {
      read();
      sample.phases[label] = phasePeakKb;
      phasePeakKb = sample.lastKb;
    },
    stop() {
      read();
      clearInterval(timer);
      return { ...sample, peakKb: Math.max(sample.peakSampledKb, sample.hwmKb) };
    },
  };
}

export function tail(file, lines = 40) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

// ---------------------------------------------------------------------------------------------
// Servers

export function serverEnv(port, databaseUrl, extra = {}) {
  return {
    ...process.env,
    ...extra,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    // The JWT issuer: identical for the CLI that mints the token and the server that verifies it.
    SIGHTLINE_PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: settings.logLevel,
    SIGHTLINE_RATE_LIMIT: '10000000',
  };
}

/** What a child started with `stdout: 'pipe'` printed, once it has exited. */
export async function outputOf(child) {
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
  return { ...(await child.exited), out, err };
}

/** `sightline token create` of the tree at `tree` (this one unless said) for an owner of org `bench`: the token. */
export async function mintToken(env, tree = root) {
  const child = spawnTracked(
    process.execPath,
    [join(tree, 'bin/sightline.js'), 'token', 'create', '--email', 'bench@sightline.test', '--org', 'bench', '--role', 'owner', '--name', 'bench'],
    { env, stdout: 'pipe' },
  );
  const { code, signal, out, err } = await outputOf(child);
  if (code !== 0) throw new Error(`sightline token create failed (exit ${code}, signal ${signal}):\n${out.slice(-2000)}${err.slice(-4000)}`);
  const token = out.trim().split('\n').pop()?.trim();
  if (!token || !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) throw new Error(`token create printed no token:\n${out}`);
  return token;
}

export async function waitHealthy(name, child, base, logFile, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${name} exited during start (code ${child.exitCode}, signal ${child.signalCode}):\n${tail(logFile)}`);
    }
    try {
      const res = await fetch(`${base}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${name} did not become healthy within ${timeoutMs / 1000}s:\n${tail(logFile)}`);
}

/** Starts a Node process pinned to the server core and waits for /healthz; tracks its RSS. */
export async function startPinned(name, nodeArgs, env, port) {
  const logFile = join(state.tmp, `${name}.log`);
  const child = spawnTracked('taskset', ['-c', SERVER_CPU, process.execPath, ...nodeArgs], { env, logFile });
  const base = `http://127.0.0.1:${port}`;
  await waitHealthy(name, child, base, logFile);
  // taskset execs node in place: the pid is the server's own.
  const rss = trackRss(child.pid);
  rss.mark('start');
  return { name, child, base, logFile, pid: child.pid, rss };
}

export function startSightline(name, port, databaseUrl, extraEnv = {}) {
  const profile = settings.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${settings.cpuProfDir}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`] : [];
  // The same Node flags and environment as `npm start` (package.json), so the bench measures the service as it ships.
  return startPinned(
    name,
    [...startFlags(), ...profile, join(root, 'bin/sightline.js'), 'serve'],
    serverEnv(port, databaseUrl, { ...startEnv(), ...extraEnv }),
    port,
  );
}

/** `startSightline` on a free port, with a token minted for it: `{ server, token }`. */
export async function startWithToken(name, databaseUrl, extraEnv = {}) {
  const port = await freePort();
  const token = await mintToken(serverEnv(port, databaseUrl, extraEnv));
  const server = await startSightline(name, port, databaseUrl, extraEnv);
  return { server, token };
}

/** One autocannon measurement (bench/cannon.js and its options) in a child pinned to the client core: its summary. */
export async function cannon(options) {
  const child = spawnTracked('taskset', ['-c', CLIENT_CPU, process.execPath, join(root, 'bench/cannon.js'), JSON.stringify(options)], { stdout: 'pipe' });
  const { code, out, err } = await outputOf(child);
  if (code !== 0) throw new Error(`autocannon failed (code ${code}): ${err.slice(-2000)}`);
  return JSON.parse(out.trim().split('\n').pop());
}

export async function stopServer(server) {
  const rss = server.rss.stop();
  await stopChild(server.child);
  const result = await server.child.exited;
  if (result.code !== 0 && result.signal !== 'SIGTERM')
    log(`${server.name} exited with code ${result.code} signal ${result.signal}:\n${tail(server.logFile, 15)}`);
  return rss;
}

export async function api(server, token, method, path, body) {
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 1000)}`);
  return { status: res.status, text, json: text ? JSON.parse(text) : null };
}

/**
 * Sends batches (`batches`: a function per request, making its items) to a batch endpoint two at a time,
 * under `key` (`runs`, `scores`); throws on any result that is not `created`. A batch shed with a 503 is sent
 * again (counted). Answers how many were sent and at what rate.
 */
export async function sendBatches(label, server, token, path, key, batches) {
  let next = 0;
  let sent = 0;
  let shed = 0;
  const started = performance.now();
  let lastReport = started;
  const worker = async () => {
    while (next < batches.length) {
      const items = batches[next++]();
      const body = JSON.stringify({ [key]: items });
      let json;
      // A loaded machine can stall the server's event loop past its bound: it sheds with a 503, and the
      // batch is sent again after Retry-After, as the SDK does (counted and reported).
      for (let attempt = 0; ; attempt++) {
        try {
          ({ json } = await api(server, token, 'POST', path, body));
          break;
        } catch (error) {
          if (!/ answered 503:/.test(error.message) || attempt === 5) throw error;
          shed++;
          await new Promise((resolve) => setTimeout(resolve, 2000));
        }
      }
      const refused = json.results.filter((r) => r.status !== 'created');
      if (refused.length > 0) throw new Error(`${label}: ${refused.length} refused; first: ${JSON.stringify(refused[0])}`);
      sent += items.length;
      if (performance.now() - lastReport > 10_000) {
        lastReport = performance.now();
        log(`${label}: ${fmtInt(sent)}, ${fmtInt(sent / ((lastReport - started) / 1000))}/s`);
      }
    }
  };
  await Promise.all([worker(), worker()]);
  if (shed > 0) log(`${label}: ${shed} batches shed with 503 and sent again`);
  return { count: sent, perSec: sent / ((performance.now() - started) / 1000), shed };
}

/** Requests answered 503 with Retry-After and sent again by `apiRetrying` (setup calls, not measurements). */
export const shedSetup = { count: 0 };

/** `api`, sending again after Retry-After when the server sheds the request with a 503 (up to 10 times; counted in `shedSetup`). */
export async function apiRetrying(server, token, method, path, body) {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${server.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    const wait = Number(res.headers.get('retry-after'));
    if (res.status === 503 && wait >= 0 && wait <= 30 && attempt < 10) {
      shedSetup.count++;
      await sleep(wait * 1000);
      continue;
    }
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 1000)}`);
    return { status: res.status, text, json: text ? JSON.parse(text) : null };
  }
}

export function readRssNow(pid) {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  } catch {
    return NaN;
  }
}

/** CPU time a process has used so far (user + system, in ms; /proc/<pid>/stat counts clock ticks of 10 ms). */
export function cpuMsNow(pid) {
  try {
    // The command name (field 2) may hold spaces: the fields after it start past its closing parenthesis.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/**
 * Creates (after dropping any leftover) a PostgreSQL database next to the admin URL, empty or a copy of
 * `template` (a database nobody is connected to); returns its URL. Dropped by `dropPgDatabase` or on exit.
 */
export async function createPgDatabase(name, { template = null } = {}) {
  const admin = new pg.Client({ connectionString: settings.pgUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
    state.pgDatabase = name;
    state.pgDatabases.add(name);
  } finally {
    await admin.end();
  }
  const url = new URL(settings.pgUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs a benchmark's main function, then cleans up (children, databases, temporary files) however it ended. */
export async function runBench(main) {
  try {
    await main();
    await cleanup();
  } catch (error) {
    log(`FAILED: ${error?.stack ?? error}`);
    await cleanup();
    process.exitCode = 1;
  }
}

/** A read timed as a dashboard makes it: 3 unrecorded, then `samples` sequential requests; median, p95 and the last answer. */
export async function timedGet(server, token, path, samples) {
  for (let i = 0; i < 3; i++) await api(server, token, 'GET', path);
  const times = [];
  let last;
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    last = await api(server, token, 'GET', path);
    times.push(performance.now() - t0);
  }
  return { median: median(times), p95: percentile(times, 95), json: last.json };
}

/** `reads` (label, path, target median in ms or null; GET /v1/me first, the baseline) each timed by `timedGet`, logged as they come. */
async function timeReads(engine, server, token, reads, samples) {
  const results = [];
  for (const [label, path, target] of reads) {
    const r = await timedGet(server, token, path, samples);
    results.push({ label, target, median: r.median, p95: r.p95 });
    log(`${engine}: ${label}: median ${fmtMs(r.median)} ms, p95 ${fmtMs(r.p95)} ms`);
  }
  return results;
}

export const engineName = (engine) => (engine === 'sqlite' ? 'SQLite' : 'PostgreSQL');

/** The table of `timeReads`' results, an engine's rows after another's: each read against the baseline and its target. */
export function readsTable(all) {
  const lines = ['| Engine | Read | Median ms | p95 ms | vs GET /v1/me | Target (median) | Met |', '|---|---|---|---|---|---|---|'];
  for (const { engine, results } of all) {
    const baseline = results[0].median;
    for (const r of results)
      lines.push(
        `| ${engineName(engine)} | ${r.label} | ${fmtMs(r.median)} | ${fmtMs(r.p95)} | ${r.target ? fmtRatio(r.median / baseline) : '—'} | ${r.target ? `≤ ${r.target} ms` : '—'} | ${r.target ? (r.median <= r.target ? 'yes' : 'NO') : '—'} |`,
      );
  }
  return lines;
}

/** Writes bench/results/<file> and prints what the terminal shows of it (`shown`), with where the rest is. */
export function writeResults(file, markdown, shown, json = null) {
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  writeFileSync(join(root, 'bench/results', file), markdown);
  const jsonFile = json === null ? null : file.replace(/\.md$/, '.json');
  if (jsonFile) writeFileSync(join(root, 'bench/results', jsonFile), `${JSON.stringify(json, null, 2)}\n`);
  process.stdout.write(`\n${shown}\n\nFull results: bench/results/${file}${jsonFile ? ` and bench/results/${jsonFile}` : ''}\n`);
}

/**
 * A bench at scale (bench/scores.js, bench/traces.js): on each engine of `cfg.engines` in turn, the database
 * `database(engine)` names, a server on it with a token and a project `bench-<name>`; `fill(engine, server, token,
 * project)` stores what is measured and gives `reads` (for `timeReads`, `cfg.samples` each) with what else it
 * reports; then `table(all)`, printed and written to bench/results/<name>-latest.md. `keepPg(databaseUrl)` says
 * why the PostgreSQL database is kept (to study its plans afterwards), or null to drop it.
 */
export async function atScale({ name, title, cfg, database, keepPg, fill, table }) {
  const onEngine = async (engine) => {
    const databaseUrl = await database(engine);
    const { server, token } = await startWithToken(`${name}-${engine}`, databaseUrl);
    try {
      const project = (await api(server, token, 'POST', '/v1/projects', { name: `bench-${name}` })).json;
      const { reads, ...filled } = await fill(engine, server, token, project);
      const results = await timeReads(engine, server, token, reads, cfg.samples);
      const rss = await stopServer(server);
      return { engine, ...filled, results, rss };
    } catch (error) {
      log(`server log, last lines:\n${tail(server.logFile, 30)}`);
      await stopServer(server).catch(() => {});
      throw error;
    } finally {
      const kept = engine === 'pg' ? keepPg(databaseUrl) : null;
      if (kept) {
        log(kept);
        keepPgDatabase();
      } else if (engine === 'pg') await dropPgDatabase();
    }
  };
  pinSelf();
  state.tmp = mkdtempSync(join(os.tmpdir(), `sightline-bench-${name}-`));
  log(`config: ${JSON.stringify({ ...cfg, pgUrl: undefined })}`);
  const all = [];
  for (const engine of cfg.engines) all.push(await onEngine(engine));
  const shown = table(all);
  writeResults(`${name}-latest.md`, `# ${title}\n\n${new Date().toISOString()} · ${JSON.stringify({ ...cfg, pgUrl: undefined })}\n\n${shown}\n`, shown);
}
