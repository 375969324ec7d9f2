import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { App, Deps } from '../../deps.js';
import { actorOf } from '../../db/audit.js';
import type { ModelConnectionRow } from '../../db/schema.js';
import { problemResponses, problems } from '../../lib/problems.js';
import { leaveWorkQueue } from '../../lib/shedding.js';
import { filteredOrganizationList } from '../page-route.js';
import { routeKit } from '../route-kit.js';
import { callModel, JudgeError, parseJsonContent, type CallTrace } from './judge.js';
import {
  createModelConnection,
  deleteModelConnection,
  listModelConnections,
  releaseTestLease,
  requireModelConnection,
  takeTestLease,
  toModelConnection,
  updateModelConnection,
  type ConnectionSettings,
} from './model-connections.repo.js';
import {
  ConnectionTestSchema,
  CreateModelConnectionBody,
  ListModelConnectionsQuery,
  ModelConnectionPage,
  ModelConnectionParams,
  UpdateModelConnectionBody,
  type ConnectionTest,
} from './model-connections.schemas.js';
import { TEST_CALL_GRACE_MS, TEST_LEASE_EXTRA_MS } from './model-connections.rules.js';

const tags = ['Model connections'];

/** The connection test's request: a tiny JSON answer. */
const TEST_MESSAGES = [
  { role: 'system', content: 'You check that a connection works. Answer in JSON.' },
  { role: 'user', content: 'Reply with the JSON object {"ok": true} and nothing else.' },
];

