#!/usr/bin/env node
// The ingestion limit (issue 26): the rows a real server's ingestion wrote, written again into a fresh
// database of the same schema by the storage engine alone, as fast as a program can: one prepared
// statement per table, transactions of `runsPerTransaction` runs' worth of every table's rows, everything
// prebuilt in memory before the clock starts. Run by bench/ratios.js as
//   taskset -c 0 node bench/limit-writer.js <file of JSON arguments>
// pinned to the server's core, after the server has stopped. Arguments: `source` (the database the server
// ingested into), `target` (a database migrated to the same schema, otherwise as migration left it),
// `snapshotFile` (bench/db-tables.js `snapshot` of the source just before the measured requests: its rows
// are the state before, copied untimed; every other row is what ingestion wrote), `tree` (whose built
// `searchText` derives the words of the search index), `checkWord` (a word the search must find as often
// in the target as in the source). Prints one JSON line: the rows written by table, the runs, the seconds.
//
// SQLite: better-sqlite3 with the server's pragmas and its WAL checkpointer (a worker thread), `INSERT INTO t
// (…) VALUES (?, …)` run once per row; the FTS5 index `run_search` is contentless, so its words are derived
// from each run as the server does and inserted with the key row that names them. PostgreSQL: pg, one named statement per table inserting a
// transaction's rows at once from arrays (`INSERT … SELECT … FROM unnest($1::text[], …)`), each column cast
// to its type; `run_search.words` is `to_tsvector('simple', words)` as the server writes it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { canonical, connect, countRows, readRows, tablesOf } from './db-tables.js';

const args = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const { searchText } = await import(pathToFileURL(join(args.tree, 'dist/features/query/search.js')).href);
const { SqliteCheckpointer } = await import(pathToFileURL(join(args.tree, 'dist/db/sqlite-checkpointer.js')).href);
const quote = (name) => `"${name.replace(/"/g, '""')}"`;

/** Milliseconds spent on each table's statements (while `timing`), and on the rest (commits). */
const spent = new Map();
let timing = false;
const spend = (table, since) => timing && spent.set(table, (spent.get(table) ?? 0) + performance.now() - since);

/** The tables, split into the rows that were there before (`pre`) and those ingestion wrote (`fresh`). */
async function split(source, snap) {
  const out = [];
  for (const table of await tablesOf(source)) {
    const before = snap.tables[table.name];
    if (!before) throw new Error(`table ${table.name} is in the source but not in the snapshot`);
    if (table.virtual) {
      out.push({ table, pre: [], fresh: [] });
      continue;
    }
    const rows = await readRows(source, table);
    const known = new Set(before.rows);
    const pre = [];
    const fresh = [];
    for (const row of rows) (known.has(canonical(row)) ? pre : fresh).push(row);
    out.push({ table, pre, fresh, updatedBefore: before.rows.length - pre.length });
  }
  return out;
}

/** The words of each run, by `project_id \u0000 id`, from its stored record: what the search index holds. */
function wordsByRun(parts) {
  const runs = parts.find((p) => p.table.name === 'runs');
  const at = (name) => runs.table.columns.findIndex((c) => c.name === name);
  const [project, id, doc] = [at('project_id'), at('id'), at('doc')];
  const words = new Map();
  for (const row of [...runs.pre, ...runs.fresh]) words.set(`${row[project]}\u0000${row[id]}`, searchText(JSON.parse(row[doc])));
  return words;
}

/** Slice `j` of `count` of a list: every table's rows spread evenly over the transactions. */
const slice = (rows, j, count) => rows.slice(Math.floor((j * rows.length) / count), Math.floor(((j + 1) * rows.length) / count));

