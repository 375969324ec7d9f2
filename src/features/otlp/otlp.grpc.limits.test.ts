import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, type TestContext } from '../../../test/helpers/harness.js';
import { encodeOtlpRequest } from './otlp.decode.js';
import type { GrpcReceiver } from './otlp.grpc.js';
import { exportCall, exportSpan, rawCall, rawConnection, retryOf, startReceiver, until, within } from './otlp.grpc.test-support.js';
import { exportRequest, jsonSpan } from './otlp.test-support.js';

/**
 * The places of gRPC calls in progress: taken only once the call's credential is verified, at most a
 * share per connection and per credential, refused at the metadata with RetryInfo, and every place given
 * back.
 */
describeEachDialect('OTLP over gRPC: calls in progress', (ctx: TestContext) => {
  let closed: GrpcReceiver;
  let single: GrpcReceiver;
  let receiver: GrpcReceiver;
  beforeAll(async () => {
    closed = await startReceiver(ctx.app, ctx.config, { total: 0 });
    single = await startReceiver(ctx.app, ctx.config, { total: 1 });
    receiver = await startReceiver(ctx.app, ctx.config);
  });
  afterAll(async () => {
    await closed?.close(1_000);
    await single?.close(1_000);
    await receiver?.close(1_000);
  });

  const memberWithProject = async () => {
    const caller = await ctx.make.caller({ role: 'member' });
    const project = await ctx.make.project(caller.organizationId);
    return { caller, project };
  };

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
    expect(single.callsInProgress).toBe(0);
  });

  it('answers 16 stalled anonymous calls UNAUTHENTICATED at once, holding no place: a real exporter is served meanwhile', async () => {
    const { caller, project } = await memberWithProject();
    // One connection, as many Export HEADERS as the instance has places, no token, no message, never ended.
    const attacker = rawConnection(receiver.port);
    try {
      const stalled = Array.from({ length: 16 }, () => rawCall(attacker, { 'x-request-id': 'stalled' }));
      const exported = await exportSpan(receiver.port, caller.token, project.name);
      expect(exported.error).toBeUndefined();
      expect(exported.code).toBe(0);
      const answers = await within(15_000, Promise.all(stalled.map((call) => call.answer)), 'the stalled calls');
      for (const answer of answers) {
        expect(answer.status).toBe(grpc.status.UNAUTHENTICATED);
        expect(answer.message).toBe('A bearer token is required.');
        expect(answer.headers['x-request-id']).toBe('stalled');
      }
      expect(receiver.callsInProgress).toBe(0);
      const runs = await ctx.request('GET', `/v1/projects/${project.id}/runs`, { token: caller.token });
      expect(runs.json().items.map((run: { id: string }) => run.id)).toEqual([exported.spanId]);
    } finally {
      attacker.close();
    }
  });

  it('lets one connection hold at most its share of the places: another connection is served', async () => {
    const { caller, project } = await memberWithProject();
    const { perConnection } = ctx.config.otlpGrpcCalls;
    const holder = rawConnection(receiver.port);
    try {
      // Authenticated calls whose messages have not arrived yet hold their places.
      const held = Array.from({ length: perConnection }, () => rawCall(holder, { authorization: `Bearer ${caller.token}` }));
      await until(() => receiver.callsInProgress === perConnection, 'the held calls');
      const refused = await within(15_000, rawCall(holder, { authorization: `Bearer ${caller.token}` }).answer, 'the call past the share');
      expect(refused.status).toBe(grpc.status.UNAVAILABLE);
      expect(refused.message).toBe(
        `This connection has ${perConnection} exports in progress, as many as one connection may; retry shortly, or over another connection.`,
      );
      expect(refused.headers['google.rpc.retryinfo-bin']).toBe(Buffer.from([0x0a, 0x02, 0x08, 0x01]).toString('base64'));

      const exported = await exportSpan(receiver.port, caller.token, project.name, 'gzip');
      expect(exported.error).toBeUndefined();
      expect(exported.code).toBe(0);
      for (const call of held) call.stream.close();
      await Promise.all(held.map((call) => call.answer));
      await until(() => receiver.callsInProgress === 0, 'the places given back');
    } finally {
      holder.close();
    }
  });

  it('lets one credential hold at most its share of the places, over any number of connections: another credential is served', async () => {
    const { caller, project } = await memberWithProject();
    const other = await ctx.make.caller({ role: 'member', organizationId: caller.organizationId });
    const { perConnection, perCredential } = ctx.config.otlpGrpcCalls;
    const connections = Array.from({ length: Math.ceil(perCredential / perConnection) + 1 }, () => rawConnection(receiver.port));
    try {
      const held = Array.from({ length: perCredential }, (_, i) =>
        rawCall(connections[Math.floor(i / perConnection)]!, { authorization: `Bearer ${caller.token}` }),
      );
      await until(() => receiver.callsInProgress === perCredential, 'the held calls');
      const refused = await within(15_000, rawCall(connections.at(-1)!, { authorization: `Bearer ${caller.token}` }).answer, 'the call past the share');
      expect(refused.status).toBe(grpc.status.UNAVAILABLE);
      expect(refused.message).toBe(`This credential has ${perCredential} exports in progress, as many as one credential may; retry shortly.`);

      const exported = await exportSpan(receiver.port, other.token, project.name);
      expect(exported.code).toBe(0);
      for (const call of held) call.stream.close();
      await until(() => receiver.callsInProgress === 0, 'the places given back');
    } finally {
      for (const connection of connections) connection.close();
    }
  });
});
