import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage } from './index.js';
import { eachRow, heldSqlite, writeTransaction } from './rowwise.js';

const storage = await openStorage({ database: { kind: 'sqlite', path: ':memory:' }, sqliteSynchronous: 'NORMAL' });
const { db } = storage;
await sql`create table pairs (a text primary key, b integer not null)`.execute(db);
afterAll(() => storage.close());

type Pair = { a: string; b: number };
const insertPair = (kysely: typeof db, row: Pair) => sql`insert into pairs (a, b) values (${row.a}, ${row.b}) on conflict (a) do nothing`.compile(kysely);

describe('db/rowwise', () => {
  it("lends the connection's handle only inside a write transaction", async () => {
    expect(heldSqlite(db)).toBeNull();
    await writeTransaction(db, async (trx) => {
      expect(heldSqlite(trx)).not.toBeNull();
    });
    await db.transaction().execute(async (trx) => {
      expect(heldSqlite(trx)).toBeNull();
    });
  });

  it('writes each row with its own values and says which a conflict skipped, in the transaction', async () => {
    const results = await writeTransaction(db, async (trx) =>
      eachRow(heldSqlite(trx)!, trx, 'pairs', ['a', 'b'], insertPair, [
        { a: 'x', b: 1 },
        { a: 'y', b: 2 },
        { a: 'x', b: 3 },
      ]),
    );
    expect(results.map((r) => r.changes)).toEqual([1, 1, 0]);
    expect((await sql<Pair>`select a, b from pairs order by a`.execute(db)).rows).toEqual([
      { a: 'x', b: 1 },
      { a: 'y', b: 2 },
    ]);
    // A failure rolls the rows back with the transaction.
    await expect(
      writeTransaction(db, async (trx) => {
        eachRow(heldSqlite(trx)!, trx, 'pairs', ['a', 'b'], insertPair, [{ a: 'z', b: 4 }]);
        throw new Error('abandoned');
      }),
    ).rejects.toThrow('abandoned');
    expect((await sql<{ n: number }>`select count(*) as n from pairs`.execute(db)).rows[0]!.n).toBe(2);
  });

  it('refuses a statement whose parameters are not all columns of the row', async () => {
    await writeTransaction(db, async (trx) => {
      expect(() =>
        eachRow(
          heldSqlite(trx)!,
          trx,
          'pairs-constant',
          ['a'],
          (kysely, row: { a: string }) => sql`insert into pairs (a, b) values (${row.a}, ${7})`.compile(kysely),
          [{ a: 'q' }],
        ),
      ).toThrow(/not a column of the row/);
    });
  });
});
