import type { Kysely } from 'kysely';
import type { ActorCredentialKind, AuditAction } from '../../db/audit-actions.js';
import type { AuditEventRow, Database } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';

export function toAuditEvent(row: AuditEventRow) {
  return {
    id: row.id,
    createdAt: toIso(row.created_at),
    action: row.action as AuditAction,
    actor: {
      userId: row.actor_user_id,
      credential: row.actor_credential_kind === null ? null : { kind: row.actor_credential_kind as ActorCredentialKind, id: row.actor_credential_id },
    },
    target: { type: row.target_type, id: row.target_id },
    details: JSON.parse(row.details) as Record<string, unknown>,
  };
}

/** The organization's events, newest first, by action, actor and time ([from, to)). */
export function listAudit(
  db: Kysely<Database>,
  organizationId: string,
  filters: { action?: string | undefined; actorId?: string | undefined; from?: number | undefined; to?: number | undefined },
  after: Position | null,
  take: number,
): Promise<KeysetRows<AuditEventRow>> {
  let query = db.selectFrom('audit_events').selectAll().where('organization_id', '=', organizationId);
  if (filters.action !== undefined) query = query.where('action', '=', filters.action);
  if (filters.actorId !== undefined) query = query.where('actor_user_id', '=', filters.actorId);
  if (filters.from !== undefined) query = query.where('created_at', '>=', filters.from);
  if (filters.to !== undefined) query = query.where('created_at', '<', filters.to);
  return keysetPage(query, { sort: 'created_at', id: 'id' }, after, take);
}

/** Deletes events older than `before`, at most `batch` at a time; how many it deleted. */
export async function purgeAudit(db: Kysely<Database>, before: number, batch = 1000): Promise<number> {
  const ids = await db.selectFrom('audit_events').select('id').where('created_at', '<', before).limit(batch).execute();
  if (ids.length === 0) return 0;
  await db
    .deleteFrom('audit_events')
    .where(
      'id',
      'in',
      ids.map((row) => row.id),
    )
    .execute();
  return ids.length;
}
