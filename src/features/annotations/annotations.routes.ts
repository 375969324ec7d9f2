import type { Principal } from '../../auth/tokens.js';
import type { App, Deps } from '../../deps.js';
import { projectList } from '../page-route.js';
import { requestedProject } from '../projects/index.js';
import { routeKit } from '../route-kit.js';
import type { ProjectScope } from '../../db/scope.js';
import { createQueue, deleteQueue, listQueues, queueWithCounts, toQueue, updateQueue } from './annotations.repo.js';
import { AnnotationQueuePage, CreateQueueBody, QueueParams, UpdateQueueBody } from './annotations.schemas.js';
import { ProjectParams } from '../../schemas/records.js';

export const tags = ['Annotation queues'];

/** The project the path names (404 when it is not the caller's organization's), as queries scope by it. */
export async function scopeOf(db: Deps['db'], request: { principal: Principal; params: { project_id: string } }): Promise<ProjectScope> {
  const project = await requestedProject(db, request);
  return { organizationId: request.principal.organizationId, projectId: project.id };
}

export function annotationQueueRoutes(app: App, { db, clock, cursors }: Deps): void {
  const route = routeKit(app, { tags, cursors });

  route.page(
    '/projects/:project_id/annotation-queues',
    {
      scope: 'scores:read',
      operationId: 'listAnnotationQueues',
      summary: 'List annotation queues',
      description: 'Newest first (then id), each with its counts as of the request.',
      params: ProjectParams,
      page: AnnotationQueuePage,
    },
    projectList(
      'annotation-queues',
      (request) => scopeOf(db, request),
      (scope, after, take) => listQueues(db, scope, after, take, clock.now()),
    ),
    toQueue,
  );

  route.create(
    '/projects/:project_id/annotation-queues',
    {
      scope: 'scores:write',
      operationId: 'createAnnotationQueue',
      summary: 'Create an annotation queue',
      description:
        'Empty. Its `target` (runs or traces) never changes; `scoreConfigIds` must name score configs of the organization (400 naming each that does not). Its name is unique in the project (409).',
      params: ProjectParams,
      body: CreateQueueBody,
      answer: 'AnnotationQueue',
      problems: [409],
    },
    async (request) => toQueue(await createQueue(db, await scopeOf(db, request), request.body, clock.now())),
  );

  route.get(
    '/projects/:project_id/annotation-queues/:queue_id',
    {
      scope: 'scores:read',
      operationId: 'getAnnotationQueue',
      summary: 'Get an annotation queue',
      description:
        'With its counts, exact as of the request: `pending` (nobody holds it), `inProgress` (held under an unexpired lease), `completed`, `skipped`.',
      params: QueueParams,
      answer: 'AnnotationQueue',
    },
    async (request) => toQueue(await queueWithCounts(db, await scopeOf(db, request), request.params.queue_id, clock.now())),
  );

  route.patch(
    '/projects/:project_id/annotation-queues/:queue_id',
    {
      scope: 'scores:write',
      operationId: 'updateAnnotationQueue',
      summary: "Change an annotation queue's name, description or score configs",
      description: 'Its target and items are unchanged. A name another queue of the project has is a 409.',
      params: QueueParams,
      body: UpdateQueueBody,
      answer: 'AnnotationQueue',
      problems: [409],
    },
    async (request) => toQueue(await updateQueue(db, await scopeOf(db, request), request.params.queue_id, request.body, clock.now())),
  );

  route.delete(
    '/projects/:project_id/annotation-queues/:queue_id',
    {
      scope: 'quality:admin',
      operationId: 'deleteAnnotationQueue',
      summary: 'Delete an annotation queue',
      description: 'With its items; the scores given in it stay (with their `queueId`). Admins and owners only.',
      params: QueueParams,
    },
    async (request) => deleteQueue(db, await scopeOf(db, request), request.params.queue_id),
  );
}
