// The tables of a Sightline database as the ingestion limit sees them (bench/limit-writer.js): which there
// are, their insertable columns, every row in insertion order, and a canonical text of a row to compare
// rows across reads. SQLite through better-sqlite3, PostgreSQL through pg
// (every value read as text, written back with a cast to its column's type). Migration bookkeeping and
// SQLite's FTS5 shadow tables are not tables here; FTS5 tables are listed as `virtual` (their text cannot be
// read back: whoever writes them derives it).
import Database from 'better-sqlite3';
import pg from 'pg';

const BOOKKEEPING = new Set(['kysely_migration', 'kysely_migration_lock']);

/** A connection to `databaseUrl` (`sqlite:<path>` or a postgres URL) with `close()`. */
export async function connect(databaseUrl, { readonly = false } = {}) {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new Database(databaseUrl.slice('sqlite:'.length), { readonly, fileMustExist: true });
    return { engine: 'sqlite', db, close: async () => db.close() };
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  return { engine: 'pg', db: client, close: () => client.end() };
}

const quote = (name) => `"${name.replace(/"/g, '""')}"`;

/** `[{ name, virtual, rowid, columns: [{ name, type, identity }] }]`: the tables ingestion could write, in a stable order. */
export async function tablesOf(conn) {
  if (conn.engine === 'sqlite') {
    const list = conn.db
      .prepare("select name, type, wr from pragma_table_list where schema = 'main' and type in ('table', 'virtual') and name not like 'sqlite_%' order by name")
      .all();
    return list
      .filter((t) => !BOOKKEEPING.has(t.name))
      .map((t) => ({
        name: t.name,
        virtual: t.type === 'virtual',
        rowid: t.wr === 0 && t.type === 'table',
        // Generated columns (hidden 2 and 3) are computed by SQLite; hidden 1 are a virtual table's own.
        columns: conn.db
          .prepare(`select name, type, hidden from pragma_table_xinfo(?)`)
          .all(t.name)
          .filter((c) => c.hidden === 0)
          .map((c) => ({ name: c.name, type: c.type, identity: false })),
      }));
  }
  const { rows } = await conn.db.query(
    `select c.relname as table, a.attname as name, format_type(a.atttypid, a.atttypmod) as type, a.attidentity = 'a' as identity
       from pg_class c join pg_namespace n on n.oid = c.relnamespace join pg_attribute a on a.attrelid = c.oid
      where n.nspname = current_schema() and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
      order by c.relname, a.attnum`,
  );
  const tables = new Map();
  for (const r of rows) {
    if (BOOKKEEPING.has(r.table)) continue;
    if (!tables.has(r.table)) tables.set(r.table, { name: r.table, virtual: false, rowid: false, columns: [] });
    tables.get(r.table).columns.push({ name: r.name, type: r.type, identity: r.identity });
  }
  return [...tables.values()];
}

export async function countRows(conn, table) {
  if (conn.engine === 'sqlite') return conn.db.prepare(`select count(*) as n from ${quote(table.name)}`).get().n;
  return Number((await conn.db.query(`select count(*) as n from ${quote(table.name)}`)).rows[0].n);
}

/** Every row of a (non-virtual) table as an array of its columns' values, in the order they were inserted (as near as the engine tells). */
export async function readRows(conn, table) {
  const columns = table.columns.map((c) => quote(c.name));
  if (conn.engine === 'sqlite') {
    return conn.db
      .prepare(`select ${columns.join(', ')} from ${quote(table.name)}${table.rowid ? ' order by rowid' : ''}`)
      .raw()
      .all();
  }
  const result = await conn.db.query({
    text: `select ${columns.map((c) => `${c}::text`).join(', ')} from ${quote(table.name)} order by ctid`,
    rowMode: 'array',
  });
  return result.rows;
}

/** A row's canonical text: equal rows, equal texts (a blob as its hex). */
export const canonical = (row) =>
  JSON.stringify(row, (_, v) => (v && v.type === 'Buffer' && Array.isArray(v.data) ? { hex: Buffer.from(v.data).toString('hex') } : v));

/** Every table's rows (canonical texts) and count: the database before the measured ingestion. */
export async function snapshot(databaseUrl) {
  const conn = await connect(databaseUrl, { readonly: true });
  try {
    const tables = {};
    for (const table of await tablesOf(conn)) {
      tables[table.name] = table.virtual ? { count: await countRows(conn, table), rows: null } : { rows: (await readRows(conn, table)).map(canonical) };
      if (!table.virtual) tables[table.name].count = tables[table.name].rows.length;
    }
    return { tables };
  } finally {
    await conn.close();
  }
}
