import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type MigrationResultSet } from 'kysely';
import type pg from 'pg';
import type { Config } from '../config.js';
import { migrations } from './migrations/index.js';
import type { Database } from './schema.js';
import { dialectOf, type Dialect } from './dialect.js';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';
import { registerSqliteRoot } from './rowwise.js';
import { withStatementCache } from './statements.js';
import { registerPgPool } from './prepared.js';

export interface Storage {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

const PG_INT8 = 20;
const PG_NUMERIC = 1700;

/** bigint and numeric come back as JS numbers: every value we store in them is a safe integer or a float. */
function pgTypes(types: typeof pg.types): pg.CustomTypesConfig {
  return {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === PG_INT8 || oid === PG_NUMERIC) return (value: string) => Number(value);
      return types.getTypeParser(oid, format as 'text');
    },
  };
}

export { sqliteHandle } from './rowwise.js';

/** What opening storage needs from the configuration: the engine, and SQLite's durability. */
export type StorageConfig = Pick<Config, 'database' | 'sqliteSynchronous'>;

export interface StorageOptions {
  /**
   * For the serving process: SQLite's WAL is copied back into the database file by a worker thread
   * (`SqliteCheckpointer`), never by a commit on the event loop.
   */
  checkpointer?: boolean;
}

/**
 * Opens the configured engine: the one way the server, the CLI and the tests open storage, so every
 * process gets the same pragmas. The PostgreSQL driver is loaded only when it is the one configured.
 */
export async function openStorage({ database: config, sqliteSynchronous }: StorageConfig, options: StorageOptions = {}): Promise<Storage> {
  if (config.kind === 'sqlite') {
    if (config.path !== ':memory:') mkdirSync(dirname(config.path), { recursive: true });
    const database = new BetterSqlite3(config.path);
    // 8 KiB pages suit run records (about 1–2 KiB each); it only takes effect on a new database.
    database.pragma('page_size = 8192');
    database.pragma('journal_mode = WAL');
    // In WAL mode, NORMAL loses no committed transaction when the process dies, only (possibly the
    // last ones) when the machine does; FULL also syncs the WAL at every commit.
    database.pragma(`synchronous = ${sqliteSynchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
    database.pragma('busy_timeout = 5000');
    database.pragma('foreign_keys = ON');
    // Checkpoint in larger steps: index pages written by many commits are copied back once. Serving,
    // the checkpointer copies them as they come, and this is only a backstop (it finds little left).
    database.pragma('wal_autocheckpoint = 10000');
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
    registerSqliteRoot(db, database);
    const checkpointer = options.checkpointer && config.path !== ':memory:' ? new SqliteCheckpointer(config.path) : null;
    return {
      db,
      dialect: 'sqlite',
      close: async () => {
        await checkpointer?.close();
        await db.destroy();
      },
    };
  }
  const { default: pgModule } = await import('pg');
  const pool = new pgModule.Pool({ connectionString: config.url, max: 10, types: pgTypes(pgModule.types) });
  // An idle client that errors (database restart) must not crash the process.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  registerPgPool(db, pool);
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

/** Applies every pending migration. Safe to run concurrently from several instances (Kysely takes a lock). */
export async function migrateToLatest(db: Kysely<Database>): Promise<MigrationResultSet> {
  // On PostgreSQL, name the schema of the bookkeeping tables: otherwise Kysely may find them in
  // another schema of the same database and skip creating them in ours.
  const schema = dialectOf(db) === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}

export async function ping(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}
