/**
 * Memory stays bounded whatever gRPC exporters send (docs/otlp.md, OTLP over gRPC): a real server process, run
 * as `npm start` runs it (160 MB old-space heap), receives sixteen 9.5 MB OTLP/gRPC Export messages at
 * once (batches of GenAI chat spans), over sixteen connections with two credentials, so every call
 * reaches its message. Before, the receiver (grpc-js) buffered each whole message before the body budget
 * saw it: the peak RSS reached 554 MB. Now a message's length is reserved in the body budget HTTP bodies
 * use, at its prefix, before any of it is read, and what does not fit is refused at once with RetryInfo:
 * one export is read and stored at a time, as over HTTP. Every call is answered OK (all its spans
 * stored) or with a retryable status carrying RetryInfo, the server stays up, and its peak RSS (read
 * from /proc) stays under 250 MB.
 */
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../scripts/build-if-needed.js';
import { decodeOtlpResponse, encodeOtlpRequest } from '../src/features/otlp/otlp.decode.js';
import { exportCall, retryOf } from '../src/features/otlp/otlp.grpc.test-support.js';
import { attr, exportRequest, jsonSpan } from '../src/features/otlp/otlp.test-support.js';
import { dialects } from './helpers/harness.js';
import { cliToken, NPM_START_FLAGS, peakRssMb, startInstance, stop, waitForReady, type Instance } from './helpers/process.js';
import { freePort } from './helpers/services.js';
import { createProcessDatabase } from './helpers/storage.js';

const PARALLEL = 16;
const PEAK_BOUND_MB = 250;

/** A GenAI chat span: its conversation and answer as the semantic conventions' JSON message attributes. */
function chatSpan(exportIndex: number, k: number) {
  const turns = Array.from({ length: 8 }, (_, t) => ({
    role: t % 2 ? 'assistant' : 'user',
    parts: [{ type: 'text', content: `turn ${t} of span ${k} of export ${exportIndex}: ${'lorem ipsum dolor sit amet '.repeat(6)}` }],
  }));
  const answer = [
    { role: 'assistant', parts: [{ type: 'text', content: `answer ${k}: ${'consectetur adipiscing elit '.repeat(12)}` }], finish_reason: 'stop' },
  ];
  const attributes = [
    attr('gen_ai.operation.name', 'chat'),
    attr('gen_ai.request.model', 'gpt-4o'),
    attr('gen_ai.usage.input_tokens', 900),
    attr('gen_ai.usage.output_tokens', 120),
    attr('session.id', `session-${exportIndex}`),
    attr('gen_ai.input.messages', JSON.stringify(turns)),
    attr('gen_ai.output.messages', JSON.stringify(answer)),
  ];
  return jsonSpan({ spanId: (exportIndex * 1_000_000 + k + 1).toString(16).padStart(16, '0'), attributes });
}

/** An ExportTraceServiceRequest of about 9.5 MB of such spans (about 3,800). */
function largeExport(i: number): Buffer {
  const encode = (count: number) =>
    Buffer.from(
      encodeOtlpRequest(
        exportRequest(
          Array.from({ length: count }, (_, k) => chatSpan(i, k)),
          { 'service.name': 'grpc-memory' },
        ),
      ),
    );
  const perSpan = encode(100).length / 100;
  return encode(Math.floor(9_500_000 / perSpan));
}

const RETRYABLE = new Set([grpc.status.UNAVAILABLE, grpc.status.RESOURCE_EXHAUSTED]);

for (const dialect of dialects) {
  describe(`memory under sixteen parallel 9.5 MB OTLP/gRPC exports [${dialect}]`, () => {
    let instance: Instance | undefined;
    let cleanup = async () => {};
    let grpcPort: number;
    let tokens: string[];
    let idleMb: number;

    beforeAll(async () => {
      ensureBuilt();
      const database = await createProcessDatabase(dialect, 'sl_grpc_mem');
      const databaseUrl = database.url;
      cleanup = database.drop;
      const port = await freePort();
      grpcPort = await freePort();
      const env = {
        DATABASE_URL: databaseUrl,
        SIGHTLINE_PUBLIC_URL: `http://127.0.0.1:${port}`,
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        SIGHTLINE_OTLP_GRPC_PORT: String(grpcPort),
      };
      instance = startInstance(`grpc-mem-${dialect}`, port, env, NPM_START_FLAGS);
      await waitForReady(instance);
      // Two credentials of one organization: each may hold half the instance's sixteen places.
      const first = await cliToken(env, `grpc-mem-a-${dialect}@example.test`, `grpc-mem-${dialect}`, 'owner');
      const second = await cliToken(env, `grpc-mem-b-${dialect}@example.test`, `grpc-mem-${dialect}`, 'member');
      tokens = [first.token, second.token];
      idleMb = peakRssMb(instance.child.pid!);
    }, 120_000);

    afterAll(async () => {
      await stop(instance);
      await cleanup();
    }, 60_000);

    it(`answers each OK or retryable with RetryInfo, stays up, and keeps its peak RSS under ${PEAK_BOUND_MB} MB`, async () => {
      const messages = Array.from({ length: PARALLEL }, (_, i) => largeExport(i));
      expect(messages[0]!.length).toBeGreaterThan(9_400_000);
      expect(messages[0]!.length).toBeLessThan(10 * 1024 * 1024);
      const answers = await Promise.all(
        messages.map((message, i) =>
          exportCall(
            grpcPort,
            message,
            { authorization: `Bearer ${tokens[i % 2]}`, 'sightline-project': 'grpc-memory' },
            { ownConnection: true, deadlineMs: 120_000 },
          ),
        ),
      );
      const counts: Record<string, number> = {};
      for (const answer of answers) {
        const code = answer.error ? grpc.status[answer.error.code] : 'OK';
        counts[code] = (counts[code] ?? 0) + 1;
        if (!answer.error) {
          expect(decodeOtlpResponse(answer.response!)).toEqual({});
          continue;
        }
        expect(RETRYABLE.has(answer.error.code), `${code}: ${answer.error.details}`).toBe(true);
        expect(retryOf(answer.error).trailer, answer.error.details).toBeGreaterThanOrEqual(1);
      }
      const peak = peakRssMb(instance!.child.pid!);
      console.log(
        `[${dialect}] ${PARALLEL} parallel 9.5 MB gRPC exports: ${JSON.stringify(counts)}; peak RSS ${peak.toFixed(1)} MB (idle ${idleMb.toFixed(1)} MB)`,
      );
      expect(counts.OK ?? 0).toBeGreaterThanOrEqual(1);
      expect(peak).toBeLessThan(PEAK_BOUND_MB);

      // Alive, and serving: health, and one of the large exports again.
      expect(instance!.child.exitCode).toBeNull();
      expect((await fetch(instance!.url('/readyz'))).status).toBe(200);
      const again = await exportCall(
        grpcPort,
        messages[1]!,
        { authorization: `Bearer ${tokens[1]}`, 'sightline-project': 'grpc-memory' },
        { ownConnection: true, deadlineMs: 120_000 },
      );
      expect(again.error?.details ?? null).toBeNull();
      expect(decodeOtlpResponse(again.response!)).toEqual({});
      expect(peakRssMb(instance!.child.pid!)).toBeLessThan(PEAK_BOUND_MB);
    }, 240_000);
  });
}
