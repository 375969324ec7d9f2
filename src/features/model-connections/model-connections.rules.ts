/**
 * Model connections' rules without I/O (docs/evaluators-and-model-connections.md: Model connections): which extra headers are refused,
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

/** What a test call may take beyond the model timeout (the database reads before its request, the spend after): then it is aborted. */
export const TEST_CALL_GRACE_MS = 10_000;
/** How much longer than its call a test's lease lasts (a crashed instance's lease expires then). */
export const TEST_LEASE_EXTRA_MS = 5_000;

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

/** What replaces a secret (the key, an extra header's value) in what an endpoint sent back. */
export const REDACTED = '[redacted]';
/** The shortest run of a secret's characters taken for a piece of it (an echo cut short): shorter ones are left. */
export const MIN_SECRET_PIECE = 8;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The forms a secret may take in an endpoint's answer: as sent, in a JSON string (`/` escaped or not), percent-encoded, in HTML. */
export function secretForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  return [...new Set([secret, json, json.replace(/\//g, '\\/'), encodeURIComponent(secret), secret.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!)])];
}

/** Each run of characters that holds a MIN_SECRET_PIECE-long piece of a form of a secret, replaced by REDACTED. */
function maskPieces(text: string, forms: readonly string[]): string {
  const pieces = new Set<string>();
  for (const form of forms) for (let i = 0; i + MIN_SECRET_PIECE <= form.length; i++) pieces.add(form.slice(i, i + MIN_SECRET_PIECE));
  if (pieces.size === 0) return text;
  const covered = new Uint8Array(text.length);
  for (let i = 0; i + MIN_SECRET_PIECE <= text.length; i++) if (pieces.has(text.slice(i, i + MIN_SECRET_PIECE))) covered.fill(1, i, i + MIN_SECRET_PIECE);
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (!covered[i]) out += text[i];
    else if (i === 0 || !covered[i - 1]) out += REDACTED;
  }
  return out;
}

/**
 * A text an endpoint sent (an error's message, content that is not a verdict) made fit to show and
 * store: every form of every secret (of 4 characters or more) replaced by REDACTED first, then any
 * piece of one left (8 characters or more: an echo cut short), then clipped to `max` characters with
 * `…`, never inside a REDACTED (nor between the halves of a surrogate pair); NUL and unpaired
 * surrogates, which no engine stores, become U+FFFD. Clipping last means a secret that straddles
 * the limit is redacted whole before anything is cut.
 */
export function quoteSafely(text: string, secrets: readonly string[], max: number): string {
  const forms = secrets.filter((secret) => secret.length >= 4).flatMap(secretForms);
  // Longest first, so a form that contains another is replaced whole.
  let out = text;
  for (const form of [...new Set(forms)].sort((a, b) => b.length - a.length)) out = out.split(form).join(REDACTED);
  // Only what may be shown is searched for pieces (one cut at this bound is still found, whole or in part).
  const bound = 4 * max + MIN_SECRET_PIECE;
  const longer = out.length > bound;
  out = maskPieces(out.slice(0, bound), forms);
  if (out.length > max || longer) {
    let cut = Math.min(max, out.length);
    const marker = out.lastIndexOf(REDACTED, cut - 1);
    if (marker !== -1 && marker + REDACTED.length > cut) cut = marker;
    else if (/[\ud800-\udbff]/.test(out[cut - 1] ?? '')) cut -= 1;
    out = `${out.slice(0, cut)}…`;
  }
  return out
    .split('\u0000')
    .join('\ufffd')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}
