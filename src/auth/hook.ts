import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CorsPolicy } from '../lib/cors.js';
import { Problem, problems } from '../lib/problems.js';
import { enforce, type RateLimiter } from '../lib/rate-limit.js';
import { assertCan, reaches, type Scope } from './permissions.js';
import type { SessionService } from './sessions.js';
import type { Principal, TokenService } from './tokens.js';

/** A route's declared need: a scope of the permission table, or `self` (only authentication). */
export type RouteScope = Scope | 'self';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Longer than any credential this service mints (a personal access token is well under 1 KB): such an
 * Authorization header is refused as it is, before it is parsed or verified.
 */
const MAX_AUTHORIZATION_LENGTH = 4096;

/**
 * How many Authorization fields raw headers (name, value, name, value, …) carry. Node keeps only the
 * first in `headers`; a second one (a proxy adding its own, a client merging two configurations) must
 * not be silently dropped.
 */
export function authorizationFields(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.length === 13 && rawHeaders[i]!.toLowerCase() === 'authorization') count++;
  return count;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
    /**
     * The user part of a `Basic` credential on a route that takes one (`basicCredentials`): Langfuse's
     * public key, which names the project. Undefined for a bearer token.
     */
    credentialProject?: string;
  }
  interface FastifyContextConfig {
    /** A stricter per-user limit for routes that mint credentials (token creation and rotation). */
    mintsTokens?: boolean;
    /** Set on every /v1 route: authenticated and limited per credential by the access hook. */
    authenticated?: boolean;
    /**
     * What a /v1 route needs, checked by the access hook after authentication: a scope of the caller's
     * role, or `self` for routes any authenticated principal may call on their own things. A /v1 route
     * without it does not register.
     */
    scope?: RouteScope;
    /**
     * Also takes `Authorization: Basic base64(<project>:<token>)`, the way Langfuse's SDKs send their
     * public and secret keys: the token (the password) is verified as a bearer token is, and the project
     * (the user) is `request.credentialProject`.
     */
    basicCredentials?: boolean;
    /**
     * How a route without a `:project_id` in its path serves a token narrowed to projects (docs/tokens-and-access.md,
     * Scoped tokens): `listed`, it answers with those projects only (the projects list); `routed`, it stores into
     * projects it names otherwise and checks each of them (OTLP, Langfuse's ingestion). Such a token's requests to
     * other routes without a project in their path (organization-wide ones) are a 403, but for `self` routes.
     */
    projects?: 'listed' | 'routed';
  }
}

/** What checking a bearer credential needs: the token service, and the limiter its refusals count against. */
export interface BearerOptions {
  tokens: TokenService;
  limiter: RateLimiter;
  /** Refused credentials per minute per client address before the answer is a 429. */
  ratePerMinute: number;
}

