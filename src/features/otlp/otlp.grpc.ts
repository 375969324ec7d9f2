import { createServer, type Http2Server, type IncomingHttpHeaders, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import type { FastifyBaseLogger } from 'fastify';
import { ConfigError } from '../../config.js';
import type { App } from '../../deps.js';
import { serveStream } from './otlp.grpc-call.js';
import { CallPlaces, type GrpcCallLimits } from './otlp.grpc-places.js';

export { EXPORT_PATH } from './otlp.grpc-call.js';

/**
 * The OTLP/gRPC receiver (docs/otlp.md, OTLP over gRPC): `opentelemetry.proto.collector.trace.v1.TraceService/Export`
 * and nothing else, served by a small gRPC server on `node:http2` (otlp.grpc-call.ts serves each call:
 * credential at the metadata, places per instance, connection and credential, the message streamed into
 * `POST /v1/traces` under body admission). This module holds the connections: HTTP/2 settings,
 * keepalive, idle and age limits, listening and draining.
 */

/** OTLP's gRPC port, used unless SIGHTLINE_OTLP_GRPC_PORT says otherwise. */
export const DEFAULT_GRPC_PORT = 4317;

/** Streams one connection may have open at once (calls, and refusals not yet sent). */
const MAX_STREAMS = 16;
/** Header fields of one call, advertised to clients as HTTP's limit on a request's headers (nghttp2 refuses any block over 64 KB). */
const MAX_HEADER_BYTES = 16 * 1024;
// Dead peers are found within a few minutes; idle connections are closed after 5 minutes and every
// connection after about an hour (exporters reconnect), which spreads clients over instances.
const KEEPALIVE_MS = 120_000;
const KEEPALIVE_TIMEOUT_MS = 20_000;
const MAX_IDLE_MS = 300_000;
const MAX_AGE_MS = 3_600_000;
const AGE_GRACE_MS = 30_000;

export interface GrpcReceiverOptions {
  host: string;
  /** 0: any free port (tests). */
  port: number;
  /** The port was named by SIGHTLINE_OTLP_GRPC_PORT: if taken, start-up stops; otherwise gRPC is off. */
  explicit: boolean;
  /** Calls in progress at once (config `otlpGrpcCalls`). */
  limits: GrpcCallLimits;
  /** The base of problem types, for the answer to a request that is not gRPC. */
  problemBase: string;
}

export interface GrpcReceiver {
  /** The port bound. */
  readonly port: number;
  /** Calls holding a place now (authenticated, not yet ended). */
  readonly callsInProgress: number;
  /** Stops taking calls, lets those in progress finish within `graceMs`, then cuts the rest. */
  close(graceMs?: number): Promise<void>;
}

type Log = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

const address = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

function unrefTimer(ms: number, action: () => void): NodeJS.Timeout {
  const timer = setTimeout(action, ms);
  timer.unref();
  return timer;
}

/**
 * Keeps one connection within its bounds: a ping every KEEPALIVE_MS, unanswered within
 * KEEPALIVE_TIMEOUT_MS ends it; no open stream for MAX_IDLE_MS ends it; after about MAX_AGE_MS (±10%,
 * so reconnections spread) it is asked to go away, and ended AGE_GRACE_MS later.
 */
function supervise(session: ServerHttp2Session, sessions: Set<ServerHttp2Session>): void {
  sessions.add(session);
  session.on('error', () => {}); // a connection that fails closes; nothing to tell anyone
  let streams = 0;
  let idle = unrefTimer(MAX_IDLE_MS, () => session.close());
  let pingTimeout: NodeJS.Timeout | undefined;
  const keepalive = setInterval(() => {
    if (pingTimeout || session.destroyed) return;
    pingTimeout = unrefTimer(KEEPALIVE_TIMEOUT_MS, () => session.destroy());
    try {
      session.ping((error) => {
        clearTimeout(pingTimeout);
        pingTimeout = undefined;
        if (error) session.destroy();
      });
    } catch {
      session.destroy();
    }
  }, KEEPALIVE_MS);
  keepalive.unref();
  let grace: NodeJS.Timeout | undefined;
  const age = unrefTimer(MAX_AGE_MS * (0.9 + Math.random() * 0.2), () => {
    session.close();
    grace = unrefTimer(AGE_GRACE_MS, () => session.destroy());
  });
  session.on('stream', (stream) => {
    streams++;
    clearTimeout(idle);
    stream.once('close', () => {
      if (--streams === 0 && !session.closed) idle = unrefTimer(MAX_IDLE_MS, () => session.close());
    });
  });
  session.once('close', () => {
    sessions.delete(session);
    for (const timer of [idle, pingTimeout, age, grace]) clearTimeout(timer);
    clearInterval(keepalive);
  });
}

function listen(server: Http2Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as { port: number }).port);
    });
  });
}

function shutdown(server: Http2Server, sessions: Set<ServerHttp2Session>, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      for (const session of sessions) session.destroy();
    }, graceMs);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    // GOAWAY: no new calls on these connections; those in progress finish.
    for (const session of sessions) session.close();
  });
}

/**
 * Starts the receiver on `host:port`, calls going to `app` (which must be ready). A taken port: if it
 * was set explicitly, rejects with a one-line ConfigError naming the setting; if it is the default,
 * logs one warning and resolves null (a second instance on one machine serves HTTP only).
 */
export async function startGrpcReceiver(app: App, options: GrpcReceiverOptions, log: Log = app.log): Promise<GrpcReceiver | null> {
  const sessions = new Set<ServerHttp2Session>();
  const context = { app, places: new CallPlaces(options.limits), problemBase: options.problemBase, log };
  const server = createServer({ settings: { maxConcurrentStreams: MAX_STREAMS, maxHeaderListSize: MAX_HEADER_BYTES } });
  server.on('session', (session) => supervise(session, sessions));
  // Node passes the raw header list (name, value, …) too, which its types leave out: two Authorization fields are refused, as over HTTP.
  const onStream = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, _flags: number, rawHeaders: string[]) =>
    serveStream(context, stream, headers, rawHeaders);
  server.on('stream', onStream as (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, flags: number) => void);
  let port: number;
  try {
    port = await listen(server, options.host, options.port);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'EADDRINUSE' && !options.explicit) {
      log.warn(
        { port: options.port },
        `OTLP/gRPC is off: port ${options.port} is in use (another instance on this machine?); set SIGHTLINE_OTLP_GRPC_PORT to a free port, or to off`,
      );
      return null;
    }
    const reason = typeof code === 'string' ? code : (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ');
    const why = code === 'EADDRINUSE' ? 'is in use' : `cannot be listened on at ${options.host} (${reason})`;
    throw new ConfigError(`Invalid configuration: SIGHTLINE_OTLP_GRPC_PORT ${options.port} ${why}`);
  }
  server.on('error', (error) => log.error({ err: error }, 'OTLP/gRPC: the listener failed'));
  log.info({ port }, `OTLP/gRPC listening on ${address(options.host, port)}`);
  return {
    port,
    get callsInProgress() {
      return context.places.inProgress;
    },
    close: (graceMs = 10_000) => shutdown(server, sessions, graceMs),
  };
}