function sqliteWriter(target, parts, words) {
  const db = target.db;
  // The server's pragmas (src/db/index.ts openStorage).
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('wal_autocheckpoint = 10000');
  db.pragma('foreign_keys = ON');
  const virtual = parts.filter((p) => p.table.virtual);
  for (const p of virtual) if (p.table.name !== 'run_search') throw new Error(`virtual table ${p.table.name}: the limit does not know how to fill it`);
  const keysOf = (p) => {
    if (p.table.name !== 'run_search_keys' || virtual.length === 0) return null;
    const at = (name) => p.table.columns.findIndex((c) => c.name === name);
    return [at('id'), at('project_id'), at('run_id')];
  };
  const fts = virtual.length > 0 ? db.prepare('insert into run_search (rowid, words) values (?, ?)') : null;
  const statements = new Map(
    parts
      .filter((p) => !p.table.virtual)
      .map((p) => [
        p.table.name,
        db.prepare(
          `insert into ${quote(p.table.name)} (${p.table.columns.map((c) => quote(c.name)).join(', ')}) values (${p.table.columns.map(() => '?').join(', ')})`,
        ),
      ]),
  );
  /** One table's rows, and for the search keys each key's words: `[statement, rows, fts pairs]`. */
  const prebuild = (p, rows) => {
    const keys = keysOf(p);
    const pairs = keys ? rows.map((r) => [r[keys[0]], words.get(`${r[keys[1]]}\u0000${r[keys[2]]}`)]) : [];
    if (pairs.some(([, w]) => w === undefined)) throw new Error('a search key names a run that is not stored');
    return [p.table.name, statements.get(p.table.name), rows, pairs];
  };
  const write = db.transaction((work) => {
    for (const [table, statement, rows, pairs] of work) {
      let t = performance.now();
      for (const row of rows) statement.run(row);
      spend(table, t);
      t = performance.now();
      for (const pair of pairs) fts.run(pair);
      if (pairs.length > 0) spend('run_search', t);
    }
  });
  return {
    prebuild,
    async copyBefore(work) {
      db.pragma('foreign_keys = OFF');
      for (const p of parts) if (!p.table.virtual) db.prepare(`delete from ${quote(p.table.name)}`).run();
      if (fts) db.prepare('delete from run_search').run();
      write(work);
      db.pragma('foreign_keys = ON');
    },
    async writeChunk(work) {
      write(work);
    },
    async matches(word) {
      return fts ? db.prepare('select count(*) as n from run_search where run_search match ?').get(`"${word}"`).n : null;
    },
  };
}

function pgWriter(target, parts, words) {
  const client = target.db;
  const statement = (table) => {
    const cols = table.columns;
    const search = table.name === 'run_search' && cols.some((c) => c.type === 'tsvector');
    const values = cols.map((c, i) => (search && c.type === 'tsvector' ? `to_tsvector('simple', u.c${i})` : `u.c${i}::${c.type}`));
    return {
      name: `limit_${table.name}`,
      text:
        `insert into ${quote(table.name)} (${cols.map((c) => quote(c.name)).join(', ')})${cols.some((c) => c.identity) ? ' overriding system value' : ''} ` +
        `select ${values.join(', ')} from unnest(${cols.map((_, i) => `$${i + 1}::text[]`).join(', ')}) as u(${cols.map((_, i) => `c${i}`).join(', ')})`,
      search,
    };
  };
  const statements = new Map(parts.map((p) => [p.table.name, statement(p.table)]));
  /** One table's rows as one array per column (a search row's words in place of its tsvector). */
  const prebuild = (p, rows, { derived = true } = {}) => {
    const s = statements.get(p.table.name);
    const cols = p.table.columns;
    const project = cols.findIndex((c) => c.name === 'project_id');
    const run = cols.findIndex((c) => c.name === 'run_id');
    const arrays = cols.map((c, i) =>
      rows.map((r) => {
        if (!(s.search && derived && c.type === 'tsvector')) return r[i];
        const text = words.get(`${r[project]}\u0000${r[run]}`);
        if (text === undefined) throw new Error('a search row names a run that is not stored');
        return text;
      }),
    );
    // Rows copied as they were (before the measured ingestion) keep their stored tsvector: cast, not derived.
    const copy = { ...s, name: `${s.name}_copy`, text: s.text.replace(/to_tsvector\('simple', (u\.c\d+)\)/, '$1::tsvector') };
    return [p.table.name, derived ? s : copy, rows.length, arrays];
  };
  const write = async (work) => {
    for (const [table, s, count, arrays] of work) {
      const t = performance.now();
      if (count > 0) await client.query({ name: s.name, text: s.text, values: arrays });
      spend(table, t);
    }
  };
  return {
    prebuild,
    async copyBefore(work) {
      await client.query('begin');
      await client.query('set local session_replication_role = replica');
      await client.query(`truncate ${parts.map((p) => quote(p.table.name)).join(', ')}`);
      await write(work);
      await client.query('commit');
    },
    async writeChunk(work) {
      await client.query('begin');
      await write(work);
      await client.query('commit');
    },
    async matches(word) {
      const has = parts.some((p) => statements.get(p.table.name).search);
      return has ? Number((await client.query(`select count(*) as n from run_search where words @@ to_tsquery('simple', $1)`, [word])).rows[0].n) : null;
    },
  };
}

