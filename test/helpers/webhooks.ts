// For the suites of outbound calls (webhook deliveries, the SSRF guard): the guard's fault texts, word for word, and a local receiver.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const PRIVATE_FAULT = 'Must not target a private, loopback or link-local address.';
export const URL_FAULT = 'Must be an absolute http or https URL.';
export const CREDENTIALS_FAULT = 'Must not contain credentials.';
export const HOST_FAULT = 'Must name a valid host: no empty labels, at most one trailing dot.';

/**
 * IPv6 literals that carry an IPv4 address, each with the IPv4 address(es) it carries: the guard judges
 * them by it. Private ones (refused) and public ones (taken), in every form and several spellings.
 */
export const EMBEDDED_PRIVATE: [string, string[]][] = [
  ['::ffff:127.0.0.1', ['127.0.0.1']], // IPv4-mapped
  ['::ffff:7f00:1', ['127.0.0.1']],
  ['0:0:0:0:0:FFFF:7F00:0001', ['127.0.0.1']],
  ['::ffff:a9fe:a9fe', ['169.254.169.254']],
  ['::ffff:0:7f00:1', ['127.0.0.1']], // IPv4-translated: the finding
  ['::ffff:0:127.0.0.1', ['127.0.0.1']],
  ['0:0:0:0:ffff:0:a00:1', ['10.0.0.1']],
  ['::127.0.0.1', ['127.0.0.1']], // IPv4-compatible
  ['::a9fe:a9fe', ['169.254.169.254']],
  ['::c0a8:101', ['192.168.1.1']],
  ['64:ff9b::127.0.0.1', ['127.0.0.1']], // NAT64, well-known prefix
  ['64:ff9b::a00:1', ['10.0.0.1']],
  ['64:ff9b:1::7f00:1', ['0.0.0.0', '0.0.0.0', '0.0.0.127', '127.0.0.1']], // NAT64, local-use prefix: /48, /56, /64, /96 layouts
  ['64:ff9b:1:808:8:808:7f00:1', ['8.8.8.8', '8.8.8.8', '8.8.8.127', '127.0.0.1']], // private in the /96 layout only
  ['64:ff9b:1:808:a:808:808:808', ['8.8.10.8', '8.10.8.8', '10.8.8.8', '8.8.8.8']], // private in the /64 layout only
  ['2002:7f00:1::', ['127.0.0.1']], // 6to4
  ['2002:a9fe:a9fe::1', ['169.254.169.254']],
  ['2002:c0a8:101:1::1', ['192.168.1.1']],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', ['65.54.227.120', '127.0.0.1']], // Teredo: server, client (XOR'd)
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', ['65.54.227.120', '192.0.2.45']], // RFC 4380's example: a documentation client
  ['2001:0:a00:1::f7f7:f7f7', ['10.0.0.1', '8.8.8.8']], // a private server
];
export const EMBEDDED_PUBLIC: [string, string[]][] = [
  ['::ffff:8.8.8.8', ['8.8.8.8']],
  ['::ffff:808:808', ['8.8.8.8']],
  ['::ffff:0:808:808', ['8.8.8.8']],
  ['::ffff:0:8.8.8.8', ['8.8.8.8']],
  ['::808:808', ['8.8.8.8']],
  ['64:ff9b::8.8.8.8', ['8.8.8.8']],
  ['64:ff9b::5db8:d822', ['93.184.216.34']],
  ['64:ff9b:1:808:8:808:808:808', ['8.8.8.8', '8.8.8.8', '8.8.8.8', '8.8.8.8']],
  ['2002:808:808::1', ['8.8.8.8']],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', ['65.54.227.120', '8.8.8.8']],
];

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
