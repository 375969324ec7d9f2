import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * A trace's revision: counted up whenever a run of it is stored again with new content (Langfuse's
 * ingestion API amends runs after they ended), so that what an instance keeps of a finished trace's head
 * (its tags and previews) is kept per revision and never outlives a change, on any instance.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('traces')
    .addColumn('revision', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('traces').dropColumn('revision').execute();
}
