import { grantLimits } from '../../auth/permissions.js';
import type { App, Deps } from '../../deps.js';
import { routeKit } from '../route-kit.js';
import { createProject, listProjects, requestedProject, toProject, updateProject } from './projects.repo.js';
import { CreateProjectBody, ListProjectsQuery, ProjectPage, UpdateProjectBody } from './projects.schemas.js';
import { ProjectParams } from '../../schemas/records.js';

const tags = ['Projects'];

export function projectRoutes(app: App, { db, clock, cursors }: Deps): void {
  const route = routeKit(app, { tags, cursors });

  route.page(
    '/projects',
    {
      scope: 'projects:read',
      projects: 'listed',
      operationId: 'listProjects',
      summary: 'List projects',
      description: 'Newest first. A token narrowed to projects lists those only.',
      querystring: ListProjectsQuery,
      page: ProjectPage,
    },
    async ({ principal, query: { limit: _limit, cursor: _cursor, ...filters } }) => {
      // A token narrowed to projects lists those only; its cursors are bound to them.
      const { organizationId } = principal;
      const only = grantLimits(principal).projectIds ?? undefined;
      return {
        identity: { endpoint: 'projects', organizationId, filters: only === undefined ? filters : { ...filters, only } },
        fetch: (after, take) => listProjects(db, organizationId, { ...filters, only }, after, take),
      };
    },
    toProject,
  );

  route.create(
    '/projects',
    {
      scope: 'projects:write',
      operationId: 'createProject',
      summary: 'Create a project',
      description: 'The name is unique in the organization, ignoring case: a taken one is a 409.',
      body: CreateProjectBody,
      answer: 'Project',
      problems: [409],
    },
    async (request) => toProject(await createProject(db, request.principal.organizationId, request.body, clock.now())),
  );

  route.get(
    '/projects/:project_id',
    {
      scope: 'projects:read',
      operationId: 'getProject',
      summary: 'Get a project',
      description: 'A project of another organization is a 404, as one that does not exist.',
      params: ProjectParams,
      answer: 'Project',
    },
    async (request) => toProject(await requestedProject(db, request)),
  );

  route.patch(
    '/projects/:project_id',
    {
      scope: 'projects:write',
      operationId: 'updateProject',
      summary: 'Update a project',
      description: 'Rename it (a taken name is a 409) or change its description.',
      params: ProjectParams,
      body: UpdateProjectBody,
      answer: 'Project',
      problems: [409],
    },
    async (request) => toProject(await updateProject(db, request.principal.organizationId, request.params.project_id, request.body, clock.now())),
  );
}
