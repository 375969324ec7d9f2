import { Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { dialects } from '../../../test/helpers/storage.js';
import { migrateToLatest, type Storage } from '../../db/index.js';
import { migrations } from '../../db/migrations/index.js';
import { ensureOrganization } from '../organizations/organizations.repo.js';
import { createProject } from '../projects/projects.repo.js';
import { ingestRuns } from './runs.ingest.js';
import { emptyStorage } from './runs.test-support.js';
import { queueEvaluations } from '../evaluators/evaluators.sampling.js';

const NOW = Date.parse('2026-11-23T12:00:00.000Z');

/**
 * Migration 011 on a database whose runs an earlier server stored (records without `costSource` and
 * `price`): each record gains the two fields at its end and is otherwise the same text, byte for byte.
 */
describe.each(dialects)('migration 011 (run cost sources) [%s]', (dialect) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function storageAt(migration: string): Promise<Storage> {
    const storage = await emptyStorage(dialect, cleanups);
    await migrateTo(storage, migration);
    return storage;
  }
  async function migrateTo(storage: Storage, migration: string): Promise<void> {
    const result = await new Migrator({ db: storage.db, provider: { getMigrations: async () => migrations } }).migrateTo(migration);
    if (result.error) throw result.error;
  }

  it('gives every stored record costSource (client when it has a cost) and price null, leaving the rest as it was', async () => {
    // Stored by today's ingestion, then the schema taken back to before 011 (later migrations undone).
    const storage = await storageAt(Object.keys(migrations).sort().at(-1)!);
    const { db } = storage;
    const org = await ensureOrganization(db, `migration-${dialect}`, 'free', NOW);
    const project = await createProject(db, org.id, { name: 'migrated' }, NOW);
    const base = { kind: 'llm', startTime: '2026-11-20T10:00:00.000Z', inputs: { text: 'a "quoted" }' }, metadata: { n: 1e-7 } };
    const results = await ingestRuns(
      db,
      project.id,
      [
        { ...base, id: 'with-cost', name: 'priced by the client', cost: 0.0012 },
        { ...base, id: 'without-cost', name: 'not priced', model: 'in-house' },
      ],
      NOW,
      (i) => `/runs/${i}`,
      queueEvaluations,
    );
    const written = new Map(results.map((r) => [r.id, r.status === 'rejected' ? '' : r.row.doc]));
    expect(written.get('with-cost')).toMatch(/,"costSource":"client","price":null\}$/);
    await migrateTo(storage, '2026-11-23-010-model-prices');
    // As an earlier server stored them: the records without their last two fields.
    await sql`update runs set doc = substr(doc, 1, length(doc) - length(${',"costSource":"client","price":null}'}) ) || '}' where id = 'with-cost'`.execute(db);
    await sql`update runs set doc = substr(doc, 1, length(doc) - length(${',"costSource":null,"price":null}'}) ) || '}' where id = 'without-cost'`.execute(db);
    const before = await db.selectFrom('runs').select(['id', 'doc']).execute();
    for (const row of before) expect(row.doc).not.toContain('costSource');

    await migrateToLatest(db);
    const after = new Map((await db.selectFrom('runs').select(['id', 'doc']).execute()).map((r) => [r.id, r.doc]));
    expect(after).toEqual(written);
  });
});

/**
 * Migration 026 on a database whose runs an earlier server stored: `run_values` starts with every name,
 * model, tag, listed metadata key and scalar metadata value those runs have, as ingestion keeps them since.
 */
describe.each(dialects)('migration 026 (run values) [%s]', (dialect) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('fills run_values from the stored runs, as ingestion would have', async () => {
    const storage = await emptyStorage(dialect, cleanups);
    const { db } = storage;
    await migrateToLatest(db);
    const org = await ensureOrganization(db, `migration-026-${dialect}`, 'free', NOW);
    const [project, other] = [await createProject(db, org.id, { name: 'one' }, NOW), await createProject(db, org.id, { name: 'two' }, NOW)];
    const run = (name: string, extra: Record<string, unknown> = {}) => ({ name, kind: 'llm', startTime: '2026-11-20T10:00:00.000Z', ...extra });
    const ingest = async (projectId: string, runs: Record<string, unknown>[]) => {
      const results = await ingestRuns(db, projectId, runs, NOW, (i) => `/runs/${i}`, queueEvaluations);
      expect(results.filter((r) => r.status !== 'created')).toEqual([]);
    };
    await ingest(project.id, [
      run('a', { model: 'gpt-4o', tags: ['x', 'y'], metadata: { env: 'prod', n: 2, tiny: 1e-7, ok: true, none: null, deep: { a: 1 }, 'bad key': 1 } }),
      run('b', { tags: ['x'], metadata: { env: 'prod ', long: 'z'.repeat(257) } }),
      run('a', { model: 'gpt-4o' }),
    ]);
    await ingest(other.id, [run('c', { model: 'm', tags: ['t'], metadata: { k: 'v' } })]);
    const order = (rows: { project_id: string; field: string; key: string; value: string }[]) =>
      rows.map((r) => [r.project_id, r.field, r.key, r.value].join('|')).sort();
    const kept = order(await db.selectFrom('run_values').selectAll().execute());
    expect(kept).toEqual(
      order([
        ...['a', 'b'].map((value) => ({ project_id: project.id, field: 'name', key: '', value })),
        { project_id: project.id, field: 'model', key: '', value: 'gpt-4o' },
        ...['x', 'y'].map((value) => ({ project_id: project.id, field: 'tag', key: '', value })),
        ...['env', 'n', 'tiny', 'ok', 'none', 'deep', 'long'].map((value) => ({ project_id: project.id, field: 'metadataKey', key: '', value })),
        ...[
          ['env', 'prod'],
          ['env', 'prod '],
          ['n', '2'],
          ['tiny', '1e-7'],
          ['ok', 'true'],
          ['none', 'null'],
        ].map(([key, value]) => ({ project_id: project.id, field: 'metadataValue', key: key!, value: value! })),
        { project_id: other.id, field: 'name', key: '', value: 'c' },
        { project_id: other.id, field: 'model', key: '', value: 'm' },
        { project_id: other.id, field: 'tag', key: '', value: 't' },
        { project_id: other.id, field: 'metadataKey', key: '', value: 'k' },
        { project_id: other.id, field: 'metadataValue', key: 'k', value: 'v' },
      ]),
    );
    // As an earlier server stored them: no values kept; the migration fills them again.
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const down = await migrator.migrateTo('2026-11-29-025-estimated-totals');
    if (down.error) throw down.error;
    await migrateToLatest(db);
    expect(order(await db.selectFrom('run_values').selectAll().execute())).toEqual(kept);
  });
});
