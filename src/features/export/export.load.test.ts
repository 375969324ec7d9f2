/**
 * Exports under load, against a real server process (`serve`, default settings) on the suite's
 * database: one export of 50,000 runs read as fast as the client can never keeps `/healthz` waiting
 * past 200 ms, and 20 concurrent exports end each as a complete export or, past the instance's export
 * budget, a 503 `service-unavailable` problem with `Retry-After`; none hangs and none is shed because
 * the event loop lags. Before exports yielded to the event loop, an export on SQLite ran from its first
 * page to its last in one turn (10 s here), and the exports that came in meanwhile were shed.
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBuilt } from '../../../scripts/build-if-needed.js';
import { describeEachDialect, PUBLIC_URL } from '../../../test/helpers/harness.js';
import { pollHealth } from '../../../test/helpers/health.js';
import { expectRawProblem } from '../../../test/helpers/http.js';
import { startInstance, stop, waitForReady, type Instance } from '../../../test/helpers/process.js';
import { freePort } from '../../../test/helpers/services.js';

const RUNS = 50_000;
// Generous for a busy machine (both cores loaded): an export that held the event loop would hold it for seconds.
const HEALTH_BOUND_MS = 500;
/** What the instance is started with when a test says nothing: the defaults (SIGHTLINE_EXPORT_CONCURRENCY 4). */
const DEFAULT_EXPORT_CONCURRENCY = 4;
/** Runs of about 1.5 KB, a conversation's usual size: the system prompt, a question, an answer. */
const SYSTEM = { role: 'system', content: 'You are a support assistant for a software company. '.repeat(16) };
const ANSWER = 'Annual plans are refundable within 30 days of purchase, prorated afterwards. '.repeat(4);

interface Exported {
  status: number;
  headers: IncomingHttpHeaders;
  /** Record lines (not cursor lines), their distinct ids, and the last line as sent. */
  records: number;
  ids: Set<string>;
  last: string;
  /** The whole body when it is not a 200 (a problem document). */
  text: string;
}

