import { randomUUID } from 'node:crypto';
import { constants, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { authorizationFields } from '../../auth/hook.js';
import type { App } from '../../deps.js';
import { BODY_LIMIT } from '../../lib/body.js';
import { requestIdFrom, toProblem } from '../../lib/http.js';
import { Problem, problemBody } from '../../lib/problems.js';
import { ACCEPT_ENCODING, clientTimeoutMs, FORWARDED, metadataValue } from './otlp.grpc-metadata.js';
import type { CallPlaces } from './otlp.grpc-places.js';
import {
  answerTrailers,
  grpcErrorOf,
  grpcErrorOfFailure,
  grpcErrorOfProblem,
  GrpcStatus,
  retryableError,
  statusFields,
  type GrpcError,
} from './otlp.grpc-status.js';

/**
 * One `TraceService/Export` call, served on a raw HTTP/2 stream (gRPC over HTTP2): its credential checked
 * at its metadata (`app.bearerAccess`, the access hook's checks) before it takes a place; then its one
 * length-prefixed message streamed, as it arrives, into a `POST /v1/traces` through `app.inject` (the
 * length as `Content-Length`, `grpc-encoding` as `Content-Encoding`), so body admission reserves its
 * bytes in the instance's budget before reading them and bounds its time, size and decompression as for
 * any HTTP body; the HTTP answer becomes the gRPC status. Unread bytes stay with HTTP/2 flow control.
 */

export const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
/** The scope `POST /v1/traces` declares (otlp.routes.ts), checked at the call's metadata. */
const EXPORT_SCOPE = 'runs:write';
/** What of the message is held between HTTP/2 and body admission before the stream is paused. */
const PAYLOAD_HIGH_WATER = 64 * 1024;

export interface CallContext {
  app: App;
  places: CallPlaces;
  problemBase: string;
  log: Pick<FastifyBaseLogger, 'error'>;
}

const FULL = {
  instance: () => 'This instance is processing as many exports as it can; retry shortly.',
  connection: (max: number) => `This connection has ${max} exports in progress, as many as one connection may; retry shortly, or over another connection.`,
  credential: (max: number) => `This credential has ${max} exports in progress, as many as one credential may; retry shortly.`,
};

/** Serves one HTTP/2 stream of the receiver: an Export call, or the refusal of anything else. */
export function serveStream(ctx: CallContext, stream: ServerHttp2Stream, headers: IncomingHttpHeaders, rawHeaders: string[]): void {
  // A stream the client resets ends with 'close'; its error says nothing more.
  stream.on('error', () => {});
  const requestId = requestIdFrom(headers as Record<string, string | string[] | undefined>, randomUUID);
  const contentType = metadataValue(headers['content-type']) ?? '';
  if (headers[':method'] !== 'POST' || !/^application\/grpc(?:[+;]|$)/i.test(contentType)) {
    // Not gRPC: an HTTP answer, a problem document.
    const problem = new Problem('unsupported-media-type', { detail: `This port takes OTLP over gRPC only (POST ${EXPORT_PATH}, application/grpc).` });
    if (stream.destroyed || stream.headersSent) return;
    stream.respond({ ':status': problem.status, 'content-type': 'application/problem+json; charset=utf-8', 'x-request-id': requestId });
    stream.end(JSON.stringify(problemBody(problem, ctx.problemBase, requestId)));
    stream.close(constants.NGHTTP2_NO_ERROR); // once the answer is out: a body the client may still send is not read
    return;
  }
  const call = new ExportCall(ctx, stream, headers, requestId);
  if (headers[':path'] !== EXPORT_PATH) {
    return call.fail({ code: GrpcStatus.UNIMPLEMENTED, details: `This server implements ${EXPORT_PATH} only.`, trailers: answerTrailers(requestId) });
  }
  void call.start(authorizationFields(rawHeaders));
}

class ExportCall {
  private answered = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private releasePlace: (() => void) | null = null;
  private forwarding = false;
  private payload: Readable | null = null;
  private readonly prefix = Buffer.alloc(5);
  private prefixRead = 0;
  private remaining = 0;
  private messageRead = false;
  /** The client half-closed (an empty one does so before anything reads the stream). */
  private clientEnded = false;
  private reading = false;
  private readonly ip: string;

  constructor(
    private readonly ctx: CallContext,
    private readonly stream: ServerHttp2Stream,
    private readonly headers: IncomingHttpHeaders,
    private readonly requestId: string,
  ) {
    this.ip = stream.session?.socket?.remoteAddress ?? 'unknown';
    // After the answer, or when the client cancelled the call (or the connection went).
    stream.once('close', () => this.end());
    stream.once('end', () => {
      this.clientEnded = true;
      if (this.reading) this.halfClosed();
    });
  }

  async start(authorizationCount: number): Promise<void> {
    const { app, places } = this.ctx;
    let principal;
    try {
      // From the call's start, as a body's from its request's: the message must be whole within the body timeout.
      const timeoutMs = app.admission.timeoutMs;
      this.after(timeoutMs, () => {
        if (this.messageRead) return;
        const problem = new Problem('request-timeout', { detail: `The message did not arrive within ${Math.round(timeoutMs / 1000)} s.` });
        this.fail(grpcErrorOfProblem(problem, this.requestId));
      });
      const deadline = clientTimeoutMs(metadataValue(this.headers['grpc-timeout']));
      if (deadline !== null) {
        this.after(deadline, () =>
          this.fail({ code: GrpcStatus.DEADLINE_EXCEEDED, details: "The call's deadline (grpc-timeout) passed.", trailers: answerTrailers(this.requestId) }),
        );
      }
      const authorization = metadataValue(this.headers.authorization);
      principal = await app.bearerAccess({ authorization, fields: authorizationCount, ip: this.ip }, EXPORT_SCOPE);
    } catch (error) {
      const problem = toProblem(error);
      if (problem.slug === 'internal') this.ctx.log.error({ err: error, requestId: this.requestId }, 'OTLP/gRPC: checking a call failed');
      return this.fail(grpcErrorOfProblem(problem, this.requestId));
    }
    if (this.answered) return;
    const place = places.take(this.stream.session ?? this.stream, principal.credential.id);
    if ('full' in place) {
      const limit = place.full === 'instance' ? places.limits.total : place.full === 'connection' ? places.limits.perConnection : places.limits.perCredential;
      return this.fail(retryableError(GrpcStatus.UNAVAILABLE, FULL[place.full](limit), 1, this.requestId));
    }
    this.releasePlace = place.release;
    this.reading = true;
    this.stream.on('data', (chunk: Buffer) => this.receive(chunk));
    if (this.clientEnded) this.halfClosed();
  }

  /** Bytes of the stream: the 5-byte prefix (compressed flag, length), then the message, then nothing. */
  private receive(chunk: Buffer): void {
    if (this.answered) return;
    let at = 0;
    if (this.prefixRead < this.prefix.length) {
      at = Math.min(this.prefix.length - this.prefixRead, chunk.length);
      chunk.copy(this.prefix, this.prefixRead, 0, at);
      this.prefixRead += at;
      if (this.prefixRead < this.prefix.length || !this.messageStarts()) return;
    }
    if (at === chunk.length) return;
    const part = chunk.subarray(at, at + this.remaining);
    this.remaining -= part.length;
    // Backpressure: the stream resumes when body admission reads on (HTTP/2 flow control holds the rest).
    if (part.length > 0 && !this.payload!.push(part)) this.stream.pause();
    if (at + part.length < chunk.length) this.fail(this.invalid('An Export call carries one message; more bytes followed it.'));
  }

  /** The prefix is read: refuses a message that cannot be taken before reading any of it, else forwards it. */
  private messageStarts(): boolean {
    const compressed = this.prefix[0]!;
    const length = this.prefix.readUInt32BE(1);
    if (compressed > 1) return this.refuse(this.invalid(`The message's compressed flag is ${compressed}; gRPC allows 0 or 1.`));
    if (length > BODY_LIMIT) {
      const tooLarge = new Problem('payload-too-large', {
        detail: `The message (${length} bytes) exceeds the ${BODY_LIMIT / 1024 / 1024} MB limit (${BODY_LIMIT} bytes).`,
      });
      return this.refuse(grpcErrorOfProblem(tooLarge, this.requestId));
    }
    let encoding: string | null = null;
    if (compressed === 1) {
      encoding = (metadataValue(this.headers['grpc-encoding']) ?? 'identity').trim().toLowerCase();
      if (encoding === 'identity') return this.refuse(this.invalid('The message is marked compressed, but grpc-encoding names no compression.'));
      if (encoding !== 'gzip' && encoding !== 'deflate') {
        const details = `The message is compressed with ${JSON.stringify(encoding.slice(0, 32))}; this server takes ${ACCEPT_ENCODING}.`;
        return this.refuse({
          code: GrpcStatus.UNIMPLEMENTED,
          details,
          trailers: { ...answerTrailers(this.requestId), 'grpc-accept-encoding': ACCEPT_ENCODING },
        });
      }
    }
    this.remaining = length;
    if (length > 0) this.payload = new Readable({ highWaterMark: PAYLOAD_HIGH_WATER, read: () => this.stream.resume() });
    this.forward(length, encoding);
    return true;
  }

  private refuse(error: GrpcError): false {
    this.fail(error);
    return false;
  }

  /**
   * The client half-closed: its message must be whole by now. Only then does the request's body end, so
   * a call that turns out to carry more than its one message is refused before its spans are stored.
   */
  private halfClosed(): void {
    if (this.messageRead || this.answered) return;
    if (this.prefixRead < this.prefix.length) return this.fail(this.invalid('The call ended without its message.'));
    const read = this.prefix.readUInt32BE(1) - this.remaining;
    if (this.remaining > 0) return this.fail(this.invalid(`The call ended ${read} bytes into its ${read + this.remaining}-byte message.`));
    this.messageRead = true;
    this.payload?.push(null);
  }

  private forward(length: number, encoding: string | null): void {
    const headers: Record<string, string> = { 'content-type': 'application/x-protobuf', 'content-length': String(length), 'x-request-id': this.requestId };
    for (const key of FORWARDED) {
      const value = metadataValue(this.headers[key]);
      if (value !== undefined) headers[key] = value;
    }
    if (encoding) headers['content-encoding'] = encoding;
    this.forwarding = true;
    this.ctx.app
      .inject({ method: 'POST', url: '/v1/traces', headers, payload: this.payload ?? Buffer.alloc(0), remoteAddress: this.ip })
      .then(
        (answer) => (answer.statusCode === 200 ? this.succeed(answer.rawPayload) : this.fail(grpcErrorOf(answer))),
        (error: unknown) => {
          if (this.answered) return; // the call had ended: its request was cut short
          // Fastify refuses `inject` once the application is closing.
          const closing = (error as { code?: unknown } | null)?.code === 'FST_ERR_REOPENED_CLOSE_SERVER';
          if (!closing) this.ctx.log.error({ err: error, requestId: this.requestId }, 'OTLP/gRPC: forwarding a call failed');
          this.fail(grpcErrorOfFailure(closing, this.requestId));
        },
      )
      .finally(() => {
        this.forwarding = false;
        this.giveBack();
      });
  }

  private invalid(details: string): GrpcError {
    return { code: GrpcStatus.INVALID_ARGUMENT, details, trailers: answerTrailers(this.requestId) };
  }

  private after(ms: number, action: () => void): void {
    const timer = setTimeout(action, ms);
    timer.unref();
    this.timers.push(timer);
  }

  /** The call is answered (or gone): no timer runs on, a message still arriving is cut short, and the place is given back once its request has ended. */
  private end(): boolean {
    if (this.answered) return false;
    this.answered = true;
    for (const timer of this.timers) clearTimeout(timer);
    if (this.payload && !this.payload.readableEnded) this.payload.destroy(new Error('The call ended before its message was read.'));
    this.giveBack();
    return true;
  }

  private giveBack(): void {
    if (this.forwarding || !this.answered) return;
    this.releasePlace?.();
    this.releasePlace = null;
  }

  private succeed(response: Buffer): void {
    if (!this.end() || this.stream.destroyed) return;
    const framed = Buffer.allocUnsafe(5 + response.length);
    framed[0] = 0;
    framed.writeUInt32BE(response.length, 1);
    response.copy(framed, 5);
    try {
      this.stream.respond(
        { ':status': 200, 'content-type': 'application/grpc', 'grpc-encoding': 'identity', 'grpc-accept-encoding': ACCEPT_ENCODING },
        { waitForTrailers: true },
      );
      this.stream.once('wantTrailers', () => {
        try {
          this.stream.sendTrailers(statusFields(GrpcStatus.OK, '', answerTrailers(this.requestId)));
        } catch {
          this.stream.destroy(); // the client went while the answer was being sent
        }
      });
      this.stream.end(framed);
    } catch {
      this.stream.destroy();
    }
  }

  /** Answers with a status alone (trailers-only), then resets the stream: what the client may still send is never read. */
  fail(error: GrpcError): void {
    if (!this.end() || this.stream.destroyed || this.stream.headersSent) return;
    try {
      this.stream.respond(
        {
          ':status': 200,
          'content-type': 'application/grpc',
          'grpc-accept-encoding': ACCEPT_ENCODING,
          ...statusFields(error.code, error.details, error.trailers),
        },
        { endStream: true },
      );
      this.stream.close(constants.NGHTTP2_NO_ERROR);
    } catch {
      this.stream.destroy();
    }
  }
}
