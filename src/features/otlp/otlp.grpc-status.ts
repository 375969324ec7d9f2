import { Metadata, status, type StatusObject } from '@grpc/grpc-js';

/**
 * The gRPC answer to an OTLP/HTTP answer (the gRPC receiver forwards every call to `POST /v1/traces`):
 * the status code for the HTTP status, the problem's `detail` as the status message, and, where the
 * client should retry later (429, 503), `google.rpc.RetryInfo` with the `Retry-After` delay, as the OTLP
 * specification asks (README, OTLP over gRPC).
 */

export type GrpcError = Pick<StatusObject, 'code' | 'details' | 'metadata'>;

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
export function rpcStatus(code: status, message: string, retry: Buffer | null): Buffer {
  const any = retry ? bytesField(3, Buffer.concat([bytesField(1, Buffer.from(RETRY_INFO_TYPE)), bytesField(2, retry)])) : Buffer.alloc(0);
  return Buffer.concat([numberField(1, code), bytesField(2, Buffer.from(message, 'utf8')), any]);
}

const CODES: Record<number, status> = {
  400: status.INVALID_ARGUMENT,
  415: status.INVALID_ARGUMENT,
  401: status.UNAUTHENTICATED,
  403: status.PERMISSION_DENIED,
  404: status.NOT_FOUND,
  408: status.DEADLINE_EXCEEDED,
  // Too large is not retryable (OTLP specification): RESOURCE_EXHAUSTED without RetryInfo.
  413: status.RESOURCE_EXHAUSTED,
  429: status.RESOURCE_EXHAUSTED,
  503: status.UNAVAILABLE,
};
const RETRYABLE = new Set([429, 503]);
const INTERNAL_MESSAGE = 'The server could not process the export.';

/** The trailers every answer carries: the request id of the HTTP request it was served as. */
export function answerMetadata(requestId: unknown): Metadata {
  const metadata = new Metadata();
  if (typeof requestId === 'string' && requestId !== '') metadata.set('x-request-id', requestId);
  return metadata;
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

/** Seconds of `Retry-After` (an integer, as this service sends it), else 1. */
function retryAfterSeconds(value: unknown): number {
  const text = Array.isArray(value) ? value[0] : value;
  return typeof text === 'string' && /^\d{1,9}$/.test(text.trim()) ? Number(text.trim()) : 1;
}

/** A status that tells the client to retry after `seconds`, in both places clients look for it. */
export function retryableError(code: status, message: string, seconds: number, metadata: Metadata): GrpcError {
  const retry = retryInfo(seconds);
  // The standard place (Go, the Collector: status.Details()), and the trailer opentelemetry-python reads.
  metadata.set('grpc-status-details-bin', rpcStatus(code, message, retry));
  metadata.set('google.rpc.retryinfo-bin', retry);
  return { code, details: message, metadata };
}

/** The gRPC error for an HTTP answer other than 200; anything unexpected is INTERNAL, with nothing of it told. */
export function grpcErrorOf(answer: HttpAnswer): GrpcError {
  const metadata = answerMetadata(answer.headers['x-request-id']);
  const code = CODES[answer.statusCode];
  const message = code === undefined ? null : problemMessage(answer);
  if (code === undefined || message === null) return { code: status.INTERNAL, details: INTERNAL_MESSAGE, metadata };
  if (RETRYABLE.has(answer.statusCode)) return retryableError(code, message, retryAfterSeconds(answer.headers['retry-after']), metadata);
  return { code, details: message, metadata };
}

/** Forwarding failed without an answer: the application is shutting down (retry elsewhere), or a fault of ours. */
export function grpcErrorOfFailure(closing: boolean): GrpcError {
  const metadata = answerMetadata(null);
  if (closing) return retryableError(status.UNAVAILABLE, 'This instance is shutting down. Retry on a new connection.', 1, metadata);
  return { code: status.INTERNAL, details: INTERNAL_MESSAGE, metadata };
}
