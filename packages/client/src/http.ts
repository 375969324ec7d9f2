import { Credentials, type TokenProvider } from './credentials.js';
import { SightlineNetworkError } from './errors.js';
import { attempt, parseRetryAfter, problemOf, safeJson, type Answer } from './http-attempt.js';

export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  /** `429`, `502`, `503`, `504`, `network` or `timeout`. */
  reason: string;
  request: string;
}

export interface ClientOptions {
  /** The service's address, e.g. `https://sightline.example.com` (a trailing `/v1` is accepted). */
  baseUrl: string;
  /** A personal access token. Give this or `tokenProvider`. */
  token?: string;
  tokenProvider?: TokenProvider;
  /** The fetch to use (default: the platform's `globalThis.fetch`). */
  fetch?: typeof globalThis.fetch;
  /** Retries of an idempotent request after 429, 502, 503, 504, a dropped connection or a timeout (default 3). */
  retries?: number;
  /** Time limit of one attempt, headers and body included (default 30 s). */
  timeoutMs?: number;
  /** First backoff delay; it doubles per retry, with jitter (default 250 ms). */
  backoffMs?: number;
  /** Longest backoff delay (default 10 s). */
  maxBackoffMs?: number;
  /** A `Retry-After` longer than this is not waited for: the 429 surfaces instead (default 60 s). */
  maxRetryAfterMs?: number;
  /** Told before every retry (for logs and metrics). */
  onRetry?: (info: RetryInfo) => void;
}

export type QueryValue = string | number | boolean | null | Date | undefined | readonly (string | number | boolean)[];
export type Query = { [key: string]: QueryValue };

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below `/v1`, e.g. `/projects/prj_1/runs`. */
  path: string;
  query?: Query | undefined;
  body?: unknown;
  /**
   * Whether the request may be sent again after a failure it may have survived. GET, PUT and DELETE
   * are; POST and PATCH only when the caller says so (run creation with client ids).
   */
  idempotent?: boolean;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
  /** Accept 304 Not Modified (conditional GETs) instead of treating it as an error. */
  allowNotModified?: boolean;
  /** Internal: requests of a credential rotation pass the rotation's hold on other requests. */
  exclusive?: boolean;
}

export interface ApiResponse<T> {
  status: number;
  data: T;
  headers: Headers;
}

/** A successful answer whose body is read as it arrives (an export). */
export interface StreamResponse {
  status: number;
  headers: Headers;
  /** The body's bytes, as they arrive. */
  body: ReadableStream<Uint8Array>;
  /** Stops the transfer (the connection is aborted); safe to call more than once. */
  close(reason?: unknown): void;
}

const RETRY_STATUSES = new Set([429, 502, 503, 504]);

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  const scalar = (value: string | number | boolean | null | Date): string =>
    value === null ? 'null' : value instanceof Date ? value.toISOString() : String(value);
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value as readonly (string | number | boolean)[]) params.append(key, scalar(item));
    else params.append(key, scalar(value as string | number | boolean | null | Date));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The one place requests are made: base URL, bearer token, JSON, problems as errors, retries with
 * jittered exponential backoff (idempotent requests only), per-attempt time limits, token renewal.
 */
export class Transport {
  readonly baseUrl: string;
  private readonly credentials: Credentials;
  private readonly fetchImpl: typeof globalThis.fetch | undefined;
  readonly retries: number;
  private readonly timeoutMs: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly onRetry: ((info: RetryInfo) => void) | undefined;
  /** The expiry the server reported for a token (`Sightline-Token-Expires-At`). */
  private expiry: { token: string; expiresAt: string } | null = null;
  private inflight = 0;
  private idleWaiters: (() => void)[] = [];
  private hold: Promise<void> | null = null;

  constructor(options: ClientOptions) {
    if (typeof options.baseUrl !== 'string' || !/^https?:\/\//i.test(options.baseUrl)) throw new TypeError('baseUrl must be an http(s) URL');
    if ((options.token === undefined) === (options.tokenProvider === undefined)) throw new TypeError('Give exactly one of token and tokenProvider');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.credentials = new Credentials(options.token, options.tokenProvider);
    this.fetchImpl = options.fetch;
    this.retries = Math.max(0, Math.floor(options.retries ?? 3));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.backoffMs = options.backoffMs ?? 250;
    this.maxBackoffMs = options.maxBackoffMs ?? 10_000;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
    this.onRetry = options.onRetry;
  }

  /** Whether the token comes from a `tokenProvider` (else it is a fixed string). */
  get usesTokenProvider(): boolean {
    return this.credentials.fromProvider;
  }

  /** Replaces a fixed token (after a rotation). */
  setToken(token: string): void {
    this.credentials.set(token);
  }

  currentToken(): Promise<string> {
    return this.credentials.current();
  }

  /** The expiry the server last reported for the token in use now, if any request has shown it. */
  async tokenExpiresAt(): Promise<string | undefined> {
    const token = await this.credentials.current();
    return this.expiry?.token === token ? this.expiry.expiresAt : undefined;
  }

  /**
   * Runs `fn` alone: waits for requests in flight to finish and holds new ones until it is done (a
   * rotation must not race a request still carrying the old token: the server treats that as theft).
   */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    while (this.hold) await this.hold;
    let release!: () => void;
    this.hold = new Promise((resolve) => (release = resolve));
    try {
      while (this.inflight > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
      return await fn();
    } finally {
      this.hold = null;
      release();
    }
  }

  private backoff(retry: number): number {
    const ceiling = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** (retry - 1));
    return ceiling / 2 + Math.random() * (ceiling / 2); // "equal jitter": never less than half
  }

