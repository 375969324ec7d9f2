import { Migrator } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { dialects } from '../../../test/helpers/storage.js';
import { migrateToLatest, type Storage } from '../../db/index.js';
import { migrations } from '../../db/migrations/index.js';
import { ensureOrganization } from '../organizations/organizations.repo.js';
import { createProject } from '../projects/projects.repo.js';
import { ingestRuns } from '../runs/runs.ingest.js';
import { emptyStorage } from '../runs/runs.test-support.js';
import { ingestScores } from './scores.ingest.js';
import { queueEvaluations } from '../evaluators/evaluators.sampling.js';

const NOW = Date.parse('2026-11-26T12:00:00.000Z');
const HOUR = 3_600_000;

/** Migration 020 on scores an earlier server stored: its backfill gives the rollups that ingestion keeps. */
describe.each(dialects)('migration 020 (score rollups) [%s]', (dialect) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function storage(): Promise<Storage> {
    const opened = await emptyStorage(dialect, cleanups);
    await migrateToLatest(opened.db);
    return opened;
  }

  it('backfills, from the stored scores, the rollups ingestion keeps', async () => {
    const { db } = await storage();
    const org = await ensureOrganization(db, `migration-${dialect}`, 'free', NOW);
    const project = await createProject(db, org.id, { name: 'migrated' }, NOW);
    await ingestRuns(
      db,
      project.id,
      [{ id: 'r1', name: 'run', kind: 'llm', startTime: '2026-11-26T10:00:00.000Z', sessionId: 's1' }],
      NOW,
      (i) => `/runs/${i}`,
      queueEvaluations,
    );
    const author = { organizationId: org.id, projectId: project.id, kind: 'user' as const, id: 'usr_1' };
    const values = [0.25, 1, true, false, 'x', 'y', 7];
    for (const [i, value] of values.entries()) {
      const results = await ingestScores(
        db,
        author,
        [
          { runId: 'r1', name: 'a', value, source: 'api' },
          { sessionId: 's1', name: i % 2 ? 'a' : 'b', value, source: 'evaluator' },
        ],
        NOW - (i % 3) * HOUR - i * 60_000,
        (k) => `/scores/${k}`,
      );
      expect(results.filter((r) => r.status !== 'created')).toEqual([]);
    }
    const rollups = () =>
      db
        .selectFrom('score_rollups')
        .selectAll()
        .orderBy(['hour', 'name', 'source', 'target', 'data_type', 'label'])
        .execute()
        .then((rows) => rows.map((r) => ({ ...r, hour: Number(r.hour), count: Number(r.count), sum: Number(r.sum) })));
    const kept = await rollups();
    expect(kept.reduce((n, r) => n + r.count, 0)).toBe(values.length * 2);

    // Back to before 020 (the scores stay), and forward again.
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const back = await migrator.migrateTo('2026-11-26-016-annotation-queues');
    if (back.error) throw back.error;
    await migrateToLatest(db);
    expect(await rollups()).toEqual(kept);
  });
});
