import { createServer, type Server } from 'node:net';
import { PassThrough } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, type TestContext } from '../../../test/helpers/harness.js';
import { ConfigError } from '../../config.js';
import { BODY_LIMIT } from '../../lib/body.js';
import { encodeOtlpRequest } from './otlp.decode.js';
import { startGrpcReceiver, type GrpcReceiver } from './otlp.grpc.js';
import { exportCall, messagePrefix, rawCall, rawConnection, receiverOptions, retryOf, servedApp, startReceiver, until } from './otlp.grpc.test-support.js';
import { exportRequest, jsonSpan } from './otlp.test-support.js';

type Compression = NonNullable<ConstructorParameters<typeof OTLPTraceExporter>[0]>['compression'];

/** A parent agent span and its chat span with GenAI attributes, exported by the real OTLP/gRPC exporter with gzip. */
async function exportWithSdk(port: number, metadata: grpc.Metadata) {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'support-bot' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('otlp-grpc-test', '1.0.0');
  const parent = tracer.startSpan('invoke_agent helper', { attributes: { 'gen_ai.operation.name': 'invoke_agent' }, startTime: [1700000000, 0] });
  const child = tracer.startSpan(
    'chat gpt-4o',
    {
      kind: 2,
      startTime: [1700000000, 123456789],
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.usage.input_tokens': 12,
        'gen_ai.usage.output_tokens': 5,
        'session.id': 'sess-1',
      },
    },
    trace.setSpan(context.active(), parent),
  );
  child.end([1700000001, 987654321]);
  parent.end([1700000002, 5000000]);
  await provider.forceFlush();
  const exporter = new OTLPTraceExporter({ url: `http://127.0.0.1:${port}`, metadata, compression: 'gzip' as Compression });
  // Both spans in one call (as a batch processor sends them), and the exporter's own verdict on it.
  const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(memory.getFinishedSpans(), resolve));
  await exporter.shutdown();
  await provider.shutdown();
  return { result, parent: parent.spanContext(), child: child.spanContext() };
}

/** A socket listening on a port, as another process holding it would. */
function occupy(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}

