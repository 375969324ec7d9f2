import type { Kysely } from 'kysely';
import { idType } from './dialect.js';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);

  // An organization's OpenAI-compatible model endpoints (README: Model connections), which LLM-as-judge
  // evaluators call. The key and the extra headers are sealed by the keyring (as webhook secrets): never
  // stored in clear. What the month's calls cost is kept in picodollars (10^-12 USD, what a call's cost
  // is rounded to), added in the database, for the calendar month (UTC) `spent_month` names.
  await db.schema
    .createTable('model_connections')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('organization_id', id, (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('base_url', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('api_key', 'text')
    .addColumn('api_key_hint', 'text')
    .addColumn('headers', 'text')
    .addColumn('header_names', 'text', (c) => c.notNull())
    .addColumn('monthly_budget_usd', 'double precision', (c) => c.notNull())
    .addColumn('input_price', 'double precision')
    .addColumn('output_price', 'double precision')
    .addColumn('spent_month', id, (c) => c.notNull().defaultTo(''))
    .addColumn('spent_picousd', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('model_connections_name_uq').unique().on('model_connections').columns(['organization_id', 'name']).execute();
  await db.schema.createIndex('model_connections_list_idx').on('model_connections').columns(['organization_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('model_connections').execute();
}
