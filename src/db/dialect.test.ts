import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { dialectOf, lockRows, takeRowLock } from './dialect.js';
import type { Database } from './schema.js';

// Compiling needs no connection: a pool that has none to give.
const pool = { connect: () => Promise.reject(new Error('no PostgreSQL here: compiling only')), end: async () => {} };
const postgres = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
const sqliteFile = new BetterSqlite3(':memory:');
const sqlite = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqliteFile }) });
afterAll(() => sqliteFile.close());

const monitor = (db: Kysely<Database>) => db.selectFrom('monitors').select('id').where('id', '=', 'm1');

describe('db/dialect', () => {
  it('learns the engine from the Kysely instance', () => {
    expect(dialectOf(postgres)).toBe('postgres');
    expect(dialectOf(sqlite)).toBe('sqlite');
  });

  it('locks rows on PostgreSQL with the requested strength', () => {
    expect(lockRows(monitor(postgres), 'postgres').compile().sql).toMatch(/ for update$/);
    expect(lockRows(monitor(postgres), 'postgres', 'update skip locked').compile().sql).toMatch(/ for update skip locked$/);
    expect(lockRows(monitor(postgres), 'postgres', 'no key update').compile().sql).toMatch(/ for no key update$/);
  });

  it('leaves the query as it is on SQLite (no row locks there)', () => {
    for (const lock of ['update', 'update skip locked', 'no key update'] as const) {
      expect(lockRows(monitor(sqlite), 'sqlite', lock).compile().sql).toBe(monitor(sqlite).compile().sql);
    }
  });

  it('takes a lock-only row lock on PostgreSQL and runs nothing on SQLite', async () => {
    const executed: string[] = [];
    const spy = (db: Kysely<Database>) =>
      db.withPlugin({ transformQuery: (args) => (executed.push(args.queryId.queryId), args.node), transformResult: async (args) => args.result });
    await takeRowLock(monitor(spy(sqlite)), 'sqlite');
    expect(executed).toEqual([]);
    // The stand-in pool cannot connect, so the query fails once it was built and sent on its way.
    await expect(takeRowLock(monitor(spy(postgres)), 'postgres')).rejects.toThrow();
    expect(executed.length).toBe(1);
  });
});
