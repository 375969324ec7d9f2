import type { App, Deps } from '../../deps.js';
import { actorOf } from '../../db/audit.js';
import { routeKit } from '../route-kit.js';
import { ProjectParams } from '../../schemas/records.js';
import { deleteProject } from './lifecycle.projects.js';

const tags = ['Projects'];

/** The deletions that reach across features (ARCHITECTURE.md, Tiers: surfaces). */
export function lifecycleRoutes(app: App, { db, cursors, clock }: Deps): void {
  routeKit(app, { tags, cursors }).delete(
    '/projects/:project_id',
    {
      scope: 'projects:delete',
      operationId: 'deleteProject',
      summary: 'Delete a project with its runs',
      description: 'With its runs and monitors, at once and for good.',
      params: ProjectParams,
    },
    (request) => deleteProject(db, request.principal.organizationId, request.params.project_id, clock.now(), actorOf(request.principal)),
  );
}
