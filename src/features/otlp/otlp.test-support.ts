import { gzipSync } from 'node:zlib';
import { expect } from 'vitest';
import type { TestContext } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { encodeOtlpRequest } from './otlp.decode.js';

export const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

/** An OTLP/JSON attribute. */
export const attr = (key: string, value: string | number | boolean) => ({
  key,
  value:
    typeof value === 'string'
      ? { stringValue: value }
      : typeof value === 'boolean'
        ? { boolValue: value }
        : Number.isInteger(value)
          ? { intValue: String(value) }
          : { doubleValue: value },
});

/** An OTLP/JSON span: a GenAI chat call unless overridden. */
export const jsonSpan = (overrides: Record<string, unknown> = {}) => ({
  traceId: TRACE,
  spanId: 'b7ad6b7169203331',
  name: 'chat gpt-4o',
  kind: 3,
  startTimeUnixNano: '1700000000123456789',
  endTimeUnixNano: '1700000001500000001',
  attributes: [
    attr('gen_ai.operation.name', 'chat'),
    attr('gen_ai.request.model', 'gpt-4o'),
    attr('gen_ai.usage.input_tokens', 12),
    attr('gen_ai.usage.output_tokens', 3),
  ],
  status: {},
  ...overrides,
});

/** An OTLP/JSON ExportTraceServiceRequest: one resource (attributes given) with these spans. */
export const exportRequest = (spans: unknown[], resource: Record<string, string> = { 'service.name': 'svc' }) => ({
  resourceSpans: [
    {
      resource: { attributes: Object.entries(resource).map(([k, v]) => attr(k, v)) },
      scopeSpans: [{ scope: { name: 'test-scope', version: '1.0.0' }, spans }],
    },
  ],
});

/** A length-delimited protobuf field: its tag, its length as a varint, its bytes. */
function protobufField(tag: number, body: Buffer): Buffer {
  const length: number[] = [];
  for (let n = body.length; ; n >>>= 7) {
    if (n < 0x80) {
      length.push(n);
      break;
    }
    length.push((n & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from([tag, ...length]), body]);
}

/** The densest protobuf request there is: one resource, one scope, and `count` empty spans of two bytes each. */
export function emptySpansRequest(count: number): Buffer {
  const spans = Buffer.alloc(2 * count);
  for (let i = 0; i < spans.length; i += 2) spans[i] = 0x12; // ScopeSpans.spans (field 2), length 0
  return protobufField(0x0a, protobufField(0x12, spans)); // request.resource_spans > scope_spans > spans
}

/** A member of a fresh organization, and ways to send to /v1/traces and read what was stored. */
export async function otlpCaller(ctx: TestContext, role: 'member' | 'viewer' | 'owner' = 'member') {
  const caller = await ctx.make.caller({ role });
  const send = (body: Buffer | string, headers: Record<string, string> = {}, token: string | null = caller.token) =>
    ctx.app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      payload: body,
    });
  return {
    caller,
    send,
    /** OTLP/JSON, optionally gzip-compressed. */
    sendJson: (request: unknown, headers: Record<string, string> = {}, gzip = false) =>
      send(gzip ? gzipSync(JSON.stringify(request)) : JSON.stringify(request), { ...(gzip ? { 'content-encoding': 'gzip' } : {}), ...headers }),
    /** OTLP protobuf from the same JSON shape. */
    sendProtobuf: (request: unknown, headers: Record<string, string> = {}) =>
      send(Buffer.from(encodeOtlpRequest(request)), { 'content-type': 'application/x-protobuf', ...headers }),
    /** The organization's project of this name (or id), which must exist. */
    async project(name: string): Promise<{ id: string; name: string }> {
      const res = await ctx.request('GET', `/v1/projects?name=${encodeURIComponent(name)}&limit=100`, { token: caller.token });
      expect(res.statusCode, res.body).toBe(200);
      const found = (res.json().items as { id: string; name: string }[]).find((p) => p.name.toLowerCase() === name.toLowerCase());
      if (!found) throw new Error(`no project ${name}`);
      return found;
    },
    /** Every run of a project, page after page, by id. */
    async allRuns(projectId: string): Promise<Map<string, Json>> {
      const runs = new Map<string, Json>();
      for (let cursor: string | null = null; ;) {
        const res = await ctx.request('GET', `/v1/projects/${projectId}/runs?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
          token: caller.token,
        });
        expect(res.statusCode, res.body).toBe(200);
        const page = res.json() as { items: Json[]; nextCursor: string | null };
        for (const run of page.items) runs.set(run.id as string, run);
        if (!page.nextCursor) return runs;
        cursor = page.nextCursor;
      }
    },
    /** Every run of a project, oldest first. */
    async runs(projectId: string): Promise<Json[]> {
      const res = await ctx.request('GET', `/v1/projects/${projectId}/runs?limit=1000`, { token: caller.token });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().items as Json[]).reverse();
    },
  };
}
