import type { Kysely } from 'kysely';

// Frozen once shipped: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  // A model connection's test call is held under a lease (README: Model connections): one at a time per
  // connection across every instance; its holder's token and until when (a crashed holder's lease
  // expires). Null: no test in progress.
  await db.schema.alterTable('model_connections').addColumn('test_lease_owner', 'text').execute();
  await db.schema.alterTable('model_connections').addColumn('test_lease_until', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('model_connections').dropColumn('test_lease_until').execute();
  await db.schema.alterTable('model_connections').dropColumn('test_lease_owner').execute();
}