describeEachDialect('OTLP over gRPC', (ctx: TestContext) => {
  let receiver: GrpcReceiver;
  beforeAll(async () => {
    receiver = await startReceiver(ctx.app, ctx.config);
  });
  afterAll(async () => receiver?.close(1_000));

  const ownerWithProject = async () => {
    const caller = await ctx.make.caller({ role: 'owner' });
    const project = await ctx.make.project(caller.organizationId);
    return { caller, project };
  };

  it('stores the spans the OpenTelemetry gRPC exporter sends (gzip) as runs, through the HTTP path', async () => {
    const { caller, project } = await ownerWithProject();
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${caller.token}`);
    metadata.set('sightline-project', project.name);
    const { result, parent, child } = await exportWithSdk(receiver.port, metadata);
    expect(result.error?.message).toBeUndefined();
    expect(result.code).toBe(0);

    const list = await ctx.request('GET', `/v1/projects/${project.id}/runs?limit=10`, { token: caller.token });
    expect(list.statusCode, list.body).toBe(200);
    const runs = list.json().items as Record<string, unknown>[];
    expect(runs.map((run) => run.id).sort()).toEqual([child.spanId, parent.spanId].sort());
    const llm = runs.find((run) => run.id === child.spanId)!;
    expect(llm.id).toMatch(/^[0-9a-f]{16}$/);
    expect(llm.traceId).toBe(child.traceId);
    expect(llm.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(llm.projectId).toBe(project.id);
    expect(llm.parentRunId).toBe(parent.spanId);
    expect(llm.name).toBe('chat gpt-4o');
    expect(llm.kind).toBe('llm');
    expect(llm.status).toBe('succeeded');
    expect(llm.error).toBeNull();
    expect(llm.model).toBe('gpt-4o');
    expect(llm.usage).toEqual({ promptTokens: 12, completionTokens: 5, totalTokens: 17 });
    expect(llm.sessionId).toBe('sess-1');
    expect(llm.startTime).toBe('2023-11-14T22:13:20.123Z');
    expect(llm.endTime).toBe('2023-11-14T22:13:21.987Z');
    expect(llm.latencyMs).toBe(1864);
    const agent = runs.find((run) => run.id === parent.spanId)!;
    expect(agent).toMatchObject({ traceId: child.traceId, parentRunId: null, kind: 'agent', status: 'succeeded', usage: null });
    expect(agent.startTime).toBe('2023-11-14T22:13:20.000Z');
    expect(agent.endTime).toBe('2023-11-14T22:13:22.005Z');
  });

  it('answers an empty export with an empty response, and echoes the request id', async () => {
    const { caller, project } = await ownerWithProject();
    const headers = { authorization: `Bearer ${caller.token}`, 'sightline-project': project.id, 'x-request-id': 'grpc-req-1' };
    const answer = await exportCall(receiver.port, Buffer.alloc(0), headers);
    expect(answer.error).toBeNull();
    expect(answer.response).toEqual(Buffer.alloc(0));
    expect(answer.trailers.get('x-request-id')).toEqual(['grpc-req-1']);
  });

  it('refuses a call without a token: UNAUTHENTICATED, with the problem detail the HTTP route gives', async () => {
    const answer = await exportCall(receiver.port, Buffer.alloc(0), { 'x-request-id': 'grpc-no-token' });
    expect(answer.error?.code).toBe(grpc.status.UNAUTHENTICATED);
    const http = await ctx.request('POST', '/v1/traces', { headers: { 'content-type': 'application/x-protobuf' }, payload: '' });
    expect(http.statusCode).toBe(401);
    expect(answer.error?.details).toBe(http.json().detail);
    expect(answer.error?.metadata.get('x-request-id')).toEqual(['grpc-no-token']);
    expect(answer.error?.metadata.get('grpc-status-details-bin')).toEqual([]);
  });

  it('refuses a viewer: PERMISSION_DENIED', async () => {
    const { caller, project } = await ownerWithProject();
    const viewer = await ctx.make.caller({ role: 'viewer', organizationId: caller.organizationId });
    const answer = await exportCall(receiver.port, Buffer.alloc(0), { authorization: `Bearer ${viewer.token}`, 'sightline-project': project.id });
    expect(answer.error?.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(answer.error?.details).not.toBe('');
  });

  it('refuses spans for a project id that does not exist: NOT_FOUND', async () => {
    const { caller } = await ownerWithProject();
    const missing = `prj_${'0'.repeat(26)}`;
    const message = Buffer.from(encodeOtlpRequest(exportRequest([jsonSpan()])));
    const answer = await exportCall(receiver.port, message, { authorization: `Bearer ${caller.token}`, 'sightline-project': missing });
    expect(answer.error?.code).toBe(grpc.status.NOT_FOUND);
    expect(answer.error?.details).toBe(`Project ${missing} does not exist.`);
  });

  it('refuses bytes that are no ExportTraceServiceRequest: INVALID_ARGUMENT', async () => {
    const { caller, project } = await ownerWithProject();
    const garbage = Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x02]);
    const answer = await exportCall(receiver.port, garbage, { authorization: `Bearer ${caller.token}`, 'sightline-project': project.id });
    expect(answer.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(answer.error?.details).not.toBe('');
    expect(answer.error?.metadata.get('grpc-status-details-bin')).toEqual([]);
  });

  it('refuses a message over the body limit: RESOURCE_EXHAUSTED without RetryInfo (not retryable)', async () => {
    const { caller, project } = await ownerWithProject();
    const answer = await exportCall(receiver.port, Buffer.alloc(BODY_LIMIT + 1), { authorization: `Bearer ${caller.token}`, 'sightline-project': project.id });
    expect(answer.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(answer.error?.details).toContain(String(BODY_LIMIT));
    expect(retryOf(answer.error!)).toEqual({ status: null, trailer: null });
  });

  it('answers a rate-limited caller RESOURCE_EXHAUSTED with RetryInfo (Retry-After) in both trailers', async () => {
    const { caller, project } = await ownerWithProject();
    const limited = await servedApp(ctx, { SIGHTLINE_RATE_LIMIT: '1' });
    try {
      const headers = { authorization: `Bearer ${caller.token}`, 'sightline-project': project.id };
      expect((await exportCall(limited.receiver.port, Buffer.alloc(0), headers)).error).toBeNull();
      const answer = await exportCall(limited.receiver.port, Buffer.alloc(0), headers);
      expect(answer.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      const { status, trailer } = retryOf(answer.error!);
      expect(status).toEqual({
        code: grpc.status.RESOURCE_EXHAUSTED,
        message: answer.error!.details,
        typeUrl: 'type.googleapis.com/google.rpc.RetryInfo',
        delay: trailer,
      });
      // Retry-After, which the problem's detail states too.
      expect(answer.error!.details).toMatch(/^Rate limit of 1 requests per minute/);
      expect(answer.error!.details).toContain(`retry in ${trailer} s.`);
    } finally {
      await limited.receiver.close(1_000);
      await limited.app.close();
    }
  });

  it('answers UNAVAILABLE with RetryInfo while the instance sheds load, and while it shuts down', async () => {
    const { caller, project } = await ownerWithProject();
    const busy = await servedApp(ctx, { SIGHTLINE_MAX_IN_FLIGHT: '1' });
    try {
      // A request whose body is still arriving holds the one place.
      const held = new PassThrough();
      held.write('{"name":');
      const name = `held-${Date.now()}`;
      const heldRequest = busy.app.inject({
        method: 'POST',
        url: '/v1/projects',
        headers: { authorization: `Bearer ${caller.token}`, 'content-type': 'application/json', 'content-length': String(`{"name":"${name}"}`.length) },
        payload: held,
      });
      const headers = { authorization: `Bearer ${caller.token}`, 'sightline-project': project.id };
      const shed = await exportCall(busy.receiver.port, Buffer.alloc(0), headers);
      expect(shed.error?.code).toBe(grpc.status.UNAVAILABLE);
      expect(shed.error?.details).toMatch(/overloaded/);
      expect(retryOf(shed.error!)).toEqual({
        status: { code: grpc.status.UNAVAILABLE, message: shed.error!.details, typeUrl: 'type.googleapis.com/google.rpc.RetryInfo', delay: 2 },
        trailer: 2,
      });
      held.end(`"${name}"}`);
      expect((await heldRequest).statusCode).toBe(201);
      expect((await exportCall(busy.receiver.port, Buffer.alloc(0), headers)).error).toBeNull();

      await busy.app.close();
      const closing = await exportCall(busy.receiver.port, Buffer.alloc(0), headers);
      expect(closing.error?.code).toBe(grpc.status.UNAVAILABLE);
      expect(retryOf(closing.error!).trailer).toBe(1);
    } finally {
      await busy.receiver.close(1_000);
      await busy.app.close();
    }
  });

  it('drains on close: a call in progress finishes, then the port is closed', async () => {
    const { caller, project } = await ownerWithProject();
    const draining = await startReceiver(ctx.app, ctx.config);
    const connection = rawConnection(draining.port);
    try {
      const message = Buffer.from(encodeOtlpRequest(exportRequest([jsonSpan({ spanId: '00000000000000e1' })])));
      const headers = { authorization: `Bearer ${caller.token}`, 'sightline-project': project.id };
      const call = rawCall(connection, headers, Buffer.concat([messagePrefix(message.length), message.subarray(0, 10)]));
      await until(() => draining.callsInProgress === 1, 'the call in progress');
      const closed = draining.close(10_000);
      call.stream.end(message.subarray(10));
      expect((await call.answer).status).toBe(grpc.status.OK);
      await closed;
      const runs = await ctx.request('GET', `/v1/projects/${project.id}/runs`, { token: caller.token });
      expect(runs.json().items.map((run: { id: string }) => run.id)).toEqual(['00000000000000e1']);
      expect((await exportCall(draining.port, Buffer.alloc(0), headers)).error?.code).toBe(grpc.status.UNAVAILABLE);
    } finally {
      connection.close();
    }
  });

  it('stops start-up on an explicitly set port that is taken, and turns gRPC off with a warning on the default one', async () => {
    const { server, port } = await occupy();
    try {
      const warnings: string[] = [];
      const log = { info: () => {}, error: () => {}, warn: (_fields: unknown, message?: string) => void warnings.push(message ?? '') };
      const explicit = startGrpcReceiver(ctx.app, { ...receiverOptions(ctx.config), port, explicit: true }, log);
      await expect(explicit).rejects.toThrow(ConfigError);
      await expect(explicit).rejects.toThrow(new RegExp(`^Invalid configuration: SIGHTLINE_OTLP_GRPC_PORT ${port} is in use$`));
      expect(warnings).toEqual([]);

      expect(await startGrpcReceiver(ctx.app, { ...receiverOptions(ctx.config), port, explicit: false }, log)).toBeNull();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(new RegExp(`^OTLP/gRPC is off: port ${port} is in use .*SIGHTLINE_OTLP_GRPC_PORT`));
    } finally {
      server.close();
    }
  });
});
