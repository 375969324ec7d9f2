import type { App, Deps } from '../../deps.js';
import { requestedProject } from '../projects/index.js';
import { routeKit } from '../route-kit.js';
import { createView, deleteView, listViews, requireView, toSavedView, updateView, type ViewOwner } from './views.repo.js';
import { CreateViewBody, ListViewsQuery, MAX_VIEWS, SavedViewPage, UpdateViewBody, ViewParams } from './views.schemas.js';
import { ProjectParams } from '../../schemas/records.js';

const tags = ['Saved views'];

/** The caller's views of the project named in the path (a 404 for a project of another organization). */
async function ownerOf(db: Deps['db'], request: { principal: { organizationId: string; userId: string }; params: { project_id: string } }): Promise<ViewOwner> {
  const project = await requestedProject(db, request);
  return { organizationId: request.principal.organizationId, projectId: project.id, userId: request.principal.userId };
}

export function viewRoutes(app: App, { db, clock, cursors }: Deps): void {
  const route = routeKit(app, { tags, cursors });

  route.page(
    '/projects/:project_id/views',
    {
      scope: 'runs:read',
      operationId: 'listSavedViews',
      summary: 'List your saved views of a project',
      description: 'Your own views only, newest first (then id). Filter `page` for one list’s views.',
      params: ProjectParams,
      querystring: ListViewsQuery,
      page: SavedViewPage,
    },
    async (request) => {
      const owner = await ownerOf(db, request);
      const { page } = request.query;
      return {
        identity: {
          endpoint: 'views',
          organizationId: owner.organizationId,
          parents: [owner.projectId, owner.userId],
          filters: page === undefined ? {} : { page },
        },
        fetch: (after, take) => listViews(db, owner, page, after, take),
      };
    },
    toSavedView,
  );

  route.create(
    '/projects/:project_id/views',
    {
      scope: 'runs:read',
      operationId: 'createSavedView',
      summary: 'Save a view',
      description: `A named set of a list’s filters, yours alone. Its name is unique among your views of the project (409); at most ${MAX_VIEWS} per project (409).`,
      params: ProjectParams,
      body: CreateViewBody,
      answer: 'SavedView',
      problems: [409],
    },
    async (request) => {
      const owner = await ownerOf(db, request);
      const { name, page, filters } = request.body;
      return toSavedView(await createView(db, owner, { name, page, filters: filters ?? {} }, clock.now()));
    },
  );

  route.get(
    '/projects/:project_id/views/:view_id',
    {
      scope: 'runs:read',
      operationId: 'getSavedView',
      summary: 'Get one of your saved views',
      description: 'Another user’s view is a 404, as one that does not exist.',
      params: ViewParams,
      answer: 'SavedView',
    },
    async (request) => toSavedView(await requireView(db, await ownerOf(db, request), request.params.view_id)),
  );

  route.patch(
    '/projects/:project_id/views/:view_id',
    {
      scope: 'runs:read',
      operationId: 'updateSavedView',
      summary: 'Rename a saved view or replace its filters',
      description: 'The filters are replaced whole, and validated as the list validates them. Another user’s view is a 404.',
      params: ViewParams,
      body: UpdateViewBody,
      answer: 'SavedView',
      problems: [409],
    },
    async (request) => toSavedView(await updateView(db, await ownerOf(db, request), request.params.view_id, request.body, clock.now())),
  );

  route.delete(
    '/projects/:project_id/views/:view_id',
    {
      scope: 'runs:read',
      operationId: 'deleteSavedView',
      summary: 'Delete one of your saved views',
      description: 'Another user’s view is a 404, as one that does not exist.',
      params: ViewParams,
    },
    async (request) => deleteView(db, await ownerOf(db, request), request.params.view_id),
  );
}
