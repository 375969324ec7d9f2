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

/** Spans one request may hold (each may be a trace of its own): past it, a 413 problem before anything is stored. */
export const MAX_OTLP_SPANS = 100_000;

/** Attributes of all a request's resources: each is held as JSON while the request is stored. */
export const MAX_RESOURCE_ATTRIBUTES = 200_000;
/** Attributes, values, events and links of one span: a span holding more is refused (counted in `partialSuccess`) without being decoded. */
export const MAX_SPAN_MESSAGES = 50_000;

export const tooManyResourceAttributes = () =>
  new Problem('payload-too-large', {
    detail: `The request's resources hold more than ${MAX_RESOURCE_ATTRIBUTES.toLocaleString('en-US')} attributes; export fewer resources at once.`,
  });

export const tooManySpans = () =>
  new Problem('payload-too-large', {
    detail: `The request holds more than ${MAX_OTLP_SPANS.toLocaleString('en-US')} spans; export fewer spans at once (for example the Collector's batch processor with send_batch_max_size).`,
  });

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
type Protobuf = { Reader: { create(bytes: Uint8Array): Reader } };
let loaded: Protobuf | null = null;
/** protobufjs's reader, loaded on first use (see `proto` in otlp.decode.ts). */
export const protobuf = {
  get Reader(): Protobuf['Reader'] {
    loaded ??= createRequire(createRequire(import.meta.url).resolve('@opentelemetry/otlp-transformer/package.json'))('protobufjs/minimal') as Protobuf;
    return loaded.Reader;
  },
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

/** How many fields a counter walks before it gives the event loop a turn. */
const STEPS = 20_000;

/**
 * Counts the messages of kind `kind` within bytes `start` to `end` (a request; a span: its attributes,
 * values, events, links), with protobufjs' reader, without decoding anything, a few fields at a time;
 * stops counting past `limit`. Bytes that are not protobuf are left for the decoder to refuse with its
 * own words. Iterative: nesting costs a frame of its own stack, not of the call stack.
 */
class MessageCounter {
  count = 0;
  private reader: Reader | null = null;
  private limit = 0;
  // The open messages, innermost last, as three columns: no object per message counted.
  private readonly kinds: Kind[] = [];
  private readonly ends: number[] = [];
  private top = 0;

  /** Starts a count (a counter is reused: `countMessages` keeps one for all its calls). */
  reset(bytes: Uint8Array, start: number, end: number, kind: Kind, limit: number): this {
    this.reader = protobuf.Reader.create(bytes);
    this.reader.pos = start;
    this.limit = limit;
    this.count = 0;
    this.kinds[0] = kind;
    this.ends[0] = end;
    this.top = 1;
    return this;
  }

  /** Lets the bytes go (the shared counter would hold a request's until the next count). */
  forget(): void {
    this.reader = null;
  }

  /** Walks at most `steps` fields; true once done (the end, the limit passed, or bytes that are not protobuf). */
  run(steps: number): boolean {
    const { kinds, ends } = this;
    const reader = this.reader!;
    try {
      while (this.top > 0 && this.count <= this.limit) {
        if (steps-- <= 0) return false;
        const at = this.top - 1;
        const frameEnd = ends[at]!;
        if (reader.pos >= frameEnd) {
          this.top = at;
          reader.pos = frameEnd;
          continue;
        }
        const tag = reader.uint32();
        const child = CHILDREN[kinds[at]!][tag >>> 3];
        if (child === undefined || (tag & 7) !== 2) {
          reader.skipType(tag & 7);
          continue;
        }
        const length = reader.uint32();
        this.count++;
        const next = reader.pos + length;
        if (next > frameEnd) {
          // truncated: the decoder says so
          this.top = at;
          reader.pos = frameEnd;
        } else if (at < MAX_DEPTH) {
          // (the depth of a message is its place in the columns: the outermost's is 0)
          kinds[this.top] = child;
          ends[this.top] = next;
          this.top++;
        }
        // Deeper than this, the decoder refuses the nesting itself.
        else reader.pos = next;
      }
    } catch {
      // not protobuf: the decoder refuses it
    }
    return true;
  }
}

const spanCounter = new MessageCounter();

/** The messages of kind `kind` within bytes `start` to `end`, counted up to `limit` + 1. */
export function countMessages(bytes: Uint8Array, start: number, end: number, kind: Kind, limit: number): number {
  // Every field takes a byte at least: as many steps as bytes (a small integer, not Infinity, which
  // counting down from made a number on the heap each field).
  spanCounter.reset(bytes, start, end, kind, limit).run(end - start + 1);
  spanCounter.forget();
  return spanCounter.count;
}

/**
 * Counts the messages of an `ExportTraceServiceRequest` on its wire bytes, the event loop given a
 * turn by `breathe` between steps: a 413 problem past MAX_OTLP_MESSAGES, before any object is made.
 */
export async function checkOtlpSize(bytes: Uint8Array, breathe: () => Promise<void> = async () => {}): Promise<void> {
  // Each message counted takes two bytes at least (its tag and its length): fewer bytes cannot hold too many.
  if (bytes.length <= 2 * MAX_OTLP_MESSAGES) return;
  const counter = new MessageCounter().reset(bytes, 0, bytes.length, 'request', MAX_OTLP_MESSAGES);
  while (!counter.run(STEPS)) await breathe();
  if (counter.count > MAX_OTLP_MESSAGES) throw tooManyMessages();
}

/**
 * How much of a request's spans is kept decoded from the check to their storing (so decoded once): the
 * first spans, up to KEEP_DECODED_BYTES of their bytes and KEEP_DECODED_MESSAGES of their attributes,
 * values, events and links (what decoding makes is about the size of the bytes for ordinary spans, and
 * grows with the messages for crafted ones). The spans past that are decoded again when their chunk is
 * stored, so that what one request holds decoded before anything is stored stays bounded, while requests
 * of the size exporters send (512 spans by default, 1,000 in the bench: about 1 MB) are decoded once.
 */
export const KEEP_DECODED_BYTES = 4 << 20;
export const KEEP_DECODED_MESSAGES = 100_000;

/**
 * The length-delimited fields `wanted` of the message from the reader's position to `end`, as [field,
 * start, end] of their bytes; other fields skipped. A wanted field of another wire type, or bytes past
 * the message, are not OTLP.
 */
export function* fieldsOf(reader: Reader, end: number, wanted: readonly number[]): Generator<[number, number, number]> {
  while (reader.pos < end) {
    const tag = reader.uint32();
    const field = tag >>> 3;
    if (!wanted.includes(field)) {
      reader.skipType(tag & 7);
      continue;
    }
    if ((tag & 7) !== 2) throw new Error(`field ${field} has wire type ${tag & 7} where a message was expected`);
    const length = reader.uint32();
    const start = reader.pos;
    if (start + length > end) throw new Error('a message runs past its end');
    reader.pos = start + length;
    yield [field, start, start + length];
  }
  if (reader.pos > end) throw new Error('a field runs past the end of its message');
}
