import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CorsPolicy } from '../lib/cors.js';
import { Problem, problems } from '../lib/problems.js';
import { enforce, type RateLimiter } from '../lib/rate-limit.js';
import type { SessionService } from './sessions.js';
import type { Principal, TokenService } from './tokens.js';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** A stricter per-user limit for routes that mint credentials (token creation and rotation). */
    mintsTokens?: boolean;
    /** Set on every /v1 route: authenticated and limited per credential by the access hook. */
    authenticated?: boolean;
  }
}

export interface AccessOptions {
  tokens: TokenService;
  limiter: RateLimiter;
  cors: CorsPolicy;
  sessions: SessionService;
  /** Name of the dashboard's session cookie. */
  sessionCookie: string;
  ratePerMinute: number;
  mintPerMinute: number;
}

/**
 * Login-CSRF's sibling: a request authenticated by the cookie that changes state must come from the
 * dashboard itself, by its `Origin`, or without one by `Sec-Fetch-Site: same-origin`.
 */
export function assertSameOrigin(request: FastifyRequest, dashboardOrigin: string): void {
  const origin = request.headers.origin;
  const site = request.headers['sec-fetch-site'];
  const sameOrigin = origin !== undefined ? origin === dashboardOrigin : site === 'same-origin';
  if (!sameOrigin) throw problems.forbidden('A request that changes state with the session cookie must come from the dashboard (its Origin).');
}

/**
 * The one hook in front of every /v1 route: authentication (only the Authorization header is read; a
 * token in the query string is ignored; without the header, the dashboard's session cookie is
 * exchanged for a short-lived session JWT that takes the very same path; cookie-authenticated
 * requests that change state must come from the dashboard's origin), then the credential's rate
 * limit, then CORS for the caller's organization.
 * Failed authentications count against the client address, so guessing tokens is rate-limited too.
 */
export function accessHook(options: AccessOptions) {
  const { tokens, limiter, cors, sessions, sessionCookie, ratePerMinute, mintPerMinute } = options;
  return async function access(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const origin = request.headers.origin;
    cors.early(origin, reply);
    try {
      const header = request.headers.authorization;
      const session = header === undefined || header === '' ? request.cookies[sessionCookie] : undefined;
      if (session !== undefined) {
        if (STATE_CHANGING.has(request.method)) assertSameOrigin(request, cors.dashboardOrigin);
        request.principal = await tokens.authenticate(await sessions.exchange(session), 'session');
      } else {
        if (header === undefined || header === '') throw problems.unauthorized('missing_token', 'A bearer token is required.');
        const match = /^Bearer +([^\s]+) *$/i.exec(header);
        if (!match) throw problems.unauthorized('invalid_token', 'The Authorization header must be "Bearer <token>".');
        request.principal = await tokens.authenticate(match[1]!);
      }
    } catch (error) {
      if (error instanceof Problem && error.status === 401) enforce(await limiter.check(`ip:${request.ip}`, ratePerMinute), reply, 'this client address');
      throw error;
    }
    await afterAuthentication(request, reply);
  };

  async function afterAuthentication(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const origin = request.headers.origin;
    const { principal } = request;
    const general = await limiter.check(`credential:${principal.credential.id}`, ratePerMinute);
    enforce(general, reply);
    if (request.routeOptions.config.mintsTokens) {
      const mint = await limiter.check(`mint:${principal.organizationId}:${principal.userId}`, mintPerMinute);
      // The RateLimit-* headers report the policy closest to exhaustion, so Remaining never promises too much.
      if (!mint.allowed || mint.remaining < general.remaining) enforce(mint, reply, 'minting tokens');
    }
    await cors.check(origin, principal.organizationId, reply);
    if (principal.credential.kind === 'personal_access_token') {
      // Lets automated clients rotate before expiry (seed 5.7).
      reply.header('sightline-token-expires-at', new Date(principal.credential.expiresAt).toISOString());
    }
  }
}
