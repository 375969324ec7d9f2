import type { Kysely } from 'kysely';
import { deletedRow } from '../../db/rows.js';
import type { Database } from '../../db/schema.js';
import { problems } from '../../lib/problems.js';
import { deleteMonitorsWhere } from '../monitors/index.js';
import { forgetProjectWords } from '../query/index.js';

/*
 * The end of a project's data: one operation in the top tier, since it reaches the tables of every
 * feature below (runs and their rollups, search entries, monitors). A feature never deletes another's
 * rows; the rows that other tables reference are removed by foreign keys where the schema declares them.
 */

/** Deletes the project with everything under it, in one transaction. */
export async function deleteProject(db: Kysely<Database>, organizationId: string, projectId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const project = trx.deleteFrom('projects').where('id', '=', projectId).where('organization_id', '=', organizationId);
    await deletedRow(project, () => problems.notFound(`Project ${projectId} does not exist.`));
    await trx.deleteFrom('run_tags').where('project_id', '=', projectId).execute();
    await trx.deleteFrom('run_values').where('project_id', '=', projectId).execute();
    await trx.deleteFrom('runs').where('project_id', '=', projectId).execute();
    for (const rollup of ['traces', 'run_sessions', 'run_users'] as const) await trx.deleteFrom(rollup).where('project_id', '=', projectId).execute();
    await forgetProjectWords(trx, projectId);
    await deleteMonitorsWhere(trx, { projectId });
  });
}
