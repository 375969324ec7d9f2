import type { FastifyReply } from 'fastify';
import { problems } from './problems.js';

const ALLOW_METHODS = 'GET, POST, PUT, PATCH, DELETE';
const ALLOW_HEADERS = 'authorization, content-type, if-none-match, x-request-id';
const EXPOSE_HEADERS = 'x-request-id, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, sightline-token-expires-at, etag';

/**
 * Which origins organizations allow: CORS asks, the organizations feature answers (it owns the
 * lists), and `buildApp` wires one to the other.
 */
export interface OriginAllowList {
  /** True when some organization allows the origin (preflight requests are not authenticated). */
  isAllowedAnywhere(origin: string): Promise<boolean>;
  /** True when the organization allows the origin. */
  isAllowedFor(organizationId: string, origin: string): Promise<boolean>;
}

/**
 * CORS by organization (docs/tokens-and-access.md, CORS). The dashboard's own origin is always allowed (and the only one that
 * may send credentials); any other origin must be on the caller's organization's list. Never the
 * library default of "any origin".
 */
export class CorsPolicy {
  readonly dashboardOrigin: string;

  constructor(
    private readonly origins: OriginAllowList,
    publicUrl: string,
  ) {
    this.dashboardOrigin = new URL(publicUrl).origin;
  }

  private allow(reply: FastifyReply, origin: string): void {
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-expose-headers', EXPOSE_HEADERS);
    if (origin === this.dashboardOrigin) reply.header('access-control-allow-credentials', 'true');
  }

  /** Preflight: answered for the dashboard's origin and origins some organization allows, for no other. */
  async preflight(origin: string | undefined, reply: FastifyReply): Promise<void> {
    reply.header('vary', 'Origin');
    if (!origin || (origin !== this.dashboardOrigin && !(await this.origins.isAllowedAnywhere(origin)))) {
      throw problems.forbidden(`Origin ${String(origin).slice(0, 200)} is not allowed.`);
    }
    this.allow(reply, origin);
    reply.header('access-control-allow-methods', ALLOW_METHODS);
    reply.header('access-control-allow-headers', ALLOW_HEADERS);
    reply.header('access-control-max-age', '600');
  }

  /** Before authentication: the dashboard may read every answer, errors included. */
  early(origin: string | undefined, reply: FastifyReply): void {
    if (origin === undefined) return;
    reply.header('vary', 'Origin');
    if (origin === this.dashboardOrigin) this.allow(reply, origin);
  }

  /**
   * After authentication: any other origin must be allowed for the caller's organization, else 403.
   * Without an origin to look up (no Origin, or the dashboard's) it is done at once: no promise.
   */
  check(origin: string | undefined, organizationId: string, reply: FastifyReply): Promise<void> | undefined {
    if (origin === undefined || origin === this.dashboardOrigin) return undefined;
    return this.checkOther(origin, organizationId, reply);
  }

  private async checkOther(origin: string, organizationId: string, reply: FastifyReply): Promise<void> {
    if (!(await this.origins.isAllowedFor(organizationId, origin))) {
      throw problems.forbidden(`Origin ${origin.slice(0, 200)} is not allowed for this organization.`);
    }
    this.allow(reply, origin);
  }
}
