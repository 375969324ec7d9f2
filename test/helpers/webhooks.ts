// For the suites of outbound calls (webhook deliveries, the SSRF guard): the guard's fault texts, word for word, and a local receiver.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const PRIVATE_FAULT = 'Must not target a private, loopback or link-local address.';
export const URL_FAULT = 'Must be an absolute http or https URL.';
export const CREDENTIALS_FAULT = 'Must not contain credentials.';
export const HOST_FAULT = 'Must name a valid host: no empty labels, at most one trailing dot.';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  /** Every request, in arrival order. */
  requests: Received[];
  /** The status to answer a request with (200 unless a test says otherwise). */
  respond: (request: Received) => number;
  url(path: string): string;
  /** The requests to one path (each test uses its own path). */
  at(path: string): Received[];
  close(): Promise<void>;
}

/** A node:http server on 127.0.0.1 (a port the OS picks) that records requests and answers as told. */
export async function startReceiver(): Promise<Receiver> {
  const receiver = {
    requests: [] as Received[],
    respond: (() => 200) as (request: Received) => number,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      receiver.requests.push(received);
      res.statusCode = receiver.respond(received);
      res.end('{"received":true}');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    at: (path: string) => receiver.requests.filter((r) => r.path === path),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
