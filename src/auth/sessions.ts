import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { audited } from '../db/audit.js';
import type { Database, SessionRow } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { problems } from '../lib/problems.js';
import { hashToken, type TokenService } from './tokens.js';

/** The session JWT minted for one request lives at most this long (at most 5 minutes: a stolen one is short-lived). */
export const SESSION_JWT_TTL_MS = 5 * 60_000;
const TOUCH_EVERY_MS = 60_000;
const SWEEP_GRACE_MS = 86_400_000;
/** 256 random bits, base64url. */
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function sessionCookieName(publicUrl: string): string {
  return publicUrl.startsWith('https:') ? '__Host-sightline_session' : 'sightline_session';
}

/** Whether a session row is usable now: not revoked, within its absolute and idle timeouts. */
export function sessionLive(row: Pick<SessionRow, 'revoked_at' | 'expires_at' | 'last_seen_at'>, now: number, idleMs: number): boolean {
  return row.revoked_at === null && row.expires_at > now && row.last_seen_at + idleMs > now;
}

/**
 * Server-side dashboard sessions. The cookie carries a random secret of 256 bits; the database holds
 * only its hash. On every request the secret is exchanged for a short-lived session JWT that then
 * takes the one authentication path (TokenService.authenticate).
 */
export class SessionService {
  readonly idleMs: number;
  readonly absoluteMs: number;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly tokens: TokenService,
    config: Pick<Config, 'sessionIdleMinutes' | 'sessionAbsoluteHours'>,
    private readonly clock: Clock,
  ) {
    this.idleMs = config.sessionIdleMinutes * 60_000;
    this.absoluteMs = config.sessionAbsoluteHours * 3_600_000;
  }

  /** A new session with a new secret: every sign-in gets one (no fixation). Returns the cookie value. */
  async create(userId: string, organizationId: string): Promise<{ secret: string; row: SessionRow }> {
    const now = this.clock.now();
    const secret = randomBytes(32).toString('base64url');
    const row: SessionRow = {
      id: newId('ses', now),
      secret_hash: hashToken(secret),
      user_id: userId,
      organization_id: organizationId,
      created_at: now,
      last_seen_at: now,
      expires_at: now + this.absoluteMs,
      revoked_at: null,
    };
    // A sign-in: the audit log's `session.created`, in the session's own transaction.
    await audited(
      this.db,
      (trx) => trx.insertInto('sessions').values(row).execute(),
      () => ({
        organizationId,
        actor: { userId, credential: { kind: 'session', id: row.id } },
        action: 'session.created',
        target: { type: 'user', id: userId },
        at: now,
      }),
    );
    return { secret, row };
  }

  /** Ends the session the cookie names, if any. */
  async revoke(secret: string | undefined): Promise<void> {
    if (!secret || !SECRET_PATTERN.test(secret)) return;
    await this.db
      .updateTable('sessions')
      .set({ revoked_at: this.clock.now() })
      .where('secret_hash', '=', hashToken(secret))
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** The cookie's secret → a session JWT (≤ 5 minutes), or the 401 problem. */
  async exchange(secret: string): Promise<string> {
    const invalid = () => problems.unauthorized('invalid_token', 'The session is invalid or has ended. Sign in again.');
    if (!SECRET_PATTERN.test(secret)) throw invalid();
    const row = await this.db.selectFrom('sessions').selectAll().where('secret_hash', '=', hashToken(secret)).executeTakeFirst();
    const now = this.clock.now();
    if (!row) throw invalid();
    if (row.revoked_at !== null) throw problems.unauthorized('token_revoked', 'The session has ended. Sign in again.');
    if (!sessionLive(row, now, this.idleMs)) throw problems.unauthorized('token_expired', 'The session has expired. Sign in again.');
    if (now - row.last_seen_at >= TOUCH_EVERY_MS) {
      await this.db.updateTable('sessions').set({ last_seen_at: now }).where('id', '=', row.id).where('last_seen_at', '<', now).execute();
    }
    return this.tokens.sign('session', {
      sub: row.user_id,
      org: row.organization_id,
      jti: row.id,
      iat: now,
      exp: Math.min(now + SESSION_JWT_TTL_MS, row.expires_at),
    });
  }

  /**
   * Deletes sign-in requests that expired, and sessions ended (expired, idle too long or revoked) more
   * than a day ago: until then an ended session's cookie still gets its precise 401 reason.
   */
  async sweep(): Promise<void> {
    const now = this.clock.now();
    const ended = now - SWEEP_GRACE_MS;
    await this.db.deleteFrom('auth_requests').where('expires_at', '<=', now).execute();
    await this.db
      .deleteFrom('sessions')
      .where((eb) => eb.or([eb('expires_at', '<=', ended), eb('revoked_at', '<=', ended), eb('last_seen_at', '<=', ended - this.idleMs)]))
      .execute();
  }
}
