import { setMember } from '../../lib/json.js';
import { keyOf } from './otlp.keys.js';
import { int64, MAX_VALUE_DEPTH, type OtlpSpan } from './otlp.values.js';

/**
 * A `Span` (or a resource's attribute) read from its protobuf bytes straight into what mapping takes, its
 * attributes as JSON (`attributesJson`, as `attributesToJson` makes it, without protobufjs's objects): the
 * same answer as protobufjs's for every message (`otlp.span-decode.test.ts`); a length past a message's end,
 * a cut varint or an unknown wire type throw. The reader: the bytes (a Buffer), the position, the end.
 */
const EMPTY = Buffer.alloc(0);
let buf: Buffer = EMPTY;
let pos = 0;
let limit = 0;
/** The nested messages (attributes, values, events, status) the last `decodeSpan` read: `countMessages` but links. */
export const made = { messages: 0 };

const outOfRange = (wanted: number) => new RangeError(`index out of range: ${pos} + ${wanted} > ${limit}`);

function varint32(): number {
  let value = 0;
  for (let shift = 0; shift < 70; shift += 7) {
    if (pos >= limit) throw outOfRange(1);
    const b = buf[pos++]!;
    if (shift < 32) value |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) return value >>> 0;
  }
  throw new Error('invalid varint encoding');
}

/** A 64-bit varint as protobufjs's Long gives it: its two 32-bit halves. */
function varint64(): { low: number; high: number; unsigned: boolean } {
  let low = 0;
  let high = 0;
  for (let shift = 0; shift < 70; shift += 7) {
    if (pos >= limit) throw outOfRange(1);
    const b = buf[pos++]!;
    const bits = b & 0x7f;
    if (shift < 28) low |= bits << shift;
    else if (shift === 28) {
      low |= bits << 28;
      high |= bits >>> 4;
    } else high |= bits << (shift - 32);
    if ((b & 0x80) === 0) return { low: low | 0, high: high | 0, unsigned: false };
  }
  throw new Error('invalid varint encoding');
}

/** Moves past `n` bytes, which must be there; returns where they start. */
function advance(n: number): number {
  if (pos + n > limit) throw outOfRange(n);
  return (pos += n) - n;
}

const fixed64 = (at = advance(8)) => ({ low: buf.readUInt32LE(at) | 0, high: buf.readUInt32LE(at + 4) | 0, unsigned: true });

/** The end of a length-delimited field whose length is next. */
function endOfField(): number {
  const length = varint32();
  if (pos + length > limit) throw outOfRange(length);
  return pos + length;
}

// (Arguments are evaluated in order: the start is the position after the length.)
const text = (end = endOfField()): string => buf.toString('utf8', pos, (pos = end));
const bytesField = (end = endOfField()): Buffer => buf.subarray(pos, (pos = end));
const keyText = (end = endOfField()): string => keyOf(buf, pos, (pos = end));

function skip(wireType: number): void {
  switch (wireType) {
    case 0:
      varint32();
      return;
    case 1:
      advance(8);
      return;
    case 2:
      pos = endOfField();
      return;
    case 3:
      // A group: its fields, to its end tag.
      for (;;) {
        const tag = varint32();
        if ((tag & 7) === 4) return;
        skip(tag & 7);
      }
    case 5:
      advance(4);
      return;
    default:
      throw new Error(`invalid wire type ${wireType} at offset ${pos}`);
  }
}

/** The end of a nested message whose length is next, the limit narrowed to it (`leave` puts it back). */
function enter(): number {
  made.messages++;
  const end = endOfField();
  limit = end;
  return end;
}

function leave(end: number, outer: number): void {
  if (pos > end) throw outOfRange(0);
  pos = end;
  limit = outer;
}

/**
 * An AnyValue as `anyValueToJson` makes it: of several members set, the one first set last (protobufjs's
 * oneof getter), a later one replacing an earlier; past MAX_VALUE_DEPTH the marker. No closure per message.
 */
function anyValue(end: number, depth: number): unknown {
  if (depth > MAX_VALUE_DEPTH) {
    pos = end;
    return '[nested too deep]';
  }
  let seen = 0;
  let chosen = 0;
  let value: unknown = null;
  let int: { low: number; high: number; unsigned: boolean } | null = null;
  let bytes: Buffer | null = null;
  let str: string | null = null;
  let bool = false;
  let double = 0;
  let array: unknown[] | null = null;
  let kvlist: Record<string, unknown> | null = null;
  while (pos < end) {
    const tag = varint32();
    const field = tag >>> 3;
    const wireType = tag & 7;
    if (field < 1 || field > 7 || wireType !== WIRE_TYPES[field]) {
      skip(wireType);
      continue;
    }
    if (field === 1) str = text();
    else if (field === 2) bool = varint32() !== 0;
    else if (field === 3) int = varint64();
    else if (field === 4) double = buf.readDoubleLE(advance(8));
    else if (field === 7) bytes = bytesField();
    else {
      const outer = limit;
      const inner = enter();
      if (field === 5) array = valuesInto(inner, depth, []);
      else kvlist = valuesInto(inner, depth + 1, {});
      leave(inner, outer);
    }
    if ((seen & (1 << field)) === 0) {
      seen |= 1 << field;
      chosen = field;
    }
  }
  if (chosen === 1) value = str;
  else if (chosen === 2) value = bool;
  else if (chosen === 3) value = int64(int!);
  else if (chosen === 4) value = Number.isFinite(double) ? double : String(double);
  else if (chosen === 5) value = array;
  else if (chosen === 6) value = kvlist;
  else if (chosen === 7) value = bytes!.toString('base64');
  return value;
}

