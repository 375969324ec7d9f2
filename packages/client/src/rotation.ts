import type { Sightline } from './client.js';
import type { NewToken } from './types.js';

export interface RotateBeforeExpiryOptions {
  client: Sightline;
  /**
   * Receives the new token (and its record) after a rotation: write it to your secret store. Until it
   * resolves no other request of this client is sent. A client built with a fixed `token` switches to
   * the new one by itself; with a `tokenProvider`, make `getToken()` return it from now on.
   */
  store: (token: string, record: NewToken) => void | Promise<void>;
  /** Rotate when the token expires in less than this many days (default 7). */
  thresholdDays?: number;
  /** The current time (for tests). */
  now?: () => number;
}

export type RotateResult =
  | { rotated: true; token: NewToken; previousExpiresAt: string }
  | { rotated: false; expiresAt: string | undefined; reason: 'not_due' | 'not_a_personal_access_token' };

/**
 * Rotates the client's personal access token when it is close to expiry (docs/tokens-and-access.md, Token lifecycle): reads the expiry
 * the server reports (`Sightline-Token-Expires-At`, seen on every answer, else `GET /v1/me`), and when
 * it is less than `thresholdDays` away calls `POST /v1/tokens/{id}/rotate`, hands the new token to
 * `store` and uses it from then on. Requests in flight are let finish first and new ones wait until
 * the new token is stored, since the server treats any use of a rotated-away token as theft (it
 * revokes the whole rotation family). Run it from one process per token, e.g. once a day.
 */
export async function rotateBeforeExpiry(options: RotateBeforeExpiryOptions): Promise<RotateResult> {
  const { client, store } = options;
  const thresholdMs = (options.thresholdDays ?? 7) * 86_400_000;
  const now = options.now ?? Date.now;
  let expiresAt = await client.tokenExpiresAt();
  if (expiresAt !== undefined && Date.parse(expiresAt) - now() >= thresholdMs) return { rotated: false, expiresAt, reason: 'not_due' };
  return client.http.exclusive(async () => {
    const me = (await client.http.request<Awaited<ReturnType<Sightline['me']['get']>>>({ method: 'GET', path: '/me', exclusive: true })).data;
    if (me.token.kind !== 'personal_access_token') return { rotated: false, expiresAt: me.token.expiresAt, reason: 'not_a_personal_access_token' } as const;
    expiresAt = me.token.expiresAt;
    if (Date.parse(expiresAt) - now() >= thresholdMs) return { rotated: false, expiresAt, reason: 'not_due' } as const;
    const fresh = (
      await client.http.request<NewToken>({ method: 'POST', path: `/tokens/${encodeURIComponent(me.token.id)}/rotate`, idempotent: false, exclusive: true })
    ).data;
    // The old token no longer works: switch first (a fixed-token client), then store.
    if (!client.http.usesTokenProvider) client.setToken(fresh.token);
    await store(fresh.token, fresh);
    return { rotated: true, token: fresh, previousExpiresAt: expiresAt };
  });
}
