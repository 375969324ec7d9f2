import * as grpc from '@grpc/grpc-js';
import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, PROBLEM_BASE, type TestContext } from '../../../test/helpers/harness.js';
import { BODY_LIMIT } from '../../lib/body.js';
import { encodeOtlpRequest } from './otlp.decode.js';
import { EXPORT_PATH, type GrpcReceiver } from './otlp.grpc.js';
import { exportCall, messagePrefix, rawCall, rawConnection, retryDelaySeconds, servedApp, startReceiver, until, within } from './otlp.grpc.test-support.js';
import { exportRequest, jsonSpan } from './otlp.test-support.js';

const retryInfoSeconds = (value: unknown) => retryDelaySeconds(Buffer.from(String(value), 'base64'));

/**
 * A call's message: whole within the body timeout (and the client's grpc-timeout), its length checked
 * at its prefix against the 10 MB limit and the instance's body budget before any of it is read, one
 * message per call, compressed only as gRPC says.
 */
describeEachDialect('OTLP over gRPC: the message', (ctx: TestContext) => {
  let receiver: GrpcReceiver;
  beforeAll(async () => {
    receiver = await startReceiver(ctx.app, ctx.config);
  });
  afterAll(async () => receiver?.close(1_000));

  const auth = async () => {
    const caller = await ctx.make.caller({ role: 'member' });
    const project = await ctx.make.project(caller.organizationId);
    return { caller, project, metadata: { authorization: `Bearer ${caller.token}`, 'sightline-project': project.id } };
  };
  const oneSpan = (spanId: string) => Buffer.from(encodeOtlpRequest(exportRequest([jsonSpan({ spanId })])));

  it('cancels a call whose message does not arrive within the body timeout: DEADLINE_EXCEEDED, and its place is given back', async () => {
    const { metadata } = await auth();
    const slow = await servedApp(ctx, { SIGHTLINE_BODY_TIMEOUT_SECONDS: '1' }, { total: 1 });
    const connection = rawConnection(slow.receiver.port);
    try {
      const stalled = rawCall(connection, { ...metadata, 'x-request-id': 'no-message' });
      const answer = await within(15_000, stalled.answer, 'the stalled call');
      expect(answer.status).toBe(grpc.status.DEADLINE_EXCEEDED);
      expect(answer.message).toBe('The message did not arrive within 1 s.');
      expect(answer.headers['x-request-id']).toBe('no-message');
      await within(15_000, answer.closed, 'the reset of the stalled stream');
      expect(slow.receiver.callsInProgress).toBe(0);
      // The one place is free again.
      expect((await exportCall(slow.receiver.port, oneSpan('00000000000000a1'), metadata)).error).toBeNull();
    } finally {
      connection.close();
      await slow.close();
    }
  });

  it("honours the client's grpc-timeout: DEADLINE_EXCEEDED when it passes first", async () => {
    const { metadata } = await auth();
    const connection = rawConnection(receiver.port);
    try {
      const answer = await within(15_000, rawCall(connection, { ...metadata, 'grpc-timeout': '300m' }).answer, 'the call');
      expect(answer.status).toBe(grpc.status.DEADLINE_EXCEEDED);
      expect(answer.message).toBe("The call's deadline (grpc-timeout) passed.");
      const malformed = await within(15_000, rawCall(connection, { ...metadata, 'grpc-timeout': 'soon' }).answer, 'the call');
      expect(malformed.status).toBe(grpc.status.INVALID_ARGUMENT);
      await until(() => receiver.callsInProgress === 0, 'the places given back');
    } finally {
      connection.close();
    }
  });

  it('refuses a length prefix over 10 MB before reading the message: RESOURCE_EXHAUSTED, not retryable, and the stream is reset', async () => {
    const { metadata } = await auth();
    const connection = rawConnection(receiver.port);
    try {
      // The prefix and the start of the message; the client would go on sending, and never ends the call.
      const call = rawCall(connection, metadata, Buffer.concat([messagePrefix(BODY_LIMIT + 1), Buffer.alloc(64 * 1024, 1)]));
      const answer = await within(15_000, call.answer, 'the refusal');
      expect(answer.status).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect(answer.message).toBe(`The message (${BODY_LIMIT + 1} bytes) exceeds the 10 MB limit (${BODY_LIMIT} bytes).`);
      expect(answer.headers['grpc-status-details-bin']).toBeUndefined();
      expect(answer.headers['google.rpc.retryinfo-bin']).toBeUndefined();
      // The server stops the stream rather than reading (and dropping) the rest.
      await within(15_000, answer.closed, 'the reset');
      expect(call.stream.rstCode).toBe(0);
      expect(ctx.app.admission.budget.inUse).toBe(0);
      await until(() => receiver.callsInProgress === 0, 'the place given back');
    } finally {
      connection.close();
    }
  });

  it('refuses a message the body budget cannot hold now, at its prefix: UNAVAILABLE with RetryInfo, nothing read', async () => {
    const { metadata } = await auth();
    const { budget } = ctx.app.admission;
    const held = budget.limit - budget.inUse - 1024 * 1024;
    expect(budget.tryReserve(held)).toBe(true);
    const connection = rawConnection(receiver.port);
    try {
      const call = rawCall(connection, metadata, messagePrefix(2 * 1024 * 1024));
      const answer = await within(15_000, call.answer, 'the refusal');
      expect(answer.status).toBe(grpc.status.UNAVAILABLE);
      expect(answer.message).toBe('The server holds as many request bodies as it can right now; retry shortly.');
      expect(retryInfoSeconds(answer.headers['google.rpc.retryinfo-bin'])).toBe(1);
      await within(15_000, answer.closed, 'the reset');
    } finally {
      budget.release(held);
      connection.close();
    }
    await until(() => receiver.callsInProgress === 0 && budget.inUse === 0, 'the place and the bytes given back');
    expect((await exportCall(receiver.port, oneSpan('00000000000000b1'), metadata)).error).toBeNull();
  });

  it('refuses a call that ends before its message is whole, or carries more than one: INVALID_ARGUMENT, nothing stored', async () => {
    const { caller, project, metadata } = await auth();
    const connection = rawConnection(receiver.port);
    const message = oneSpan('00000000000000c1');
    try {
      const none = await within(15_000, rawCall(connection, metadata, null, true).answer, 'no message');
      expect(none).toMatchObject({ status: grpc.status.INVALID_ARGUMENT, message: 'The call ended without its message.' });
      const cut = Buffer.concat([messagePrefix(message.length), message.subarray(0, 3)]);
      const partial = await within(15_000, rawCall(connection, metadata, cut, true).answer, 'a partial message');
      expect(partial).toMatchObject({ status: grpc.status.INVALID_ARGUMENT, message: `The call ended 3 bytes into its ${message.length}-byte message.` });
      const twice = Buffer.concat([messagePrefix(message.length), message, messagePrefix(message.length), message]);
      const two = await within(15_000, rawCall(connection, metadata, twice, true).answer, 'two messages');
      expect(two).toMatchObject({ status: grpc.status.INVALID_ARGUMENT, message: 'An Export call carries one message; more bytes followed it.' });
      expect((await ctx.request('GET', `/v1/projects/${project.id}/runs`, { token: caller.token })).json().items).toEqual([]);
      await until(
        () => receiver.callsInProgress === 0 && ctx.app.admission.budget.inUse === 0,
        `the places and bytes given back (${receiver.callsInProgress}, ${ctx.app.admission.budget.inUse})`,
      );
    } finally {
      connection.close();
    }
  });

  it('takes gzip and deflate messages; refuses another encoding (UNIMPLEMENTED, naming those it takes) and a bomb (RESOURCE_EXHAUSTED)', async () => {
    const { caller, project, metadata } = await auth();
    const connection = rawConnection(receiver.port);
    try {
      for (const [encoding, compress, spanId] of [
        ['gzip', gzipSync, '00000000000000d1'],
        ['deflate', deflateSync, '00000000000000d2'],
      ] as const) {
        const body = compress(oneSpan(spanId));
        const answer = await within(
          15_000,
          rawCall(connection, { ...metadata, 'grpc-encoding': encoding }, Buffer.concat([messagePrefix(body.length, true), body]), true).answer,
          encoding,
        );
        expect(answer.status, `${encoding}: ${answer.message}`).toBe(grpc.status.OK);
      }
      const runs = await ctx.request('GET', `/v1/projects/${project.id}/runs`, { token: caller.token });
      expect(
        runs
          .json()
          .items.map((run: { id: string }) => run.id)
          .sort(),
      ).toEqual(['00000000000000d1', '00000000000000d2']);

      const snappy = await within(
        15_000,
        rawCall(connection, { ...metadata, 'grpc-encoding': 'snappy' }, Buffer.concat([messagePrefix(3, true), Buffer.alloc(3)]), true).answer,
        'snappy',
      );
      expect(snappy).toMatchObject({
        status: grpc.status.UNIMPLEMENTED,
        message: 'The message is compressed with "snappy"; this server takes identity,deflate,gzip.',
      });
      expect(snappy.headers['grpc-accept-encoding']).toBe('identity,deflate,gzip');

      const bomb = gzipSync(Buffer.alloc(ctx.config.maxDecodedBodyBytes + 1));
      const refused = await within(
        15_000,
        rawCall(connection, { ...metadata, 'grpc-encoding': 'gzip' }, Buffer.concat([messagePrefix(bomb.length, true), bomb]), true).answer,
        'bomb',
      );
      expect(refused).toMatchObject({ status: grpc.status.RESOURCE_EXHAUSTED, message: 'The request body exceeds the 12 MB limit once decompressed.' });
      expect(refused.headers['google.rpc.retryinfo-bin']).toBeUndefined();
      await until(() => ctx.app.admission.budget.inUse === 0, 'the bytes given back');
    } finally {
      connection.close();
    }
  });

  it('answers a request that is not gRPC with a problem document, and another method UNIMPLEMENTED', async () => {
    const connection = rawConnection(receiver.port);
    try {
      const other = await within(
        15_000,
        rawCall(connection, { ':path': '/opentelemetry.proto.collector.logs.v1.LogsService/Export' }, null, true).answer,
        'logs',
      );
      expect(other).toMatchObject({ status: grpc.status.UNIMPLEMENTED, message: `This server implements ${EXPORT_PATH} only.` });

      const plain = connection.request({ ':method': 'GET', ':path': '/' });
      const [headers, body] = await within(
        15_000,
        new Promise<[Record<string, unknown>, string]>((resolve) => {
          let text = '';
          let head: Record<string, unknown> = {};
          plain.on('response', (h) => (head = h));
          plain.on('data', (chunk: Buffer) => (text += chunk.toString()));
          plain.on('end', () => resolve([head, text]));
        }),
        'the plain request',
      );
      expect(headers[':status']).toBe(415);
      expect(headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(JSON.parse(body)).toMatchObject({
        type: `${PROBLEM_BASE}/unsupported-media-type`,
        status: 415,
        detail: `This port takes OTLP over gRPC only (POST ${EXPORT_PATH}, application/grpc).`,
      });
    } finally {
      connection.close();
    }
  });
});
