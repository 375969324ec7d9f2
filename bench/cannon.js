// One autocannon measurement, run by bench/run.js as `taskset -c 1 node bench/cannon.js '<json options>'`
// so that the load generator sits on its own core. Prints one JSON line with the summary.
import autocannon from 'autocannon';

const options = JSON.parse(process.argv[2] ?? '{}');
const result = await autocannon({
  url: options.url,
  connections: options.connections,
  duration: options.seconds,
  headers: options.headers ?? {},
  // A fixed sequence of requests each connection cycles through (bench/goodput.js), else GETs of `url`.
  ...(options.requests ? { requests: options.requests } : {}),
  pipelining: 1,
  timeout: options.timeout ?? 10,
});
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
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count])),
    errors: result.errors,
    timeouts: result.timeouts,
  })}\n`,
);
