// Reads against their limit (issue 26, target 2): each read the dashboard makes most, measured with
// autocannon at 50 connections against a bare Fastify route (bench/bare-server.js) serving the bytes the
// real server answered, byte for byte, its header fields included, pinned to the same core; the base build measured in the same
// rounds. Every status is checked, and one body in ten on every side (autocannon's verifyBody, bench/cannon.js).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiRetrying, cannon, cpuMsNow, fmtInt, fmtMs, freePort, log, root, startPinned, state, stopServer } from './harness.js';

/** The reads; `vs`: what each is measured against (the bare route, or another read of the same server). */
/** In the order measured in a round; a read compared with another (`vs`) is measured between two measurements of that other read on the same server. */
export const READS = [
  { key: 'page1', label: 'Runs page 1', vs: 'bare', target: 0.5 },
  { key: 'depth', label: 'Runs at depth 10,000', vs: 'page1', target: 0.95 },
  { key: 'traces', label: 'Traces list', vs: 'bare', target: 0.5 },
  { key: 'trace', label: 'A trace of 1,000 runs', vs: 'bare', target: 0.5 },
  { key: 'q', label: 'Runs search `q`', vs: 'bare', target: 0.2, p99Ms: 100 },
];

const cursorless = (text) => text.replace(/"nextCursor":"[^"]*"/, '"nextCursor":""');

/** Header fields the bare route's HTTP server writes itself (or that say how the body travels). */
const OWN_FIELDS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'content-type']);

/**
 * A GET answered 200 twice alike (but for the sealed cursor): its text, and the header fields the API
 * answers with beside those any HTTP server writes (request id, security headers, rate limits, cache
 * control: the contract's), which the bare route sends too, as captured, so that it serves the same bytes.
 */
