import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { normalizeEmail } from '../lib/email.js';

/** Where the built-in development identity provider is mounted. */
export const DEV_IDP_PATH = '/dev-idp';
export const DEV_CLIENT_ID = 'sightline-dashboard';

export interface DevProviderOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

/** `alice` or `alice@example.com` typed at the development sign-in page → an email address. */
export function devEmail(login: string): string {
  const trimmed = normalizeEmail(login);
  return trimmed.includes('@') ? trimmed : `${trimmed || 'developer'}@example.test`;
}

/**
 * An `oidc-provider` (the certified library) whose development interactions let anyone sign in with
 * any login; the login becomes the email claim. Used by `npm start` without an identity provider and
 * by the tests, so both run the very code path a real provider does. Never in production.
 */
export async function createDevProvider(options: DevProviderOptions): Promise<Provider> {
  const { default: Provider } = await import('oidc-provider');
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: `dev-${randomBytes(6).toString('hex')}`, alg: 'ES256', use: 'sig' };
  const configuration: Configuration = {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: options.redirectUris,
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    features: { devInteractions: { enabled: true } },
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 3600, Session: 14 * 86_400, Grant: 14 * 86_400 },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // The dashboard reads the email from the ID token; no userinfo round trip.
    conformIdTokenClaims: false,
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => {
        const email = devEmail(sub);
        return { sub, email, email_verified: true, name: email.split('@')[0] };
      },
    }),
    // A first-party client: no consent screen.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const { client, session } = ctx.oidc;
      if (!client || !session?.accountId) return undefined;
      const grantId = ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  };
  return new Provider(options.issuer, configuration);
}

export type RawHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** A raw handler for requests under `mountPath`: the provider sees the path without the prefix (as under Express's `app.use`). */
export function mountedHandler(provider: Provider, mountPath: string): RawHandler {
  const callback = provider.callback();
  return async (req: IncomingMessage & { originalUrl?: string }, res) => {
    req.originalUrl = req.url ?? '/';
    req.url = req.originalUrl.slice(mountPath.length) || '/';
    await callback(req, res);
  };
}
