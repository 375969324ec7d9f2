import type { Problem } from '../../lib/problems.js';

/**
 * gRPC status answers (docs/otlp.md, OTLP over gRPC): the status code for the HTTP status the call's request
 * was answered with (or the problem that refused it before), the problem's `detail` as the status
 * message, and, where the client should retry later (429, 503), `google.rpc.RetryInfo` with the
 * `Retry-After` delay, as the OTLP specification asks. Trailers are plain HTTP/2 header fields here:
 * the receiver writes them itself (otlp.grpc-call.ts).
 */

/** The status codes this receiver answers with (grpc/grpc doc/statuscodes.md). */
export const GrpcStatus = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcCode = (typeof GrpcStatus)[keyof typeof GrpcStatus];

/** A refusal: its code, its message, and the further trailers it carries (`-bin` ones base64). */
export interface GrpcError {
  code: GrpcCode;
  details: string;
  trailers: Record<string, string>;
}

/** What the receiver reads of an HTTP answer (Fastify's `inject` response). */
export interface HttpAnswer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

// google.rpc.Status, google.protobuf.Any, google.rpc.RetryInfo and google.protobuf.Duration, written by
// hand: field numbers from googleapis' google/rpc/status.proto (code 1, message 2, details 3),
// google/protobuf/any.proto (type_url 1, value 2), google/rpc/error_details.proto (RetryInfo.retry_delay 1)
// and google/protobuf/duration.proto (seconds 1).
const RETRY_INFO_TYPE = 'type.googleapis.com/google.rpc.RetryInfo';

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    bytes.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** A varint field (wire type 0); proto3 leaves a zero out. */
const numberField = (field: number, value: number): Buffer => (value === 0 ? Buffer.alloc(0) : Buffer.concat([varint(field * 8), varint(value)]));
/** A length-delimited field (wire type 2): bytes, text or a message. */
const bytesField = (field: number, bytes: Buffer): Buffer => Buffer.concat([varint(field * 8 + 2), varint(bytes.length), bytes]);

/** `google.rpc.RetryInfo { retry_delay: { seconds } }`. */
export function retryInfo(seconds: number): Buffer {
  return bytesField(1, numberField(1, seconds));
}

/** `google.rpc.Status { code, message, details: [Any(RetryInfo)] }`. */
export function rpcStatus(code: GrpcCode, message: string, retry: Buffer | null): Buffer {
  const any = retry ? bytesField(3, Buffer.concat([bytesField(1, Buffer.from(RETRY_INFO_TYPE)), bytesField(2, retry)])) : Buffer.alloc(0);
  return Buffer.concat([numberField(1, code), bytesField(2, Buffer.from(message, 'utf8')), any]);
}

const CODES: Record<number, GrpcCode> = {
  400: GrpcStatus.INVALID_ARGUMENT,
  415: GrpcStatus.INVALID_ARGUMENT,
  401: GrpcStatus.UNAUTHENTICATED,
  403: GrpcStatus.PERMISSION_DENIED,
  404: GrpcStatus.NOT_FOUND,
  // The message did not arrive in time: retryable, as the OTLP specification lists DEADLINE_EXCEEDED.
  408: GrpcStatus.DEADLINE_EXCEEDED,
  // Too large is not retryable (OTLP specification): RESOURCE_EXHAUSTED without RetryInfo.
  413: GrpcStatus.RESOURCE_EXHAUSTED,
  429: GrpcStatus.RESOURCE_EXHAUSTED,
  503: GrpcStatus.UNAVAILABLE,
};
const RETRYABLE = new Set([429, 503]);
const INTERNAL_MESSAGE = 'The server could not process the export.';

/** The trailers every answer carries: the request id the call was served as. */
export function answerTrailers(requestId: unknown): Record<string, string> {
  return typeof requestId === 'string' && requestId !== '' ? { 'x-request-id': requestId } : {};
}

/** A status that tells the client to retry after `seconds`, in both places clients look for it. */
export function retryableError(code: GrpcCode, message: string, seconds: number, requestId: unknown): GrpcError {
  const retry = retryInfo(seconds);
  return {
    code,
    details: message,
    trailers: {
      ...answerTrailers(requestId),
      // The standard place (Go, the Collector: status.Details()), and the trailer opentelemetry-python reads.
      'grpc-status-details-bin': rpcStatus(code, message, retry).toString('base64'),
      'google.rpc.retryinfo-bin': retry.toString('base64'),
    },
  };
}

/** Seconds of `Retry-After` (an integer, as this service sends it), else 1. */
function retryAfterSeconds(value: unknown): number {
  const text = Array.isArray(value) ? value[0] : value;
  return typeof text === 'string' && /^\d{1,9}$/.test(text.trim()) ? Number(text.trim()) : 1;
}

/** The error for an HTTP status and its problem's detail; anything unexpected is INTERNAL, with nothing of it told. */
function errorFor(status: number, message: string | null, retryAfter: unknown, requestId: unknown): GrpcError {
  const code = CODES[status];
  if (code === undefined || message === null) return { code: GrpcStatus.INTERNAL, details: INTERNAL_MESSAGE, trailers: answerTrailers(requestId) };
  if (RETRYABLE.has(status)) return retryableError(code, message, retryAfterSeconds(retryAfter), requestId);
  return { code, details: message, trailers: answerTrailers(requestId) };
}

/** The problem's detail (or title), if the body is a problem document. */
function problemMessage(answer: HttpAnswer): string | null {
  try {
    const problem = JSON.parse(answer.body) as { detail?: unknown; title?: unknown };
    if (typeof problem.detail === 'string' && problem.detail !== '') return problem.detail;
    return typeof problem.title === 'string' && problem.title !== '' ? problem.title : null;
  } catch {
    return null;
  }
}

/** The gRPC error for an HTTP answer other than 200. */
export function grpcErrorOf(answer: HttpAnswer): GrpcError {
  return errorFor(answer.statusCode, problemMessage(answer), answer.headers['retry-after'], answer.headers['x-request-id']);
}

/** The gRPC error for a problem the receiver met itself, before or without the HTTP request (a refused credential, a message too large). */
export function grpcErrorOfProblem(problem: Problem, requestId: string): GrpcError {
  return errorFor(problem.status, problem.slug === 'internal' ? null : problem.detail, problem.headers['retry-after'], requestId);
}

/** Forwarding failed without an answer: the application is shutting down (retry elsewhere), or a fault of ours. */
export function grpcErrorOfFailure(closing: boolean, requestId: string): GrpcError {
  if (closing) return retryableError(GrpcStatus.UNAVAILABLE, 'This instance is shutting down. Retry on a new connection.', 1, requestId);
  return { code: GrpcStatus.INTERNAL, details: INTERNAL_MESSAGE, trailers: answerTrailers(requestId) };
}

/** `grpc-message` is percent-encoded: every byte of its UTF-8 outside printable ASCII, and `%` itself (gRPC over HTTP2). */
export function encodeGrpcMessage(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The status fields of an answer: in the trailers, or in the one HEADERS frame of a trailers-only answer. */
export function statusFields(code: GrpcCode, details: string, trailers: Record<string, string>): Record<string, string> {
  return { 'grpc-status': String(code), ...(details === '' ? {} : { 'grpc-message': encodeGrpcMessage(details) }), ...trailers };
}