async function capture(reader, path) {
  const [a, b] = [await apiRetrying(reader.server, reader.token, 'GET', path), await apiRetrying(reader.server, reader.token, 'GET', path)];
  if (a.status !== 200 || cursorless(a.text) !== cursorless(b.text)) throw new Error(`GET ${path} answered differently twice`);
  const answer = await fetch(`${reader.server.base}${path}`, { headers: { authorization: `Bearer ${reader.token}` } });
  await answer.arrayBuffer();
  if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}`);
  const headers = Object.fromEntries([...answer.headers].filter(([name]) => !OWN_FIELDS.has(name)));
  return { path, text: a.text, json: a.json, headers };
}

/** The runs list at `depth`: walked there 100 at a time, then the page of `size` that starts there. */
async function depthPath(reader, list, size, depth) {
  let cursor = null;
  let walked = 0;
  while (walked < depth) {
    const page = (await apiRetrying(reader.server, reader.token, 'GET', `${list}?limit=100${cursor ? `&cursor=${cursor}` : ''}`)).json;
    if (!page.nextCursor) throw new Error(`only ${walked + page.items.length} runs: not ${depth} deep`);
    walked += page.items.length;
    cursor = page.nextCursor;
  }
  return `${list}?limit=${size}&cursor=${cursor}`;
}

/** Stores the trace of 1,000 runs (untimed), then captures every read of `reader`: `{ key: { path, file, bytes } }`. */
export async function prepareReader(name, reader, data, cfg, sendBatch) {
  await sendBatch(reader, [data.bigTrace.body]);
  const base = `/v1/projects/${reader.projectId}`;
  const page1 = await capture(reader, `${base}/runs`);
  const trace = await capture(reader, `${base}/traces/${data.bigTrace.traceId}`);
  if (trace.json.runs?.length !== data.bigTrace.runs) throw new Error(`the trace holds ${trace.json.runs?.length} runs, not ${data.bigTrace.runs}`);
  const q = await capture(reader, `${base}/runs?q=${data.word}`);
  if (q.json.items.length === 0 || !q.json.items.every((r) => JSON.stringify(r).includes(data.word))) throw new Error(`q=${data.word} found runs without it`);
  const answers = {
    page1,
    traces: await capture(reader, `${base}/traces`),
    trace,
    depth: await capture(reader, await depthPath(reader, `${base}/runs`, page1.json.items.length, cfg.depth)),
    q,
  };
  const out = {};
  for (const [key, answer] of Object.entries(answers)) {
    const file = join(state.tmp, `${name}-${key}.json`);
    writeFileSync(file, answer.text);
    out[key] = {
      url: answer.path,
      file,
      bytes: Buffer.byteLength(answer.text),
      items: answer.json.items?.length ?? answer.json.runs?.length,
      headers: answer.headers,
    };
  }
  return out;
}

/**
 * The read rounds of one engine: `readers` (`{ key, server, token, captures }`: the current build first)
 * and the bare route serving the first one's captures, each read measured on each, the order rotated
 * round by round. Returns every measurement.
 */
export async function readRounds(engine, readers, cfg) {
  const bodies = Object.fromEntries(Object.values(readers[0].captures).map((c) => [c.url, { file: c.file, headers: c.headers }]));
  const bodiesFile = join(state.tmp, `bare-${engine}.json`);
  writeFileSync(bodiesFile, JSON.stringify(bodies));
  const port = await freePort();
  const bare = await startPinned(
    `bare-${engine}`,
    [join(root, 'bench/bare-server.js')],
    { ...process.env, PORT: String(port), BARE_BODIES_FILE: bodiesFile },
    port,
  );
  const targets = [{ key: 'bare', server: bare, token: readers[0].token, captures: readers[0].captures }, ...readers];
  try {
    for (const c of Object.values(readers[0].captures)) {
      const got = await apiRetrying(bare, readers[0].token, 'GET', c.url);
      if (got.text !== readFileSync(c.file, 'utf8')) throw new Error(`the bare route does not answer ${c.url} byte for byte`);
      const fields = (await fetch(`${bare.base}${c.url}`)).headers;
      for (const [name, value] of Object.entries(c.headers))
        if (fields.get(name) !== value) throw new Error(`the bare route does not answer ${c.url} with ${name}: ${value}`);
    }
    const measure = (read, target, seconds) =>
      cannon({
        url: `${target.server.base}${target.captures[read.key].url}`,
        connections: cfg.connections,
        seconds,
        headers: { authorization: `Bearer ${target.token}` },
        expectBodyFile: target.captures[read.key].file,
        // One body in ten on every side (every status is checked): the bare route, and Sightline answering from
        // its read cache, answer so fast that reading every body made the load generator the limit, and
        // checking one side more than the other measured the load generator, not the servers.
        checkEvery: 10,
      });
    const on = (read) => targets.filter((t) => t.key !== 'bare' || read.vs === 'bare');
    // The warm-up: the real servers' routes (the bare route has nothing to warm).
    if (cfg.readWarmupSeconds > 0) for (const read of READS) for (const target of readers) await measure(read, target, cfg.readWarmupSeconds);
    const measurements = [];
    for (let round = 1; round <= cfg.readRounds; round++) {
      for (const read of READS) {
        const list = on(read);
        for (let i = 0; i < list.length; i++) {
          const target = list[(i + round - 1) % list.length];
          const one = async (measured) => {
            const cpu0 = cpuMsNow(target.server.pid);
            const r = await measure(measured, target, cfg.seconds);
            const serverCpuMsPerRequest = (cpuMsNow(target.server.pid) - cpu0) / r.requests;
            const bad = r.non2xx + r.mismatches + r.errors + r.timeouts;
            log(
              `reads ${engine} round ${round} ${measured.key}${measured === read ? '' : ` (beside ${read.key})`} ${target.key}: ${fmtInt(r.rps)} req/s, p99 ${fmtMs(r.latencyMs.p99)} ms, server CPU ${fmtMs(serverCpuMsPerRequest)} ms/request, client CPU ${Math.round(r.clientCpuShare * 100)}%` +
                (r.requests === 0 ? '; NO ANSWER within the measurement' : '') +
                (bad ? `; WRONG ANSWERS: ${r.non2xx} non-2xx, ${r.mismatches} other bodies, ${r.errors} errors, ${r.timeouts} timeouts` : ''),
            );
            return {
              engine,
              read: measured.key,
              target: target.key,
              round,
              rps: r.rps,
              p50: r.latencyMs.p50,
              p99: r.latencyMs.p99,
              bad,
              statusCodes: r.statusCodes,
              clientCpuShare: r.clientCpuShare,
              bodiesChecked: r.bodiesChecked,
              serverCpuMsPerRequest,
            };
          };
          if (read.vs === 'bare') {
            measurements.push(await one(read));
            continue;
          }
          // A read compared with another read of the same server: that read measured just before and just
          // after it, on the same server, and their mean its side of the ratio (what the machine did in the
          // seconds between two measurements moved this ratio by up to 0.1 when they were minutes apart).
          const other = READS.find((r) => r.key === read.vs);
          const before = await one(other);
          measurements.push(await one(read));
          const after = await one(other);
          const mean = (field) => (before[field] + after[field]) / 2;
          measurements.push({
            ...before,
            read: `${read.key}:${read.vs}`,
            rps: mean('rps'),
            p50: mean('p50'),
            p99: Math.max(before.p99, after.p99),
            bad: before.bad + after.bad,
            clientCpuShare: mean('clientCpuShare'),
            bodiesChecked: before.bodiesChecked + after.bodiesChecked,
            serverCpuMsPerRequest: mean('serverCpuMsPerRequest'),
          });
        }
      }
    }
    return measurements;
  } finally {
    await stopServer(bare);
  }
}
