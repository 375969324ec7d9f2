import { connect, createServer, type Socket } from 'node:net';
import { Redis } from 'ioredis';

/** Redis for the suites that need it: used when reachable, required in CI (like PostgreSQL). */
export const REDIS_URL = process.env.SIGHTLINE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function redisReachable(): Promise<boolean> {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 1500,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** A TCP port nothing listens on right now, for servers started as real processes. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/**
 * How a test proxy treats traffic: `pass` forwards it; `hang` keeps every connection open (and accepts
 * new ones) but drops every byte, as a server that stopped answering; `refuse` stops listening and
 * closes every connection, as a server that is down.
 */
export type ProxyMode = 'pass' | 'hang' | 'refuse';

export interface TcpProxy {
  /** `redis://127.0.0.1:<port>` of the proxy. */
  readonly url: string;
  set(mode: ProxyMode): Promise<void>;
  close(): Promise<void>;
}

/** A TCP proxy on a free local port in front of `target` (a redis:// URL), to cut and restore. */
export async function tcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port: targetPort } = new URL(target);
  let mode: ProxyMode = 'pass';
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    const upstream = connect(Number(targetPort || 6379), hostname);
    track(client);
    track(upstream);
    // Checked per chunk, so that switching to `hang` silences connections that are already open.
    client.on('data', (chunk) => mode === 'pass' && upstream.write(chunk));
    upstream.on('data', (chunk) => mode === 'pass' && client.write(chunk));
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      a.on('error', () => b.destroy());
      a.on('close', () => b.destroy());
    }
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as { port: number }).port);
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  const port = await listen(0);
  return {
    url: `redis://127.0.0.1:${port}`,
    async set(next) {
      if (next === mode) return;
      if (next === 'refuse') await stop();
      if (mode === 'refuse') await listen(port);
      mode = next;
    },
    async close() {
      if (mode !== 'refuse') await stop();
    },
  };
}