/** AnyValue's members by field number: each one's wire type (string, bool, int, double, array, key-value list, bytes). */
const WIRE_TYPES = [-1, 2, 0, 0, 1, 2, 2, 2];

/**
 * The values (field 1) of an ArrayValue, each one level deeper, into a list; or of a KeyValueList into an
 * object, where a repeated key keeps its first place and its last value.
 */
function valuesInto<T extends unknown[] | Record<string, unknown>>(end: number, depth: number, into: T): T {
  while (pos < end) {
    const tag = varint32();
    if (tag !== 0x0a) {
      skip(tag & 7);
      continue;
    }
    const outer = limit;
    const inner = enter();
    if (Array.isArray(into)) into.push(anyValue(inner, depth + 1));
    else keyValue(inner, depth, into as Record<string, unknown>);
    leave(inner, outer);
  }
  return into;
}

function keyValue(end: number, depth: number, into: Record<string, unknown>): void {
  let key = '';
  // Without a value, what anyValueToJson makes of none at this depth.
  let value: unknown = depth > MAX_VALUE_DEPTH ? '[nested too deep]' : null;
  while (pos < end) {
    const tag = varint32();
    if (tag === 0x0a) key = keyText();
    else if (tag === 0x12) {
      const outer = limit;
      const inner = enter();
      value = anyValue(inner, depth);
      leave(inner, outer);
    } else skip(tag & 7);
  }
  setMember(into, key, value);
}

/** The Span fields read, by number, and each one's wire type (trace state, dropped counts, links and flags are skipped). */
const SPAN_WIRE_TYPES: Record<number, number> = { 1: 2, 2: 2, 4: 2, 5: 2, 6: 0, 7: 1, 8: 1, 9: 2, 11: 2, 15: 2 };

/** Reads `bytes[start, end)` with `read`; the bytes are not held past the call. */
function reading<T>(bytes: Uint8Array, start: number, end: number, read: () => T): T {
  buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  pos = start;
  limit = end;
  made.messages = 0;
  try {
    const result = read();
    if (pos > end) throw outOfRange(0);
    return result;
  } finally {
    buf = EMPTY;
  }
}

/** A resource's attribute (a KeyValue) whose bytes are `bytes[start, end)`, set into `into` as a span's are. */
export function decodeAttribute(bytes: Uint8Array, start: number, end: number, into: Record<string, unknown>): void {
  reading(bytes, start, end, () => keyValue(end, 0, into));
}

/** The span whose bytes are `bytes[start, end)`. */
export function decodeSpan(bytes: Uint8Array, start: number, end: number): OtlpSpan {
  return reading(bytes, start, end, () => span(end));
}

function span(end: number): OtlpSpan {
  const span: OtlpSpan = {
    traceId: null,
    spanId: null,
    parentSpanId: null,
    // Absent fields as protobufjs's decoding leaves them (its defaults are null), so both read the same.
    name: null as unknown as string,
    kind: null,
    startTimeUnixNano: null,
    endTimeUnixNano: null,
    attributes: null,
    attributesJson: {},
    events: null,
    status: null,
  };
  while (pos < end) {
    const tag = varint32();
    const field = tag >>> 3;
    const wireType = tag & 7;
    if (wireType !== SPAN_WIRE_TYPES[field]) {
      skip(wireType);
      continue;
    }
    if (field === 1) span.traceId = bytesField();
    else if (field === 2) span.spanId = bytesField();
    else if (field === 4) span.parentSpanId = bytesField();
    else if (field === 5) span.name = text();
    else if (field === 6) span.kind = varint32() | 0;
    else if (field === 7) span.startTimeUnixNano = fixed64();
    else if (field === 8) span.endTimeUnixNano = fixed64();
    else {
      const outer = limit;
      const inner = enter();
      if (field === 9) keyValue(inner, 0, span.attributesJson!);
      else if (field === 11) (span.events ??= []).push(event(inner));
      else span.status = status(inner);
      leave(inner, outer);
    }
  }
  return span;
}

type OtlpEvent = NonNullable<OtlpSpan['events']>[number];

function event(end: number): OtlpEvent {
  const decoded: OtlpEvent = { timeUnixNano: null, name: null as unknown as string, attributes: null, attributesJson: {} };
  while (pos < end) {
    const tag = varint32();
    if (tag === 0x09) decoded.timeUnixNano = fixed64();
    else if (tag === 0x12) decoded.name = text();
    else if (tag === 0x1a) {
      const outer = limit;
      const inner = enter();
      keyValue(inner, 0, decoded.attributesJson!);
      leave(inner, outer);
    } else skip(tag & 7);
  }
  return decoded;
}

function status(end: number): { code: number; message: string } {
  const decoded: { code: number; message: string } = { code: null as unknown as number, message: null as unknown as string };
  while (pos < end) {
    const tag = varint32();
    if (tag === 0x12) decoded.message = text();
    else if (tag === 0x18) decoded.code = varint32() | 0;
    else skip(tag & 7);
  }
  return decoded;
}
