// One autocannon measurement, run by the benches as `taskset -c 1 node bench/cannon.js '<json options>'`
// so that the load generator sits on its own core. Prints one JSON line with the summary.
// `expectBodyFile`: a file holding the body every answer must have (autocannon counts the others as
// mismatches); a file, because a body can be longer than a command-line argument may be. A list's
// `nextCursor` is sealed afresh for every answer (the same position, other bytes): it is compared by length.
// `checkEvery`: check the body of one answer in so many on each connection (default 1: every answer), for
// a server so fast that reading every body would make the load generator the limit; every status is checked.
// `clientCpuShare`: the share of one core this process used, to tell when the client is what limits.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import autocannon from 'autocannon';

const options = JSON.parse(process.argv[2] ?? '{}');

/**
 * autocannon decodes each chunk of a body as UTF-8 on its own, which garbles a character split between two
 * chunks: with a body to check, the chunks of the answers checked (one in `every` on each connection) are
 * kept as bytes and decoded once the answer is complete; the others' bodies are not kept (null).
 */
function decodeBodiesWhole(every) {
  const Queue = createRequire(import.meta.url)('autocannon/lib/pipelinedRequestsQueue.js');
  const insert = Queue.prototype.insertRequest;
  Queue.prototype.insertRequest = function insertRequest(req) {
    insert.call(this, req);
    this.inserted = (this.inserted ?? 0) + 1;
    this.pendingRequests.at(-1).checked = this.inserted % every === 0;
  };
  Queue.prototype.addBody = function addBody(data) {
    const req = this.peek();
    if (req?.checked) (req.chunks ??= []).push(Buffer.from(data));
  };
  const terminate = Queue.prototype.terminateRequest;
  Queue.prototype.terminateRequest = function terminateRequest() {
    const data = terminate.call(this);
    if (data) data.body = data.checked ? Buffer.concat(data.chunks ?? []).toString('utf8') : null;
    return data;
  };
}

let bodiesChecked = 0;

/** A check of an answer's body against the expected one, the cursor's characters aside (null: not checked). */
function bodyCheck(expected) {
  const cursor = /"nextCursor":"[^"]*"/;
  const at = expected.search(cursor);
  const prefix = at < 0 ? expected : expected.slice(0, at);
  const rest = at < 0 ? '' : expected.slice(at).replace(cursor, '');
  return (body) => {
    if (body === null) return true;
    bodiesChecked++;
    return at < 0 ? body === expected : body.length === expected.length && body.startsWith(prefix) && body.slice(at).replace(cursor, '') === rest;
  };
}
if (options.expectBodyFile) decodeBodiesWhole(options.checkEvery ?? 1);
const cpu0 = process.cpuUsage();
const result = await autocannon({
  url: options.url,
  connections: options.connections,
  duration: options.seconds,
  headers: options.headers ?? {},
  // A fixed sequence of requests each connection cycles through (bench/goodput.js), else GETs of `url`.
  ...(options.requests ? { requests: options.requests } : {}),
  ...(options.expectBodyFile ? { verifyBody: bodyCheck(readFileSync(options.expectBodyFile, 'utf8')) } : {}),
  pipelining: 1,
  timeout: options.timeout ?? 10,
});
const cpu = process.cpuUsage(cpu0);
const completed = result.requests.total;
process.stdout.write(
  `${JSON.stringify({
    connections: options.connections,
    durationS: result.duration,
    requests: completed,
    rps: result.duration > 0 ? completed / result.duration : 0,
    latencyMs: { mean: result.latency.average, p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    bytesPerResponse: completed > 0 ? Math.round(result.throughput.total / completed) : 0,
    non2xx: result.non2xx,
    mismatches: result.mismatches ?? 0,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count])),
    errors: result.errors,
    timeouts: result.timeouts,
    bodiesChecked,
    clientCpuShare: result.duration > 0 ? (cpu.user + cpu.system) / 1e6 / result.duration : 0,
  })}\n`,
);
