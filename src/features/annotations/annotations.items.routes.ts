import { Type } from '@sinclair/typebox';
import type { App, Deps } from '../../deps.js';
import { problemResponses } from '../../lib/problems.js';
import { pageRoute } from '../page-route.js';
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
  pageRoute(
    app,
    cursors,
    '/projects/:project_id/annotation-queues/:queue_id/items',
    {
      scope: 'scores:read',
      operationId: 'listAnnotationItems',
      tags,
      summary: "List an annotation queue's items",
      description: 'Newest first (then id). Filter `status`: `pending`, `completed` or `skipped`.',
      params: QueueParams,
      querystring: ListItemsQuery,
      page: AnnotationItemPage,
    },
    async (request) => {
      const scope = await scopeOf(db, request);
      const queue = await requireQueue(db, scope, request.params.queue_id);
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

  app.post('/projects/:project_id/annotation-queues/:queue_id/items', {
    config: { scope: 'scores:write' },
    schema: {
      operationId: 'addAnnotationItems',
      tags,
      summary: 'Add runs or traces to an annotation queue',
      description:
        `Exactly one of \`ids\` (1..${MAX_ADD} runs or traces of the project, as the queue's target: when any does not exist, a 400 lists each and nothing is added) ` +
        `and \`filter\` (the runs list's filters; the newest matches, up to \`limit\`, default ${MAX_ADD}); with \`rate\`, a sample of the matches (a hash of the queue and target ids below the rate: the same sample each time). ` +
        'Items are claimed in the order added. A target the queue has already is counted as `existing`, not an error.',
      params: QueueParams,
      body: AddItemsBody,
      response: { 200: ItemsAddedSchema },
    },
    handler: async (request) => {
      const scope = await scopeOf(db, request);
      const queue = await requireQueue(db, scope, request.params.queue_id);
      const { ids, examined } = await targetsToAdd(db, dialect, scope.projectId, { id: queue.id, target: queue.target as QueueTarget }, request.body);
      return { ...(await insertItems(db, scope, queue.id, ids, clock.now())), examined };
    },
  });

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
      const scope = await scopeOf(db, request);
      const queue = await requireQueue(db, scope, request.params.queue_id);
      const row = await claimItem(db, dialect, scope, queue.id, request.principal.userId, clock.now());
      return row ? toItem(ofQueue(queue, row)) : reply.code(204).send(null);
    },
  });

  app.post('/projects/:project_id/annotation-queues/:queue_id/items/:item_id/complete', {
    config: { scope: 'scores:write' },
    schema: {
      operationId: 'completeAnnotationItem',
      tags,
      summary: 'Complete an item with its scores',
      description:
        "By the reviewer who holds it (409 for anyone else, after the lease ran out, or once it is done). The scores judge the item's target (source `annotation`, `queueId` set), " +
        'validated as any score; when one is refused (400 listing the faults) none is stored and the item stays held.',
      params: ItemParams,
      body: CompleteItemBody,
      response: { 200: CompletedSchema, ...problemResponses(409) },
    },
    handler: async (request) => {
      const scope = await scopeOf(db, request);
      const queue = await requireQueue(db, scope, request.params.queue_id);
      const { item, scores } = await completeItem(db, dialect, scope, queue, request.params.item_id, request.principal.userId, request.body, clock.now());
      return { item: toItem(ofQueue(queue, item)), scores: scores.map(toScore) };
    },
  });

  app.post('/projects/:project_id/annotation-queues/:queue_id/items/:item_id/skip', {
    config: { scope: 'scores:write' },
    schema: {
      operationId: 'skipAnnotationItem',
      tags,
      summary: 'Skip an item',
      description: 'By the reviewer who holds it (409 for anyone else, after the lease ran out, or once it is done): no scores, and no one is given it again.',
      params: ItemParams,
      response: { 200: Type.Ref('AnnotationItem'), ...problemResponses(409) },
    },
    handler: async (request) => {
      const scope = await scopeOf(db, request);
      const queue = await requireQueue(db, scope, request.params.queue_id);
      return toItem(ofQueue(queue, await skipItem(db, dialect, scope, queue.id, request.params.item_id, request.principal.userId, clock.now())));
    },
  });
}
