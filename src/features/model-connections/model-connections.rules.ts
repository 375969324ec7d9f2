/**
 * Model connections' rules without I/O (README: Model connections): which extra headers are refused,
 * what an answer shows of a key, the month a spend counts in, and where the chat completions are.
 */

/** Headers a connection may not set: the key goes in `apiKey`; the others frame the request, which is ours. */
const REFUSED_HEADERS = new Set([
  'authorization',
  'host',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

/** Each refused extra header, as `{ name, detail }`. */
export function headerFaults(headers: Record<string, string>): { name: string; detail: string }[] {
  const seen = new Set<string>();
  const faults: { name: string; detail: string }[] = [];
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'authorization') faults.push({ name, detail: 'Give the key as apiKey: it is sent as Authorization: Bearer <apiKey>.' });
    else if (REFUSED_HEADERS.has(lower) || lower.startsWith('proxy-')) faults.push({ name, detail: `${name} is set by the service, not by a connection.` });
    else if (seen.has(lower)) faults.push({ name, detail: `${name} is given twice (header names are case-insensitive).` });
    seen.add(lower);
  }
  return faults;
}

/** What an answer shows of a key: its last 4 characters, or nothing of a key too short to spare them. */
export function keyHint(key: string): string {
  return key.length >= 12 ? `…${key.slice(-4)}` : '…';
}

/** The calendar month (UTC) of an instant, as `YYYY-MM`: the month a call's cost counts in. */
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** Picodollars (10^-12 USD) per dollar: spends are kept and added as whole picodollars. */
export const PICO = 1e12;
export const toPico = (usd: number): number => Math.round(usd * PICO);
export const fromPico = (pico: number): number => pico / PICO;

/** The chat completions URL of a base URL: its path with `/chat/completions` added (its query kept, as Azure's `api-version`). */
export function chatCompletionsUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
  url.hash = '';
  return url.toString();
}

/** A base URL as stored: without trailing slashes or a fragment. */
export function normalizeBaseUrl(raw: string): string {
  const url = new URL(raw);
  url.hash = '';
  const text = url.toString();
  return url.search === '' ? text.replace(/\/+$/, '') : text;
}
