import { randomBytes } from 'node:crypto';
import { createDevProvider, DEV_CLIENT_ID, DEV_IDP_PATH, mountedHandler, type RawHandler } from '../../auth/dev-idp.js';
import { OidcClient } from '../../auth/oidc.js';
import type { Config } from '../../config.js';
import type { App } from '../../deps.js';

/**
 * The identity provider of dashboard sign-in: the configured one; else, outside production, the
 * built-in development provider mounted at /dev-idp (created on first use); else none.
 */
export function identityProvider(app: App, config: Config): OidcClient | null {
  const redirectUri = `${config.publicUrl}/auth/callback`;
  if (config.oidc) return new OidcClient(config.oidc, redirectUri);
  if (config.production) return null;
  const host = new URL(config.publicUrl).hostname;
  if (!['localhost', '127.0.0.1', '[::1]'].includes(host)) {
    app.log.warn(
      { publicUrl: config.publicUrl },
      "development sign-in is enabled: anyone who reaches this server can sign in with any email (and accept that email's invitations). " +
        'Set SIGHTLINE_OIDC_ISSUER (with the client id and secret), or NODE_ENV=production',
    );
  }
  const issuer = `${config.publicUrl}${DEV_IDP_PATH}`;
  const clientSecret = randomBytes(32).toString('base64url');
  let handler: Promise<RawHandler> | null = null;
  app.route({
    method: ['GET', 'POST'],
    url: `${DEV_IDP_PATH}/*`,
    schema: { hide: true },
    // Before Fastify reads the body: the provider parses its own forms.
    onRequest: async (request, reply) => {
      handler ??= createDevProvider({ issuer, clientId: DEV_CLIENT_ID, clientSecret, redirectUris: [redirectUri] }).then((provider) =>
        mountedHandler(provider, DEV_IDP_PATH),
      );
      reply.hijack();
      await (
        await handler
      )(request.raw, reply.raw);
    },
    handler: async () => undefined,
  });
  return new OidcClient({ issuer, clientId: DEV_CLIENT_ID, clientSecret }, redirectUri);
}
