import type { Kysely } from 'kysely';
import { newId } from '../lib/ids.js';
import type { Database } from './schema.js';

/*
 * The audit log's writer (docs/tokens-and-access.md, Audit log), in the kernel: the access layer (sessions,
 * token reuse) and the features that change what it records all write through it, each in the transaction of
 * its change. The list and its route are `features/audit/`.
 */

export { ACTOR_CREDENTIAL_KINDS, AUDIT_ACTIONS, type ActorCredentialKind, type AuditAction } from './audit-actions.js';
import type { ActorCredentialKind, AuditAction } from './audit-actions.js';

/** Who acted: a user and their credential, or the service itself (`SERVICE`). */
export interface AuditActor {
  userId: string | null;
  credential: { kind: ActorCredentialKind; id: string | null } | null;
}

export const SERVICE: AuditActor = { userId: null, credential: null };

/** The actor of a request: its principal's user and credential. */
export function actorOf(principal: { userId: string; credential: { kind: 'personal_access_token' | 'session'; id: string } }): AuditActor {
  return { userId: principal.userId, credential: { kind: principal.credential.kind, id: principal.credential.id } };
}

/** The `sightline` command acting for a user (`token create`, its bootstrap). */
export const cliActor = (userId: string | null): AuditActor => ({ userId, credential: { kind: 'cli', id: null } });

export interface AuditInput {
  organizationId: string;
  actor: AuditActor;
  action: AuditAction;
  target: { type: string; id: string };
  /** What changed: never a secret (a token, a key, a header's value). */
  details?: Record<string, unknown>;
  at: number;
}

/**
 * Records an event of the audit log. Called with the transaction of the change it records (`db` is then a
 * `Transaction`): the event is stored if and only if the change is.
 */
export async function recordAudit(db: Kysely<Database>, event: AuditInput): Promise<void> {
  await db
    .insertInto('audit_events')
    .values({
      id: newId('aud', event.at),
      organization_id: event.organizationId,
      created_at: event.at,
      actor_user_id: event.actor.userId,
      actor_credential_kind: event.actor.credential?.kind ?? null,
      actor_credential_id: event.actor.credential?.id ?? null,
      action: event.action,
      target_type: event.target.type,
      target_id: event.target.id,
      details: JSON.stringify(event.details ?? {}),
    })
    .execute();
}

/** A change and its event in one transaction: `event` is given the change's result (null: nothing to record). */
export function audited<T>(db: Kysely<Database>, change: (trx: Kysely<Database>) => Promise<T>, event: (result: T) => AuditInput | null): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const result = await change(trx);
    const recorded = event(result);
    if (recorded !== null) await recordAudit(trx, recorded);
    return result;
  });
}
