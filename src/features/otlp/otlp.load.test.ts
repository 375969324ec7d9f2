/**
 * OTLP/HTTP requests at the edge of the documented limits (docs/otlp.md, OTLP limits), against a real server
 * process run as `npm start` runs it (160 MB old-space heap), on both engines. Before the ingestion worked
 * in bounded chunks, the first two aborted the process ("JavaScript heap out of memory"), and a resource's
 * attributes were walked again for every span (100,000 × 400: answered after 116 s, /healthz dead meanwhile).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../../scripts/build-if-needed.js';
import { dialects } from '../../../test/helpers/harness.js';
import { pollHealth } from '../../../test/helpers/health.js';
import { cliToken, NPM_START_FLAGS, peakRssMb, startInstance, stop, waitForReady, type Instance } from '../../../test/helpers/process.js';
import { freePort } from '../../../test/helpers/services.js';
import { createProcessDatabase } from '../../../test/helpers/storage.js';
import { encodeOtlpRequest } from './otlp.decode.js';

/** What the server process may hold at its peak, whatever it is sent within the limits. */
const PEAK_RSS_MB = 250;

const hex = (n: number, length: number) => n.toString(16).padStart(length, '0');
const text = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** `traces` traces of `perTrace` spans each (a root and its children), one resource named `service`. */
function request(service: string, traces: number, perTrace: number, resourceAttributes = 0) {
  const spans = [];
  for (let t = 0; t < traces; t++) {
    for (let s = 0; s < perTrace; s++) {
      const id = t * perTrace + s + 1;
      spans.push({
        traceId: hex(t + 1, 32),
        spanId: hex(id, 16),
        // Children first, as exporters send them (a span is exported when it ends, before its parent).
        parentSpanId: s === perTrace - 1 ? undefined : hex(t * perTrace + perTrace, 16),
        name: `step ${s}`,
        kind: 1,
        startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(id) * 1000n),
        endTimeUnixNano: String(1_700_000_001_000_000_000n + BigInt(id) * 1000n),
        attributes: perTrace > 1 ? [text('step', String(s))] : [],
      });
    }
  }
  const attributes = [text('service.name', service)];
  for (let i = 0; i < resourceAttributes; i++) attributes.push(text(`resource.attribute.${i}`, `value ${i}`));
  return Buffer.from(encodeOtlpRequest({ resourceSpans: [{ resource: { attributes }, scopeSpans: [{ scope: { name: 'load' }, spans }] }] }));
}