export interface AccessOptions extends BearerOptions {
  cors: CorsPolicy;
  sessions: SessionService;
  /** Name of the dashboard's session cookie. */
  sessionCookie: string;
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
 * `Authorization: Bearer <token>` (and, given `basic`, `Basic base64(<user>:<token>)`, the user handed to it) → the caller: exactly one such field (two are a 400), no longer than
 * any credential this service issues (a 401 before parsing), the token verified by `TokenService`
 * (signature with the algorithm allow-list, issuer, audience, type, expiry; the token row: revocation,
 * the user's current role). The access hook and the OTLP/gRPC receiver (at a call's metadata, before the
 * call takes any of its places) both authenticate with it.
 */
export function bearerPrincipal(tokens: TokenService, header: string | undefined, fields: number, basic?: (user: string) => void): Promise<Principal> {
  try {
    if (fields > 1) {
      throw problems.validation([{ parameter: 'Authorization', detail: `The request carries ${fields} Authorization headers; send exactly one.` }]);
    }
    if (header === undefined || header === '') throw problems.unauthorized('missing_token', 'A bearer token is required.');
    if (header.length > MAX_AUTHORIZATION_LENGTH) {
      throw problems.unauthorized(
        'invalid_token',
        `The Authorization header is longer than any credential this service issues (over ${MAX_AUTHORIZATION_LENGTH} characters).`,
      );
    }
    if (basic && /^Basic(?: |$)/i.test(header)) {
      const { user, password } = basicParts(header);
      if (password === '') throw problems.unauthorized('missing_token', 'The Basic credential has no secret key: send a Sightline token as the password.');
      basic(user);
      return tokens.authenticate(password);
    }
    const match = /^Bearer +([^\s]+) *$/i.exec(header);
    if (!match) throw problems.unauthorized('invalid_token', basic ? BASIC_OR_BEARER : 'The Authorization header must be "Bearer <token>".');
    return tokens.authenticate(match[1]!);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const BASIC_OR_BEARER =
  'The Authorization header must be "Bearer <token>", or "Basic " and the base64 of "<project>:<token>" (a Langfuse public and secret key).';

/** The user and password of a `Basic` header (RFC 7617): base64 of UTF-8 "user:password"; a 401 when it is not that. */
function basicParts(header: string): { user: string; password: string } {
  const match = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header);
  let text: string | null = null;
  try {
    if (match && match[1]!.length % 4 !== 1) text = UTF8.decode(Buffer.from(match[1]!, 'base64'));
  } catch {
    // not UTF-8
  }
  const colon = text?.indexOf(':') ?? -1;
  if (text === null || colon < 0) throw problems.unauthorized('invalid_token', BASIC_OR_BEARER);
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

/**
 * The caller `checking` finds; a refused credential (401, or an ambiguous one: 400) counts against the
 * client address, so guessing tokens is rate-limited too, and past that limit the answer is the 429.
 */
async function countingRefusals(options: BearerOptions, ip: string, reply: FastifyReply | null, checking: Promise<Principal>): Promise<Principal> {
  try {
    return await checking;
  } catch (error) {
    if (error instanceof Problem && (error.status === 401 || error.status === 400))
      enforce(await options.limiter.check(`ip:${ip}`, options.ratePerMinute), reply, 'this client address');
    throw error;
  }
}

/** A caller that is no Fastify request: its Authorization values (metadata of a gRPC call) and its address. */
export interface BearerCall {
  authorization: string | undefined;
  /** How many Authorization fields it carries. */
  fields: number;
  ip: string;
}

/**
 * The access hook's checks for a caller outside Fastify's hooks (the OTLP/gRPC receiver, at a call's
 * metadata): the bearer credential (`bearerPrincipal`, refusals counted against the address as the hook
 * counts them), then the scope (a 403). The credential's own rate limit stays the hook's: the call's
 * request passes it.
 */
export function bearerAccess(options: BearerOptions): (call: BearerCall, scope: Scope) => Promise<Principal> {
  return async (call, scope) => {
    const principal = await countingRefusals(options, call.ip, null, bearerPrincipal(options.tokens, call.authorization, call.fields));
    assertCan(principal, scope);
    return principal;
  };
}

/**
 * The one hook in front of every /v1 route: authentication (only the Authorization header is read, by
 * `bearerPrincipal`; a token in the query string is ignored; without the header, the dashboard's session
 * cookie is exchanged for a short-lived session JWT that takes the very same path; cookie-authenticated
 * requests that change state must come from the dashboard's origin), then the credential's rate limit,
 * then CORS for the caller's organization, then the scope the route declares (a 403 before the handler,
 * its lookups or the body). Failed authentications count against the client address.
 */
export function accessHook(options: AccessOptions) {
  const { tokens, limiter, cors, sessions, sessionCookie, ratePerMinute, mintPerMinute } = options;
  // Every request runs this: one wait (the credential's check), and the rest synchronous unless a
  // limit is counted in Redis or an origin is looked up.
  return async function access(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    cors.early(request.headers.origin, reply);
    const principal = await countingRefusals(options, request.ip, reply, credentialOf(request));
    request.principal = principal;
    const counted = limiter.check(`credential:${principal.credential.id}`, ratePerMinute);
    const general = counted instanceof Promise ? await counted : counted;
    enforce(general, reply);
    if (request.routeOptions.config.mintsTokens) {
      const mint = await limiter.check(`mint:${principal.organizationId}:${principal.userId}`, mintPerMinute);
      // The RateLimit-* headers report the policy closest to exhaustion, so Remaining never promises too much.
      if (!mint.allowed || mint.remaining < general.remaining) enforce(mint, reply, 'minting tokens');
    }
    const lookingUp = cors.check(request.headers.origin, principal.organizationId, reply);
    if (lookingUp !== undefined) await lookingUp;
    if (principal.credential.kind === 'personal_access_token') {
      // Lets automated clients rotate before expiry (docs/tokens-and-access.md, Token lifecycle).
      reply.header('sightline-token-expires-at', isoTime(principal.credential.expiresAt));
    }
    const { scope } = request.routeOptions.config;
    // Closed when undeclared, though the /v1 plugin registers no such route.
    if (scope === undefined) throw new Error(`${request.method} ${request.routeOptions.url} declares no scope.`);
    if (scope !== 'self') assertCan(principal, scope);
    if (principal.projects !== undefined) assertReaches(request, principal, scope);
  };

  /** The caller (a rejected promise if refused): by the Authorization header, or without one by the dashboard's session cookie. */
  function credentialOf(request: FastifyRequest): Promise<Principal> {
    const fields = authorizationFields(request.raw.rawHeaders);
    const header = request.headers.authorization;
    const session = fields <= 1 && (header === undefined || header === '') ? request.cookies[sessionCookie] : undefined;
    if (session === undefined) {
      const basic = request.routeOptions.config.basicCredentials ? (user: string) => (request.credentialProject = user) : undefined;
      return bearerPrincipal(tokens, header, fields, basic);
    }
    try {
      if (STATE_CHANGING.has(request.method)) assertSameOrigin(request, cors.dashboardOrigin);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    return sessions.exchange(session).then((jwt) => tokens.authenticate(jwt, 'session'));
  }
}

/**
 * A token narrowed to projects: a project in the path must be one of them, else the very 404 of a project
 * that does not exist (a narrowed token learns nothing of the others); a route without one must serve
 * such a token (`config.projects`) or be its caller's own (`self`), else a 403.
 */
function assertReaches(request: FastifyRequest, principal: Principal, scope: RouteScope): void {
  const projectId = (request.params as { project_id?: unknown } | undefined)?.project_id;
  if (typeof projectId === 'string') {
    if (!reaches(principal, projectId)) throw problems.notFound(`Project ${projectId} does not exist.`);
    return;
  }
  if (scope === 'self' || request.routeOptions.config.projects !== undefined) return;
  const count = principal.projects?.size ?? 0;
  throw problems.forbidden(
    `This token is limited to ${count === 1 ? 'one project' : `${count} projects`}: it reaches their routes, not organization-wide ones.`,
  );
}

/** An instant as ISO 8601 text; the last one kept (a credential's expiry, the same on each of its requests). */
const isoTime = (() => {
  let lastMs = Number.NaN;
  let lastText = '';
  return (ms: number): string => {
    if (ms !== lastMs) {
      lastText = new Date(ms).toISOString();
      lastMs = ms;
    }
    return lastText;
  };
})();
