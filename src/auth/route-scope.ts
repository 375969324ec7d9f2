import { Type } from '@sinclair/typebox';
import type { RouteOptions } from 'fastify';
import { problemResponses } from '../lib/problems.js';
import { isScope } from './roles.js';

const NO_QUERY = Type.Object({}, { additionalProperties: false });
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The /v1 plugin's onRoute hook: every /v1 route declares its scope (`config.scope`) or does not
 * register; it is bearer-authenticated and refuses query parameters it does not declare. The problems
 * the shared machinery answers are documented from the declaration: 400 (a refused query parameter, two
 * Authorization headers), 401, 429 and 503 (shed) on every route; 403 on a route that needs a scope; 404
 * on one whose path has a parameter; 408, 413 and 415 on one whose method carries a body (the body
 * admission path reads a body sent to any POST, PUT, PATCH or DELETE, whether the route takes one or
 * not). A route lists only the problems it answers for its own reasons. The scope is documented as the
 * operation's `x-required-scope`.
 */
export function declareV1Route(route: RouteOptions): void {
  const scope: unknown = route.config?.scope;
  if (scope !== 'self' && !isScope(scope)) {
    const declared = scope === undefined ? 'no scope' : `an unknown scope (${JSON.stringify(scope)})`;
    throw new Error(
      `${[route.method].flat().join(',')} ${route.url} declares ${declared}: every /v1 route needs config.scope, a scope of the permission table or 'self'.`,
    );
  }
  const schema = (route.schema ?? {}) as { body?: unknown; response?: Record<number, unknown> };
  const statuses = [400, 401, 429, 503];
  if (scope !== 'self') statuses.push(403);
  if (route.url.includes(':')) statuses.push(404);
  if (schema.body || [route.method].flat().some((method) => BODY_METHODS.has(method))) statuses.push(408, 413, 415);
  route.schema = {
    querystring: NO_QUERY,
    ...schema,
    response: { ...problemResponses(...statuses), ...(schema.response ?? {}) },
    // The scope the route needs, for whoever mints a scoped token for it ('self': any caller, on their own things).
    'x-required-scope': scope,
    security: route.config?.basicCredentials ? [{ bearer: [] }, { basic: [] }] : [{ bearer: [] }],
  } as typeof route.schema;
  route.config = { ...route.config, authenticated: true } as typeof route.config;
}
