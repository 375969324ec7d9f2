import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Dialect } from '../../src/db/dialect.js';
import { migrateToLatest, openStorage, type Storage } from '../../src/db/index.js';
import type { Config, DatabaseConfig } from '../../src/config.js';

export const PG_URL = process.env.SIGHTLINE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The engines every storage-touching suite runs on: SQLite always, PostgreSQL whenever it is reachable,
 * and in CI always (an unreachable PostgreSQL there is a failure, not a skip).
 */
export async function availableDialects(): Promise<Dialect[]> {
  if (await postgresReachable()) return ['sqlite', 'postgres'];
  if (process.env.CI) throw new Error(`PostgreSQL is required in CI but ${PG_URL} is not reachable`);
  return ['sqlite'];
}

export const dialects: Dialect[] = await availableDialects();

export interface TestDatabase {
  config: DatabaseConfig;
  storage: Storage;
  /** Closes the storage and drops the database or schema. */
  destroy(): Promise<void>;
}

/**
 * A fresh, migrated database of its own: a temp SQLite file, or a uniquely named PostgreSQL database.
 * `sqliteSynchronous` is SQLite's durability setting (SIGHTLINE_SQLITE_SYNCHRONOUS); default NORMAL.
 */
export async function createTestDatabase(dialect: Dialect, options: Partial<Pick<Config, 'sqliteSynchronous'>> = {}): Promise<TestDatabase> {
  let config: DatabaseConfig;
  let drop: () => Promise<void>;
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'sightline-test-'));
    config = { kind: 'sqlite', path: join(dir, 'test.db') };
    drop = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    // A database of its own, not a schema: Kysely's migrator looks at the tables of every schema in the
    // database, and another suite dropping its schema at that moment made the lookup fail.
    const database = await createPostgresDatabase('sl_test');
    config = { kind: 'postgres', url: database.url };
    drop = database.drop;
  }
  const storage = await openStorage({ database: config, sqliteSynchronous: options.sqliteSynchronous ?? 'NORMAL' });
  await migrateToLatest(storage.db);
  return {
    config,
    storage,
    destroy: async () => {
      await storage.close();
      await drop();
    },
  };
}

/** An empty PostgreSQL database with a unique name (for a suite, or a server process), and how to drop it. */
export async function createPostgresDatabase(prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** An empty database of either engine for a server process (its `DATABASE_URL`), and how to remove it. */
export async function createProcessDatabase(dialect: Dialect, prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  if (dialect === 'postgres') return createPostgresDatabase(prefix);
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return { url: `sqlite:${join(dir, 'sightline.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}
