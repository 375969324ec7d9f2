import type { Kysely } from 'kysely';
import { idType } from './dialect.js';

// Frozen once shipped: never edit a migration that has shipped; add a new one.

/**
 * The audit log (docs/tokens-and-access.md, Audit log): an organization's security-relevant events, each
 * written in the transaction of the change it records. Who acted (the user and their credential; null for
 * the service itself), what (`action`), on what (`target_type`, `target_id`), and the change's details as
 * a JSON object that never holds a secret. Read newest first, by organization alone or with an action or
 * an actor; kept `SIGHTLINE_AUDIT_RETENTION_DAYS`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);
  await db.schema
    .createTable('audit_events')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('organization_id', id, (c) => c.notNull().references('organizations.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('actor_user_id', id)
    .addColumn('actor_credential_kind', 'text')
    .addColumn('actor_credential_id', id)
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', id, (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_events_organization_idx').on('audit_events').columns(['organization_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('audit_events_action_idx').on('audit_events').columns(['organization_id', 'action', 'created_at', 'id']).execute();
  await db.schema.createIndex('audit_events_actor_idx').on('audit_events').columns(['organization_id', 'actor_user_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('audit_events_created_idx').on('audit_events').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_events').execute();
}
