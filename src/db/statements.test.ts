import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { objectRows, withStatementCache } from './statements.js';

function database() {
  const db = new BetterSqlite3(':memory:');
  db.exec(`create table t (a integer, b text, c real, d blob); insert into t values (1, 'x', 1.5, x'00ff'), (2, null, null, null)`);
  return db;
}

describe('objectRows', () => {
  const queries = [
    'select * from t order by a',
    'select b, a from t order by a',
    'select a as x, b as x from t order by a',
    'select a as "weird ""name""\\", b as "constructor", c as "toString" from t order by a',
    'select count(*) as n from t where a > ?',
  ];

  it.each(queries)('gives the rows better-sqlite3 gives, keys in the same order: %s', (sql) => {
    const db = database();
    const parameters = sql.includes('?') ? [0] : [];
    const expected = db.prepare(sql).all(...parameters) as Record<string, unknown>[];
    const rows = objectRows(db.prepare(sql)).all(parameters) as Record<string, unknown>[];
    expect(rows).toEqual(expected);
    expect(rows.map((row) => Object.keys(row))).toEqual(expected.map((row) => Object.keys(row)));
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
    expect([...objectRows(db.prepare(sql)).iterate(parameters)]).toEqual(expected);
  });

  it('keeps better-sqlite3 objects for a column named __proto__ (no prototype set from a value)', () => {
    const db = database();
    const rows = objectRows(db.prepare('select b as "__proto__" from t order by a')).all([]) as Record<string, unknown>[];
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
    expect(rows).toEqual(db.prepare('select b as "__proto__" from t order by a').all());
  });

  it('runs writing statements as they are', () => {
    const db = database();
    const insert = objectRows(db.prepare('insert into t (a) values (?)'));
    expect(insert.reader).toBe(false);
    expect(insert.run([3]).changes).toBe(1);
    const returning = objectRows(db.prepare('insert into t (a, b) values (?, ?) returning a, b'));
    expect(returning.all([4, 'y'])).toEqual([{ a: 4, b: 'y' }]);
  });
});

describe('withStatementCache', () => {
  it('prepares a text once and reuses its statement', () => {
    const db = database();
    const cache = withStatementCache(db);
    const first = cache.prepare('select a from t order by a');
    expect(cache.prepare('select a from t order by a')).toBe(first);
    expect(first.all([])).toEqual([{ a: 1 }, { a: 2 }]);
  });
});
