// What the OTLP/gRPC suites share: receivers on the suite's settings, a raw grpc-js client for the Export
// method, a raw HTTP/2 client for calls grpc-js would not make (stalled, half-sent), and a reader of the
// google.rpc messages a refusal carries (the server writes them by hand; here they are read back by hand).
import { connect, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { buildApp } from '../../app.js';
import type { Config } from '../../config.js';
import type { App } from '../../deps.js';
import { testConfig, type TestContext } from '../../../test/helpers/harness.js';
import { EXPORT_PATH, startGrpcReceiver, type GrpcReceiver, type GrpcReceiverOptions } from './otlp.grpc.js';
import type { GrpcCallLimits } from './otlp.grpc-places.js';

/** The receiver's options as `serve` gives them, on any free port of 127.0.0.1, with some limits changed. */
export function receiverOptions(config: Config, limits: Partial<GrpcCallLimits> = {}): GrpcReceiverOptions {
  return { host: '127.0.0.1', port: 0, explicit: true, limits: { ...config.otlpGrpcCalls, ...limits }, problemBase: config.problemBase };
}

/** A receiver in front of `app`. */
export async function startReceiver(app: App, config: Config, limits: Partial<GrpcCallLimits> = {}): Promise<GrpcReceiver> {
  const receiver = await startGrpcReceiver(app, receiverOptions(config, limits));
  if (!receiver) throw new Error('no receiver');
  return receiver;
}

export interface ExportAnswer {
  error: grpc.ServiceError | null;
  response: Buffer | null;
  /** The trailers, whatever the outcome. */
  trailers: grpc.Metadata;
}

/** One unary Export call with a generic grpc-js client: the bytes as the message, the headers as metadata. */
export function exportCall(
  port: number,
  message: Buffer,
  headers: Record<string, string> = {},
  options: { ownConnection?: boolean; deadlineMs?: number } = {},
): Promise<ExportAnswer> {
  // grpc-js shares one connection between clients of one address, unless told otherwise.
  const channel = options.ownConnection ? { 'grpc.use_local_subchannel_pool': 1 } : {};
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), channel);
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(headers)) metadata.set(key, value);
  const bytes = (b: Buffer) => b;
  return new Promise((resolve) => {
    let answer: Omit<ExportAnswer, 'trailers'> = { error: null, response: null };
    const call = client.makeUnaryRequest(
      EXPORT_PATH,
      bytes,
      bytes,
      message,
      metadata,
      { deadline: Date.now() + (options.deadlineMs ?? 20_000) },
      (error, response) => {
        answer = { error: error ?? null, response: response ?? null };
      },
    );
    // After the callback: the status, with its trailers.
    call.on('status', (status: grpc.StatusObject) => {
      client.close();
      resolve({ ...answer, trailers: status.metadata });
    });
  });
}

