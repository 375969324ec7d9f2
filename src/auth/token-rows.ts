import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../db/dialect.js';
import { prepared } from '../db/prepared.js';
import { readStateColumn } from '../db/read-state.js';
import type { Database } from '../db/schema.js';

/* The personal access token rows the access hook reads on every request (`TokenService`). */

/** The token row and its user's current role: read on every request, so revocation and role changes apply at once. */
export const tokenWithRole = prepared((db, tokenId: string) => tokenRowsQuery(db).where('t.id', '=', tokenId));

/** PostgreSQL: the rows of several tokens in one statement (one snapshot), for the requests of one batch. */
export const tokensWithRole = prepared((db, tokenIds: readonly string[]) => tokenRowsQuery(db).where('t.id', '=', sql<string>`any(${tokenIds})`));

/**
 * Under load, a batch of token rows starts at most once a millisecond: a request waits up to 1 ms to share
 * the round trip (PostgreSQL; on loopback its system call alone costs ~0.1 ms of this process's CPU) or the
 * reading of the state (SQLite) with the requests arriving meanwhile. A request after a quiet millisecond
 * does not wait.
 */
export const BATCH_INTERVAL_MS = 1;

export function byId(rows: TokenRow[]): Map<string, TokenRow> {
  return new Map(rows.map((row) => [row.id, row]));
}

function tokenRowsQuery(db: Kysely<Database>) {
  return (
    db
      .selectFrom('personal_access_tokens as t')
      .leftJoin('memberships as m', (join) => join.onRef('m.organization_id', '=', 't.organization_id').onRef('m.user_id', '=', 't.user_id'))
      .select([
        't.id',
        't.user_id',
        't.organization_id',
        't.token_hash',
        't.expires_at',
        't.revoked_at',
        't.revoked_reason',
        't.family_id',
        't.last_used_at',
        't.scopes',
        't.project_ids',
        'm.role',
      ])
      // In the same statement, so that knowing the state costs no query of its own.
      .select(readStateColumn(dialectOf(db)).as('read_state'))
  );
}

export type TokenRow = Awaited<ReturnType<typeof tokenWithRole>>[number];
