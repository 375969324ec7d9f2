import type { Kysely } from 'kysely';
import { recordAudit, type AuditActor } from '../../db/audit.js';
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
export async function deleteProject(db: Kysely<Database>, organizationId: string, projectId: string, now: number, actor: AuditActor): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const found = await trx.selectFrom('projects').select('name').where('id', '=', projectId).where('organization_id', '=', organizationId).executeTakeFirst();
    const project = trx.deleteFrom('projects').where('id', '=', projectId).where('organization_id', '=', organizationId);
    await deletedRow(project, () => problems.notFound(`Project ${projectId} does not exist.`));
    const target = { type: 'project', id: projectId };
    await recordAudit(trx, { organizationId, actor, action: 'project.deleted', target, details: { name: found?.name ?? null }, at: now });
    await trx.deleteFrom('run_tags').where('project_id', '=', projectId).execute();
    await trx.deleteFrom('run_values').where('project_id', '=', projectId).execute();
    await trx.deleteFrom('runs').where('project_id', '=', projectId).execute();
    for (const rollup of ['traces', 'run_sessions', 'run_users'] as const) await trx.deleteFrom(rollup).where('project_id', '=', projectId).execute();
    await forgetProjectWords(trx, projectId);
    await deleteMonitorsWhere(trx, { projectId });
  });
}
