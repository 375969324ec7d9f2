import { createRequire } from 'node:module';
import { setMember } from '../../lib/json.js';
import { Problem, problems } from '../../lib/problems.js';
import { Turns } from '../../lib/turns.js';
import {
  checkOtlpSize,
  countMessages,
  fieldsOf,
  KEEP_DECODED_BYTES,
  KEEP_DECODED_MESSAGES,
  MAX_OTLP_SPANS,
  MAX_RESOURCE_ATTRIBUTES,
  MAX_SPAN_MESSAGES,
  protobuf,
  tooManyResourceAttributes,
  tooManySpans,
  type Reader,
} from './otlp.bounds.js';
import { BIG_INTS, listOf, objectOf, prepareJson } from './otlp.json.js';
import { anyValueToJson, hexId, int64, type Int64, type KeyValue, type OtlpSpan } from './otlp.values.js';
import { decodeAttribute, decodeSpan, made } from './otlp.span-decode.js';

/**
 * OTLP trace requests (`ExportTraceServiceRequest`) decoded from protobuf or OTLP/JSON, and responses
 * encoded, with the official OpenTelemetry protos as compiled by the OpenTelemetry JS project: the
 * protobufjs static root of `@opentelemetry/otlp-transformer` 0.216.0 (pinned exactly: the last release
 * that ships the trace messages; see docs/design/otlp-ingestion-research.md), loaded on first use. This is
 * the only module that knows where the schema comes from; spans themselves are read from their bytes by
 * `decodeSpan` (otlp.span-decode.ts), which answers as protobufjs would.
 */
