import type { Kysely } from 'kysely';

// Frozen once shipped: never edit a migration that has shipped; add a new one.

/**
 * Scoped personal access tokens: a token may be narrowed when minted to some of the permission table's
 * scopes and to listed projects (JSON arrays of scope names and project ids). Null: not narrowed (every
 * scope of its user's current role, every project), as every token minted before this migration.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('personal_access_tokens').addColumn('scopes', 'text').execute();
  await db.schema.alterTable('personal_access_tokens').addColumn('project_ids', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('personal_access_tokens').dropColumn('project_ids').execute();
  await db.schema.alterTable('personal_access_tokens').dropColumn('scopes').execute();
}
