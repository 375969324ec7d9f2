import { Type } from '@sinclair/typebox';
import type { App, Deps } from '../../deps.js';
import { ProjectParams } from '../../schemas/records.js';
import { deleteProject } from './lifecycle.projects.js';

const tags = ['Projects'];

/** The deletions that reach across features (ARCHITECTURE.md, Tiers: surfaces). */
export function lifecycleRoutes(app: App, { db }: Deps): void {
  app.delete('/projects/:project_id', {
    config: { scope: 'projects:delete' },
    schema: {
      operationId: 'deleteProject',
      tags,
      summary: 'Delete a project with its runs',
      description: 'With its runs and monitors, at once and for good.',
      params: ProjectParams,
      response: { 204: Type.Null({ description: 'Deleted' }) },
    },
    handler: async (request, reply) => {
      await deleteProject(db, request.principal.organizationId, request.params.project_id);
      return reply.code(204).send(null);
    },
  });
}
