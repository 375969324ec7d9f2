import type { Kysely } from 'kysely';

// Frozen once shipped: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  // Monitors over scores (metrics `score_mean`, `score_share`) name the scores they watch: a JSON object
  // `{ name, label? }`, null for the run metrics (every monitor stored so far).
  await db.schema.alterTable('monitors').addColumn('score', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('monitors').dropColumn('score').execute();
}
