import type { Kysely } from 'kysely';
import { idType } from './dialect.js';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);

  // An organization's model prices (README: Model prices), each in force from `effective_from` until a
  // later one of the same model and provider. `provider` is '' for any provider (so that the unique
  // index sees it: NULLs are all distinct there); `model_key` is the name as matched (lower case).
  await db.schema
    .createTable('model_prices')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('organization_id', id, (c) => c.notNull().references('organizations.id'))
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('model_key', id, (c) => c.notNull())
    .addColumn('provider', id, (c) => c.notNull())
    .addColumn('input_price', 'double precision', (c) => c.notNull())
    .addColumn('output_price', 'double precision', (c) => c.notNull())
    .addColumn('cache_read_price', 'double precision')
    .addColumn('cache_write_price', 'double precision')
    .addColumn('reasoning_price', 'double precision')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('effective_from', 'bigint', (c) => c.notNull())
    .addColumn('created_by', id, (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // One price per model, provider and instant; also what ingestion reads an organization's prices by.
  await db.schema
    .createIndex('model_prices_lookup_uq')
    .unique()
    .on('model_prices')
    .columns(['organization_id', 'model_key', 'provider', 'effective_from'])
    .execute();
  await db.schema.createIndex('model_prices_list_idx').on('model_prices').columns(['organization_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('model_prices').execute();
}
