import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Outbound webhooks without SSRF: only http(s) URLs without credentials; the target host is resolved
 * once, every address it resolves to must be public (unless the instance allows private targets), and
 * the connection goes to exactly the address that was checked (no second resolution an attacker's DNS
 * could answer differently). Redirects are never followed.
 */

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible form (::127.0.0.1)
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 (embeds an IPv4 address)
  ['100::', 64],
  ['2001::', 32], // Teredo
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4 (embeds an IPv4 address)
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10],
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** True for loopback, private, link-local, multicast and other non-public addresses (v4, v6, v4-mapped v6). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1]!, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

export const HOST_FAULT = 'Must name a valid host: no empty labels, at most one trailing dot.';

/** What is wrong with a webhook URL (without resolving it), or null. */
export function webhookUrlFault(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Must be an absolute http or https URL.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'Must be an absolute http or https URL.';
  if (url.username !== '' || url.password !== '') return 'Must not contain credentials.';
  // A fully qualified name may end with one dot, the root ("localhost." is localhost): judged without it.
  // Any other empty label ("localhost..", "a..b", ".a") makes no DNS name: what a resolver would make of
  // it (strip the dots? localhost?) is not ours to guess, so such a host is refused, not judged.
  const host = hostOf(url).toLowerCase().replace(/\.$/, '');
  if (host === '') return 'Must name a host.';
  if (isIP(host) === 0 && host.split('.').includes('')) return HOST_FAULT;
  if (allowPrivate) return null;
  if (isIP(host) !== 0 ? isPrivateAddress(host) : host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) {
    return 'Must not target a private, loopback or link-local address.';
  }
  return null;
}

export class TargetRefused extends Error {}

/** Resolves the host and returns the address to connect to, refusing non-public ones unless allowed. */
export async function resolveTarget(url: URL, allowPrivate: boolean): Promise<{ address: string; family: 4 | 6 }> {
  const host = hostOf(url);
  const literal = isIP(host);
  const addresses = literal !== 0 ? [{ address: host, family: literal }] : await dnsLookup(host, { all: true, verbatim: true });
  if (addresses.length === 0) throw new TargetRefused(`${host} does not resolve.`);
  if (!allowPrivate) {
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad) throw new TargetRefused(`Refused: ${host} resolves to a non-public address (${bad.address}).`);
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

export interface PostResult {
  status: number;
}

/** POSTs a JSON body to the URL, connecting only to the checked address; resolves with the status. */
export async function postJson(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<PostResult> {
  const fault = webhookUrlFault(rawUrl, options.allowPrivate);
  if (fault) throw new TargetRefused(fault);
  const url = new URL(rawUrl);
  const target = await resolveTarget(url, options.allowPrivate);
  const pinned: LookupFunction = (_hostname, opts, callback) => {
    if ((opts as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        lookup: pinned,
        timeout: options.timeoutMs,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Sightline-Webhooks/1', ...headers },
        agent: false,
      },
      (response) => {
        // The body is not needed; read (at most 64 KiB of) it so the socket closes cleanly.
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > 65_536) response.destroy();
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
        response.on('close', () => resolve({ status: response.statusCode ?? 0 }));
        response.on('error', () => resolve({ status: response.statusCode ?? 0 }));
      },
    );
    const deadline = setTimeout(() => request.destroy(new Error(`No response within ${options.timeoutMs} ms.`)), options.timeoutMs);
    request.on('timeout', () => request.destroy(new Error(`No response within ${options.timeoutMs} ms.`)));
    request.on('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    request.on('close', () => clearTimeout(deadline));
    request.end(body);
  });
}
