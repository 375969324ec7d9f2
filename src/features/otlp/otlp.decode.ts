import { createRequire } from 'node:module';
import { setMember } from '../../lib/json.js';
import { problems } from '../../lib/problems.js';

/**
 * OTLP trace requests (`ExportTraceServiceRequest`) decoded from protobuf or OTLP/JSON, and responses
 * encoded, with the official OpenTelemetry protos as compiled by the OpenTelemetry JS project: the
 * protobufjs static root of `@opentelemetry/otlp-transformer` 0.216.0 (pinned exactly: the last release
 * that ships the trace messages; see docs/design/otlp-ingestion-research.md). This is the only module that
 * knows where the schema comes from.
 */

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
export interface OtlpSpan {
  traceId: Uint8Array | null;
  spanId: Uint8Array | null;
  parentSpanId: Uint8Array | null;
  name: string;
  kind: number;
  startTimeUnixNano: Int64 | null;
  endTimeUnixNano: Int64 | null;
  attributes: KeyValue[] | null;
  events: { timeUnixNano: Int64 | null; name: string; attributes: KeyValue[] | null }[] | null;
  status: { code: number; message: string } | null;
}
export interface ExportTraceServiceRequest {
  resourceSpans:
    | {
        resource: { attributes: KeyValue[] | null } | null;
        scopeSpans: { scope: { name: string; version: string } | null; spans: OtlpSpan[] | null }[] | null;
      }[]
    | null;
}
export interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

interface MessageType<T> {
  decode(bytes: Uint8Array): T;
  encode(message: object): { finish(): Uint8Array };
  fromObject(object: object): T;
}
const root = createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
  opentelemetry: {
    proto: {
      collector: { trace: { v1: { ExportTraceServiceRequest: MessageType<ExportTraceServiceRequest>; ExportTraceServiceResponse: MessageType<object> } } };
    };
  };
};
const messages = root.opentelemetry.proto.collector.trace.v1;

const undecodable = (encoding: string, why: string) =>
  problems.validation([{ pointer: '', detail: `The body is not an OTLP ExportTraceServiceRequest in ${encoding}: ${why}` }]);

/** An `application/x-protobuf` body; a 400 validation problem when it is not one. */
export function decodeOtlpProtobuf(bytes: Uint8Array): ExportTraceServiceRequest {
  try {
    return messages.ExportTraceServiceRequest.decode(bytes);
  } catch (error) {
    throw undecodable('protobuf', error instanceof Error ? error.message.slice(0, 200) : 'it does not decode.');
  }
}

const ID_KEYS = new Set(['traceId', 'spanId', 'parentSpanId']);
// JSON.parse rounds integers past 2^53, which moves a nanosecond time to another millisecond: OTLP's
// 64-bit keys are quoted before parsing. Inside string values the quotes are escaped, so nothing there matches.
const BIG_INTS = /"(startTimeUnixNano|endTimeUnixNano|timeUnixNano|intValue)"(\s*):(\s*)(-?\d{16,})(?=\s*[,}\]])/g;
const INT64_KEYS = new Set(['startTimeUnixNano', 'endTimeUnixNano', 'timeUnixNano', 'intValue']);

/**
 * An `application/json` body (OTLP/JSON): ids in hex, enums as integers, 64-bit integers as decimal
 * strings or numbers, unknown fields ignored. A 400 validation problem when it is not one.
 */
export function decodeOtlpJson(text: string): ExportTraceServiceRequest {
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(BIG_INTS, '"$1"$2:$3"$4"'), (key, value: unknown) => {
      if (ID_KEYS.has(key) && typeof value === 'string') {
        if (!/^(?:[0-9a-fA-F]{2})*$/.test(value)) throw new SyntaxError(`${key} ${JSON.stringify(value.slice(0, 40))} is not hex.`);
        return Buffer.from(value, 'hex');
      }
      // protobufjs would read "12x" as 12 and "abc" as 0: a 64-bit integer is digits or nothing.
      if (INT64_KEYS.has(key) && !(typeof value === 'number' ? Number.isInteger(value) : typeof value === 'string' && /^-?\d{1,20}$/.test(value))) {
        throw new SyntaxError(`${key} must be an integer.`);
      }
      return value;
    });
  } catch (error) {
    throw undecodable('JSON', error instanceof SyntaxError ? error.message : 'it is not valid JSON.');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw undecodable('JSON', 'the body is not an object.');
  try {
    return messages.ExportTraceServiceRequest.fromObject(raw);
  } catch (error) {
    throw undecodable('JSON', error instanceof Error ? error.message.slice(0, 200) : 'it does not fit the message.');
  }
}

/** The success answer, in the request's encoding: `partialSuccess` only when a span was not stored. */
export function encodeOtlpResponse(partial: PartialSuccess | null, encoding: 'protobuf' | 'json'): Uint8Array | string {
  if (encoding === 'json')
    return JSON.stringify(partial ? { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } } : {});
  return messages.ExportTraceServiceResponse.encode(partial ? { partialSuccess: partial } : {}).finish();
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

/** Attributes as a plain object of JSON values, in order; a repeated key keeps its last value. */
export function attributesToJson(attributes: KeyValue[] | null | undefined): Record<string, unknown> {
  return keyValuesToJson(attributes, 0);
}

/** The protobuf encoding of an OTLP/JSON request (what an exporter would send): for tests and benchmarks. */
export function encodeOtlpRequest(json: unknown): Uint8Array {
  return messages.ExportTraceServiceRequest.encode(decodeOtlpJson(JSON.stringify(json))).finish();
}

/** An `ExportTraceServiceResponse` as an exporter reads it: for tests. */
export function decodeOtlpResponse(bytes: Uint8Array): { partialSuccess?: { rejectedSpans: number; errorMessage: string } } {
  const message = messages.ExportTraceServiceResponse.decode(bytes) as { partialSuccess?: { rejectedSpans: Int64; errorMessage: string } | null };
  const partial = message.partialSuccess;
  return partial ? { partialSuccess: { rejectedSpans: Number(int64(partial.rejectedSpans)), errorMessage: partial.errorMessage } } : {};
}
