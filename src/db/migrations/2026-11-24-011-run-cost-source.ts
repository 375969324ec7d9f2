import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  // The stored wire records gain where their cost came from and the price it was computed at, at the
  // record's end where new records have them: a run stored so far has its client's cost or none (costs
  // were not computed before), so `client` or null, and no price. Text surgery, as in migration 006:
  // the rest of the record stays byte for byte as it was. A run's cost is never recomputed here: a
  // price table does not rewrite history.
  await sql`update runs set doc = substr(doc, 1, length(doc) - 1) || case when cost is null then ${',"costSource":null,"price":null}'} else ${',"costSource":"client","price":null}'} end`.execute(
    db,
  );
}

export async function down(): Promise<void> {
  // The records keep their two extra fields (an older server sends them as they are).
}
