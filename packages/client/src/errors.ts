import type { FieldError, ProblemDocument } from './types.js';

/**
 * An RFC 9457 problem document answered by the server, as an error. Every non-2xx answer becomes one
 * (an answer that is not a problem document, say a proxy's HTML 502, gets `type: "about:blank"`).
 */
export class SightlineProblem extends Error {
  override readonly name = 'SightlineProblem';
  /** The problem type URI, `{problem_base}/<slug>`. */
  readonly type: string;
  readonly title: string;
  /** The HTTP status of the answer. */
  readonly status: number;
  readonly detail: string;
  /** Every fault of a validation problem, each with a JSON `pointer` into the body or a `parameter` name. */
  readonly errors: FieldError[];
  /** The problem's `instance`, when the server gave one. */
  readonly instance: string | undefined;
  /** The answer's `X-Request-Id`: quote it when asking the operator what happened. */
  readonly requestId: string | undefined;
  /** For 401s: `missing_token`, `invalid_token`, `token_expired`, `token_revoked` or `token_for_other_url`. */
  readonly reason: string | undefined;
  /** For 429s (and 503s): the server's `Retry-After`, in seconds. */
  readonly retryAfter: number | undefined;
  /** The request that failed, as `METHOD /v1/path`. */
  readonly request: string;
  /** The whole problem document (extension members included). */
  readonly body: Record<string, unknown>;

  constructor(init: {
    status: number;
    body: Partial<ProblemDocument> & Record<string, unknown>;
    requestId?: string | undefined;
    retryAfter?: number | undefined;
    request: string;
  }) {
    const { body } = init;
    const title = typeof body.title === 'string' ? body.title : `HTTP ${init.status}`;
    const detail = typeof body.detail === 'string' ? body.detail : '';
    super(`${init.request}: ${init.status} ${title}${detail ? `: ${detail}` : ''}${init.requestId ? ` (request ${init.requestId})` : ''}`);
    this.type = typeof body.type === 'string' ? body.type : 'about:blank';
    this.title = title;
    this.status = typeof body.status === 'number' ? body.status : init.status;
    this.detail = detail;
    this.errors = Array.isArray(body.errors) ? (body.errors as FieldError[]) : [];
    this.instance = typeof body.instance === 'string' ? body.instance : undefined;
    this.requestId = init.requestId ?? requestIdOfInstance(this.instance);
    this.reason = typeof body.reason === 'string' ? body.reason : undefined;
    this.retryAfter = init.retryAfter;
    this.request = init.request;
    this.body = body;
  }

  /** The last segment of `type` (`validation`, `not-found`, `rate-limited`, …), or `about:blank`. */
  get slug(): string {
    if (this.type === 'about:blank') return this.type;
    return this.type.slice(this.type.lastIndexOf('/') + 1);
  }
}

function requestIdOfInstance(instance: string | undefined): string | undefined {
  const prefix = 'urn:sightline:request:';
  return instance?.startsWith(prefix) ? instance.slice(prefix.length) : undefined;
}

/**
 * The request never got an answer: the connection was refused or dropped, DNS failed, or the attempt
 * timed out. Distinct from a SightlineProblem (which is an answer). Idempotent requests are retried
 * before this surfaces; `attempts` says how many were made.
 */
export class SightlineNetworkError extends Error {
  override readonly name = 'SightlineNetworkError';
  /** `timeout` when an attempt exceeded `timeoutMs`, else `connection`. */
  readonly kind: 'timeout' | 'connection';
  readonly request: string;
  readonly attempts: number;

  constructor(init: { kind: 'timeout' | 'connection'; request: string; attempts: number; cause: unknown }) {
    const cause = init.cause as { message?: string; cause?: { code?: string; message?: string } } | undefined;
    const why = init.kind === 'timeout' ? 'timed out' : (cause?.cause?.code ?? cause?.cause?.message ?? cause?.message ?? 'connection failed');
    super(`${init.request}: ${why} (after ${init.attempts} attempt${init.attempts === 1 ? '' : 's'})`, { cause: init.cause });
    this.kind = init.kind;
    this.request = init.request;
    this.attempts = init.attempts;
  }
}
