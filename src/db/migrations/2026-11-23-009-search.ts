import { sql, type Kysely } from 'kysely';
import { idType, isPostgres } from './dialect.js';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  // The words of each run (its name, the text of its inputs and outputs, its error), for the `q` filter:
  // SQLite's FTS5 and PostgreSQL's full-text search, each with its own index, kept at ingest.
  if (isPostgres(db)) {
    await db.schema
      .createTable('run_search')
      .addColumn('project_id', idType(db), (c) => c.notNull())
      .addColumn('run_id', idType(db), (c) => c.notNull())
      .addColumn('words', sql`tsvector`, (c) => c.notNull())
      .addPrimaryKeyConstraint('run_search_pk', ['project_id', 'run_id'])
      .execute();
    await sql`create index run_search_words_idx on run_search using gin (words)`.execute(db);
  } else {
    // FTS5 keys its rows by integer: a run's key is its row in run_search_keys (an INTEGER PRIMARY KEY,
    // which VACUUM never renumbers, unlike the rowid of `runs`). The index keeps no copy of the text.
    await sql`create table run_search_keys (id integer primary key, project_id text not null, run_id text not null, unique (project_id, run_id))`.execute(db);
    await sql`create virtual table run_search using fts5(words, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0')`.execute(db);
  }
  await backfill(db);
}

/** The words of a stored record (as runs.search.ts wrote them when this migration was made). */
function wordsOf(doc: string, name: string): string {
  const run = JSON.parse(doc) as { error?: string | null; inputs?: unknown; outputs?: unknown };
  const pieces = [name, run.error ?? ''];
  const stack: unknown[] = [run.outputs, run.inputs];
  let length = 0;
  while (stack.length > 0 && length < 32_768) {
    const value = stack.pop();
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      pieces.push(String(value));
      length += String(value).length + 1;
    } else if (Array.isArray(value)) for (let i = value.length - 1; i >= 0; i--) stack.push(value[i]);
    else if (value && typeof value === 'object') stack.push(...Object.values(value).reverse());
  }
  return (
    pieces
      .join(' ')
      .slice(0, 32_768)
      // eslint-disable-next-line no-control-regex -- U+0000 is what this removes
      .replace(/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, ' ')
  );
}

/** The words of the runs stored before search existed, 500 at a time. */
async function backfill(db: Kysely<any>): Promise<void> {
  let after: [string, string] | null = null;
  for (;;) {
    let page = db.selectFrom('runs').select(['project_id', 'id', 'name', 'doc']).orderBy('project_id').orderBy('id').limit(500);
    if (after) page = page.where(sql<boolean>`(project_id, id) > (${after[0]}, ${after[1]})`);
    const rows = (await page.execute()) as { project_id: string; id: string; name: string; doc: string }[];
    if (rows.length === 0) return;
    for (const row of rows) {
      const words = wordsOf(row.doc, row.name);
      if (isPostgres(db)) {
        await sql`insert into run_search (project_id, run_id, words) values (${row.project_id}, ${row.id}, to_tsvector('simple', ${words}))`.execute(db);
      } else {
        const key = await sql<{ id: number }>`insert into run_search_keys (project_id, run_id) values (${row.project_id}, ${row.id}) returning id`.execute(db);
        await sql`insert into run_search (rowid, words) values (${key.rows[0]!.id}, ${words})`.execute(db);
      }
    }
    const last = rows[rows.length - 1]!;
    after = [last.project_id, last.id];
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('run_search').execute();
  if (!isPostgres(db)) await db.schema.dropTable('run_search_keys').execute();
}
