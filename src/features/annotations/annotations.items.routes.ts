import { Type } from '@sinclair/typebox';
import type { Principal } from '../../auth/tokens.js';
import type { App, Deps } from '../../deps.js';
import { problemResponses } from '../../lib/problems.js';
import { routeKit } from '../route-kit.js';
import { toScore } from '../scores/index.js';
import { claimItem, insertItems, listItems, ofQueue, toItem } from './annotations.items.repo.js';
import { completeItem, skipItem } from './annotations.ops.js';
import { requireQueue } from './annotations.repo.js';
import { scopeOf, tags } from './annotations.routes.js';
import { ANNOTATION_LEASE_MS, MAX_ADD, type QueueTarget } from './annotations.rules.js';
import {
  AddItemsBody,
  AnnotationItemPage,
  CompletedSchema,
  CompleteItemBody,
  ItemParams,
  ItemsAddedSchema,
  ListItemsQuery,
  QueueParams,
} from './annotations.schemas.js';
import { targetsToAdd } from './annotations.targets.js';

const LEASE_MINUTES = ANNOTATION_LEASE_MS / 60_000;

export function annotationItemRoutes(app: App, { db, dialect, clock, cursors }: Deps): void {
  const route = routeKit(app, { tags, cursors });
  /** The queue the path names, in the project the path names (404s first). */
  const queueOf = async (request: { principal: Principal; params: { project_id: string; queue_id: string } }) => {
    const scope = await scopeOf(db, request);
    return { scope, queue: await requireQueue(db, scope, request.params.queue_id) };
  };

  route.page(
    '/projects/:project_id/annotation-queues/:queue_id/items',
    {
      scope: 'scores:read',
      operationId: 'listAnnotationItems',
      summary: "List an annotation queue's items",
      description: 'Newest first (then id). Filter `status`: `pending`, `completed` or `skipped`.',
      params: QueueParams,
      querystring: ListItemsQuery,
      page: AnnotationItemPage,
    },
    async (request) => {
      const { scope, queue } = await queueOf(request);
      const { status } = request.query;
      return {
        identity: { endpoint: 'annotation-items', organizationId: scope.organizationId, parents: [scope.projectId, queue.id], filters: { status } },
        fetch: async (after, take) => {
          const page = await listItems(db, scope, queue.id, status, after, take);
          return { rows: page.rows.map((row) => ofQueue(queue, row)), positionOf: page.positionOf };
        },
      };
    },
    toItem,
  );

  route.post(
    '/projects/:project_id/annotation-queues/:queue_id/items',
    {
      scope: 'scores:write',
      operationId: 'addAnnotationItems',
      summary: 'Add runs or traces to an annotation queue',
      description:
        `Exactly one of \`ids\` (1..${MAX_ADD} runs or traces of the project, as the queue's target: when any does not exist, a 400 lists each and nothing is added) ` +
        `and \`filter\` (the runs list's filters; the newest matches, up to \`limit\`, default ${MAX_ADD}); with \`rate\`, a sample of the matches (a hash of the queue and target ids below the rate: the same sample each time). ` +
        'Items are claimed in the order added. A target the queue has already is counted as `existing`, not an error.',
      params: QueueParams,
      body: AddItemsBody,
      answer: ItemsAddedSchema,
    },
    async (request) => {
      const { scope, queue } = await queueOf(request);
      const { ids, examined } = await targetsToAdd(db, dialect, scope.projectId, { id: queue.id, target: queue.target as QueueTarget }, request.body);
      return { ...(await insertItems(db, scope, queue.id, ids, clock.now())), examined };
    },
  );

  app.post('/projects/:project_id/annotation-queues/:queue_id/claim', {
    config: { scope: 'scores:write' },
    schema: {
      operationId: 'claimAnnotationItem',
      tags,
      summary: 'Claim the next item to review',
      description:
        `The item you hold already (its lease renewed), else the oldest pending item nobody holds, leased to you for ${LEASE_MINUTES} minutes: ` +
        'no one else is given it meanwhile. 204 when no item is left to claim.',
      params: QueueParams,
      response: { 200: Type.Ref('AnnotationItem'), 204: Type.Null({ description: 'No pending item is free' }), ...problemResponses(503) },
    },
    handler: async (request, reply) => {
      const { scope, queue } = await queueOf(request);
      const row = await claimItem(db, dialect, scope, queue.id, request.principal.userId, clock.now());
      return row ? toItem(ofQueue(queue, row)) : reply.code(204).send(null);
    },
  });

  route.post(
    '/projects/:project_id/annotation-queues/:queue_id/items/:item_id/complete',
    {
      scope: 'scores:write',
      operationId: 'completeAnnotationItem',
      summary: 'Complete an item with its scores',
      description:
        "By the reviewer who holds it (409 for anyone else, after the lease ran out, or once it is done). The scores judge the item's target (source `annotation`, `queueId` set), " +
        'validated as any score; when one is refused (400 listing the faults) none is stored and the item stays held.',
      params: ItemParams,
      body: CompleteItemBody,
      answer: CompletedSchema,
      problems: [409],
    },
    async (request) => {
      const { scope, queue } = await queueOf(request);
      const { item, scores } = await completeItem(db, dialect, scope, queue, request.params.item_id, request.principal.userId, request.body, clock.now());
      return { item: toItem(ofQueue(queue, item)), scores: scores.map(toScore) };
    },
  );

  route.post(
    '/projects/:project_id/annotation-queues/:queue_id/items/:item_id/skip',
    {
      scope: 'scores:write',
      operationId: 'skipAnnotationItem',
      summary: 'Skip an item',
      description: 'By the reviewer who holds it (409 for anyone else, after the lease ran out, or once it is done): no scores, and no one is given it again.',
      params: ItemParams,
      answer: 'AnnotationItem',
      problems: [409],
    },
    async (request) => {
      const { scope, queue } = await queueOf(request);
      return toItem(ofQueue(queue, await skipItem(db, dialect, scope, queue.id, request.params.item_id, request.principal.userId, clock.now())));
    },
  );
}
