import { Type } from '@sinclair/typebox';
import type { App, Deps } from '../../deps.js';
import { problemResponses } from '../../lib/problems.js';
import { pageRoute } from '../page-route.js';
import { createProject, listProjects, requestedProject, toProject, updateProject } from './projects.repo.js';
import { CreateProjectBody, ListProjectsQuery, ProjectPage, UpdateProjectBody } from './projects.schemas.js';
import { ProjectParams } from '../../schemas/records.js';

const tags = ['Projects'];

export function projectRoutes(app: App, { db, clock, cursors }: Deps): void {
  pageRoute(
    app,
    cursors,
    '/projects',
    {
      scope: 'projects:read',
      operationId: 'listProjects',
      tags,
      summary: 'List projects',
      description: 'Newest first.',
      querystring: ListProjectsQuery,
      page: ProjectPage,
    },
    async ({ principal: { organizationId }, query: { limit: _limit, cursor: _cursor, ...filters } }) => ({
      identity: { endpoint: 'projects', organizationId, filters },
      fetch: (after, take) => listProjects(db, organizationId, filters, after, take),
    }),
    toProject,
  );

  app.post('/projects', {
    config: { scope: 'projects:write' },
    schema: {
      operationId: 'createProject',
      tags,
      summary: 'Create a project',
      description: 'The name is unique in the organization, ignoring case: a taken one is a 409.',
      body: CreateProjectBody,
      response: { 201: Type.Ref('Project'), ...problemResponses(409) },
    },
    handler: async (request, reply) => {
      const row = await createProject(db, request.principal.organizationId, request.body, clock.now());
      return reply.code(201).send(toProject(row));
    },
  });

  app.get('/projects/:project_id', {
    config: { scope: 'projects:read' },
    schema: {
      operationId: 'getProject',
      tags,
      summary: 'Get a project',
      description: 'A project of another organization is a 404, as one that does not exist.',
      params: ProjectParams,
      response: { 200: Type.Ref('Project') },
    },
    handler: async (request) => {
      return toProject(await requestedProject(db, request));
    },
  });

  app.patch('/projects/:project_id', {
    config: { scope: 'projects:write' },
    schema: {
      operationId: 'updateProject',
      tags,
      summary: 'Update a project',
      description: 'Rename it (a taken name is a 409) or change its description.',
      params: ProjectParams,
      body: UpdateProjectBody,
      response: { 200: Type.Ref('Project'), ...problemResponses(409) },
    },
    handler: async (request) => {
      return toProject(await updateProject(db, request.principal.organizationId, request.params.project_id, request.body, clock.now()));
    },
  });
}
