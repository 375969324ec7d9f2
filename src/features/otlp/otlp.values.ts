import { setMember } from '../../lib/json.js';

/* OTLP's values (ids, 64-bit integers, nanosecond times, AnyValue attributes) as the stored run takes them. */

/** An attribute that instrumentations send structured or as JSON text (Python's do): its value, JSON text parsed; `unparsable` for other text. */
export function fromJsonText(value: unknown, unparsable: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return unparsable;
  }
}

/** A JSON object, sent as such or as JSON text (Langfuse's details, OpenInference's `metadata`); null for anything else. */
export function jsonObject(value: unknown): Record<string, unknown> | null {
  const parsed = fromJsonText(value, null);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
}

/** A 64-bit integer as protobufjs gives it (a Long), or as OTLP/JSON sends it (a decimal string or a number). */
export type Int64 = { low: number; high: number; unsigned: boolean } | number | string;

export interface AnyValue {
  /** Which member of the oneof is set. */
  value?: 'stringValue' | 'boolValue' | 'intValue' | 'doubleValue' | 'arrayValue' | 'kvlistValue' | 'bytesValue';
  stringValue?: string | null;
  boolValue?: boolean | null;
  intValue?: Int64 | null;
  doubleValue?: number | null;
  arrayValue?: { values?: AnyValue[] | null } | null;
  kvlistValue?: { values?: KeyValue[] | null } | null;
  bytesValue?: Uint8Array | null;
}
export interface KeyValue {
  key: string;
  value: AnyValue | null;
}

/** A span as decoded: by protobufjs (OTLP/JSON), or from its bytes by `decodeSpan` (otlp.span-decode.ts). */
export interface OtlpSpan {
  traceId: Uint8Array | null;
  spanId: Uint8Array | null;
  parentSpanId: Uint8Array | null;
  name: string;
  kind: number | null;
  startTimeUnixNano: Int64 | null;
  endTimeUnixNano: Int64 | null;
  attributes: KeyValue[] | null;
  /** The attributes already as JSON values, where the span was read by `decodeSpan` (otlp.span-decode.ts); else `attributesToJson(attributes)`. */
  attributesJson?: Record<string, unknown>;
  events: { timeUnixNano: Int64 | null; name: string; attributes: KeyValue[] | null; attributesJson?: Record<string, unknown> }[] | null;
  status: { code: number; message: string } | null;
}

/** Unsigned nanoseconds (OTLP's fixed64 times), exactly; null when absent or zero (OTLP's "unset"). */
export function nanos(value: Int64 | null | undefined): bigint | null {
  if (value === null || value === undefined) return null;
  const n =
    typeof value === 'object' ? (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0) : BigInt(typeof value === 'number' ? Math.trunc(value) : value);
  return n > 0n ? BigInt.asUintN(64, n) : null;
}

/** A signed 64-bit integer attribute: a number when it is safe, else its decimal text (never rounded). */
export function int64(value: Int64): number | string {
  // Without a BigInt where the value is plainly safe (token counts, sizes, status codes: nearly all of them).
  if (typeof value === 'object') {
    const high = value.high | 0;
    if (high > -0x200000 && high < 0x200000) return high * 0x100000000 + (value.low >>> 0);
  } else if (typeof value === 'number' && Number.isSafeInteger(value)) return value === 0 ? 0 : value;
  const n =
    typeof value === 'object'
      ? BigInt.asIntN(64, (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0))
      : BigInt(typeof value === 'number' ? Math.trunc(value) : value);
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();
}

/** A trace or span id in lower-case hex; null when absent, empty or all zeros (OTLP's "invalid"). */
export function hexId(bytes: Uint8Array | null | undefined, length: 8 | 16): string | null {
  if (!bytes || bytes.length !== length) return null;
  let zero = true;
  for (let i = 0; i < length && zero; i++) zero = bytes[i] === 0;
  if (zero) return null;
  // Decoded protobuf holds ids as Buffers already; OTLP JSON's are made so too (decodeOtlpJson).
  return (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).toString('hex');
}

/** How deeply attribute values (arrays and key-value lists) are followed; deeper values are kept as a marker. */
export const MAX_VALUE_DEPTH = 32;

/** An attribute value as JSON: bytes in base64, 64-bit integers exactly (see `int64`). */
export function anyValueToJson(value: AnyValue | null | undefined, depth = 0): unknown {
  if (depth > MAX_VALUE_DEPTH) return '[nested too deep]';
  switch (value?.value) {
    case 'stringValue':
      return value.stringValue ?? '';
    case 'boolValue':
      return value.boolValue ?? false;
    case 'doubleValue':
      return Number.isFinite(value.doubleValue) ? value.doubleValue : String(value.doubleValue);
    case 'intValue':
      return value.intValue === null || value.intValue === undefined ? 0 : int64(value.intValue);
    case 'arrayValue':
      return (value.arrayValue?.values ?? []).map((item) => anyValueToJson(item, depth + 1));
    case 'kvlistValue':
      return keyValuesToJson(value.kvlistValue?.values, depth + 1);
    case 'bytesValue':
      return Buffer.from(value.bytesValue ?? []).toString('base64');
    default:
      return null;
  }
}

function keyValuesToJson(list: KeyValue[] | null | undefined, depth: number): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const kv of list ?? []) setMember(object, kv.key, anyValueToJson(kv.value, depth));
  return object;
}

/** A span's or event's attributes as JSON: as `decodeSpan` read them, or made of protobufjs's key-values. */
export function attributesOf(holder: { attributes: KeyValue[] | null; attributesJson?: Record<string, unknown> }): Record<string, unknown> {
  return holder.attributesJson ?? attributesToJson(holder.attributes);
}

/** Attributes as a plain object of JSON values, in order; a repeated key keeps its last value. */
export function attributesToJson(attributes: KeyValue[] | null | undefined): Record<string, unknown> {
  return keyValuesToJson(attributes, 0);
}
