import { Type } from '@sinclair/typebox';
import { can } from '../../auth/permissions.js';
import type { App, Deps } from '../../deps.js';
import { pageRoute } from '../page-route.js';
import { problems } from '../../lib/problems.js';
import { issuePersonalAccessToken, listTokens, revokeToken, rotateToken, toTokenRecord } from './tokens.repo.js';
import { createTokenBody, NewTokenSchema, TokenPage, TokenParams } from './tokens.schemas.js';

const tags = ['Tokens'];

export function tokenRoutes(app: App, { db, clock, cursors, tokens, config }: Deps): void {
  pageRoute(
    app,
    cursors,
    '/tokens',
    {
      scope: 'self',
      operationId: 'listTokens',
      tags,
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

  app.post('/tokens', {
    config: { scope: 'self', mintsTokens: true },
    schema: {
      operationId: 'createToken',
      tags,
      summary: 'Mint a personal access token',
      description: 'The token inherits your organization role, resolved on every request. The string is shown once.',
      body: createTokenBody(config),
      response: { 201: NewTokenSchema },
    },
    handler: async (request, reply) => {
      const days = request.body.expiresInDays ?? config.patDefaultDays;
      if (days > config.patMaxDays) {
        throw problems.validation([{ pointer: '/expiresInDays', detail: `Must be between ${config.patMinDays} and ${config.patMaxDays} days.` }]);
      }
      const { organizationId, userId } = request.principal;
      const { row, token } = await issuePersonalAccessToken(db, tokens, { organizationId, userId, name: request.body.name, expiresInDays: days }, clock.now());
      return reply.code(201).send({ ...toTokenRecord(row), token });
    },
  });

  app.post('/tokens/:token_id/rotate', {
    config: { scope: 'self', mintsTokens: true },
    schema: {
      operationId: 'rotateToken',
      tags,
      summary: 'Rotate a token',
      description:
        'A new token with the same name and lifetime, shown once; the old one stops working at once (or after SIGHTLINE_PAT_ROTATION_GRACE_SECONDS). ' +
        'Rotating a token that was already rotated or revoked is treated as theft: 401, and every token rotated from the same original is revoked.',
      params: TokenParams,
      response: { 201: NewTokenSchema },
    },
    handler: async (request, reply) => {
      const { row, token } = await rotateToken(db, tokens, request.principal, request.params.token_id, clock.now(), config.patRotationGraceSeconds * 1000);
      return reply.code(201).send({ ...toTokenRecord(row), token });
    },
  });

  app.delete('/tokens/:token_id', {
    config: { scope: 'self' },
    schema: {
      operationId: 'revokeToken',
      tags,
      summary: 'Revoke a token',
      description: 'Your own token, or any token of the organization for admins. It fails with 401 from then on, on every instance.',
      params: TokenParams,
      response: { 204: Type.Null({ description: 'Revoked' }) },
    },
    handler: async (request, reply) => {
      const { organizationId, userId } = request.principal;
      await revokeToken(db, organizationId, request.params.token_id, can(request.principal.role, 'tokens:admin') ? null : userId, clock.now());
      return reply.code(204).send(null);
    },
  });
}
