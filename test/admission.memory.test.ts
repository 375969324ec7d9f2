/**
 * Memory stays bounded whatever clients send (docs/operations.md): a real server process, run as `npm start`
 * runs it (160 MB old-space heap), receives sixteen 9.5 MB single-run POSTs at once. Before, it aborted
 * with "Reached heap limit" on both engines. Now every answer is a 201 or a 503 (or 429) problem, the
 * server stays up, and what the requests add to the idle server's resident memory (peak RSS, read from
 * /proc, less the peak before them) stays under 120 MB: one accepted run at a time, the others refused
 * before their bodies are read. (The idle server itself — code, compiled schemas, the price table — is
 * measured, not bounded: it grows with features, not with what clients send.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../scripts/build-if-needed.js';
import { dialects } from './helpers/harness.js';
import { cliToken, NPM_START_FLAGS, peakRssMb, startInstance, stop, waitForReady, type Instance } from './helpers/process.js';
import { freePort } from './helpers/services.js';
import { createProcessDatabase } from './helpers/storage.js';

const PARALLEL = 16;
/** What sixteen parallel 9.5 MB requests may add to the idle server's peak RSS. */
const GROWTH_BOUND_MB = 120;

/** A run of about 9.5 MB made of many small values, as a long conversation is (the worst case for a heap). */
function largeRun(i: number): string {
  const messages = [];
  let size = 0;
  for (let k = 0; size < 9_500_000; k++) {
    const content = `message ${k} of request ${i}: ${'lorem ipsum dolor sit amet '.repeat(14)}`;
    messages.push({ role: k % 2 ? 'assistant' : 'user', content, tokens: k });
    size += content.length + 48;
  }
  return JSON.stringify({
    name: `large-${i}`,
    kind: 'llm',
    status: 'succeeded',
    startTime: '2026-11-01T00:00:00.000Z',
    endTime: '2026-11-01T00:00:01.000Z',
    inputs: { messages },
  });
}

for (const dialect of dialects) {
  describe(`memory under sixteen parallel 9.5 MB runs [${dialect}]`, () => {
    let instance: Instance | undefined;
    let cleanup = async () => {};
    let token: string;
    let runsUrl: string;
    let idleMb: number;

    beforeAll(async () => {
      ensureBuilt();
      const database = await createProcessDatabase(dialect, 'sl_mem');
      const databaseUrl = database.url;
      cleanup = database.drop;
      const port = await freePort();
      const env = { DATABASE_URL: databaseUrl, SIGHTLINE_PUBLIC_URL: `http://127.0.0.1:${port}`, HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
      instance = startInstance(`mem-${dialect}`, port, env, NPM_START_FLAGS);
      await waitForReady(instance);
      ({ token } = await cliToken(env, `mem-${dialect}@example.test`, `mem-${dialect}`, 'owner'));
      const project = await fetch(instance.url('/v1/projects'), {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'memory' }),
      });
      expect(project.status).toBe(201);
      runsUrl = instance.url(`/v1/projects/${((await project.json()) as { id: string }).id}/runs`);
      idleMb = peakRssMb(instance.child.pid!);
    }, 120_000);

    afterAll(async () => {
      await stop(instance);
      await cleanup();
    }, 60_000);

    it(`answers each with a 201 or a 503/429 problem, stays up, and adds less than ${GROWTH_BOUND_MB} MB to its peak RSS`, async () => {
      const bodies = Array.from({ length: PARALLEL }, (_, i) => largeRun(i));
      expect(Buffer.byteLength(bodies[0]!)).toBeGreaterThan(9_400_000);
      expect(Buffer.byteLength(bodies[0]!)).toBeLessThan(10 * 1024 * 1024);
      const answers = await Promise.all(
        bodies.map(async (body) => {
          const res = await fetch(runsUrl, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body,
            signal: AbortSignal.timeout(60_000),
          });
          return { status: res.status, type: res.headers.get('content-type'), retryAfter: res.headers.get('retry-after'), text: await res.text() };
        }),
      );
      const counts: Record<number, number> = {};
      for (const answer of answers) {
        counts[answer.status] = (counts[answer.status] ?? 0) + 1;
        if (answer.status === 201) continue;
        expect([503, 429], answer.text.slice(0, 200)).toContain(answer.status);
        expect(answer.type).toMatch(/^application\/problem\+json/);
        expect(JSON.parse(answer.text).type).toBe(instance!.url(`/problems/${answer.status === 503 ? 'service-unavailable' : 'rate-limited'}`));
        expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
      }
      const peak = peakRssMb(instance!.child.pid!);
      console.log(`[${dialect}] ${PARALLEL} parallel 9.5 MB runs: ${JSON.stringify(counts)}; peak RSS ${peak.toFixed(1)} MB (idle ${idleMb.toFixed(1)} MB)`);
      expect(counts[201] ?? 0).toBeGreaterThanOrEqual(1);
      expect(peak - idleMb).toBeLessThan(GROWTH_BOUND_MB);

      // Alive, and serving: health, a small run, and one of the large ones again.
      expect(instance!.child.exitCode).toBeNull();
      expect((await fetch(instance!.url('/readyz'))).status).toBe(200);
      const again = await fetch(runsUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: bodies[0]!,
        signal: AbortSignal.timeout(60_000),
      });
      expect(again.status).toBe(201);
      const after = peakRssMb(instance!.child.pid!);
      console.log(`[${dialect}] and one more: peak RSS ${after.toFixed(1)} MB`);
      expect(after - idleMb).toBeLessThan(GROWTH_BOUND_MB);
    }, 180_000);
  });
}
