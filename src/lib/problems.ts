import { Type, type Static } from '@sinclair/typebox';

/** The closed set of problem types (docs/api.md, Errors; `GET /problems/<slug>`). */
export const PROBLEM_TYPES = {
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    about: 'The request carried no credential, or one that is malformed, expired, revoked or otherwise invalid. Mint a new token and retry.',
  },
  forbidden: { status: 403, title: 'Forbidden', about: 'The credential is valid, but the role it resolves to does not allow this action.' },
  'not-found': { status: 404, title: 'Not found', about: 'No such resource in your organization, or no such route.' },
  validation: {
    status: 400,
    title: 'Validation failed',
    about: 'The query, path or body is not acceptable. `errors` lists every fault, each with a JSON pointer into the body or the name of the parameter.',
  },
  'method-not-allowed': {
    status: 405,
    title: 'Method not allowed',
    about: 'The path exists but does not answer this method. `Allow` lists the methods it answers.',
  },
  'request-timeout': {
    status: 408,
    title: 'Request timeout',
    about: 'The request body did not arrive within the body timeout (`SIGHTLINE_BODY_TIMEOUT_SECONDS`). The connection is closed; send the request again.',
  },
  conflict: {
    status: 409,
    title: 'Conflict',
    about:
      'The request conflicts with the current state: a unique name is taken, a finished run was changed, or an idempotent retry carried different content.',
  },
  'payload-too-large': { status: 413, title: 'Payload too large', about: 'The request body exceeds the limit (10 MB).' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type', about: 'Request bodies must be JSON (`Content-Type: application/json`).' },
  'header-fields-too-large': {
    status: 431,
    title: 'Request header fields too large',
    about: "The request headers exceed the server's limit (16 KB in all). A personal access token is well under 1 KB: check what the client sends.",
  },
  'rate-limited': {
    status: 429,
    title: 'Too many requests',
    about: 'The credential (or client address) exceeded its rate limit. Wait for `Retry-After` seconds.',
  },
  'service-unavailable': {
    status: 503,
    title: 'Service unavailable',
    about:
      'The service cannot serve the request right now: it is overloaded (too much work or too many request bodies in flight), shutting down, or its database is unreachable. Retry after `Retry-After` seconds.',
  },
  internal: { status: 500, title: 'Internal error', about: 'Something went wrong on our side. The request id in `instance` identifies it in our logs.' },
} as const;

export type ProblemSlug = keyof typeof PROBLEM_TYPES;

export interface FieldError {
  pointer?: string;
  parameter?: string;
  detail: string;
}

/** Why a credential was refused; `token_for_other_url`: validly signed by this service, for another public URL. */
export const UNAUTHORIZED_REASONS = ['missing_token', 'invalid_token', 'token_expired', 'token_revoked', 'token_for_other_url'] as const;
export type UnauthorizedReason = (typeof UNAUTHORIZED_REASONS)[number];

export interface ProblemInit {
  detail: string;
  errors?: FieldError[];
  reason?: UnauthorizedReason;
  headers?: Record<string, string>;
}

/** Thrown anywhere; the one error handler turns it into `application/problem+json`. */
export class Problem extends Error {
  readonly slug: ProblemSlug;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly errors: FieldError[] | undefined;
  readonly reason: UnauthorizedReason | undefined;
  readonly headers: Record<string, string>;

  constructor(slug: ProblemSlug, init: ProblemInit) {
    super(init.detail);
    this.slug = slug;
    this.status = PROBLEM_TYPES[slug].status;
    this.title = PROBLEM_TYPES[slug].title;
    this.detail = init.detail;
    this.errors = init.errors;
    this.reason = init.reason;
    this.headers = init.headers ?? {};
  }
}

export const CURSOR_MALFORMED = 'Cursor is malformed.';

export const problems = {
  unauthorized(reason: UnauthorizedReason, detail: string): Problem {
    const challenge = reason === 'missing_token' ? 'Bearer realm="sightline"' : 'Bearer realm="sightline", error="invalid_token"';
    return new Problem('unauthorized', { detail, reason, headers: { 'www-authenticate': challenge } });
  },
  forbidden(detail: string): Problem {
    return new Problem('forbidden', { detail });
  },
  notFound(detail: string): Problem {
    return new Problem('not-found', { detail });
  },
  validation(errors: FieldError[], detail?: string): Problem {
    return new Problem('validation', {
      detail: detail ?? (errors.length === 1 ? errors[0]!.detail : `${errors.length} problems with the request.`),
      errors,
    });
  },
  cursorMalformed(): Problem {
    return new Problem('validation', { detail: CURSOR_MALFORMED, errors: [{ parameter: 'cursor', detail: CURSOR_MALFORMED }] });
  },
  /** A 409; `headers` such as `Retry-After` when the conflict passes by itself. */
  conflict(detail: string, headers: Record<string, string> = {}): Problem {
    return new Problem('conflict', { detail, headers });
  },
  /** The client closed its connection while its request waited (for its body, or for a slot): no one reads this answer. */
  clientGone(): Problem {
    return new Problem('validation', {
      detail: 'The client closed the connection before the request was processed.',
      errors: [{ pointer: '', detail: 'The connection closed.' }],
    });
  },
  /** A 503 that tells the client when to come back (`Retry-After`, in seconds). */
  unavailable(detail: string, retryAfterSeconds: number, headers: Record<string, string> = {}): Problem {
    return new Problem('service-unavailable', { detail, headers: { 'retry-after': String(retryAfterSeconds), ...headers } });
  },
};

export const FieldErrorSchema = Type.Object(
  {
    pointer: Type.Optional(Type.String({ description: 'JSON pointer into the request body' })),
    parameter: Type.Optional(Type.String({ description: 'Name of the query or path parameter' })),
    detail: Type.String(),
  },
  { additionalProperties: false },
);

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ format: 'uri', description: '`{problem_base}/<slug>`' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.Optional(Type.String({ description: 'The request id of this occurrence' })),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
    reason: Type.Optional(
      Type.Union(
        UNAUTHORIZED_REASONS.map((reason) => Type.Literal(reason)),
        { description: 'On a 401: why the credential was refused.' },
      ),
    ),
  },
  { $id: 'Problem', title: 'Problem', description: 'RFC 9457 problem document' },
);
export type ProblemBody = Static<typeof ProblemSchema>;

export function problemBody(problem: Problem, problemBase: string, requestId: string | undefined): ProblemBody {
  const body: ProblemBody = {
    type: `${problemBase}/${problem.slug}`,
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
  };
  if (requestId) body.instance = `urn:sightline:request:${requestId}`;
  if (problem.errors) body.errors = problem.errors;
  if (problem.reason) body.reason = problem.reason;
  return body;
}

/** Response-schema entries for the problem statuses a route can answer with (used for OpenAPI). */
export function problemResponses(...statuses: number[]): Record<number, unknown> {
  const out: Record<number, unknown> = {};
  for (const status of statuses) {
    const slug = (Object.keys(PROBLEM_TYPES) as ProblemSlug[]).find((s) => PROBLEM_TYPES[s].status === status);
    out[status] = {
      description: slug ? PROBLEM_TYPES[slug].title : 'Problem',
      content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
    };
  }
  return out;
}