/** Reads an export as fast as the client can, line by line, keeping only counts and ids. */
function readExport(url: string, token: string, agent: Agent, timeoutMs = 180_000): Promise<Exported> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { authorization: `Bearer ${token}` }, agent }, (res) => {
      const out: Exported = { status: res.statusCode ?? 0, headers: res.headers, records: 0, ids: new Set(), last: '', text: '' };
      let partial = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (out.status !== 200) {
          out.text += chunk;
          return;
        }
        const lines = (partial + chunk).split('\n');
        partial = lines.pop()!;
        for (const line of lines) {
          out.last = line;
          if (line.startsWith('{"cursor":')) continue;
          out.records++;
          out.ids.add((JSON.parse(line) as { id: string }).id);
        }
      });
      res.on('end', () => {
        if (partial !== '') out.last = partial;
        clearTimeout(timer);
        resolve(out);
      });
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(new Error(`export did not end within ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end();
  });
}

const summary = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return `${ms.length} asks, median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms`;
};

describeEachDialect('exports under load', (ctx) => {
  let instance: Instance | undefined;
  let token: string;
  let exportUrl: string;

  beforeAll(async () => {
    ensureBuilt();
    const caller = await ctx.make.caller({ role: 'member' });
    const project = await ctx.make.project(caller.organizationId);
    token = caller.token;
    const started = performance.now();
    await ctx.make.runs(project.id, RUNS, (i) => ({
      id: `load-${String(i).padStart(5, '0')}`,
      status: 'succeeded',
      endTime: new Date(Date.parse('2026-11-01T00:00:00.000Z') + i * 1000 + 250).toISOString(),
      inputs: { messages: [SYSTEM, { role: 'user', content: `question ${i}: what does the refund policy say about annual plans?` }] },
      outputs: { text: `answer ${i}: ${ANSWER}` },
      metadata: { customer: `c-${i % 97}`, region: 'eu-west-1' },
      usage: { promptTokens: 12, completionTokens: 4 },
    }));
    console.info(`[${ctx.dialect}] ${RUNS} runs stored in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const { config } = ctx.database;
    const port = await freePort();
    instance = startInstance(`export-load-${ctx.dialect}`, port, {
      DATABASE_URL: config.kind === 'sqlite' ? `sqlite:${config.path}` : config.url,
      SIGHTLINE_PUBLIC_URL: PUBLIC_URL,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SIGHTLINE_OTLP_GRPC_PORT: 'off',
    });
    await waitForReady(instance);
    exportUrl = instance.url(`/v1/projects/${project.id}/runs/export`);
  }, 600_000);

  afterAll(async () => {
    await stop(instance);
  });

  const expectWhole = (exported: Exported) => {
    expect(exported.status, exported.text.slice(0, 300)).toBe(200);
    expect(exported.records).toBe(RUNS);
    expect(exported.ids.size).toBe(RUNS);
    expect(exported.last).toBe('{"cursor":null}');
  };

  it(`streams ${RUNS} runs while /healthz answers within ${HEALTH_BOUND_MS} ms throughout`, async () => {
    const agent = new Agent({ keepAlive: false });
    const started = performance.now();
    const exporting = readExport(exportUrl, token, agent);
    const asks = await pollHealth(instance!.url('/healthz'), exporting);
    const exported = await exporting;
    const latencies = asks.map((a) => a.ms);
    console.info(`[${ctx.dialect}] export of ${RUNS} runs in ${((performance.now() - started) / 1000).toFixed(1)} s; /healthz: ${summary(latencies)}`);
    expectWhole(exported);
    // The export lasted long enough for /healthz to be asked throughout (at least a few times).
    expect(asks.length).toBeGreaterThanOrEqual(3);
    expect(asks.filter((a) => a.status !== 200)).toEqual([]);
    expect(Math.max(...latencies)).toBeLessThan(HEALTH_BOUND_MS);
  }, 300_000);

  it('answers 20 concurrent exports each with the whole export or a 503 problem of the export budget, none shed for lag', async () => {
    const agent = new Agent({ keepAlive: false, maxSockets: 50 });
    const started = performance.now();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        sleep(i * 5).then(() => readExport(exportUrl, token, agent).then((exported) => ({ exported, ms: performance.now() - started }))),
      ),
    );
    const whole = outcomes.filter((o) => o.exported.status === 200);
    const refused = outcomes.filter((o) => o.exported.status !== 200);
    console.info(
      `[${ctx.dialect}] 20 concurrent exports: ${whole.length} whole (last after ${(Math.max(...whole.map((o) => o.ms)) / 1000).toFixed(1)} s), ` +
        `${refused.length} refused (${refused.map((o) => `${o.exported.status} after ${(o.ms / 1000).toFixed(1)} s`).join(', ')})`,
    );
    for (const { exported } of whole) expectWhole(exported);
    for (const { exported } of refused) {
      const body = expectRawProblem(exported, 503, 'service-unavailable');
      expect(body.detail).toMatch(/^Too many exports are running on this instance/);
      expect(exported.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    }
    // Every slot of the budget was used: at least as many exports as it holds streamed to the end; past
    // them and the twice as many that may wait, the others were refused at once.
    expect(whole.length).toBeGreaterThanOrEqual(DEFAULT_EXPORT_CONCURRENCY);
    expect(refused.length).toBeGreaterThanOrEqual(20 - 3 * DEFAULT_EXPORT_CONCURRENCY);
  }, 400_000);

  it('gives a slot back when its client goes away, streaming or still waiting for it', async () => {
    const agent = new Agent({ keepAlive: false, maxSockets: 50 });
    const open = () =>
      new Promise<{ status: number; leave: () => void }>((resolve, reject) => {
        const req = httpRequest(exportUrl, { headers: { authorization: `Bearer ${token}` }, agent }, (res) =>
          // The body is never read: the export stalls on the full socket until its client leaves.
          resolve({ status: res.statusCode ?? 0, leave: () => req.destroy() }),
        );
        req.on('error', reject);
        req.end();
      });
    const held = await Promise.all(Array.from({ length: DEFAULT_EXPORT_CONCURRENCY }, open));
    expect(held.map((h) => h.status)).toEqual(Array(DEFAULT_EXPORT_CONCURRENCY).fill(200));
    // One more waits for a slot, and its client leaves while it waits; then the holders' clients leave.
    const waiting = httpRequest(exportUrl, { headers: { authorization: `Bearer ${token}` }, agent });
    waiting.on('error', () => {});
    waiting.end();
    await sleep(300);
    waiting.destroy();
    for (const h of held) h.leave();
    // Every slot is free again: as many exports as the budget holds stream whole at once (a slot kept
    // would hold one of them back until its wait ran out: a 503).
    const again = await Promise.all(Array.from({ length: DEFAULT_EXPORT_CONCURRENCY }, () => readExport(exportUrl, token, agent)));
    for (const exported of again) expectWhole(exported);
  }, 300_000);
});
