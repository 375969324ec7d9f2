import { sql, type Kysely } from 'kysely';
import { idType, isPostgres } from './dialect.js';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * The distinct values a project's runs have stored, per field, for the value pickers (GET …/runs/values):
 * their names, models, tags, metadata keys and the values of each metadata key. A run's name, model and
 * metadata have no index of their own (and metadata none can have), so listing their values a page at a
 * time needs a table of them: kept at ingest, one row per new value (ON CONFLICT DO NOTHING), read by its
 * primary key in code-point order (`collate "C"` on PostgreSQL, as ids, so both engines order alike).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);
  let table = db.schema
    .createTable('run_values')
    .addColumn('project_id', id, (c) => c.notNull())
    // name, model, tag, metadataKey, metadataValue
    .addColumn('field', id, (c) => c.notNull())
    // The metadata key of a metadataValue; '' for the other fields.
    .addColumn('key', id, (c) => c.notNull())
    .addColumn('value', id, (c) => c.notNull())
    .addPrimaryKeyConstraint('run_values_pk', ['project_id', 'field', 'key', 'value']);
  // On SQLite a table of short keys is cheaper clustered on its primary key (one b-tree, not two).
  if (!isPostgres(db)) table = table.modifyEnd(sql`without rowid`);
  await table.execute();
  await backfill(db);
}

/** The metadata keys the `metadata.<key>` filters take. */
const KEY = /^[A-Za-z0-9_-]{1,64}$/;
/** The longest value kept (UTF-16 code units of its text). */
const MAX_VALUE = 256;

/** A metadata value as the `metadata.<key>=<value>` filter is written: a string as it is, a number, boolean or null as its JSON text. */
function filterText(value: unknown): string | null {
  if (typeof value === 'string') return value.length <= MAX_VALUE ? value : null;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return JSON.stringify(value);
  return null;
}

/** The values of the runs stored before this table existed: names, models and tags by SQL, metadata a page of runs at a time. */
async function backfill(db: Kysely<any>): Promise<void> {
  await sql`insert into run_values (project_id, field, key, value) select distinct project_id, 'name', '', name from runs`.execute(db);
  await sql`insert into run_values (project_id, field, key, value) select distinct project_id, 'model', '', model from runs where model is not null`.execute(
    db,
  );
  await sql`insert into run_values (project_id, field, key, value) select distinct project_id, 'tag', '', tag from run_tags`.execute(db);
  let after: [string, string] | null = null;
  for (;;) {
    let page = db.selectFrom('runs').select(['project_id', 'id', 'metadata']).where('metadata', '<>', '{}').orderBy('project_id').orderBy('id').limit(1000);
    if (after) page = page.where(sql<boolean>`(project_id, id) > (${after[0]}, ${after[1]})`);
    const rows = (await page.execute()) as { project_id: string; id: string; metadata: string }[];
    if (rows.length === 0) return;
    const values = new Map<string, { project_id: string; field: string; key: string; value: string }>();
    const add = (row: { project_id: string; field: string; key: string; value: string }) => values.set(JSON.stringify(Object.values(row)), row);
    for (const run of rows) {
      for (const [key, value] of Object.entries(JSON.parse(run.metadata) as Record<string, unknown>)) {
        if (!KEY.test(key)) continue;
        add({ project_id: run.project_id, field: 'metadataKey', key: '', value: key });
        const text = filterText(value);
        if (text !== null) add({ project_id: run.project_id, field: 'metadataValue', key, value: text });
      }
    }
    const list = [...values.values()];
    for (let i = 0; i < list.length; i += 200) {
      await db
        .insertInto('run_values')
        .values(list.slice(i, i + 200))
        .onConflict((oc) => oc.columns(['project_id', 'field', 'key', 'value']).doNothing())
        .execute();
    }
    const last = rows[rows.length - 1]!;
    after = [last.project_id, last.id];
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('run_values').execute();
}
