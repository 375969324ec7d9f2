import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'sightline-checkpointer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes about 4 MB in 40 commits, far below the serving connection's own checkpoint (10,000 pages of 8 KiB). */
async function fill(path: string, checkpointer: boolean): Promise<{ before: number; after: () => number; close: () => Promise<void> }> {
  const storage = await openStorage({ database: { kind: 'sqlite', path }, sqliteSynchronous: 'NORMAL' }, { checkpointer });
  await sql`create table filler (id integer primary key, body text not null)`.execute(storage.db);
  const before = statSync(path).size;
  const body = 'x'.repeat(1000);
  for (let commit = 0; commit < 40; commit++) {
    await storage.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 100; i++) await sql`insert into filler (body) values (${body})`.execute(trx);
    });
  }
  return { before, after: () => statSync(path).size, close: () => storage.close() };
}

describe('SqliteCheckpointer', () => {
  it('copies committed pages into the database file from its worker, with no checkpoint on the serving connection', async () => {
    const served = await fill(join(dir, 'served.db'), true);
    try {
      const deadline = Date.now() + 10_000;
      while (served.after() < served.before + 3_000_000 && Date.now() < deadline) await sleep(50);
      expect(served.after()).toBeGreaterThanOrEqual(served.before + 3_000_000);
    } finally {
      await served.close();
    }
  });

  it('without it (the CLI, the suites), the pages stay in the WAL until the serving connection checkpoints', async () => {
    const plain = await fill(join(dir, 'plain.db'), false);
    try {
      await sleep(500);
      expect(plain.after()).toBeLessThan(plain.before + 1_000_000);
    } finally {
      await plain.close();
    }
  });
});
