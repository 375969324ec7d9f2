import type { App, Deps } from '../../deps.js';
import { problems } from '../../lib/problems.js';
import { allowedScopes, grantLimits } from '../../auth/permissions.js';
import { MeSchema } from './me.schemas.js';
import { getOrganization, getUser, toOrganization, toUser } from '../organizations/index.js';

export function meRoutes(app: App, { db }: Deps): void {
  app.get('/me', {
    config: { scope: 'self' },
    schema: {
      operationId: 'getMe',
      tags: ['Identity'],
      summary: 'The authenticated user, their organization and role',
      description:
        'Also the credential of this request: its kind (personal access token or session), id and expiry, and what a scoped token is narrowed to; `scopes`: what it may do now.',
      response: { 200: MeSchema },
    },
    handler: async (request) => {
      const { userId, organizationId, role, credential } = request.principal;
      const [user, organization] = await Promise.all([getUser(db, userId), getOrganization(db, organizationId)]);
      if (!user || !organization) throw problems.unauthorized('invalid_token', 'The bearer token is invalid.');
      return {
        user: toUser(user),
        organization: toOrganization(organization),
        role,
        scopes: allowedScopes(request.principal),
        token: {
          kind: credential.kind,
          id: credential.id,
          expiresAt: new Date(credential.expiresAt).toISOString(),
          ...grantLimits(request.principal),
        },
      };
    },
  });
}
