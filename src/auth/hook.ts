import type { FastifyReply, FastifyRequest } from 'fastify';
import { problems } from '../lib/problems.js';
import type { Principal, TokenService } from './tokens.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

/**
 * The one authentication hook for every /v1 route. Only the Authorization header is read: a token in
 * the query string is ignored. (The dashboard's cookie is exchanged for the same kind of JWT before this.)
 */
export function authenticationHook(tokens: TokenService) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization;
    if (header === undefined || header === '') throw problems.unauthorized('missing_token', 'A bearer token is required.');
    const match = /^Bearer +([^\s]+) *$/i.exec(header);
    if (!match) throw problems.unauthorized('invalid_token', 'The Authorization header must be "Bearer <token>".');
    request.principal = await tokens.authenticate(match[1]!);
    if (request.principal.credential.kind === 'personal_access_token') {
      // Lets automated clients rotate before expiry (seed 5.7).
      reply.header('sightline-token-expires-at', new Date(request.principal.credential.expiresAt).toISOString());
    }
  };
}