export type { OtlpSpan } from './otlp.values.js';
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
  decode(reader: Reader, length: number): T;
  encode(message: object): { finish(): Uint8Array };
  fromObject(object: object): T;
}
type Proto = {
  collector: { trace: { v1: { ExportTraceServiceRequest: MessageType<ExportTraceServiceRequest>; ExportTraceServiceResponse: MessageType<object> } } };
  trace: { v1: { Span: MessageType<OtlpSpan> } };
  common: { v1: { InstrumentationScope: MessageType<OtlpScope>; KeyValue: MessageType<KeyValue> } };
};
let loaded: { opentelemetry: { proto: Proto } } | null = null;
/** The generated message types, loaded on first use: megabytes of heap an instance without OTLP never holds. */
const proto = () =>
  (loaded ??= createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js') as typeof loaded)!.opentelemetry.proto;
const exchange = () => proto().collector.trace.v1;

export interface OtlpScope {
  name: string;
  version: string;
}

/**
 * One span of a request: its scope (an index into its resource's scopes), where it is (protobuf: its
 * bytes, `start` to `end`; JSON: its index in its scope's list, `end` -1) and its ids (null when invalid).
 */
export interface SpanRef {
  scope: number;
  /** Why the span is refused without being decoded (it holds more than MAX_SPAN_MESSAGES). */
  refused?: string;
  start: number;
  end: number;
  traceId: string | null;
  spanId: string | null;
  parentId: string | null;
  /** The span as the check decoded it, kept for a request's first spans (KEEP_DECODED_BYTES). */
  decoded?: OtlpSpan;
}

/**
 * A resource's spans as read: every span decoded once already (so the whole request is valid before
 * anything is stored), but kept only as its ids and where it is; `span` and `attributes` decode again
 * on demand, so what decoding makes is held a chunk at a time, never for the whole request.
 */
export interface OtlpResource {
  /** The resource's attributes as JSON (`attributesToJson`), made once. */
  attributes: Record<string, unknown>;
  scopes: (OtlpScope | null)[];
  spans: SpanRef[];
  /** Decodes a span again; each is taken once (what it was read from may be let go: OTLP/JSON's parsed object). */
  span(ref: SpanRef): OtlpSpan;
}

export interface OtlpRequest {
  resources: OtlpResource[];
  spanCount: number;
}

const undecodable = (encoding: string, why: string) =>
  problems.validation([{ pointer: '', detail: `The body is not an OTLP ExportTraceServiceRequest in ${encoding}: ${why}` }]);

const refusedRef = (scope: number): SpanRef => ({
  scope,
  refused: `A span holds more than ${MAX_SPAN_MESSAGES.toLocaleString('en-US')} attributes, values, events and links.`,
  start: 0,
  end: 0,
  traceId: null,
  spanId: null,
  parentId: null,
});

const refOf = (span: OtlpSpan, scope: number, start: number, end: number): SpanRef => ({
  scope,
  start,
  end,
  traceId: hexId(span.traceId, 16),
  spanId: hexId(span.spanId, 8),
  parentId: hexId(span.parentSpanId, 8),
});

/** The span kept decoded by the check, let go as it is taken (each span is taken once). */
function takeDecoded(ref: SpanRef): OtlpSpan | undefined {
  const span = ref.decoded;
  ref.decoded = undefined;
  return span;
}

/**
 * An `application/x-protobuf` body, read resource by resource and span by span (each decoded once to be
 * checked, then let go); a 400 validation problem when it is not a request, a 413 past MAX_OTLP_SPANS.
 */
export async function readOtlpProtobuf(bytes: Uint8Array): Promise<OtlpRequest> {
  const turns = new Turns();
  const resources: OtlpResource[] = [];
  let spanCount = 0;
  let attributeCount = 0;
  let keptBytes = 0;
  let keptMessages = 0;
  await checkOtlpSize(bytes, () => turns.breathe());
  // One reader walks the request, another decodes the messages it finds (no copy, no reader per message).
  const decoder = protobuf.Reader.create(bytes);
  const at = (pos: number) => ((decoder.pos = pos), decoder);
  try {
    const reader = protobuf.Reader.create(bytes);
    const resourceRanges = [...fieldsOf(reader, reader.len, [1])];
    for (const [, rsStart, rsEnd] of resourceRanges) {
      reader.pos = rsStart;
      let resourceAt: [number, number] | null = null;
      const scopeRanges: [number, number][] = [];
      // A field that is not repeated may come more than once: the last one counts, as protobufjs decodes it.
      for (const [field, start, end] of fieldsOf(reader, rsEnd, [1, 2])) {
        if (field === 1) resourceAt = [start, end];
        else scopeRanges.push([start, end]);
      }
      const attributes: Record<string, unknown> = {};
      if (resourceAt) {
        // Attribute by attribute, so a resource with many holds their JSON only, and the loop gets its turns.
        reader.pos = resourceAt[0];
        for (const [, start, end] of fieldsOf(reader, resourceAt[1], [1])) {
          if (++attributeCount > MAX_RESOURCE_ATTRIBUTES) throw tooManyResourceAttributes();
          decodeAttribute(bytes, start, end, attributes);
          await turns.breathe();
        }
      }
      const scopes: (OtlpScope | null)[] = [];
      const spans: SpanRef[] = [];
      for (const [ssStart, ssEnd] of scopeRanges) {
        reader.pos = ssStart;
        let scope: OtlpScope | null = null;
        const scopeIndex = scopes.length;
        for (const [field, start, end] of fieldsOf(reader, ssEnd, [1, 2])) {
          if (field === 1) scope = proto().common.v1.InstrumentationScope.decode(at(start), end - start);
          else {
            if (++spanCount > MAX_OTLP_SPANS) throw tooManySpans();
            // Each message takes two bytes at least: a span of fewer bytes cannot hold too many, and is
            // counted as it is decoded; a longer one is counted on its bytes first.
            const counted = end - start > 2 * MAX_SPAN_MESSAGES ? countMessages(bytes, start, end, 'span', MAX_SPAN_MESSAGES) : 0;
            if (counted > MAX_SPAN_MESSAGES) spans.push(refusedRef(scopeIndex));
            else {
              const span = decodeSpan(bytes, start, end);
              keptMessages += made.messages;
              const ref = refOf(span, scopeIndex, start, end);
              keptBytes += end - start;
              if (keptBytes <= KEEP_DECODED_BYTES && keptMessages <= KEEP_DECODED_MESSAGES) ref.decoded = span;
              spans.push(ref);
            }
            await turns.breathe();
          }
        }
        scopes.push(scope);
      }
      resources.push({ scopes, spans, attributes, span: (ref) => takeDecoded(ref) ?? decodeSpan(bytes, ref.start, ref.end) });
    }
  } catch (error) {
    if (error instanceof Problem) throw error;
    throw undecodable('protobuf', error instanceof Error ? error.message.slice(0, 200) : 'it does not decode.');
  }
  return { resources, spanCount };
}

/**
 * An `application/json` body (OTLP/JSON: ids in hex, enums as integers, 64-bit integers as decimal
 * strings or numbers, unknown fields ignored), read resource by resource and span by span like protobuf;
 * a 400 validation problem when it is not a request, a 413 past MAX_OTLP_SPANS.
 */
export async function readOtlpJson(text: string): Promise<OtlpRequest> {
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(BIG_INTS, '"$1"$2:$3"$4"'));
  } catch (error) {
    throw undecodable('JSON', error instanceof SyntaxError ? error.message : 'it is not valid JSON.');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw undecodable('JSON', 'the body is not an object.');
  const turns = new Turns();
  const resources: OtlpResource[] = [];
  let spanCount = 0;
  let attributeCount = 0;
  try {
    for (const rs of listOf((raw as Record<string, unknown>).resourceSpans, '.resourceSpans')) {
      const resourceSpans = objectOf(rs, '.resourceSpans');
      const resource = resourceSpans.resource;
      const attributes: Record<string, unknown> = {};
      if (resource !== null && resource !== undefined) {
        for (const raw of listOf(objectOf(resource, '.resource').attributes, '.attributes')) {
          if (++attributeCount > MAX_RESOURCE_ATTRIBUTES) throw tooManyResourceAttributes();
          prepareJson(objectOf(raw, '.attributes'));
          const kv = proto().common.v1.KeyValue.fromObject(raw as object);
          setMember(attributes, kv.key, anyValueToJson(kv.value));
          await turns.breathe();
        }
      }
      const scopes: (OtlpScope | null)[] = [];
      const lists: unknown[][] = [];
      const spans: SpanRef[] = [];
      for (const ss of listOf(resourceSpans.scopeSpans, '.scopeSpans')) {
        const scopeSpans = objectOf(ss, '.scopeSpans');
        const scope = scopeSpans.scope;
        if (scope !== null && scope !== undefined) prepareJson(objectOf(scope, '.scope'));
        const list = listOf(scopeSpans.spans, '.spans');
        for (let i = 0; i < list.length; i++) {
          if (++spanCount > MAX_OTLP_SPANS) throw tooManySpans();
          prepareJson(objectOf(list[i], '.spans'));
          spans.push(refOf(proto().trace.v1.Span.fromObject(list[i] as object), scopes.length, i, -1));
          await turns.breathe();
        }
        scopes.push(scope === null || scope === undefined ? null : proto().common.v1.InstrumentationScope.fromObject(scope));
        lists.push(list);
      }
      const span = (ref: SpanRef) => {
        const list = lists[ref.scope]!;
        const decoded = proto().trace.v1.Span.fromObject(list[ref.start] as object);
        list[ref.start] = null; // the parsed JSON goes as its spans are stored
        return decoded;
      };
      resources.push({ scopes, spans, attributes, span });
    }
  } catch (error) {
    if (error instanceof Problem) throw error;
    throw undecodable('JSON', error instanceof Error ? error.message.slice(0, 200) : 'it does not fit the message.');
  }
  return { resources, spanCount };
}

