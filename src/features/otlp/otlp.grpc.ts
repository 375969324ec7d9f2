import * as grpc from '@grpc/grpc-js';
import type { FastifyBaseLogger } from 'fastify';
import { ConfigError } from '../../config.js';
import type { App } from '../../deps.js';
import { BODY_LIMIT } from '../../lib/body.js';
import { answerMetadata, grpcErrorOf, grpcErrorOfFailure, retryableError } from './otlp.grpc-status.js';

/**
 * The OTLP/gRPC receiver (README, OTLP over gRPC): `opentelemetry.proto.collector.trace.v1.TraceService/Export`
 * and nothing else. Each call is forwarded, with `app.inject`, as a `POST /v1/traces` carrying the
 * call's metadata as headers and its message as the body, so authentication, the access hook, rate
 * limits, load shedding, body admission and project routing are the HTTP route's; the HTTP answer is
 * turned into the gRPC one (otlp.grpc-status.ts). Messages are passed through as bytes, never decoded
 * here, so an undecodable one is the route's 400 (INVALID_ARGUMENT), not grpc-js's INTERNAL.
 */

export const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
/** OTLP's gRPC port, used unless SIGHTLINE_OTLP_GRPC_PORT says otherwise. */
export const DEFAULT_GRPC_PORT = 4317;

const passthrough = (bytes: Buffer): Buffer => bytes;

export const traceServiceDefinition: grpc.ServiceDefinition = {
  Export: {
    path: EXPORT_PATH,
    originalName: 'export',
    requestStream: false,
    responseStream: false,
    requestSerialize: passthrough,
    requestDeserialize: passthrough,
    responseSerialize: passthrough,
    responseDeserialize: passthrough,
  },
};

/** Metadata forwarded as the request headers of the same name; nothing else of the call is. */
const FORWARDED = ['authorization', 'sightline-project', 'x-request-id', 'user-agent'] as const;

/** Server options: the HTTP path's body limit, and bounds on what one connection may hold. */
const SERVER_OPTIONS: grpc.ServerOptions = {
  // A larger message (checked after gzip or deflate is undone) is refused by grpc-js with
  // RESOURCE_EXHAUSTED before the handler runs: the bound of an uncompressed body on the HTTP path.
  'grpc.max_receive_message_length': BODY_LIMIT,
  'grpc.max_concurrent_streams': 16,
  // Dead peers are found within a few minutes; idle connections are closed after 5 minutes and every
  // connection after about an hour (exporters reconnect), which spreads clients over instances.
  'grpc.keepalive_time_ms': 120_000,
  'grpc.keepalive_timeout_ms': 20_000,
  'grpc.max_connection_idle_ms': 300_000,
  'grpc.max_connection_age_ms': 3_600_000,
  'grpc.max_connection_age_grace_ms': 30_000,
  'grpc.enable_channelz': 0,
};

/** The address of the peer, without its port (`127.0.0.1:50312` → `127.0.0.1`). */
function peerAddress(peer: string): string | undefined {
  const address = peer.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
  return address === '' || address === 'unknown' ? undefined : address;
}

function firstText(metadata: grpc.Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return typeof value === 'string' ? value : undefined;
}

function exportHandler(app: App): grpc.handleUnaryCall<Buffer, Buffer> {
  return (call, callback) => {
    const headers: Record<string, string> = { 'content-type': 'application/x-protobuf' };
    for (const key of FORWARDED) {
      const value = firstText(call.metadata, key);
      if (value !== undefined) headers[key] = value;
    }
    // A call the client cancelled (or whose deadline passed) is answered by grpc-js at once; its HTTP
    // request, already under way, ends within the route's own bounds, and its answer is dropped.
    app.inject({ method: 'POST', url: '/v1/traces', headers, payload: call.request, remoteAddress: peerAddress(call.getPeer()) }).then(
      (answer) => {
        if (call.cancelled) return;
        if (answer.statusCode === 200) callback(null, answer.rawPayload, answerMetadata(answer.headers['x-request-id']));
        else callback(grpcErrorOf(answer));
      },
      (error: unknown) => {
        if (call.cancelled) return;
        // Fastify refuses `inject` once the application is closing.
        const closing = (error as { code?: unknown } | null)?.code === 'FST_ERR_REOPENED_CLOSE_SERVER';
        if (!closing) app.log.error({ err: error }, 'OTLP/gRPC: forwarding a call failed');
        callback(grpcErrorOfFailure(closing));
      },
    );
  };
}

