import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CorsPolicy } from '../lib/cors.js';
import { Problem, problems } from '../lib/problems.js';
import { enforce, type RateLimiter } from '../lib/rate-limit.js';
import type { Principal, TokenService } from './tokens.js';

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
  ratePerMinute: number;
  mintPerMinute: number;
}

/**
 * The one hook in front of every /v1 route: authentication (only the Authorization header is read; a
 * token in the query string is ignored, and the dashboard's cookie is exchanged for the same kind of
 * JWT before this), then the credential's rate limit, then CORS for the caller's organization.
 * Failed authentications count against the client address, so guessing tokens is rate-limited too.
 */
export function accessHook(options: AccessOptions) {
  const { tokens, limiter, cors, ratePerMinute, mintPerMinute } = options;
  return async function access(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const origin = request.headers.origin;
    cors.early(origin, reply);
    try {
      const header = request.headers.authorization;
      if (header === undefined || header === '') throw problems.unauthorized('missing_token', 'A bearer token is required.');
      const match = /^Bearer +([^\s]+) *$/i.exec(header);
      if (!match) throw problems.unauthorized('invalid_token', 'The Authorization header must be "Bearer <token>".');
      request.principal = await tokens.authenticate(match[1]!);
    } catch (error) {
      if (error instanceof Problem && error.status === 401) enforce(await limiter.check(`ip:${request.ip}`, ratePerMinute), reply, 'this client address');
      throw error;
    }
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
  };
}
