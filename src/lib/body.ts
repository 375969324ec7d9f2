import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { acquireOrRefuse, type Gate, type Release } from './gate.js';
import { contentEncodingOf, inflateBody } from './body-encoding.js';
import { decodeJsonBody } from './json-body.js';
import { Problem, problems } from './problems.js';

export interface BodyAdmissionOptions {
  /** Largest body accepted (413 past it). */
  maxBytes: number;
  /** Time from the first hook to the last byte of the body (408 past it). */
  timeoutMs: number;
  /** Body bytes held in memory at once by all requests together (503 past it). */
  budgetBytes: number;
  /** Bodies larger than this are decoded and handled while holding a slot of `gate`. */
  largeBytes: number;
  /** Large bodies processed at once (the ingestion gate). */
  gate: Gate;
  /** How long a read body may wait for a slot of `gate` (503 past it). */
  queueTimeoutMs: number;
  /** Largest body once decompressed (`Content-Encoding: gzip` or `deflate`; 413 past it). */
  maxDecodedBytes: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route decodes its body itself (OTLP, whose JSON needs 64-bit integers kept exact): the JSON
     * and protobuf parsers hand it the bytes, decompressed and admitted like any other body. Only
     * such routes take `application/x-protobuf`.
     */
    rawBody?: boolean;
  }
}

/** Media types a route that decodes its own body takes. */
export const RAW_BODY_TYPES = ['application/json', 'application/x-protobuf'] as const;

/** The largest request body (413 past it). */
export const BODY_LIMIT = 10 * 1024 * 1024;

/** A request refused before its body was read keeps being read (and dropped) up to this many bytes, so the client sees the answer. */
const DISCARD_BYTES = 20 * 1024 * 1024;
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE']);

export const payloadTooLarge = (maxBytes: number) =>
  new Problem('payload-too-large', { detail: `The request body exceeds the ${Math.round(maxBytes / 1024 / 1024)} MB limit.` });

/** Request-body bytes in memory across all requests of this process. */
export class ByteBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  get inUse(): number {
    return this.used;
  }

  tryReserve(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used -= bytes;
  }
}

/** What one request holds: body bytes from the budget, then perhaps a gate slot; all given back at once. */
class Admission {
  private reserved = 0;
  private slot: Release | null = null;
  private finished = false;
  readonly closed = new AbortController();
  bytes: Buffer | null = null;

  constructor(private readonly budget: ByteBudget) {}

  reserve(bytes: number): boolean {
    if (!this.budget.tryReserve(bytes)) return false;
    this.reserved += bytes;
    return true;
  }

  /** Gives the body's bytes back to the budget (once decoded, or on any way out). */
  releaseBytes(): void {
    this.bytes = null;
    this.budget.release(this.reserved);
    this.reserved = 0;
  }

  async holdSlot(gate: Gate, timeoutMs: number): Promise<void> {
    const release = await acquireOrRefuse(gate, {
      signal: this.closed.signal,
      timeoutMs,
      busy: 'The server is busy processing other large requests; retry shortly.',
    });
    if (this.finished) {
      release();
      throw problems.clientGone();
    }
    this.slot = release;
  }

  /** The response is over (sent, or the connection closed): every path ends here. */
  finish(): void {
    this.finished = true;
    this.closed.abort();
    this.slot?.();
    this.slot = null;
    this.releaseBytes();
  }
}

function declaredLength(request: FastifyRequest): number | null {
  const raw = request.headers['content-length'];
  if (raw === undefined || request.headers['transfer-encoding'] !== undefined) return null;
  const length = Number(raw);
  return Number.isSafeInteger(length) && length >= 0 ? length : null;
}

/**
 * Admission of request bodies, for every route: a body is read completely into memory before anything
 * waits on it, within a time limit (408), a size limit (413) and a budget of bytes shared by all
 * requests (503 with Retry-After, at once, instead of buffering past it); a request refused early keeps
 * being read and dropped, up to a bound, so that its client, still sending, gets the answer rather than
 * a reset connection. Only then is a large body decoded, and handled, while holding a slot of the
 * ingestion gate, waited for for a bounded time. Bytes and slot are given back when the response closes,
 * whichever way it closes.
 */