/** Calls in progress at once, over all connections: grpc-js holds each call's whole message (up to 10 MB) before it is forwarded. */
export const MAX_GRPC_CALLS = 16;

/**
 * Refuses a call at its metadata, before its message is read, while `max` calls are in progress:
 * UNAVAILABLE with a RetryInfo of 1 s, like the HTTP path's 503. What grpc-js buffers stays bounded
 * (`max` × the message limit) however many clients connect.
 */
function callLimit(max: number): grpc.ServerInterceptor {
  let inProgress = 0;
  return (_method, call) => {
    let counted = false;
    const release = () => {
      if (!counted) return;
      counted = false;
      inProgress--;
    };
    return new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, nextMetadata) => {
            if (inProgress >= max) {
              call.sendStatus(
                retryableError(grpc.status.UNAVAILABLE, 'This instance is processing as many exports as it can; retry shortly.', 1, answerMetadata(null)),
              );
              return;
            }
            inProgress++;
            counted = true;
            nextMetadata(metadata);
          },
          onCancel: release,
        }),
      sendStatus: (status, nextStatus) => {
        release();
        nextStatus(status);
      },
    });
  };
}

export interface GrpcReceiverOptions {
  host: string;
  /** 0: any free port (tests). */
  port: number;
  /** Calls in progress at once (default MAX_GRPC_CALLS). */
  maxCalls?: number;
  /** The port was named by SIGHTLINE_OTLP_GRPC_PORT: if taken, start-up stops; otherwise gRPC is off. */
  explicit: boolean;
}

export interface GrpcReceiver {
  /** The port bound. */
  readonly port: number;
  /** Stops taking calls, lets those in progress finish within `graceMs`, then cuts the rest. */
  close(graceMs?: number): Promise<void>;
}

type Log = Pick<FastifyBaseLogger, 'info' | 'warn'>;

const address = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

function bind(server: grpc.Server, target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(target, grpc.ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port)));
  });
}

function shutdown(server: grpc.Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}

/**
 * Starts the receiver on `host:port`, calls going to `app` (which must be ready). A taken port: if it
 * was set explicitly, rejects with a one-line ConfigError naming the setting; if it is the default,
 * logs one warning and resolves null (a second instance on one machine serves HTTP only).
 */
export async function startGrpcReceiver(app: App, options: GrpcReceiverOptions, log: Log = app.log): Promise<GrpcReceiver | null> {
  // grpc-js would also print its own lines to stderr (a failed bind among them); what matters is logged here.
  grpc.setLogVerbosity(grpc.logVerbosity.NONE);
  const server = new grpc.Server({ ...SERVER_OPTIONS, interceptors: [callLimit(options.maxCalls ?? MAX_GRPC_CALLS)] });
  server.addService(traceServiceDefinition, { Export: exportHandler(app) });
  const target = address(options.host, options.port);
  let port: number;
  try {
    port = await bind(server, target);
  } catch (error) {
    server.forceShutdown();
    const reason = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ');
    const inUse = /EADDRINUSE/.test(reason);
    if (inUse && !options.explicit) {
      log.warn(
        { port: options.port },
        `OTLP/gRPC is off: port ${options.port} is in use (another instance on this machine?); set SIGHTLINE_OTLP_GRPC_PORT to a free port, or to off`,
      );
      return null;
    }
    const why = inUse ? 'is in use' : `cannot be listened on at ${options.host} (${/\[(.*)\]$/.exec(reason)?.[1] ?? reason})`;
    throw new ConfigError(`Invalid configuration: SIGHTLINE_OTLP_GRPC_PORT ${options.port} ${why}`);
  }
  log.info({ port }, `OTLP/gRPC listening on ${address(options.host, port)}`);
  return { port, close: (graceMs = 10_000) => shutdown(server, graceMs) };
}