  /** The time limit of one attempt (a stream's reader waits at most this long for its next bytes). */
  get attemptTimeoutMs(): number {
    return this.timeoutMs;
  }

  /** Waits before retry number `attempt` of `request` (a stream resumed after a drop), telling `onRetry`. */
  async pauseBeforeRetry(attempt: number, request: string, reason: string, signal: AbortSignal | undefined): Promise<void> {
    const delayMs = this.backoff(attempt);
    this.onRetry?.({ attempt, delayMs, reason, request });
    await sleep(delayMs, signal);
  }

  async request<T>(spec: RequestSpec): Promise<ApiResponse<T>> {
    const { response, text } = await this.guarded(spec, false);
    return { status: response.status, data: (text === undefined || text.length === 0 ? null : safeJson(text)) as T, headers: response.headers };
  }

  /**
   * Like `request`, with the same retries until the answer's head arrives, but the body is left to the
   * caller to read as it streams; the time limit then applies to the head only (the caller bounds its
   * reads). A problem answer is read in full and thrown as usual.
   */
  async stream(spec: RequestSpec): Promise<StreamResponse> {
    const { response, close } = await this.guarded(spec, true);
    return { status: response.status, headers: response.headers, body: response.body ?? new Response('').body!, close };
  }

  private async guarded(spec: RequestSpec, streaming: boolean): Promise<Answer> {
    if (!spec.exclusive) while (this.hold) await this.hold;
    this.inflight += 1;
    try {
      return await this.send(spec, streaming);
    } finally {
      this.inflight -= 1;
      if (this.inflight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  private async send(spec: RequestSpec, streaming: boolean): Promise<Answer> {
    const label = `${spec.method} /v1${spec.path}`;
    const url = `${this.baseUrl}/v1${spec.path}${queryString(spec.query)}`;
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const idempotent = spec.idempotent ?? (spec.method === 'GET' || spec.method === 'PUT' || spec.method === 'DELETE');
    let retriesUsed = 0;
    let renewed = false;
    let attempts = 0;
    let tokenOverride: string | null = null;
    for (;;) {
      const token = tokenOverride ?? (await this.credentials.current());
      tokenOverride = null;
      attempts += 1;
      const outcome = await attempt({
        url,
        method: spec.method,
        token,
        body,
        headers: spec.headers,
        signal: spec.signal,
        streaming,
        timeoutMs: this.timeoutMs,
        fetch: this.fetchImpl ?? globalThis.fetch,
      });
      if ('error' in outcome) {
        if (spec.signal?.aborted) throw spec.signal.reason;
        const kind = outcome.timedOut ? 'timeout' : 'connection';
        if (idempotent && retriesUsed < this.retries) {
          retriesUsed += 1;
          const delayMs = this.backoff(retriesUsed);
          this.onRetry?.({ attempt: retriesUsed, delayMs, reason: outcome.timedOut ? 'timeout' : 'network', request: label });
          await sleep(delayMs, spec.signal);
          continue;
        }
        throw new SightlineNetworkError({ kind, request: label, attempts, cause: outcome.error });
      }
      const { response } = outcome;
      const expires = response.headers.get('sightline-token-expires-at');
      if (expires) this.expiry = { token, expiresAt: expires };
      if (response.ok || (response.status === 304 && spec.allowNotModified)) return outcome;
      const text = outcome.text ?? ''; // only a stream's success leaves it unread
      const problem = problemOf(response, text, label);
      if (response.status === 401 && !renewed && this.credentials.refreshable) {
        // A 401 means the request was not carried out, so any request may be sent again (once).
        renewed = true;
        const fresh = await this.credentials.refresh(token, problem);
        if (fresh !== null) {
          tokenOverride = fresh;
          continue;
        }
      }
      if (RETRY_STATUSES.has(response.status) && idempotent && retriesUsed < this.retries) {
        const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
        if (retryAfterMs === undefined || retryAfterMs <= this.maxRetryAfterMs) {
          retriesUsed += 1;
          const delayMs = retryAfterMs === undefined ? this.backoff(retriesUsed) : retryAfterMs + Math.random() * Math.min(250, retryAfterMs * 0.1);
          this.onRetry?.({ attempt: retriesUsed, delayMs, reason: String(response.status), request: label });
          await sleep(delayMs, spec.signal);
          continue;
        }
      }
      throw problem;
    }
  }
}
