/**
 * Body admission over real sockets (docs/operations.md): impatient, stalled and oversized clients cannot wedge
 * ingestion. A body is read whole before anything waits on it (so an upload in progress holds no
 * ingestion slot), within a time limit (408), a size limit (413, which reaches the client) and a budget
 * of bytes in memory (503 with Retry-After, at once); waits for the ingestion gate end when the client
 * goes away; and every byte and slot is given back, whatever way a request ends.
 */
import { afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, type Caller, type TestContext } from './helpers/harness.js';
import { batchBody, expectRawProblem, slowRequest } from './helpers/http.js';

const BODY_TIMEOUT_S = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until no request holds body bytes or an ingestion slot (they are given back on response close). */
async function expectAdmissionIdle(ctx: TestContext): Promise<void> {
  const { budget, gate } = ctx.app.admission;
  const deadline = Date.now() + 3_000;
  while (Date.now() < deadline && (budget.inUse !== 0 || gate.usage.active !== 0 || gate.usage.waiting !== 0)) await sleep(20);
  expect({ bytes: budget.inUse, ...gate.usage }).toEqual({ bytes: 0, active: 0, waiting: 0 });
}

describeEachDialect(
  'body admission over real sockets',
  (ctx) => {
    let base: string;
    let caller: Caller;
    let runs: string;
    let auth: Record<string, string>;

    beforeAll(async () => {
      await ctx.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = ctx.app.server.address() as { port: number };
      base = `http://127.0.0.1:${port}`;
      caller = await ctx.make.caller();
      const project = await ctx.make.project(caller.organizationId);
      runs = `${base}/v1/projects/${project.id}/runs`;
      auth = { authorization: `Bearer ${caller.token}`, 'content-type': 'application/json' };
    });
    afterEach(() => expectAdmissionIdle(ctx));

    const postBatch = (body: string, timeoutMs: number) =>
      fetch(`${runs}/batch`, { method: 'POST', headers: auth, body, signal: AbortSignal.timeout(timeoutMs) });

    it('an upload in progress holds no ingestion slot: impatient clients beside it are served, and so is it', async () => {
      const slow = slowRequest(`${runs}/batch`, {
        headers: { ...auth, 'transfer-encoding': 'chunked' },
        parts: [{ data: '{"runs":[' }, { data: '{"name":"slow","kind":"llm","startTime":"2026-11-01T00:00:00Z"}]}', afterMs: 4_000 }],
      });
      await sleep(100);
      // Before: these waited behind the slow upload for the one slot, gave up, and leaked it. They give up
      // after 3.5 s, before the upload ends (and well within the body deadline): time enough for three
      // batches on a busy machine (1 s was not, once, with the other core busy).
      const impatient = await Promise.allSettled([1, 2, 3].map((i) => postBatch(batchBody(200, 1_000, `impatient-${i}`), 3_500)));
      for (const outcome of impatient) {
        expect(outcome.status, String((outcome as PromiseRejectedResult).reason)).toBe('fulfilled');
        expect((outcome as PromiseFulfilledResult<Response>).value.status).toBe(200);
      }
      const slowAnswer = await slow;
      expect(slowAnswer.status, slowAnswer.text).toBe(200);
      expect(JSON.parse(slowAnswer.text).results).toEqual([expect.objectContaining({ index: 0, status: 'created' })]);
      const after = await postBatch(batchBody(50, 1_000, 'after-slow'), 5_000);
      expect(after.status).toBe(200);
    });

    it('clients that give up while waiting for the ingestion gate give their place back', async () => {
      // Eight large batches at once against one or two slots, each client giving up after 30..250 ms:
      // some are aborted while their body is read, some while queued for the gate, some while processed.
      const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => postBatch(batchBody(1_000, 1_000, `quitter-${i}`), 30 + i * 30)));
      expect(outcomes.some((o) => o.status === 'rejected')).toBe(true);
      await expectAdmissionIdle(ctx);
      const started = Date.now();
      const after = await postBatch(batchBody(1_000, 1_000, 'after-quitters'), 10_000);
      expect(after.status).toBe(200);
      expect(((await after.json()) as { results: { status: string }[] }).results.every((r: { status: string }) => r.status === 'created')).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it('three stalled uploads do not block a batch beside them, and each ends with a 408 problem and a closed connection', async () => {
      const stalled = [1, 2, 3].map(() =>
        slowRequest(`${runs}/batch`, { headers: { ...auth, 'content-length': 200_000 }, parts: [{ data: '{"runs":[{"name":"stalled",' }], end: false }),
      );
      await sleep(100);
      const started = Date.now();
      const batch = await postBatch(batchBody(500, 1_000, 'beside-stalled'), 10_000);
      expect(batch.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(3_000);
      for (const answer of await Promise.all(stalled)) {
        const body = expectRawProblem(answer, 408, 'request-timeout');
        expect(body.detail).toBe(`The request body did not arrive within ${BODY_TIMEOUT_S} s.`);
        expect(answer.headers.connection).toBe('close');
        expect(answer.closed).toBe(true);
        expect(answer.ms).toBeGreaterThanOrEqual(BODY_TIMEOUT_S * 1000 - 100);
        expect(answer.ms).toBeLessThan(BODY_TIMEOUT_S * 1000 + 2_000);
      }
    });

    it('a stalled upload is ended with a 408 problem whatever the route', async () => {
      const project = await ctx.make.project(caller.organizationId);
      const routes = [
        ['POST', `${base}/v1/prompts`],
        ['PATCH', `${base}/v1/projects/${project.id}`],
        ['POST', runs],
        ['POST', `${base}/v1/tokens`],
      ] as const;
      // All at once: each waits out the body deadline.
      const answers = await Promise.all(
        routes.map(([method, url]) => slowRequest(url, { method, headers: { ...auth, 'content-length': 1_000 }, parts: [{ data: '{"name":' }], end: false })),
      );
      for (const [i, answer] of answers.entries()) {
        expectRawProblem(answer, 408, 'request-timeout');
        expect(answer.closed, routes[i]!.join(' ')).toBe(true);
      }
    });

    it('a chunked upload that stops sending is ended with a 408 problem too', async () => {
      const answer = await slowRequest(`${runs}/batch`, { headers: { ...auth, 'transfer-encoding': 'chunked' }, parts: [{ data: '{"runs":[' }], end: false });
      expectRawProblem(answer, 408, 'request-timeout');
    });

    it('past the budget of body bytes in memory, a new large body is refused at once with a 503 problem and Retry-After, which the client receives', async () => {
      // The suite's budget is 12 MB: an 8 MB upload in progress leaves no room for a 6 MB one.
      const big = JSON.stringify({ name: 'big', kind: 'llm', startTime: '2026-11-01T00:00:00Z', inputs: { text: 'y'.repeat(8_000_000) } });
      const bytes = Buffer.from(big);
      const held = slowRequest(runs, {
        headers: { ...auth, 'content-length': bytes.length },
        parts: [{ data: bytes.subarray(0, 1_000_000) }, { data: bytes.subarray(1_000_000), afterMs: 1_000 }],
      });
      await sleep(200);
      const medium = JSON.stringify({ name: 'medium', kind: 'llm', startTime: '2026-11-01T00:00:00Z', inputs: { text: 'z'.repeat(6_000_000) } });
      const started = Date.now();
      const refused = await fetch(runs, { method: 'POST', headers: auth, body: medium, signal: AbortSignal.timeout(10_000) });
      const text = await refused.text();
      const body = expectRawProblem({ status: refused.status, headers: refused.headers, text }, 503, 'service-unavailable');
      expect(body.detail).toMatch(/request bodies/);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(Date.now() - started).toBeLessThan(3_000);
      const heldAnswer = await held;
      expect(heldAnswer.status, heldAnswer.text.slice(0, 200)).toBe(201);
      const retried = await fetch(runs, { method: 'POST', headers: auth, body: medium, signal: AbortSignal.timeout(10_000) });
      expect(retried.status).toBe(201);
      expect(((await retried.json()) as { inputs: { text: string } }).inputs.text).toHaveLength(6_000_000);
    });

    it('a body over 10 MB is a 413 problem that reaches the client, declared or chunked, and the connection stays usable', async () => {
      const tooBig = JSON.stringify({ runs: [{ name: 'x', kind: 'llm', startTime: '2026-11-01T00:00:00Z', inputs: { text: 'q'.repeat(11 * 1024 * 1024) } }] });
      for (const url of [runs, `${runs}/batch`]) {
        // Before: the server answered and closed while Node's fetch was still sending: "fetch failed".
        const declared = await fetch(url, { method: 'POST', headers: auth, body: tooBig, signal: AbortSignal.timeout(15_000) });
        expectRawProblem({ status: declared.status, headers: declared.headers, text: await declared.text() }, 413, 'payload-too-large');
        // A client on a real network sends more slowly than loopback takes it: the answer comes while it
        // is still sending, declared length or chunked.
        for (const declare of [true, false]) {
          const bytes = Buffer.from(tooBig);
          let offset = 0;
          const stream = new ReadableStream<Uint8Array>({
            async pull(controller) {
              if (offset >= bytes.length) return controller.close();
              await sleep(2);
              controller.enqueue(bytes.subarray(offset, offset + 64 * 1024));
              offset += 64 * 1024;
            },
          });
          const headers = declare ? { ...auth, 'content-length': String(bytes.length) } : auth;
          const slow = await fetch(url, { method: 'POST', headers, body: stream, duplex: 'half', signal: AbortSignal.timeout(15_000) } as RequestInit);
          expectRawProblem({ status: slow.status, headers: slow.headers, text: await slow.text() }, 413, 'payload-too-large');
        }
      }
    });

    it('a client that disconnects in the middle of its upload gives its bytes back', async () => {
      const bytes = Buffer.from(batchBody(3_000, 1_000, 'cut'));
      const cut = slowRequest(`${runs}/batch`, {
        headers: { ...auth, 'content-length': bytes.length },
        parts: [{ data: bytes.subarray(0, 500_000) }],
        end: false,
        timeoutMs: 300,
      });
      await expect(cut).rejects.toThrow(/no answer/);
      await expectAdmissionIdle(ctx);
    });
  },
  {
    env: {
      SIGHTLINE_BODY_TIMEOUT_SECONDS: String(BODY_TIMEOUT_S),
      SIGHTLINE_BODY_BUDGET_MB: '12',
      SIGHTLINE_BODY_MAX_DECOMPRESSED_MB: '1',
      SIGHTLINE_INGEST_QUEUE_SECONDS: '5',
    },
  },
);