export function registerBodyAdmission(app: FastifyInstance, options: BodyAdmissionOptions): ByteBudget {
  const budget = new ByteBudget(options.budgetBytes);
  const admissions = new WeakMap<FastifyRequest, Admission>();

  app.addHook('preParsing', async (request, reply, payload) => {
    if (BODYLESS.has(request.method)) return payload;
    const declared = declaredLength(request);
    if (declared === 0 || (declared === null && request.headers['transfer-encoding'] === undefined)) return payload;
    const admission = new Admission(budget);
    admissions.set(request, admission);
    reply.raw.once('close', () => admission.finish());
    admission.bytes = await receive(request, reply, payload, declared, admission, options);
    // For a parser that reads the payload stream (the JSON parser takes the bytes directly). It must not
    // hold the buffer itself, or the bytes would outlive their release until the request is collected.
    return Readable.from(
      (function* () {
        if (admission.bytes) yield admission.bytes;
      })(),
    );
  });

  /**
   * The one way from admitted bytes to a body: decompressed when the request says so, decoded under a
   * slot of the ingestion gate when large, and the bytes given back as soon as they are decoded (a raw
   * route's bytes are held until its response closes, since its handler decodes them).
   */
  const parse = async (request: FastifyRequest, json: boolean): Promise<unknown> => {
    const admission = admissions.get(request);
    // No route: the answer is a 404 (or a 405 naming the methods the path takes), whatever the body's
    // type, so it is not decoded (an exporter posting protobuf to a wrong path got a 415 instead).
    if (request.is404) {
      admission?.releaseBytes();
      return undefined;
    }
    const raw = request.routeOptions.config.rawBody === true;
    let handedOver = false;
    try {
      const encoding = contentEncodingOf(request.headers['content-encoding']);
      if (!json && !raw) throw unsupportedMediaType(request);
      let bytes = admission?.bytes ?? Buffer.alloc(0);
      if (admission && (bytes.length > options.largeBytes || encoding)) await admission.holdSlot(options.gate, options.queueTimeoutMs);
      if (encoding) bytes = await inflateBody(bytes, encoding, options.maxDecodedBytes, (n) => admission?.reserve(n) ?? true);
      handedOver = raw;
      return raw ? bytes : decodeJsonBody(bytes);
    } finally {
      if (!handedOver) admission?.releaseBytes();
    }
  };
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request: FastifyRequest) => parse(request, true));
  app.addContentTypeParser('application/x-protobuf', (request: FastifyRequest) => parse(request, false));
  // Any other media type: a 415 problem saying what the route takes.
  app.addContentTypeParser('*', async (request: FastifyRequest) => {
    if (request.is404) return parse(request, true);
    throw unsupportedMediaType(request);
  });
  return budget;
}

/** Reads the whole body, or rejects with the problem to answer (and keeps dropping what still comes). */
function receive(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: NodeJS.ReadableStream,
  declared: number | null,
  admission: Admission,
  options: BodyAdmissionOptions,
): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    // With a declared length the body is copied once into its final buffer (allocated once admitted);
    // chunked bodies are joined at the end.
    let whole: Buffer | null = null;
    const chunks: Buffer[] = [];
    let received = 0;
    let refused = false;
    let discarded = 0;

    const stop = () => {
      clearTimeout(deadline);
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onAbort);
      payload.removeListener('close', onAbort);
    };
    const closeConnection = () => {
      stop();
      destroySocket(request);
    };
    const refuse = (problem: Problem) => {
      refused = true;
      chunks.length = 0;
      admission.releaseBytes();
      reject(problem);
    };
    function onData(chunk: Buffer) {
      if (refused) {
        discarded += chunk.length;
        if (discarded > DISCARD_BYTES) closeConnection();
        return;
      }
      if (received + chunk.length > options.maxBytes) return refuse(payloadTooLarge(options.maxBytes));
      if (whole) chunk.copy(whole, received);
      else if (admission.reserve(chunk.length)) chunks.push(chunk);
      else return refuse(overloaded());
      received += chunk.length;
    }
    function onEnd() {
      stop();
      if (refused) return;
      resolve(whole ? whole.subarray(0, received) : Buffer.concat(chunks, received));
    }
    function onAbort() {
      stop();
      if (refused) return;
      refused = true;
      admission.releaseBytes();
      reject(problems.clientGone());
    }
    const deadline = setTimeout(() => {
      if (refused) return closeConnection(); // still dropping the body of a refused request: enough
      stop();
      refused = true;
      admission.releaseBytes();
      // The client is stalled: answer, then close, since the rest of its body would never be read.
      reply.raw.once('finish', () => destroySocket(request));
      reject(
        new Problem('request-timeout', {
          detail: `The request body did not arrive within ${Math.round(options.timeoutMs / 1000)} s.`,
          headers: { connection: 'close' },
        }),
      );
    }, options.timeoutMs);

    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onAbort);
    payload.on('close', onAbort);
    // A request destroyed before its body is read (an in-process `inject` whose source failed, as the
    // OTLP/gRPC receiver's when a call ends) will emit nothing more.
    if ((payload as Partial<Readable>).destroyed) return onAbort();
    if (declared !== null && declared > options.maxBytes) refuse(payloadTooLarge(options.maxBytes));
    else if (declared !== null && !admission.reserve(declared)) refuse(overloaded());
    else if (declared !== null) whole = Buffer.allocUnsafe(declared);
  });
}

function destroySocket(request: FastifyRequest): void {
  const socket = request.raw.socket as { destroy?: () => void } | null;
  socket?.destroy?.();
}

/** The 415 answer of every route but those that decode their own bodies. */
export const jsonOnly = () => new Problem('unsupported-media-type', { detail: 'Request bodies must be JSON (Content-Type: application/json).' });

/** What a route takes, for its 415 answer. */
export function unsupportedMediaType(request: Pick<FastifyRequest, 'routeOptions'>): Problem {
  if (!request.routeOptions.config.rawBody) return jsonOnly();
  return new Problem('unsupported-media-type', { detail: `This endpoint takes ${RAW_BODY_TYPES.join(' or ')} bodies (OTLP/HTTP).` });
}

const overloaded = () => problems.unavailable('The server holds as many request bodies as it can right now; retry shortly.', 1);
