import type { Kysely } from 'kysely';
import { idType } from './dialect.js';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);

  // Custom CORS origins. `source` is 'organization' (counted against the plan's quota) or 'operator'
  // (added with the CLI beyond the quota).
  await db.schema
    .createTable('organization_origins')
    .addColumn('organization_id', id, (c) => c.notNull().references('organizations.id'))
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('organization_origins_pk', ['organization_id', 'origin'])
    .execute();
  await db.schema.createIndex('organization_origins_origin_idx').on('organization_origins').columns(['origin']).execute();

  await db.schema
    .createTable('invitations')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('organization_id', id, (c) => c.notNull().references('organizations.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('invited_by', id, (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('invitations_email_uq').unique().on('invitations').columns(['organization_id', 'email']).execute();
  await db.schema.createIndex('invitations_list_idx').on('invitations').columns(['organization_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('invitations_by_email_idx').on('invitations').columns(['email']).execute();

  // Rotation: every token rotated from the same original shares its family; `revoked_reason`
  // tells a rotated-away token (whose reuse revokes the family) from a revoked one.
  await db.schema.alterTable('personal_access_tokens').addColumn('family_id', id).execute();
  await db.schema.alterTable('personal_access_tokens').addColumn('revoked_reason', 'text').execute();
  await db.schema.createIndex('pat_family_idx').on('personal_access_tokens').columns(['family_id']).execute();
  await db.schema.createIndex('pat_org_list_idx').on('personal_access_tokens').columns(['organization_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('pat_org_list_idx').execute();
  await db.schema.dropIndex('pat_family_idx').execute();
  await db.schema.alterTable('personal_access_tokens').dropColumn('revoked_reason').execute();
  await db.schema.alterTable('personal_access_tokens').dropColumn('family_id').execute();
  await db.schema.dropTable('invitations').execute();
  await db.schema.dropTable('organization_origins').execute();
}