async function searchMatches(conn, word) {
  if (conn.engine === 'sqlite') return conn.db.prepare('select count(*) as n from run_search where run_search match ?').get(`"${word}"`).n;
  return Number((await conn.db.query(`select count(*) as n from run_search where words @@ to_tsquery('simple', $1)`, [word])).rows[0].n);
}

async function main() {
  const snap = JSON.parse(readFileSync(args.snapshotFile, 'utf8'));
  const source = await connect(args.source, { readonly: true });
  const target = await connect(args.target);
  try {
    const t0 = performance.now();
    const parts = await split(source, snap);
    const targetTables = (await tablesOf(target)).map((t) => `${t.name}(${t.columns.map((c) => c.name).join(',')})`).join(' ');
    const sourceTables = parts.map((p) => `${p.table.name}(${p.table.columns.map((c) => c.name).join(',')})`).join(' ');
    if (targetTables !== sourceTables) throw new Error(`the target's schema differs from the source's:\n${targetTables}\n${sourceTables}`);
    const runsPart = parts.find((p) => p.table.name === 'runs');
    if (!runsPart) throw new Error('no runs table');
    const words = wordsByRun(parts);
    const writer = source.engine === 'sqlite' ? sqliteWriter(target, parts, words) : pgWriter(target, parts, words);
    // Untimed: the state before, then the transactions' work prebuilt (runs first: what the others name).
    await writer.copyBefore(parts.filter((p) => !p.table.virtual).map((p) => writer.prebuild(p, p.pre, { derived: false })));
    const written = parts.filter((p) => p.fresh.length > 0);
    written.sort((a, b) => (a.table.name === 'runs' ? -1 : b.table.name === 'runs' ? 1 : 0));
    const transactions = Math.max(1, Math.ceil(runsPart.fresh.length / args.runsPerTransaction));
    const work = Array.from({ length: transactions }, (_, j) => written.map((p) => writer.prebuild(p, slice(p.fresh, j, transactions))));
    const prepareS = (performance.now() - t0) / 1000;

    // As the server does: the WAL copied back into the database by the server's own checkpointer, a worker
    // thread (on the same pinned core), so that commits do not wait for checkpoints and their fsyncs.
    const checkpointer = target.engine === 'sqlite' ? new SqliteCheckpointer(args.target.slice('sqlite:'.length)) : null;
    const t1 = performance.now();
    const cpu0 = process.cpuUsage();
    timing = true;
    for (const chunk of work) await writer.writeChunk(chunk);
    timing = false;
    const seconds = (performance.now() - t1) / 1000;
    const cpu = process.cpuUsage(cpu0);
    await checkpointer?.close();

    // Checks: every table holds what the source holds, and the search finds the word as often.
    for (const p of parts) {
      const [want, got] = [await countRows(source, p.table), await countRows(target, p.table)];
      if (want !== got) throw new Error(`${p.table.name}: the target holds ${got} rows, the source ${want}`);
    }
    const sourceMatches = args.checkWord ? await searchMatches(source, args.checkWord) : null;
    const targetMatches = args.checkWord ? await writer.matches(args.checkWord) : null;
    if (sourceMatches !== targetMatches)
      throw new Error(`search for ${args.checkWord}: ${targetMatches} matches in the target, ${sourceMatches} in the source`);
    const rows = Object.fromEntries(written.filter((p) => !p.table.virtual).map((p) => [p.table.name, p.fresh.length]));
    // SQLite's search index: one entry per search key written (derived, not read).
    if (source.engine === 'sqlite' && parts.some((p) => p.table.virtual)) rows.run_search = rows.run_search_keys ?? 0;
    process.stdout.write(
      `${JSON.stringify({
        runs: runsPart.fresh.length,
        rows,
        rowsTotal: Object.values(rows).reduce((n, v) => n + v, 0),
        transactions,
        seconds,
        // Where the time went: each table's statements, and the rest (BEGIN, COMMIT).
        msByTable: { ...Object.fromEntries(spent), commits: seconds * 1000 - [...spent.values()].reduce((n, v) => n + v, 0) },
        // This process's CPU time (on PostgreSQL most of the work is the server's backend, not counted here).
        cpuMs: (cpu.user + cpu.system) / 1000,
        prepareS,
        searchMatches: sourceMatches,
        updatedBefore: Object.fromEntries(parts.filter((p) => p.updatedBefore > 0).map((p) => [p.table.name, p.updatedBefore])),
      })}\n`,
    );
  } finally {
    await source.close();
    await target.close();
  }
}

await main();