/** The success answer, in the request's encoding: `partialSuccess` only when a span was not stored. */
export function encodeOtlpResponse(partial: PartialSuccess | null, encoding: 'protobuf' | 'json'): Uint8Array | string {
  if (encoding === 'json')
    return JSON.stringify(partial ? { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } } : {});
  return exchange()
    .ExportTraceServiceResponse.encode(partial ? { partialSuccess: partial } : {})
    .finish();
}

/** The protobuf encoding of an OTLP/JSON request (what an exporter would send): for tests and benchmarks. */
export function encodeOtlpRequest(json: unknown): Uint8Array {
  const message = JSON.parse(JSON.stringify(json).replace(BIG_INTS, '"$1"$2:$3"$4"')) as object;
  prepareJson(message);
  return exchange().ExportTraceServiceRequest.encode(exchange().ExportTraceServiceRequest.fromObject(message)).finish();
}

/** An `ExportTraceServiceResponse` as an exporter reads it: for tests. */
export function decodeOtlpResponse(bytes: Uint8Array): { partialSuccess?: { rejectedSpans: number; errorMessage: string } } {
  const message = exchange().ExportTraceServiceResponse.decode(bytes) as { partialSuccess?: { rejectedSpans: Int64; errorMessage: string } | null };
  const partial = message.partialSuccess;
  return partial ? { partialSuccess: { rejectedSpans: Number(int64(partial.rejectedSpans)), errorMessage: partial.errorMessage } } : {};
}
