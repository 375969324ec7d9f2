import { Type } from '@sinclair/typebox';
import type { App, Deps } from '../../deps.js';
import { paginate } from '../../lib/pagination.js';
import { problemResponses } from '../../lib/problems.js';
import { createProject, deleteProject, listProjects, requireProject, toProject, updateProject } from './projects.repo.js';
import { CreateProjectBody, ListProjectsQuery, ProjectPage, ProjectParams, UpdateProjectBody } from './projects.schemas.js';

const tags = ['Projects'];

export function projectRoutes(app: App, { db, clock, cursors }: Deps): void {
  app.get('/projects', {
    config: { scope: 'projects:read' },
    schema: { tags, summary: 'List projects', description: 'Newest first.', querystring: ListProjectsQuery, response: { 200: ProjectPage } },
    handler: async (request) => {
      const { limit, cursor, ...filters } = request.query;
      const identity = { endpoint: 'projects', organizationId: request.principal.organizationId, filters };
      return paginate(
        cursors,
        { limit, cursor },
        identity,
        (after, take) => listProjects(db, request.principal.organizationId, filters, after, take),
        toProject,
      );
    },
  });

  app.post('/projects', {
    config: { scope: 'projects:write' },
    schema: { tags, summary: 'Create a project', body: CreateProjectBody, response: { 201: Type.Ref('Project'), ...problemResponses(409) } },
    handler: async (request, reply) => {
      const row = await createProject(db, request.principal.organizationId, request.body, clock.now());
      return reply.code(201).send(toProject(row));
    },
  });

  app.get('/projects/:project_id', {
    config: { scope: 'projects:read' },
    schema: { tags, summary: 'Get a project', params: ProjectParams, response: { 200: Type.Ref('Project') } },
    handler: async (request) => {
      return toProject(await requireProject(db, request.principal.organizationId, request.params.project_id));
    },
  });

  app.patch('/projects/:project_id', {
    config: { scope: 'projects:write' },
    schema: {
      tags,
      summary: 'Update a project',
      params: ProjectParams,
      body: UpdateProjectBody,
      response: { 200: Type.Ref('Project'), ...problemResponses(409) },
    },
    handler: async (request) => {
      return toProject(await updateProject(db, request.principal.organizationId, request.params.project_id, request.body, clock.now()));
    },
  });

  app.delete('/projects/:project_id', {
    config: { scope: 'projects:delete' },
    schema: { tags, summary: 'Delete a project with its runs', params: ProjectParams, response: { 204: Type.Null({ description: 'Deleted' }) } },
    handler: async (request, reply) => {
      await deleteProject(db, request.principal.organizationId, request.params.project_id);
      return reply.code(204).send(null);
    },
  });
}
