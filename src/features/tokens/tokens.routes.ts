import { can } from '../../auth/permissions.js';
import type { App, Deps } from '../../deps.js';
import { routeKit } from '../route-kit.js';
import { problems } from '../../lib/problems.js';
import { issuePersonalAccessToken, listTokens, revokeToken, rotateToken, toTokenRecord } from './tokens.repo.js';
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
      description: 'The token inherits your organization role, resolved on every request. The string is shown once.',
      body: createTokenBody(config),
      answer: NewTokenSchema,
    },
    async (request) => {
      const days = request.body.expiresInDays ?? config.patDefaultDays;
      if (days > config.patMaxDays) {
        throw problems.validation([{ pointer: '/expiresInDays', detail: `Must be between ${config.patMinDays} and ${config.patMaxDays} days.` }]);
      }
      const { organizationId, userId } = request.principal;
      const { row, token } = await issuePersonalAccessToken(db, tokens, { organizationId, userId, name: request.body.name, expiresInDays: days }, clock.now());
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
      description: 'Your own token, or any token of the organization for admins. It fails with 401 from then on, on every instance.',
      params: TokenParams,
      outcome: 'Revoked',
    },
    (request) => {
      const { organizationId, userId } = request.principal;
      return revokeToken(db, organizationId, request.params.token_id, can(request.principal.role, 'tokens:admin') ? null : userId, clock.now());
    },
  );
}
