import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress } from './ip-address.js';

/**
 * Outbound webhooks without SSRF: only http(s) URLs without credentials; the target host is resolved
 * once, every address it resolves to must be public (unless the instance allows private targets), and
 * the connection goes to exactly the address that was checked (no second resolution an attacker's DNS
 * could answer differently). Redirects are never followed. Webhook deliveries (`postJson`) and model
 * connections' calls (`postJsonForAnswer`, which reads the answer) take the same path. Which addresses
 * are not public: `ip-address.ts`.
 */

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

export const HOST_FAULT = 'Must name a valid host: no empty labels, at most one trailing dot.';

/** A TCP port, 0..65535, without leading zeros: as a URL may carry it. */
export const PORT_PATTERN = '(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0)';
/**
 * URLs `webhookUrlFault` takes whatever the instance allows, as the API document states them: http or https,
 * a DNS name whose last label is letters (no address literal, not `localhost` nor a name under it), a port,
 * then anything printable. Those it also takes that this leaves out (private targets where allowed,
 * address literals) are said in the fields' descriptions.
 */
export const PUBLIC_HTTP_URL_PATTERN =
  '^[Hh][Tt][Tt][Pp][Ss]?://' +
  '(?![^/?#:]*\\.[Ll][Oo][Cc][Aa][Ll][Hh][Oo][Ss][Tt]\\.?(?:[:/?#]|$))' +
  '(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,63}\\.?' +
  `(?::${PORT_PATTERN})?(?:[/?#][!-~]*)?$`;

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

/** An answer read whole: its status, headers and body (at most `maxResponseBytes`). */
export interface PostAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** The call ran out of time (`timeoutMs`, from the start of the call to the answer's last byte). */
export class PostTimeout extends Error {}
/** The answer's body was larger than the call reads. */
export class AnswerTooLarge extends Error {}

interface PostOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** Aborts the call (the request is destroyed with the signal's reason). */
  signal?: AbortSignal | undefined;
  userAgent?: string;
}

/**
 * POSTs `body` to the URL after the guard's checks, connecting only to the checked address. `read`
 * gets the response and settles the call; the request is destroyed with a `PostTimeout` after
 * `timeoutMs` (resolution included) or with the signal's reason when it aborts.
 */
async function postPinned<T>(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
  read: (response: http.IncomingMessage, settle: { resolve: (value: T) => void; reject: (error: unknown) => void }) => void,
): Promise<T> {
  const fault = webhookUrlFault(rawUrl, options.allowPrivate);
  if (fault) throw new TargetRefused(fault);
  const url = new URL(rawUrl);
  const timeout = new PostTimeout(`No response within ${options.timeoutMs} ms.`);
  let cancel: (error: unknown) => void = () => {};
  const stopped = new Promise<never>((_resolve, reject) => {
    cancel = reject;
  });
  stopped.catch(() => {});
  const deadline = setTimeout(() => cancel(timeout), options.timeoutMs);
  const onAbort = () => cancel(options.signal?.reason ?? new Error('Aborted.'));
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (options.signal?.aborted) onAbort();
    const target = await Promise.race([resolveTarget(url, options.allowPrivate), stopped]);
    const pinned: LookupFunction = (_hostname, opts, callback) => {
      if ((opts as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
      else callback(null, target.address, target.family);
    };
    const client = url.protocol === 'https:' ? https : http;
    return await new Promise<T>((resolve, reject) => {
      const request = client.request(
        url,
        {
          method: 'POST',
          lookup: pinned,
          timeout: options.timeoutMs,
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': options.userAgent ?? 'Sightline-Webhooks/1',
            ...headers,
          },
          agent: false,
        },
        (response) => read(response, { resolve, reject }),
      );
      cancel = (error) => {
        request.destroy(error instanceof Error ? error : new Error(String(error)));
        reject(error);
      };
      if (options.signal?.aborted) onAbort();
      request.on('timeout', () => cancel(timeout));
      request.on('error', reject);
      request.end(body);
    });
  } finally {
    clearTimeout(deadline);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** POSTs a JSON body to the URL, connecting only to the checked address; resolves with the status. */
export async function postJson(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<PostResult> {
  return postPinned<PostResult>(rawUrl, body, headers, options, (response, { resolve }) => {
    // The body is not needed; read (at most 64 KiB of) it so the socket closes cleanly.
    let read = 0;
    response.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > 65_536) response.destroy();
    });
    response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
    response.on('close', () => resolve({ status: response.statusCode ?? 0 }));
    response.on('error', () => resolve({ status: response.statusCode ?? 0 }));
  });
}

/**
 * POSTs a JSON body and reads the answer whole, at most `maxResponseBytes` of it (an `AnswerTooLarge`
 * past that), all within `timeoutMs` (a `PostTimeout`) and until `signal` aborts.
 */
export async function postJsonForAnswer(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions & { maxResponseBytes: number },
): Promise<PostAnswer> {
  return postPinned<PostAnswer>(rawUrl, body, headers, options, (response, { resolve, reject }) => {
    const chunks: Buffer[] = [];
    let read = 0;
    response.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > options.maxResponseBytes) {
        const error = new AnswerTooLarge(`The answer is larger than ${options.maxResponseBytes} bytes.`);
        response.destroy(error);
        reject(error);
      } else chunks.push(chunk);
    });
    response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    response.on('error', reject);
    response.on('close', () => {
      if (!response.complete) reject(new Error('The connection closed before the answer ended.'));
    });
  });
}
