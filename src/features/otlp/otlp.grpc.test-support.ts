// What the OTLP/gRPC suite shares: a raw grpc-js client for the Export method, and a reader of the
// google.rpc messages a refusal carries (the server writes them by hand; here they are read back by hand).
import * as grpc from '@grpc/grpc-js';
import { buildApp } from '../../app.js';
import type { App } from '../../deps.js';
import { testConfig, type TestContext } from '../../../test/helpers/harness.js';
import { EXPORT_PATH, startGrpcReceiver, type GrpcReceiver } from './otlp.grpc.js';

export interface ExportAnswer {
  error: grpc.ServiceError | null;
  response: Buffer | null;
  /** The trailers, whatever the outcome. */
  trailers: grpc.Metadata;
}

/** One unary Export call with a generic client: the bytes as the message, the headers as metadata. */
export function exportCall(port: number, message: Buffer, headers: Record<string, string> = {}): Promise<ExportAnswer> {
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(headers)) metadata.set(key, value);
  const bytes = (b: Buffer) => b;
  return new Promise((resolve) => {
    let answer: Omit<ExportAnswer, 'trailers'> = { error: null, response: null };
    const call = client.makeUnaryRequest(EXPORT_PATH, bytes, bytes, message, metadata, { deadline: Date.now() + 20_000 }, (error, response) => {
      answer = { error: error ?? null, response: response ?? null };
    });
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
export async function servedApp(ctx: TestContext, env: Record<string, string>): Promise<{ app: App; receiver: GrpcReceiver }> {
  const app = await buildApp({ config: testConfig(env), storage: ctx.database.storage, clock: ctx.clock });
  await app.ready();
  const receiver = await startGrpcReceiver(app, { host: '127.0.0.1', port: 0, explicit: true });
  if (!receiver) throw new Error('no receiver');
  return { app, receiver };
}
