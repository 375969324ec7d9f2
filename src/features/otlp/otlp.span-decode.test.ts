import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeAttribute, decodeSpan } from './otlp.span-decode.js';
import { anyValueToJson, attributesOf, MAX_VALUE_DEPTH, type Int64, type KeyValue, type OtlpSpan } from './otlp.values.js';

// The compiled protos protobufjs decodes with: the oracle, and the encoder of what an exporter sends.
type Message = { fromObject(o: object): object; encode(m: object): { finish(): Uint8Array }; decode(b: Uint8Array): unknown };
const proto = (
  createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
    opentelemetry: { proto: { trace: { v1: { Span: Message } }; common: { v1: { KeyValue: Message } } } };
  }
).opentelemetry.proto;
const Span = proto.trace.v1.Span;
const KeyValueMessage = proto.common.v1.KeyValue;

/** A 64-bit time as one number, absent and zero alike (OTLP's "unset"). */
const time = (t: Int64 | null | undefined) =>
  t === null || t === undefined ? 0n : typeof t === 'object' ? (BigInt(t.high >>> 0) << 32n) | BigInt(t.low >>> 0) : BigInt(t);
const hex = (bytes: Uint8Array | null) => Buffer.from(bytes ?? []).toString('hex');

/** What mapping reads of a span, from protobufjs's decoding and from `decodeSpan`'s. */
function readable(span: OtlpSpan) {
  return {
    ids: [hex(span.traceId), hex(span.spanId), hex(span.parentSpanId)],
    name: span.name,
    kind: span.kind,
    times: [time(span.startTimeUnixNano), time(span.endTimeUnixNano)],
    status: span.status ? { code: span.status.code, message: span.status.message } : null,
    // As JSON text too: the order of keys is part of the answer.
    attributes: JSON.stringify(attributesOf(span)),
    attributeValues: attributesOf(span),
    events: (span.events ?? []).map((e) => ({
      time: time(e.timeUnixNano),
      name: e.name,
      attributes: JSON.stringify(attributesOf(e)),
    })),
  };
}

function same(message: object): void {
  const bytes = Buffer.from(Span.encode(Span.fromObject(message)).finish());
  // Inside a larger buffer, as a request's span is.
  const framed = Buffer.concat([Buffer.from([1, 2, 3]), bytes, Buffer.from([4, 5])]);
  const mine = decodeSpan(framed, 3, 3 + bytes.length);
  expect(mine.attributes).toBeNull();
  expect(readable(mine)).toEqual(readable(Span.decode(bytes) as OtlpSpan));
}

type AnyValue = Record<string, unknown>;
const key = fc.oneof(fc.string({ maxLength: 8, unit: 'binary' }), fc.constantFrom('__proto__', 'constructor', '0', '10', 'a', 'a'));
const leaf: fc.Arbitrary<AnyValue> = fc.oneof(
  fc.string({ maxLength: 12, unit: 'binary' }).map((stringValue) => ({ stringValue })),
  fc.boolean().map((boolValue) => ({ boolValue })),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => ({ intValue: n.toString() })),
  fc.integer().map((n) => ({ intValue: n })),
  fc.double().map((doubleValue) => ({ doubleValue })),
  fc.uint8Array({ maxLength: 6 }).map((bytesValue) => ({ bytesValue: Buffer.from(bytesValue) })),
  fc.constant({}),
);
const { value: anyValue } = fc.letrec<{ value: AnyValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    // Two members of the oneof set at once: the one protobufjs's getter picks.
    fc.tuple(leaf, leaf).map(([a, b]) => ({ ...a, ...b })),
    fc.array(tie('value'), { maxLength: 3 }).map((values) => ({ arrayValue: { values } })),
    fc.array(fc.record({ key, value: tie('value') }, { requiredKeys: ['key'] }), { maxLength: 3 }).map((values) => ({ kvlistValue: { values } })),
  ),
}));
const keyValues = fc.array(fc.record({ key, value: anyValue }, { requiredKeys: ['key'] }), { maxLength: 6 });
const bytesOf = (lengths: number[]) => fc.oneof(...lengths.map((n) => fc.uint8Array({ minLength: n, maxLength: n }).map((b) => Buffer.from(b))));
const time64 = fc.oneof(fc.constant(undefined), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String));

const spanArb = fc.record(
  {
    traceId: bytesOf([16, 0, 3]),
    spanId: bytesOf([8, 0]),
    parentSpanId: bytesOf([8, 0]),
    traceState: fc.string({ maxLength: 4 }),
    name: fc.string({ maxLength: 16, unit: 'binary' }),
    kind: fc.integer({ min: -2, max: 6 }),
    startTimeUnixNano: time64,
    endTimeUnixNano: time64,
    attributes: keyValues,
    droppedAttributesCount: fc.nat(3),
    events: fc.array(fc.record({ timeUnixNano: time64, name: fc.string({ maxLength: 6 }), attributes: keyValues }, { requiredKeys: [] }), { maxLength: 3 }),
    links: fc.array(fc.record({ traceId: bytesOf([16]), spanId: bytesOf([8]), attributes: keyValues }), { maxLength: 2 }),
    status: fc.record({ code: fc.integer({ min: 0, max: 2 }), message: fc.string({ maxLength: 8 }) }, { requiredKeys: [] }),
    flags: fc.nat(),
  },
  { requiredKeys: [] },
);

describe('decodeSpan', () => {
  it('reads every span as protobufjs decodes it and attributesToJson turns its attributes and events into JSON', () => {
    fc.assert(
      fc.property(spanArb, (span) => same(span)),
      { numRuns: 3000 },
    );
  });

  it("reads a resource's attribute as protobufjs decodes it and anyValueToJson turns its value into JSON", () => {
    fc.assert(
      fc.property(fc.record({ key, value: anyValue }, { requiredKeys: ['key'] }), (attribute) => {
        const bytes = Buffer.from(KeyValueMessage.encode(KeyValueMessage.fromObject(attribute)).finish());
        const oracle = KeyValueMessage.decode(bytes) as KeyValue;
        const into: Record<string, unknown> = {};
        decodeAttribute(Buffer.concat([Buffer.from([9]), bytes]), 1, 1 + bytes.length, into);
        expect(Object.keys(into)).toEqual([oracle.key]);
        expect(into[oracle.key]).toEqual(anyValueToJson(oracle.value));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps a value nested past MAX_VALUE_DEPTH as the marker, key-value lists and arrays alike', () => {
    let deep: AnyValue = { stringValue: 'bottom' };
    for (let i = 0; i < MAX_VALUE_DEPTH + 5; i++)
      deep = i % 2 ? { arrayValue: { values: [deep] } } : { kvlistValue: { values: [{ key: 'k', value: deep }, { key: 'none' }] } };
    same({ name: 'deep', attributes: [{ key: 'deep', value: deep }] });
  });

  it('refuses bytes that are not a span: a length past the end, an unknown wire type, a cut varint', () => {
    const bytes = Buffer.from(Span.encode(Span.fromObject({ name: 'chat', attributes: [{ key: 'a', value: { stringValue: 'x' } }] })).finish());
    expect(() => decodeSpan(bytes, 0, bytes.length - 1)).toThrow();
    expect(() => decodeSpan(Buffer.from([0x2a, 0x05, 0x61]), 0, 3)).toThrow(/index out of range/);
    expect(() => decodeSpan(Buffer.from([0x0f]), 0, 1)).toThrow(/invalid wire type/);
    expect(() => decodeSpan(Buffer.from([0x30, 0x80]), 0, 2)).toThrow(/index out of range/);
  });
});
