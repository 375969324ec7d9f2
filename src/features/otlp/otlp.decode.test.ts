import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { Problem } from '../../lib/problems.js';
import { encodeOtlpResponse, readOtlpJson, readOtlpProtobuf, type OtlpRequest } from './otlp.decode.js';
import { anyValueToJson, attributesOf, hexId, int64, MAX_VALUE_DEPTH, nanos, type AnyValue } from './otlp.values.js';

// The same compiled protos the module decodes with, here to encode what an exporter would send.
const v1 = (
  createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
    opentelemetry: {
      proto: {
        collector: {
          trace: { v1: Record<string, { fromObject(o: object): object; encode(m: object): { finish(): Uint8Array }; decode(b: Uint8Array): unknown }> };
        };
      };
    };
  }
).opentelemetry.proto.collector.trace.v1;

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPAN = 'b7ad6b7169203331';
const PARENT = '00f067aa0ba902b7';
// 2023-11-14T22:13:20.123Z and 456,789 ns: past 2^53, so a double would move it.
const START = '1700000000123456789';
const END = '1700000000999999999';

const request = (times: { start: string | number; end: string | number }, id: (hex: string) => string | Buffer = (hex) => hex) => ({
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'support-bot' } }] },
      scopeSpans: [
        {
          scope: { name: 'test', version: '1' },
          spans: [
            {
              traceId: id(TRACE),
              spanId: id(SPAN),
              parentSpanId: id(PARENT),
              name: 'chat gpt-4o',
              kind: 3,
              startTimeUnixNano: times.start,
              endTimeUnixNano: times.end,
              attributes: [
                { key: 'gen_ai.usage.input_tokens', value: { intValue: 12 } },
                { key: 'big', value: { intValue: '-9223372036854775808' } },
                { key: 'ok', value: { boolValue: true } },
                { key: 'list', value: { arrayValue: { values: [{ doubleValue: 0.5 }, { bytesValue: 'AAE=' }] } } },
              ],
              status: { code: 2, message: 'boom' },
            },
          ],
        },
      ],
    },
  ],
});

function spanOf(decoded: OtlpRequest) {
  const resource = decoded.resources[0]!;
  expect(resource.spans).toHaveLength(1);
  expect(resource.scopes).toEqual([expect.objectContaining({ name: 'test', version: '1' })]);
  return resource.span(resource.spans[0]!);
}

async function expectSpan(reading: Promise<OtlpRequest>) {
  const decoded = await reading;
  const span = spanOf(decoded);
  expect(decoded.resources[0]!.spans[0]).toMatchObject({ scope: 0, traceId: TRACE, spanId: SPAN, parentId: PARENT });
  expect(hexId(span.traceId, 16)).toBe(TRACE);
  expect(hexId(span.spanId, 8)).toBe(SPAN);
  expect(hexId(span.parentSpanId, 8)).toBe(PARENT);
  expect(nanos(span.startTimeUnixNano)).toBe(BigInt(START));
  expect(nanos(span.endTimeUnixNano)).toBe(BigInt(END));
  expect(span.status).toMatchObject({ code: 2, message: 'boom' });
  expect(attributesOf(span)).toEqual({ 'gen_ai.usage.input_tokens': 12, big: '-9223372036854775808', ok: true, list: [0.5, 'AAE='] });
  expect(decoded.resources[0]!.attributes).toEqual({ 'service.name': 'support-bot' });
}

const expectUndecodable = async (run: () => Promise<unknown>, detail: RegExp) => {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(Problem);
    const problem = error as Problem;
    expect(problem.status).toBe(400);
    expect(problem.errors).toEqual([{ pointer: '', detail: expect.stringMatching(detail) }]);
    return;
  }
  throw new Error('decoded what it must refuse');
};

