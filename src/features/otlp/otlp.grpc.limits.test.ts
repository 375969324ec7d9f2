import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, type TestContext } from '../../../test/helpers/harness.js';
import { encodeOtlpRequest } from './otlp.decode.js';
import { startGrpcReceiver, type GrpcReceiver } from './otlp.grpc.js';
import { exportCall, retryOf } from './otlp.grpc.test-support.js';
import { exportRequest, jsonSpan } from './otlp.test-support.js';

/** The bound on gRPC calls in progress: refused at their metadata, with RetryInfo, and every place given back. */
describeEachDialect('OTLP over gRPC: calls in progress', (ctx: TestContext) => {
  let closed: GrpcReceiver;
  let single: GrpcReceiver;
  beforeAll(async () => {
    closed = (await startGrpcReceiver(ctx.app, { host: '127.0.0.1', port: 0, explicit: true, maxCalls: 0 }))!;
    single = (await startGrpcReceiver(ctx.app, { host: '127.0.0.1', port: 0, explicit: true, maxCalls: 1 }))!;
  });
  afterAll(async () => {
    await closed?.close(1_000);
    await single?.close(1_000);
  });

  it('refuses a call past the bound with UNAVAILABLE and a RetryInfo of 1 s, before reading its message', async () => {
    const caller = await ctx.make.caller({ role: 'member' });
    const message = Buffer.from(encodeOtlpRequest(exportRequest([jsonSpan()], { 'service.name': 'limited' })));
    const answer = await exportCall(closed.port, message, { authorization: `Bearer ${caller.token}` });
    expect(answer.error?.code).toBe(grpc.status.UNAVAILABLE);
    expect(answer.error?.details).toMatch(/as many exports as it can/);
    expect(retryOf(answer.error!)).toMatchObject({ status: { code: grpc.status.UNAVAILABLE, delay: 1 }, trailer: 1 });
  });

  it('gives the place back after every answer, success or refusal', async () => {
    const caller = await ctx.make.caller({ role: 'member' });
    for (let i = 0; i < 4; i++) {
      const message = Buffer.from(encodeOtlpRequest(exportRequest([jsonSpan({ spanId: `000000000000000${i + 1}` })], { 'service.name': 'one-at-a-time' })));
      const refused = await exportCall(single.port, message, {});
      expect(refused.error?.code, `call ${i}`).toBe(grpc.status.UNAUTHENTICATED);
      const stored = await exportCall(single.port, message, { authorization: `Bearer ${caller.token}` });
      expect(stored.error, `call ${i}`).toBeNull();
    }
    const garbage = await exportCall(single.port, Buffer.from([0x0a, 0xff]), { authorization: `Bearer ${caller.token}` });
    expect(garbage.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await exportCall(single.port, Buffer.alloc(0), { authorization: `Bearer ${caller.token}` })).error).toBeNull();
  });
});
