import { SightlineProblem } from './errors.js';

/** One attempt of a request, as the transport has prepared it. */
export interface Attempt {
  url: string;
  method: string;
  token: string;
  /** The JSON text to send, if any. */
  body: string | undefined;
  headers: Record<string, string> | undefined;
  signal: AbortSignal | undefined;
  /** A successful answer's body is left unread, for the caller to stream. */
  streaming: boolean;
  /** The attempt's time limit (until the head, when streaming). */
  timeoutMs: number;
  fetch: typeof globalThis.fetch;
}

/** An answer from the server: its whole text, or (a stream's success) none yet. */
export interface Answer {
  response: Response;
  text: string | undefined;
  close(reason?: unknown): void;
}

/** What went wrong on the way, when no answer came. */
export interface Failure {
  error: unknown;
  timedOut: boolean;
}

/**
 * One attempt: the answer with its whole body (or, streaming and successful, with its body unread and
 * the means to stop it), or what went wrong on the way.
 */
export async function attempt(request: Attempt): Promise<Answer | Failure> {
  const { signal, timeoutMs, streaming } = request;
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(signal!.reason);
  if (signal?.aborted) return { error: signal.reason, timedOut: false };
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  const close = (reason?: unknown) => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    if (!controller.signal.aborted) controller.abort(reason ?? new Error('closed'));
  };
  const headers: Record<string, string> = {
    accept: streaming ? 'application/x-ndjson, text/csv, application/problem+json' : 'application/json, application/problem+json',
    authorization: `Bearer ${request.token}`,
    ...request.headers,
  };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  let handedOver = false;
  try {
    const doFetch = request.fetch; // called unbound, as the platform's fetch must be
    const response = await doFetch(request.url, { method: request.method, headers, body: request.body, signal: controller.signal });
    if (streaming && response.ok) {
      // The head is in: the caller reads (and bounds) the body, and stops it with `close`.
      clearTimeout(timer);
      handedOver = true;
      return { response, text: undefined, close };
    }
    const text = await response.text();
    return { response, text, close };
  } catch (error) {
    return { error, timedOut };
  } finally {
    if (!handedOver) {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** Seconds, or an HTTP date, to milliseconds from now. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** An answer that is not a success, as the problem it reports (or one made from its status and text). */
export function problemOf(response: Response, text: string, label: string): SightlineProblem {
  const parsed = safeJson(text);
  const body: Record<string, unknown> =
    parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { title: response.statusText || `HTTP ${response.status}`, status: response.status, detail: text.slice(0, 500) };
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
  return new SightlineProblem({
    status: response.status,
    body,
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfter: retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000),
    request: label,
  });
}