describe('OTLP decoding', () => {
  it('decodes protobuf exactly: hex ids, nanosecond times past 2^53, every attribute type', async () => {
    // protobufjs reads a string for bytes as base64: an exporter's ids are bytes.
    const message = v1.ExportTraceServiceRequest!.fromObject(request({ start: START, end: END }, (hex) => Buffer.from(hex, 'hex')));
    await expectSpan(readOtlpProtobuf(v1.ExportTraceServiceRequest!.encode(message).finish()));
  });

  it('keeps the first spans of a protobuf request decoded (within its bound) and decodes the rest again, each span the same either way', async () => {
    // 2,500 spans of 50 attributes: about 125,000 messages, past the 100,000 kept decoded.
    const spans = Array.from({ length: 2500 }, (_, i) => ({
      traceId: Buffer.from(TRACE, 'hex'),
      spanId: Buffer.from((i + 1).toString(16).padStart(16, '0'), 'hex'),
      name: `span ${i}`,
      startTimeUnixNano: START,
      attributes: Array.from({ length: 50 }, (_, k) => ({ key: `a${k}`, value: { intValue: i * 100 + k } })),
    }));
    const body = { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'bulk' }, spans }] }] };
    const decoded = await readOtlpProtobuf(v1.ExportTraceServiceRequest!.encode(v1.ExportTraceServiceRequest!.fromObject(body)).finish());
    const [resource] = decoded.resources;
    const kept = resource!.spans.filter((ref) => ref.decoded !== undefined).length;
    // Each span is 100 messages (an attribute and its value each): 1,000 spans are kept decoded.
    expect(kept).toBe(1000);
    resource!.spans.forEach((ref, i) => {
      const span = resource!.span(ref);
      expect(ref.decoded).toBeUndefined(); // let go once taken
      expect([span.name, hexId(span.spanId, 8), attributesOf(span).a49]).toEqual([`span ${i}`, (i + 1).toString(16).padStart(16, '0'), i * 100 + 49]);
    });
  });

  it('decodes OTLP/JSON with times as strings or as numbers too large for a double, exactly', async () => {
    await expectSpan(readOtlpJson(JSON.stringify(request({ start: START, end: END }))));
    const asNumbers = JSON.stringify(request({ start: 0, end: 0 }))
      .replace('"startTimeUnixNano":0', `"startTimeUnixNano":${START}`)
      .replace('"endTimeUnixNano":0', `"endTimeUnixNano": ${END}`);
    // What plain JSON.parse would make of it: another time.
    expect(BigInt(JSON.parse(asNumbers).resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano)).not.toBe(BigInt(START));
    await expectSpan(readOtlpJson(asNumbers));
    // Unknown fields are ignored; upper-case hex is hex.
    const extra = JSON.parse(JSON.stringify(request({ start: START, end: END })));
    extra.unknownTop = 1;
    extra.resourceSpans[0].scopeSpans[0].spans[0].traceId = TRACE.toUpperCase();
    await expectSpan(readOtlpJson(JSON.stringify(extra)));
  });

  it('refuses what is not a request with a 400 naming the encoding and the reason', async () => {
    await expectUndecodable(
      () => readOtlpProtobuf(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f])),
      /^The body is not an OTLP ExportTraceServiceRequest in protobuf: /,
    );
    await expectUndecodable(() => readOtlpJson('{"resourceSpans":'), /in JSON: /);
    await expectUndecodable(() => readOtlpJson('[]'), /in JSON: the body is not an object\.$/);
    const bad = (mutate: (span: Record<string, unknown>) => void) => {
      const body = JSON.parse(JSON.stringify(request({ start: START, end: END })));
      mutate(body.resourceSpans[0].scopeSpans[0].spans[0]);
      return JSON.stringify(body);
    };
    await expectUndecodable(() => readOtlpJson(bad((s) => (s.spanId = 'not-hex!'))), /spanId "not-hex!" is not hex\.$/);
    await expectUndecodable(() => readOtlpJson(bad((s) => (s.spanId = 'abc'))), /is not hex/);
    for (const time of ['abc', '12x', 1.5, '', true]) {
      await expectUndecodable(() => readOtlpJson(bad((s) => (s.startTimeUnixNano = time))), /startTimeUnixNano must be an integer\.$/);
    }
  });

  it('encodes the answer in the request encoding, with partialSuccess only when a span was refused', () => {
    expect(encodeOtlpResponse(null, 'json')).toBe('{}');
    expect(JSON.parse(encodeOtlpResponse({ rejectedSpans: 2, errorMessage: 'why' }, 'json') as string)).toEqual({
      partialSuccess: { rejectedSpans: '2', errorMessage: 'why' },
    });
    expect((encodeOtlpResponse(null, 'protobuf') as Uint8Array).length).toBe(0);
    const decoded = v1.ExportTraceServiceResponse!.decode(encodeOtlpResponse({ rejectedSpans: 1, errorMessage: 'x' }, 'protobuf') as Uint8Array) as {
      partialSuccess: { rejectedSpans: { toString(): string }; errorMessage: string };
    };
    expect([decoded.partialSuccess.rejectedSpans.toString(), decoded.partialSuccess.errorMessage]).toEqual(['1', 'x']);
  });

  it('reads ids, times and integers at their edges', () => {
    expect(hexId(Buffer.alloc(8), 8)).toBeNull();
    expect(hexId(Buffer.from('00f067aa0ba902', 'hex'), 8)).toBeNull();
    expect(hexId(null, 16)).toBeNull();
    expect(nanos(null)).toBeNull();
    expect(nanos('0')).toBeNull();
    expect(nanos({ low: -1, high: -1, unsigned: true })).toBe(2n ** 64n - 1n);
    expect(int64({ low: 0, high: -2147483648, unsigned: false })).toBe('-9223372036854775808');
    expect(int64('9007199254740991')).toBe(9007199254740991);
    expect(int64('9007199254740993')).toBe('9007199254740993');
    // Longs as protobufjs gives them, at the edges of the safe range, on both sides of the fast path.
    expect(int64({ low: 1234, high: 0, unsigned: false })).toBe(1234);
    expect(int64({ low: -1, high: -1, unsigned: false })).toBe(-1);
    expect(int64({ low: -1, high: 0x1fffff, unsigned: false })).toBe(Number.MAX_SAFE_INTEGER);
    expect(int64({ low: 0, high: 0x200000, unsigned: false })).toBe('9007199254740992');
    expect(int64({ low: 1, high: -0x200000, unsigned: false })).toBe(Number.MIN_SAFE_INTEGER);
    expect(int64({ low: 0, high: -0x200000, unsigned: false })).toBe('-9007199254740992');
    expect(int64({ low: -1, high: -1, unsigned: true })).toBe(-1);
    expect(int64(-0)).toBe(0);
    expect(int64(42.9)).toBe(42);
    expect(int64(1e20)).toBe('100000000000000000000');
  });

  it('keeps values nested beyond the depth bound as a marker instead of recursing without end', () => {
    let value: AnyValue = { stringValue: 'leaf' };
    for (let i = 0; i < MAX_VALUE_DEPTH + 5; i++) value = { value: 'arrayValue', arrayValue: { values: [value] } };
    let json = anyValueToJson(value);
    let depth = 0;
    while (Array.isArray(json)) {
      json = json[0];
      depth++;
    }
    expect([depth, json]).toEqual([MAX_VALUE_DEPTH + 1, '[nested too deep]']);
    expect(anyValueToJson({ value: 'doubleValue', doubleValue: Infinity })).toBe('Infinity');
    expect(anyValueToJson(null)).toBeNull();
  });
});