export function modelConnectionRoutes(app: App, deps: Deps): void {
  const { db, clock, cursors, keys, config } = deps;
  const settings: ConnectionSettings = { keys, allowPrivate: config.modelAllowPrivate };
  const wire = (row: Parameters<typeof toModelConnection>[0]) => toModelConnection(row, clock.now());

  const route = routeKit(app, { tags, cursors });

  route.page(
    '/model-connections',
    {
      scope: 'quality:admin',
      operationId: 'listModelConnections',
      summary: "List the organization's model connections",
      description: 'Newest first. Filter: `name` (case-insensitive substring). Keys and header values are never shown.',
      querystring: ListModelConnectionsQuery,
      page: ModelConnectionPage,
    },
    filteredOrganizationList('model-connections', (organizationId, filters, after, take) => listModelConnections(db, organizationId, filters, after, take)),
    wire,
  );

  route.create(
    '/model-connections',
    {
      scope: 'quality:admin',
      operationId: 'createModelConnection',
      summary: 'Create a model connection',
      description:
        'An OpenAI-compatible chat endpoint that LLM-as-judge evaluators call, with a monthly budget in USD. The key and extra headers are stored sealed and never shown again. Without `pricing`, the model must be in the model price table (400 at `/pricing`). Names are unique in the organization (409).',
      body: CreateModelConnectionBody,
      answer: 'ModelConnection',
      problems: [409],
    },
    async (request) => wire(await createModelConnection(db, settings, request.principal.organizationId, request.body, clock.now(), actorOf(request.principal))),
  );

  route.get(
    '/model-connections/:connection_id',
    {
      scope: 'quality:admin',
      operationId: 'getModelConnection',
      summary: 'Get a model connection',
      description: 'With this month’s spend; the key shows only as `apiKeyHint`.',
      params: ModelConnectionParams,
      answer: 'ModelConnection',
    },
    async (request) => wire(await requireModelConnection(db, request.principal.organizationId, request.params.connection_id)),
  );

  route.patch(
    '/model-connections/:connection_id',
    {
      scope: 'quality:admin',
      operationId: 'updateModelConnection',
      summary: 'Change a model connection',
      description: 'Any of its fields; a new `apiKey` or `headers` replaces the old (null removes it). The month’s spend is kept.',
      params: ModelConnectionParams,
      body: UpdateModelConnectionBody,
      answer: 'ModelConnection',
      problems: [409],
    },
    async (request) =>
      wire(
        await updateModelConnection(
          db,
          settings,
          request.principal.organizationId,
          request.params.connection_id,
          request.body,
          clock.now(),
          actorOf(request.principal),
        ),
      ),
  );

  route.delete(
    '/model-connections/:connection_id',
    {
      scope: 'quality:admin',
      operationId: 'deleteModelConnection',
      summary: 'Delete a model connection',
      description: 'Evaluators that name it fail (not retried) until given another.',
      params: ModelConnectionParams,
    },
    (request) => deleteModelConnection(db, request.principal.organizationId, request.params.connection_id, clock.now(), actorOf(request.principal)),
  );

  app.post('/model-connections/:connection_id/test', {
    config: { scope: 'quality:admin', headers: { 409: ['Retry-After'] } },
    schema: {
      operationId: 'testModelConnection',
      tags,
      summary: 'Send a tiny request through a model connection',
      description:
        'Asks the connection’s model for `{"ok": true}` in JSON mode and reports whether a JSON answer came, or the problem (the HTTP status, the endpoint’s message without the key, a timeout, the SSRF guard’s refusal, the budget: no request once the month’s spend has reached it). The call counts in the month’s spend like a judge’s. One test at a time per connection, across every instance: while one is in progress, another is a 409 with `Retry-After` (at most the model timeout and 15 s).',
      params: ModelConnectionParams,
      response: { 200: ConnectionTestSchema, ...problemResponses(409) },
    },
    handler: async (request): Promise<ConnectionTest> => {
      const { organizationId } = request.principal;
      const row = await requireModelConnection(db, organizationId, request.params.connection_id);
      // The call's bound (aborted then) and its lease's, a little longer: one test at a time per connection.
      const callMs = config.modelTimeoutSeconds * 1000 + TEST_CALL_GRACE_MS;
      const now = clock.now();
      const owner = randomUUID();
      const lease = await takeTestLease(db, organizationId, row.id, { owner, now, until: now + callMs + TEST_LEASE_EXTRA_MS });
      if (!lease.taken) {
        const seconds = Math.max(1, Math.ceil((lease.until - now) / 1000));
        throw problems.conflict(`A test of model connection ${row.id} is in progress; try again when it ends (within ${seconds} s).`, {
          'retry-after': String(seconds),
        });
      }
      // The model's answer may take the whole timeout: waiting for it holds no place in the work queue.
      leaveWorkQueue(request);
      try {
        return await testCall(row, AbortSignal.timeout(callMs));
      } finally {
        // Not given back (the database failed): it expires by itself.
        await releaseTestLease(db, organizationId, row.id, owner).catch((error: unknown) =>
          request.log.error({ err: error, connectionId: row.id }, 'model connection test lease not released'),
        );
      }
    },
  });

  /** The test call itself: a report whatever the endpoint did. */
  async function testCall(row: ModelConnectionRow, signal: AbortSignal): Promise<ConnectionTest> {
    const trace: CallTrace = { status: null };
    const started = performance.now();
    const report = (fields: Pick<ConnectionTest, 'ok' | 'costUsd' | 'problem' | 'retryable'>): ConnectionTest => ({
      model: row.model,
      status: trace.status,
      latencyMs: Math.round(performance.now() - started),
      ...fields,
    });
    try {
      const answer = await callModel(deps, row.organization_id, row.id, (current) => ({ model: current.model, messages: TEST_MESSAGES }), signal, trace);
      const ok = parseJsonContent(answer.content) !== null;
      return report({
        ok,
        costUsd: answer.costUsd,
        problem: ok ? null : `The answer is not a JSON object: ${answer.quote(answer.content, 200)}`,
        retryable: ok ? null : false,
      });
    } catch (error) {
      if (error instanceof JudgeError) return report({ ok: false, costUsd: 0, problem: error.message, retryable: error.retryable });
      throw error;
    }
  }
}
