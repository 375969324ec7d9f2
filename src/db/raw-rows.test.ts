import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../../test/helpers/harness.js';
import { rawRows } from './raw-rows.js';

describeEachDialect('db/raw-rows', (ctx) => {
  it('gives each row as its values, in the order the query selects them', async () => {
    const org = await ctx.make.org();
    const db = ctx.database.storage.db;
    expect(
      await rawRows(
        db,
        db
          .selectFrom('organizations')
          .select([sql<number>`2`.as('two'), 'id', 'plan'])
          .where('id', '=', org.id),
      ),
    ).toEqual([[2, org.id, 'enterprise']]);
    expect(await rawRows(db, db.selectFrom('organizations').select('id').where('id', '=', 'nobody'))).toEqual([]);
  });

  it('never reads what an open transaction of another request wrote and then rolled back', async () => {
    const org = await ctx.make.org('before');
    const db = ctx.database.storage.db;
    const read = () => rawRows(db, db.selectFrom('organizations').select('name').where('id', '=', org.id));
    let during: Promise<unknown[][]> | null = null;
    await db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('organizations').set({ name: 'uncommitted' }).where('id', '=', org.id).execute();
        during = read(); // SQLite: the one connection is in this transaction; the read waits for it to end
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect(await during!).toEqual([['before']]);
  });
});
