import { allows, assertCan, grantLimits, inTableOrder, reaches, type Scope } from '../../auth/permissions.js';
import { actorOf } from '../../db/audit.js';
import type { Principal } from '../../auth/tokens.js';
import type { Database } from '../../db/schema.js';
import type { Kysely } from 'kysely';
import type { App, Deps } from '../../deps.js';
import { routeKit } from '../route-kit.js';
import { problems } from '../../lib/problems.js';
import { issuePersonalAccessToken, listTokens, projectsOfOrganization, revokeToken, rotateToken, toTokenRecord, type TokenLimits } from './tokens.repo.js';
import { createTokenBody, NewTokenSchema, TokenPage, TokenParams } from './tokens.schemas.js';

const tags = ['Tokens'];

export function tokenRoutes(app: App, { db, clock, cursors, tokens, config }: Deps): void {
  const route = routeKit(app, { tags, cursors });

  route.page(
    '/tokens',
    {
      scope: 'self',
      operationId: 'listTokens',
      summary: "List the caller's personal access tokens",
      description: 'Newest first. Never includes the token strings.',
      page: TokenPage,
    },
    async ({ principal: { organizationId, userId } }) => ({
      identity: { endpoint: 'tokens', organizationId, parents: [userId] },
      fetch: (after, take) => listTokens(db, { organizationId, userId }, after, take),
    }),
    toTokenRecord,
  );

  route.create(
    '/tokens',
    {
      scope: 'self',
      mintsTokens: true,
      operationId: 'createToken',
      summary: 'Mint a personal access token',
      description:
        'The token inherits your organization role, resolved on every request; `scopes` and `projectIds` narrow it further (docs/tokens-and-access.md, Scoped tokens). ' +
        'A scope your credential does not allow now is a 403; a project that is not one of yours a 400. A token minted by a narrowed token is narrowed as far at least (its limits, when none are sent). ' +
        'The string is shown once.',
      body: createTokenBody(config),
      answer: NewTokenSchema,
      problems: [403],
    },
    async (request) => {
      const days = request.body.expiresInDays ?? config.patDefaultDays;
      if (days > config.patMaxDays) {
        throw problems.validation([{ pointer: '/expiresInDays', detail: `Must be between ${config.patMinDays} and ${config.patMaxDays} days.` }]);
      }
      const { organizationId, userId } = request.principal;
      const limits = await requestedLimits(db, request.principal, request.body);
      const input = { organizationId, userId, name: request.body.name, expiresInDays: days, limits, actor: actorOf(request.principal) };
      const { row, token } = await issuePersonalAccessToken(db, tokens, input, clock.now());
      return { ...toTokenRecord(row), token };
    },
  );

  route.create(
    '/tokens/:token_id/rotate',
    {
      scope: 'self',
      mintsTokens: true,
      operationId: 'rotateToken',
      summary: 'Rotate a token',
      description:
        'A new token with the same name and lifetime, shown once; the old one stops working at once (or after SIGHTLINE_PAT_ROTATION_GRACE_SECONDS). ' +
        'Rotating a token that was already rotated or revoked is treated as theft: 401, and every token rotated from the same original is revoked.',
      params: TokenParams,
      answer: NewTokenSchema,
      problems: [403],
    },
    async (request) => {
      const { row, token } = await rotateToken(db, tokens, request.principal, request.params.token_id, clock.now(), config.patRotationGraceSeconds * 1000);
      return { ...toTokenRecord(row), token };
    },
  );

  route.delete(
    '/tokens/:token_id',
    {
      scope: 'self',
      operationId: 'revokeToken',
      summary: 'Revoke a token',
      description:
        'Your own token, or any token of the organization for admins. It fails with 401 from then on, on every instance. ' +
        "A narrowed token revokes only tokens narrowed as far (403); one narrowed to projects, only its own user's.",
      params: TokenParams,
      outcome: 'Revoked',
      problems: [403],
    },
    (request) => {
      const { principal } = request;
      // Any token of the organization: an admin's credential, unless narrowed to projects (its reach is theirs alone).
      const anyToken = allows(principal, 'tokens:admin') && principal.projects === undefined;
      return revokeToken(db, principal.organizationId, request.params.token_id, anyToken ? null : principal, clock.now(), actorOf(principal));
    },
  );
}

/**
 * The limits of a token to mint: the scopes asked for, each of them allowed to the caller's credential now
 * (its role and its own token's scopes: else the 403 `assertCan` answers), in the permission table's order;
 * the projects asked for, each a project of the organization the caller reaches (else a 400 that tells no
 * more than "does not exist"). What is not asked for is what the caller's own token is narrowed to.
 */
async function requestedLimits(
  db: Kysely<Database>,
  principal: Principal,
  body: { scopes?: readonly Scope[] | undefined; projectIds?: readonly string[] | undefined },
): Promise<TokenLimits> {
  let { scopes, projectIds } = grantLimits(principal);
  if (body.scopes !== undefined) {
    for (const scope of body.scopes) assertCan(principal, scope);
    scopes = inTableOrder(body.scopes);
  }
  if (body.projectIds !== undefined) {
    const found = await projectsOfOrganization(db, principal.organizationId, body.projectIds);
    const faults = body.projectIds.flatMap((id, i) =>
      found.has(id) && reaches(principal, id) ? [] : [{ pointer: `/projectIds/${i}`, detail: `Project ${id} does not exist.` }],
    );
    if (faults.length > 0) throw problems.validation(faults);
    projectIds = [...body.projectIds];
  }
  return { scopes, projectIds };
}