for (const dialect of dialects) {
  describe(`OTLP/HTTP at the limits, on a server run as npm start runs it [${dialect}]`, () => {
    let instance: Instance;
    let token: string;
    let cleanup = async () => {};

    beforeAll(async () => {
      ensureBuilt();
      const database = await createProcessDatabase(dialect, 'sl_otlp_load');
      const databaseUrl = database.url;
      cleanup = database.drop;
      const port = await freePort();
      const env = {
        DATABASE_URL: databaseUrl,
        SIGHTLINE_PUBLIC_URL: `http://127.0.0.1:${port}`,
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        SIGHTLINE_OTLP_GRPC_PORT: 'off',
      };
      instance = startInstance(`otlp-load-${dialect}`, port, env, NPM_START_FLAGS);
      await waitForReady(instance);
      ({ token } = await cliToken(env, `otlp-load-${dialect}@example.test`, `otlp-load-${dialect}`, 'member'));
    }, 120_000);

    afterAll(async () => {
      await stop(instance);
      await cleanup();
    }, 60_000);

    const send = (body: Buffer) =>
      fetch(instance.url('/v1/traces'), {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-protobuf' },
        body,
        signal: AbortSignal.timeout(120_000),
      });

    /** Every run of the project named `name`, by id, read back through the export. */
    async function storedRuns(name: string): Promise<Map<string, { traceId: string; parentRunId: string | null }>> {
      const projects = await fetch(instance.url(`/v1/projects?name=${name}`), { headers: { authorization: `Bearer ${token}` } });
      const project = ((await projects.json()) as { items: { id: string; name: string }[] }).items.find((p) => p.name === name)!;
      const res = await fetch(instance.url(`/v1/projects/${project.id}/runs/export`), { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      const runs = new Map<string, { traceId: string; parentRunId: string | null }>();
      const lines = (await res.text()).trim().split('\n');
      expect(lines.at(-1)).toBe('{"cursor":null}');
      for (const line of lines) {
        const record = JSON.parse(line) as { id?: string; traceId: string; parentRunId: string | null };
        if (record.id) runs.set(record.id, record);
      }
      return runs;
    }

    it('stores 30,000 spans in 30,000 traces completely, under 250 MB of peak RSS', async () => {
      const body = request('thirty-thousand-traces', 30_000, 1);
      const res = await send(body);
      expect(res.status, await res.clone().text()).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBe(0); // no partialSuccess: every span stored
      const runs = await storedRuns('thirty-thousand-traces');
      expect(runs.size).toBe(30_000);
      for (let t = 1; t <= 30_000; t += 997) expect(runs.get(hex(t, 16))?.traceId).toBe(hex(t, 32));
      const peak = peakRssMb(instance.child.pid!);
      console.log(`[${dialect}] 30,000 spans in 30,000 traces (${body.length} bytes): peak RSS ${peak.toFixed(1)} MB`);
      expect(peak).toBeLessThan(PEAK_RSS_MB);
    }, 300_000);

    it('stores 50,000 spans in 50 traces completely, each child in its parent’s trace, under 250 MB of peak RSS', async () => {
      const body = request('fifty-traces', 50, 1_000);
      const res = await send(body);
      expect(res.status, await res.clone().text()).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBe(0);
      const runs = await storedRuns('fifty-traces');
      expect(runs.size).toBe(50_000);
      for (const [id, run] of runs) {
        const n = parseInt(id, 16);
        const trace = Math.ceil(n / 1_000);
        expect(run.traceId).toBe(hex(trace, 32));
        expect(run.parentRunId).toBe(n % 1_000 === 0 ? null : hex(trace * 1_000, 16));
      }
      const peak = peakRssMb(instance.child.pid!);
      console.log(`[${dialect}] 50,000 spans in 50 traces (${body.length} bytes): peak RSS ${peak.toFixed(1)} MB`);
      expect(peak).toBeLessThan(PEAK_RSS_MB);
    }, 300_000);

    // Bounds in wall-clock time on a shared 2-core machine: a second attempt (a project of its own) when the
    // first met a burst of other work; either must meet both bounds.
    let attempt = 0;
    it(
      'answers 400 spans of a resource with 100,000 attributes in under 2 s, /healthz answering within 200 ms throughout',
      { retry: 1, timeout: 120_000 },
      async () => {
        const project = `wide-resource-${++attempt}`;
        const body = request(project, 400, 1, 100_000);
        // The server's first request of this shape compiles its code paths: a warm-up with another project.
        expect((await send(request('wide-resource-warm-up', 40, 1, 10_000))).status).toBe(200);
        let elapsed = 0;
        const sending = (async () => {
          await new Promise((resolve) => setTimeout(resolve, 100));
          const started = performance.now();
          const answer = await send(body);
          elapsed = performance.now() - started;
          await new Promise((resolve) => setTimeout(resolve, 100));
          return answer;
        })();
        // Asked from a thread of its own: this one is busy with the request's 4 MB.
        const asks = await pollHealth(instance.url('/healthz'), sending, 20);
        const res = await sending;
        expect(asks.every((ask) => ask.status === 200)).toBe(true);
        const longestHealth = Math.max(...asks.map((ask) => ask.ms));
        expect(res.status, await res.clone().text()).toBe(200);
        console.log(
          `[${dialect}] 400 spans × 100,000 resource attributes (${body.length} bytes): ${elapsed.toFixed(0)} ms; longest /healthz ${longestHealth.toFixed(0)} ms`,
        );
        expect(elapsed).toBeLessThan(2_000);
        expect(longestHealth).toBeLessThan(200);
        const runs = await storedRuns(project);
        expect(runs.size).toBe(400);
        expect(peakRssMb(instance.child.pid!)).toBeLessThan(PEAK_RSS_MB);
        expect((await fetch(instance.url('/readyz'))).status).toBe(200);
      },
    );
  });
}