/** The fields of a protobuf message: numbers for varints, bytes for length-delimited fields. */
export function protoFields(bytes: Buffer): Map<number, (number | Buffer)[]> {
  const fields = new Map<number, (number | Buffer)[]>();
  let at = 0;
  const varint = () => {
    let value = 0;
    for (let shift = 1; ; shift *= 128) {
      const byte = bytes[at++]!;
      value += (byte & 0x7f) * shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const tag = varint();
    const wire = tag & 7;
    if (wire !== 0 && wire !== 2) throw new Error(`unexpected wire type ${wire}`);
    const length = wire === 2 ? varint() : 0;
    const value = wire === 0 ? varint() : bytes.subarray(at, (at += length));
    fields.set(tag >>> 3, [...(fields.get(tag >>> 3) ?? []), value]);
  }
  return fields;
}

/** `google.rpc.RetryInfo`'s delay, in seconds. */
export function retryDelaySeconds(retryInfo: Buffer): number {
  const duration = protoFields(retryInfo).get(1)?.[0];
  if (!Buffer.isBuffer(duration)) throw new Error('RetryInfo without retry_delay');
  return (protoFields(duration).get(1)?.[0] as number | undefined) ?? 0;
}

/** The status details of a refusal: google.rpc.Status's code, message and the RetryInfo it carries, and the separate RetryInfo trailer. */
export function retryOf(error: grpc.ServiceError): {
  status: { code: number; message: string; typeUrl: string; delay: number } | null;
  trailer: number | null;
} {
  const details = error.metadata.get('grpc-status-details-bin')[0];
  const trailer = error.metadata.get('google.rpc.retryinfo-bin')[0];
  let status = null;
  if (Buffer.isBuffer(details)) {
    const fields = protoFields(details);
    const any = protoFields(fields.get(3)?.[0] as Buffer);
    status = {
      code: (fields.get(1)?.[0] as number | undefined) ?? 0,
      message: (fields.get(2)?.[0] as Buffer).toString('utf8'),
      typeUrl: (any.get(1)?.[0] as Buffer).toString('utf8'),
      delay: retryDelaySeconds(any.get(2)?.[0] as Buffer),
    };
  }
  return { status, trailer: Buffer.isBuffer(trailer) ? retryDelaySeconds(trailer) : null };
}

/** A second application on the suite's database, with its own settings, and a receiver in front of it. */
export async function servedApp(
  ctx: TestContext,
  env: Record<string, string>,
  limits: Partial<GrpcCallLimits> = {},
): Promise<{ app: App; receiver: GrpcReceiver; close: () => Promise<void> }> {
  const config = testConfig(env);
  const app = await buildApp({ config, storage: ctx.database.storage, clock: ctx.clock });
  await app.ready();
  const receiver = await startReceiver(app, config, limits);
  return {
    app,
    receiver,
    close: async () => {
      await receiver.close(1_000);
      await app.close();
    },
  };
}

type Compression = NonNullable<ConstructorParameters<typeof OTLPTraceExporter>[0]>['compression'];

/**
 * One span exported by the real OpenTelemetry gRPC exporter (its own connection), with a token and a
 * project, compressed or not: the exporter's own verdict (0: success), and the span's id.
 */
export async function exportSpan(port: number, token: string, project: string, compression: 'gzip' | 'none' = 'none') {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  const span = provider.getTracer('otlp-grpc-limits').startSpan('chat gpt-4o', { attributes: { 'gen_ai.operation.name': 'chat' } });
  span.end();
  await provider.forceFlush();
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  metadata.set('sightline-project', project);
  const exporter = new OTLPTraceExporter({ url: `http://127.0.0.1:${port}`, metadata, compression: compression as Compression, timeoutMillis: 10_000 });
  const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(memory.getFinishedSpans(), resolve));
  await exporter.shutdown();
  await provider.shutdown();
  return { code: result.code, error: result.error?.message, spanId: span.spanContext().spanId };
}

/** Resolves once `condition` holds, checking every 20 ms; rejects after `ms`. */
export async function until(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What a raw call got back: the response headers, and the status (from the trailers, or from a trailers-only answer). */
export interface RawAnswer {
  headers: IncomingHttpHeaders;
  status: number | null;
  message: string | null;
  trailers: IncomingHttpHeaders | null;
  /** The stream closed (answered, or reset). */
  closed: Promise<void>;
}

/** A raw HTTP/2 connection to the receiver, for calls no gRPC library would make. */
export function rawConnection(port: number): ClientHttp2Session {
  const session = connect(`http://127.0.0.1:${port}`);
  session.on('error', () => {});
  return session;
}

/**
 * An Export call's HEADERS on `session` (metadata as given), then, if any, `bytes` (a prefix, perhaps a
 * message), and the stream left open unless `end`. Resolves once the server answers with a status.
 */
export function rawCall(
  session: ClientHttp2Session,
  metadata: Record<string, string>,
  bytes: Buffer | null = null,
  end = false,
): { stream: ClientHttp2Stream; answer: Promise<RawAnswer> } {
  const stream = session.request(
    { ':method': 'POST', ':path': EXPORT_PATH, 'content-type': 'application/grpc', te: 'trailers', ...metadata },
    { endStream: false },
  );
  stream.on('error', () => {});
  const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
  const answer = new Promise<RawAnswer>((resolve) => {
    stream.once('response', (headers) => {
      stream.resume();
      const status = headers['grpc-status'];
      if (status !== undefined)
        return resolve({ headers, status: Number(status), message: decodeURIComponent(String(headers['grpc-message'] ?? '')), trailers: null, closed });
      stream.once('trailers', (trailers) =>
        resolve({ headers, status: Number(trailers['grpc-status']), message: decodeURIComponent(String(trailers['grpc-message'] ?? '')), trailers, closed }),
      );
    });
    stream.once('close', () => resolve({ headers: {}, status: null, message: null, trailers: null, closed }));
  });
  if (bytes) stream.write(bytes);
  if (end) stream.end();
  return { stream, answer };
}

/** The 5-byte prefix of a gRPC message: compressed flag, then its length. */
export function messagePrefix(length: number, compressed = false): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = compressed ? 1 : 0;
  prefix.writeUInt32BE(length, 1);
  return prefix;
}

/** Rejects if `promise` has not settled within `ms` (a generous bound, so a hang fails the test rather than the suite). */
export function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
