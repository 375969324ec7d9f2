import { createRequire } from 'node:module';
import { Problem } from '../../lib/problems.js';

/**
 * How many messages (spans, attributes, values…) one request may hold. Decoding allocates an object of
 * 100 to 200 bytes per message, and a message costs as little as two bytes on the wire: 12 MB of empty
 * spans would be six million objects (over a gigabyte). A real 1,000-span export with 50 attributes per
 * span holds about 100,000.
 */
export const MAX_OTLP_MESSAGES = 1_000_000;
const MAX_DEPTH = 64;

export const tooManyMessages = () =>
  new Problem('payload-too-large', {
    detail: `The request holds more than ${MAX_OTLP_MESSAGES.toLocaleString('en-US')} spans, attributes and values; export fewer spans at once.`,
  });

/** protobufjs' wire reader (the copy the OpenTelemetry JS protos are compiled against). */
export interface Reader {
  pos: number;
  len: number;
  uint32(): number;
  skipType(wireType: number): Reader;
}
export const protobuf = createRequire(createRequire(import.meta.url).resolve('@opentelemetry/otlp-transformer/package.json'))('protobufjs/minimal') as {
  Reader: { create(bytes: Uint8Array): Reader };
};

/**
 * The fields of the trace messages (opentelemetry-proto, collector/trace/v1 and its imports) that are
 * messages themselves, by message and field number: what decoding turns into objects.
 */
export type Kind =
  'request' | 'resourceSpans' | 'resource' | 'scopeSpans' | 'scope' | 'span' | 'event' | 'link' | 'status' | 'keyValue' | 'anyValue' | 'array' | 'kvList';
const CHILDREN: Record<Kind, Record<number, Kind>> = {
  request: { 1: 'resourceSpans' },
  resourceSpans: { 1: 'resource', 2: 'scopeSpans' },
  resource: { 1: 'keyValue' },
  scopeSpans: { 1: 'scope', 2: 'span' },
  scope: { 3: 'keyValue' },
  span: { 9: 'keyValue', 11: 'event', 13: 'link', 15: 'status' },
  event: { 3: 'keyValue' },
  link: { 4: 'keyValue' },
  status: {},
  keyValue: { 2: 'anyValue' },
  anyValue: { 5: 'array', 6: 'kvList' },
  array: { 1: 'anyValue' },
  kvList: { 1: 'keyValue' },
};

/**
 * Counts the messages of kind `kind` within bytes `start` to `end` (a span: its attributes, values,
 * events, links), with protobufjs' reader, without decoding anything; stops counting past `limit`.
 * Bytes that are not protobuf are left for the decoder to refuse with its own words.
 */
export function countMessages(bytes: Uint8Array, start: number, end: number, kind: Kind, limit: number): number {
  let count = 0;
  const walk = (reader: Reader, stop: number, of: Kind, depth: number): void => {
    const children = CHILDREN[of];
    while (reader.pos < stop && count <= limit) {
      const tag = reader.uint32();
      const child = children[tag >>> 3];
      if (child === undefined || (tag & 7) !== 2) {
        reader.skipType(tag & 7);
        continue;
      }
      const length = reader.uint32();
      count++;
      const next = reader.pos + length;
      if (next > stop) return; // truncated: the decoder says so
      // Deeper than this, the decoder refuses the nesting itself.
      if (depth < MAX_DEPTH) walk(reader, next, child, depth + 1);
      reader.pos = next;
    }
  };
  try {
    const reader = protobuf.Reader.create(bytes);
    reader.pos = start;
    walk(reader, end, kind, 0);
  } catch {
    // not protobuf: the decoder refuses it
  }
  return count;
}

/**
 * Counts the messages of an `ExportTraceServiceRequest` on its wire bytes: a 413 problem past
 * MAX_OTLP_MESSAGES, before any object is made.
 */
export function checkOtlpSize(bytes: Uint8Array): void {
  // Each message counted takes two bytes at least (its tag and its length): fewer bytes cannot hold too many.
  if (bytes.length <= 2 * MAX_OTLP_MESSAGES) return;
  if (countMessages(bytes, 0, bytes.length, 'request', MAX_OTLP_MESSAGES) > MAX_OTLP_MESSAGES) throw tooManyMessages();
}
