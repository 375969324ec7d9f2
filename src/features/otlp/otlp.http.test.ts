import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';
import { decodeOtlpResponse } from './otlp.decode.js';
import { attr, emptySpansRequest, exportRequest, jsonSpan, otlpCaller, TRACE } from './otlp.test-support.js';

/** POST /v1/traces over raw HTTP: encodings, compression, limits, credentials and partial success. */
describeEachDialect('OTLP/HTTP', (ctx) => {
  it('stores a JSON export as runs and answers an empty ExportTraceServiceResponse; protobuf answers in protobuf', async () => {
    const o = await otlpCaller(ctx);
    const res = await o.sendJson(exportRequest([jsonSpan()], { 'service.name': 'json-svc' }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({});
    const project = await o.project('json-svc');
    const [run] = await o.runs(project.id);
    expect(run).toMatchObject({
      id: 'b7ad6b7169203331',
      traceId: TRACE,
      parentRunId: null,
      kind: 'llm',
      status: 'succeeded',
      startTime: '2023-11-14T22:13:20.123Z',
      endTime: '2023-11-14T22:13:21.500Z',
      latencyMs: 1377,
      model: 'gpt-4o',
      usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 },
    });
    expect(run!.metadata).toMatchObject({ 'service.name': 'json-svc', 'otel.scope.name': 'test-scope', 'gen_ai.operation.name': 'chat' });

    const proto = await o.sendProtobuf(exportRequest([jsonSpan({ spanId: '00000000000000a1' })], { 'service.name': 'json-svc' }));
    expect(proto.statusCode, proto.body).toBe(200);
    expect(proto.headers['content-type']).toBe('application/x-protobuf');
    expect(decodeOtlpResponse(proto.rawPayload)).toEqual({});
    expect((await o.runs(project.id)).map((r) => r.id).sort()).toEqual(['00000000000000a1', 'b7ad6b7169203331']);
  });

  it('takes gzip and deflate (zlib and raw), and keeps a re-exported span once', async () => {
    const o = await otlpCaller(ctx);
    const body = JSON.stringify(exportRequest([jsonSpan()], { 'service.name': 'compressed' }));
    for (const [encoding, bytes] of [
      ['gzip', gzipSync(body)],
      ['deflate', deflateSync(body)],
      ['deflate', deflateRawSync(body)],
      ['x-gzip', gzipSync(body)],
    ] as const) {
      const res = await o.send(bytes, { 'content-encoding': encoding });
      expect(res.statusCode, `${encoding}: ${res.body}`).toBe(200);
      expect(res.json()).toEqual({});
    }
    expect(await o.runs((await o.project('compressed')).id)).toHaveLength(1);
  });

  it('refuses a decompression bomb (413), corrupt gzip and a malformed protobuf (400), an unknown type or encoding (415)', async () => {
    const o = await otlpCaller(ctx);
    const bomb = gzipSync(Buffer.alloc(200 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const tooBig = expectProblem(await o.send(bomb, { 'content-encoding': 'gzip' }), 413, 'payload-too-large');
    expect(tooBig.detail).toMatch(/once decompressed/);
    expectProblem(await o.send(Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' }), 400, 'validation');
    // Small on the wire, millions of objects once decoded: refused before decoding, in either encoding.
    const emptySpans = emptySpansRequest(1_100_000);
    const many = expectProblem(await o.send(emptySpans, { 'content-type': 'application/x-protobuf' }), 413, 'payload-too-large');
    expect(many.detail).toMatch(/1,000,000 spans, attributes and values/);
    const jsonMany = `{"resourceSpans":[${'{},'.repeat(1_100_000)}{}]}`;
    expectProblem(await o.send(gzipSync(jsonMany), { 'content-encoding': 'gzip' }), 413, 'payload-too-large');
    const bad = expectProblem(await o.send(Buffer.from([0x0a, 0xff, 0xff, 0xff]), { 'content-type': 'application/x-protobuf' }), 400, 'validation');
    expect(JSON.stringify(bad.errors)).toMatch(/protobuf/);
    expectProblem(await o.send('{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz"}]}]}]}'), 400, 'validation');
    const type = expectProblem(await o.send('x', { 'content-type': 'text/plain' }), 415, 'unsupported-media-type');
    expect(type.detail).toMatch(/application\/x-protobuf/);
    expectProblem(await o.send('{}', { 'content-encoding': 'br' }), 415, 'unsupported-media-type');
    // Other routes take JSON only.
    const elsewhere = await ctx.app.inject({
      method: 'POST',
      url: '/v1/projects',
      headers: { authorization: `Bearer ${o.caller.token}`, 'content-type': 'application/x-protobuf' },
      payload: Buffer.from([1]),
    });
    expectProblem(elsewhere, 415, 'unsupported-media-type', 'Request bodies must be JSON (Content-Type: application/json).');
  });

  it('answers 401 without a credential, 403 for a viewer, 404 for a project id that does not exist', async () => {
    const o = await otlpCaller(ctx);
    const body = JSON.stringify(exportRequest([jsonSpan()]));
    expectProblem(await o.send(body, {}, null), 401, 'unauthorized');
    const viewer = await ctx.make.caller({ role: 'viewer', organizationId: o.caller.organizationId });
    expectProblem(await o.send(body, {}, viewer.token), 403, 'forbidden', 'Your role (viewer) does not allow runs:write.');
    expectProblem(await o.send(body, { 'sightline-project': 'prj_01m7yzmhg0dyhthj46ymj7w5ae' }), 404, 'not-found');
  });

  it("never writes into another organization's project, by id or by name", async () => {
    const o = await otlpCaller(ctx);
    const other = await otlpCaller(ctx);
    const theirs = await ctx.make.project(other.caller.organizationId, 'shared-name');
    const body = JSON.stringify(exportRequest([jsonSpan()], { 'service.name': 'shared-name' }));
    expectProblem(await o.send(body, { 'sightline-project': theirs.id }), 404, 'not-found');
    expect((await o.send(body)).statusCode).toBe(200);
    expect(await other.runs(theirs.id)).toEqual([]);
    const mine = await o.project('shared-name');
    expect(mine.id).not.toBe(theirs.id);
    expect(await o.runs(mine.id)).toHaveLength(1);
  });

  it('routes by the Sightline-Project header (id or name) before resource attributes, creating projects on first use', async () => {
    const o = await otlpCaller(ctx);
    const existing = await ctx.make.project(o.caller.organizationId, 'Existing One');
    const request = {
      resourceSpans: [
        {
          resource: { attributes: [attr('sightline.project', 'alpha'), attr('service.name', 'ignored')] },
          scopeSpans: [{ spans: [jsonSpan({ spanId: '0000000000000001' })] }],
        },
        { resource: { attributes: [attr('openinference.project.name', 'beta')] }, scopeSpans: [{ spans: [jsonSpan({ spanId: '0000000000000002' })] }] },
        { resource: { attributes: [attr('service.name', 'gamma')] }, scopeSpans: [{ spans: [jsonSpan({ spanId: '0000000000000003' })] }] },
      ],
    };
    expect((await o.sendJson(request)).statusCode).toBe(200);
    for (const [name, id] of [
      ['alpha', '0000000000000001'],
      ['beta', '0000000000000002'],
      ['gamma', '0000000000000003'],
    ]) {
      expect(
        (await o.runs((await o.project(name!)).id)).map((r) => r.id),
        name,
      ).toEqual([id]);
    }
    expect((await o.sendJson(request, { 'sightline-project': existing.id })).statusCode).toBe(200);
    expect(await o.runs(existing.id)).toHaveLength(3);
    expect((await o.sendJson(exportRequest([jsonSpan({ spanId: '0000000000000009' })]), { 'sightline-project': 'existing one' })).statusCode).toBe(200);
    expect(await o.runs(existing.id)).toHaveLength(4);
    expectProblem(await o.sendJson(request, { 'sightline-project': ' ' }), 400, 'validation');
  });

  it('takes a span exported again (same trace and span id) as the run it is, even changed; the same span id in another trace is refused', async () => {
    const o = await otlpCaller(ctx);
    const first = await o.sendJson(exportRequest([jsonSpan({ spanId: '00000000000000c1' })], { 'service.name': 'reexport' }));
    expect(first.statusCode, first.body).toBe(200);
    const project = await o.project('reexport');
    const [stored] = await o.runs(project.id);
    // A collector's retry with an attribute added on the way: the same span, kept as first stored.
    const again = await o.sendProtobuf(
      exportRequest([jsonSpan({ spanId: '00000000000000c1', attributes: [attr('gen_ai.operation.name', 'chat'), attr('collector.added', 'yes')] })], {
        'service.name': 'reexport',
      }),
    );
    expect(decodeOtlpResponse(again.rawPayload)).toEqual({});
    expect(await o.runs(project.id)).toEqual([stored]);
    const otherTrace = await o.sendJson(exportRequest([jsonSpan({ spanId: '00000000000000c1', traceId: 'f'.repeat(32) })], { 'service.name': 'reexport' }));
    expect(otherTrace.json()).toEqual({
      partialSuccess: {
        rejectedSpans: '1',
        errorMessage:
          'Span 00000000000000c1 was not stored: A run with id 00000000000000c1 already exists in this project, in another trace or sent other than as a span.',
      },
    });
    expect(await o.runs(project.id)).toEqual([stored]);
  });

  it('counts the spans it cannot store in partialSuccess, with the first reason, and stores the rest', async () => {
    const o = await otlpCaller(ctx);
    const request = exportRequest(
      [
        jsonSpan({ spanId: '0000000000000001' }),
        jsonSpan({ spanId: '' }),
        jsonSpan({ spanId: '0000000000000003', startTimeUnixNano: '0' }),
        jsonSpan({ spanId: '0000000000000004', attributes: [attr('bad', 'nul \u0000 inside')] }),
      ],
      { 'service.name': 'partial' },
    );
    const res = await o.sendJson(request);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ partialSuccess: { rejectedSpans: '3', errorMessage: expect.stringMatching(/trace id .* span id/) } });
    const proto = await o.sendProtobuf(request);
    expect(decodeOtlpResponse(proto.rawPayload)).toEqual({ partialSuccess: { rejectedSpans: 3, errorMessage: expect.stringMatching(/trace id .* span id/) } });
    expect((await o.runs((await o.project('partial')).id)).map((r) => r.id)).toEqual(['0000000000000001']);
  });
});
