/**
 * The response headers the server sends, documented once (`components/headers` of the API document)
 * and referenced from every response that carries them. Which response carries which follows the
 * hooks that set them: `responseHeaders` is that rule, checked against real responses in tests.
 */

const integer = { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;
const text = (maxLength: number) => ({ type: 'string', maxLength }) as const;

export const HEADER_COMPONENTS = {
  'X-Request-Id': {
    description:
      'The id of this request: the `X-Request-Id` the client sent when it is sane (1..64 of A-Z a-z 0-9 . _ : -), else a generated one. It is the `instance` of a problem.',
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,64}$', maxLength: 64 },
  },
  'RateLimit-Limit': {
    description: 'Requests allowed per minute (sliding window) for this credential, or for this client address where no credential is used.',
    schema: integer,
  },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: integer },
  'RateLimit-Reset': { description: 'Seconds until more of the limit is available again.', schema: integer },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: integer },
  'WWW-Authenticate': {
    description: 'The bearer challenge (RFC 6750): `Bearer realm="sightline"`, with `error="invalid_token"` unless the credential was missing.',
    schema: text(200),
  },
  'Sightline-Token-Expires-At': {
    description: 'When the personal access token of this request expires (RFC 3339), so that automated clients rotate it in time. Absent for session tokens.',
    schema: { type: 'string', format: 'date-time', maxLength: 64 },
  },
  ETag: { description: 'A strong validator of the body: send it back in `If-None-Match` to get a 304 while nothing changed.', schema: text(64) },
  'Cache-Control': { description: '`no-store` on every /v1 response; how long a public answer may be cached elsewhere.', schema: text(100) },
  'Access-Control-Allow-Origin': {
    description: "The request's `Origin`, when it is the dashboard's or one the caller's organization allows (CORS).",
    schema: text(300),
  },
  'Access-Control-Allow-Credentials': { description: '`true` for the dashboard’s origin only.', schema: { type: 'string', enum: ['true'] } },
  'Access-Control-Expose-Headers': { description: 'The headers above that a browser script may read.', schema: text(300) },
  Vary: { description: '`Origin` when the request carried one.', schema: text(100) },
} as const;

export type HeaderName = keyof typeof HEADER_COMPONENTS;

const RATE_LIMIT: HeaderName[] = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
const CORS: HeaderName[] = ['Access-Control-Allow-Origin', 'Access-Control-Allow-Credentials', 'Access-Control-Expose-Headers', 'Vary'];

/** What decides a route's headers: how its requests are admitted, and the headers it sets itself. */
export interface HeaderFacts {
  /** A /v1 route: authenticated, rate-limited per credential, CORS by organization, `no-store`. */
  authenticated: boolean;
  /** Rate-limited per client address (routes outside /v1 but the health checks). */
  limitedByAddress: boolean;
  /** Headers the route sets itself, by status. */
  own?: Partial<Record<number, readonly HeaderName[]>>;
}

/**
 * The headers a response of `status` may carry. Every one carries `X-Request-Id` (the first hook).
 * On /v1 the access hook sets the rate-limit headers (also on a refused credential, counted against
 * the client address), CORS for an allowed `Origin`, and after authentication the token's expiry (so
 * not on 401 nor on 429, refused before it); `Cache-Control: no-store` is set on every /v1 answer. A
 * 429 and a 503 tell when to come back.
 */
export function responseHeaders(facts: HeaderFacts, status: number): HeaderName[] {
  const names: HeaderName[] = ['X-Request-Id'];
  if (facts.authenticated || facts.limitedByAddress) names.push(...RATE_LIMIT);
  if (status === 429 || status === 503) names.push('Retry-After');
  if (facts.authenticated) {
    if (status === 401) names.push('WWW-Authenticate');
    if (status !== 401 && status !== 429) names.push('Sightline-Token-Expires-At');
    names.push('Cache-Control', ...CORS);
  }
  for (const name of facts.own?.[status] ?? []) if (!names.includes(name)) names.push(name);
  return names;
}
