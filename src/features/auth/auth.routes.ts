import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply } from 'fastify';
import { assertSameOrigin } from '../../auth/hook.js';
import { IdentityProviderUnavailable, SignInError, type OidcClient } from '../../auth/oidc.js';
import type { SessionService } from '../../auth/sessions.js';
import type { App, Deps } from '../../deps.js';
import { Problem, problems } from '../../lib/problems.js';
import { storeSignInRequest, takeSignInRequest } from './auth.repo.js';
import { resolveSignIn } from './signin.js';
import { SignInStatusSchema } from './auth.schemas.js';

/** How long a sign-in may take between /auth/login and /auth/callback. */
export const SIGN_IN_WINDOW_MS = 10 * 60_000;

export const NOT_CONFIGURED =
  'Sign-in is not configured. Set SIGHTLINE_OIDC_ISSUER, SIGHTLINE_OIDC_CLIENT_ID and SIGHTLINE_OIDC_CLIENT_SECRET ' +
  'to your identity provider (register <public URL>/auth/callback as its redirect URI). The API still works with personal access tokens.';

export interface SignInOptions {
  /** null: no identity provider (production without SIGHTLINE_OIDC_ISSUER). */
  oidc: OidcClient | null;
  sessions: SessionService;
  sessionCookie: string;
  dashboardOrigin: string;
}

const signInFailed = (detail: string) => new Problem('unauthorized', { detail: `Sign-in failed: ${detail}. Start again at /auth/login.` });

/** Dashboard sign-in through OpenID Connect (docs/tokens-and-access.md, Sign-in); outside /v1 and not part of the API document. */
export function authRoutes(app: App, { db, config, clock }: Deps, options: SignInOptions): void {
  const { oidc, sessions, sessionCookie, dashboardOrigin } = options;
  const secure = config.publicUrl.startsWith('https:');
  const stateCookie = secure ? '__Host-sightline_signin' : 'sightline_signin';
  // Every cookie we set: HttpOnly, SameSite=Lax, Path=/ (as the __Host- prefix requires), Secure over https.
  const cookieOptions: CookieSerializeOptions = { path: '/', httpOnly: true, sameSite: 'lax', secure };

  const requireProvider = (): OidcClient => {
    if (!oidc) throw new Problem('service-unavailable', { detail: NOT_CONFIGURED });
    return oidc;
  };
  const unreachable = (error: unknown): never => {
    if (error instanceof IdentityProviderUnavailable) {
      app.log.warn({ issuer: oidc?.issuer }, 'identity provider discovery failed');
      throw new Problem('service-unavailable', { detail: `The identity provider at ${oidc?.issuer} cannot be reached. Retry later.` });
    }
    throw error;
  };
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');

  // What the dashboard's sign-in page says: whether sign-in works here, and through what.
  app.get('/auth/status', { schema: { hide: true, response: { 200: SignInStatusSchema } } }, async (_request, reply) => {
    noStore(reply);
    if (!oidc) return { available: false, development: false, message: NOT_CONFIGURED };
    const development = config.oidc === null;
    return {
      available: true,
      development,
      message: development ? 'Development sign-in: any email and any password work (set SIGHTLINE_OIDC_ISSUER for a real identity provider).' : null,
    };
  });

  app.get('/auth/login', { schema: { hide: true } }, async (_request, reply) => {
    const provider = requireProvider();
    noStore(reply);
    const { pending, url } = await provider.begin().catch(unreachable);
    const now = clock.now();
    await sessions.sweep();
    await storeSignInRequest(db, pending, now, now + SIGN_IN_WINDOW_MS);
    // Binds the sign-in to this browser: a callback without it is refused (login CSRF).
    reply.setCookie(stateCookie, pending.state, { ...cookieOptions, maxAge: SIGN_IN_WINDOW_MS / 1000 });
    return reply.redirect(url, 302);
  });

  app.get('/auth/callback', { schema: { hide: true } }, async (request, reply) => {
    const provider = requireProvider();
    noStore(reply);
    reply.clearCookie(stateCookie, cookieOptions);
    const query = request.query as Record<string, unknown>;
    const state = typeof query.state === 'string' ? query.state : undefined;
    if (!state) throw problems.validation([{ parameter: 'state', detail: 'The callback carries no state.' }]);
    const expected = request.cookies[stateCookie];
    if (expected === undefined || expected !== state) throw signInFailed('this sign-in was not started in this browser (state mismatch)');
    // Single use: whatever happens next, this state cannot be played again.
    const pending = await takeSignInRequest(db, state);
    if (!pending || pending.expires_at <= clock.now()) throw signInFailed('the sign-in request is unknown, expired or already used');
    if (query.error !== undefined) {
      const code = typeof query.error === 'string' && /^[a-z_]{1,64}$/.test(query.error) ? query.error : 'error';
      throw signInFailed(`the identity provider answered ${code}`);
    }
    if (typeof query.code !== 'string' || query.code === '')
      throw problems.validation([{ parameter: 'code', detail: 'The callback carries no authorization code.' }]);

    const callbackUrl = new URL(provider.redirectUri);
    callbackUrl.search = new URL(request.url, 'http://callback.invalid').search;
    let identity;
    try {
      identity = await provider.complete(callbackUrl, { state, nonce: pending.nonce, codeVerifier: pending.code_verifier });
    } catch (error) {
      if (error instanceof SignInError) {
        request.log.info({ reason: error.message }, 'sign-in refused');
        throw signInFailed(error.message);
      }
      return unreachable(error);
    }
    const now = clock.now();
    const { userId, organizationId } = await resolveSignIn(db, identity, config.defaultPlan, now);
    // A new session and a new secret at every sign-in; whatever this browser held before ends (no fixation).
    await sessions.revoke(request.cookies[sessionCookie]);
    const { secret } = await sessions.create(userId, organizationId);
    reply.setCookie(sessionCookie, secret, { ...cookieOptions, maxAge: Math.floor(sessions.absoluteMs / 1000) });
    return reply.redirect('/', 302);
  });

  app.post('/auth/logout', { schema: { hide: true } }, async (request, reply) => {
    assertSameOrigin(request, dashboardOrigin);
    await sessions.revoke(request.cookies[sessionCookie]);
    noStore(reply);
    reply.clearCookie(sessionCookie, cookieOptions);
    return reply.code(204).send();
  });
}
