import * as client from 'openid-client';
import { normalizeEmail } from '../lib/email.js';

export interface IdentityProviderSettings {
  issuer: string;
  clientId: string;
  /** Empty for a public client (PKCE only). */
  clientSecret: string;
}

export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface SignedInIdentity {
  email: string;
  name: string;
}

/** Why a sign-in failed, in words safe to show (never the provider's raw answer). */
export class SignInError extends Error {}

export class IdentityProviderUnavailable extends Error {}

const SCOPE = 'openid email profile';

/**
 * The relying party of dashboard sign-in: authorization code with PKCE (S256), `state` and `nonce`,
 * through `openid-client`. Discovery happens on first use (the built-in development provider is
 * only discoverable once the server listens) and is retried after a failure.
 */
export class OidcClient {
  private configuration: Promise<client.Configuration> | null = null;

  constructor(
    private readonly settings: IdentityProviderSettings,
    readonly redirectUri: string,
  ) {}

  get issuer(): string {
    return this.settings.issuer;
  }

  private discover(): Promise<client.Configuration> {
    this.configuration ??= this.load().catch((error: unknown) => {
      this.configuration = null;
      throw error;
    });
    return this.configuration;
  }

  private async load(): Promise<client.Configuration> {
    const { issuer, clientId, clientSecret } = this.settings;
    // Plain http only where the issuer itself is http (the development provider, a loopback test one).
    const insecure = issuer.startsWith('http:');
    let discovered: client.Configuration;
    try {
      discovered = await client.discovery(new URL(issuer), clientId, undefined, undefined, insecure ? { execute: [client.allowInsecureRequests] } : undefined);
    } catch (error) {
      throw new IdentityProviderUnavailable(`discovery of ${issuer} failed: ${(error as Error).message}`);
    }
    const metadata = discovered.serverMetadata();
    const supported = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
    const auth =
      clientSecret === ''
        ? client.None()
        : supported.includes('client_secret_basic')
          ? client.ClientSecretBasic(clientSecret)
          : client.ClientSecretPost(clientSecret);
    const configuration = new client.Configuration(metadata, clientId, clientSecret === '' ? undefined : clientSecret, auth);
    if (insecure) client.allowInsecureRequests(configuration);
    return configuration;
  }

  /** A fresh pending sign-in and the provider's URL to send the browser to. */
  async begin(): Promise<{ pending: PendingSignIn; url: string }> {
    const configuration = await this.discover();
    const pending: PendingSignIn = { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri,
      scope: SCOPE,
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { pending, url: url.href };
  }

  /**
   * Exchanges the code of the callback URL; openid-client checks `state`, `iss`, the PKCE verifier
   * (at the provider) and the ID token with its `nonce`. Returns the identity from the ID token.
   */
  async complete(callbackUrl: URL, pending: PendingSignIn): Promise<SignedInIdentity> {
    const configuration = await this.discover();
    let claims: client.IDToken | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        pkceCodeVerifier: pending.codeVerifier,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (error) {
      throw new SignInError(describe(error));
    }
    if (!claims) throw new SignInError('the identity provider returned no ID token');
    const email = typeof claims.email === 'string' ? normalizeEmail(claims.email) : '';
    if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new SignInError('the identity provider returned no email address (grant the "email" scope)');
    if (claims.email_verified === false) throw new SignInError('the identity provider says the email address is not verified');
    const name = typeof claims.name === 'string' && claims.name.trim() !== '' ? claims.name.trim().slice(0, 200) : email.split('@')[0]!;
    return { email, name };
  }
}

function describe(error: unknown): string {
  if (error instanceof client.ResponseBodyError) return `the identity provider refused the code (${error.error})`;
  if (error instanceof client.AuthorizationResponseError) return `the identity provider answered with an error (${error.error})`;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^OAUTH_[A-Z_]+$/.test(code)) return `the identity provider's answer did not verify (${code})`;
  return 'the identity provider could not be reached or answered unexpectedly';
}
