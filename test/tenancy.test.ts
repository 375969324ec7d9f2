import { expect, it } from 'vitest';
import type { Role } from '../src/auth/permissions.js';
import { setMembership } from '../src/features/organizations/organizations.repo.js';
import { newId } from '../src/lib/ids.js';
import { describeEachDialect, expectProblem, type Caller, type TestContext } from './helpers/harness.js';
import { expectUnauthorized } from './helpers/auth.js';
import { missingIds } from './helpers/ids.js';
import { expectCleanProblem } from './helpers/problems.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

/** The ids a route may name. */
interface Ids {
  projectId: string;
  runId: string;
  tokenId: string;
  /** A prompt with versions 1 and 2 and the label `production` on version 1. */
  promptId: string;
  /** A monitor of the project. */
  monitorId: string;
  /** A model price of the organization. */
  modelId: string;
  /** The run's session and end user. */
  sessionId: string;
  userId: string;
  /** A score of the run, and a score config of the organization. */
  scoreId: string;
  scoreConfigId: string;
  /** A dataset of the organization, and one of its items. */
  datasetId: string;
  itemId: string;
  /** An annotation queue of the project with the run in it, that item claimed by the owner. */
  queueId: string;
  annotationItemId: string;
  /** An evaluator rule of the project. */
  evaluatorId: string;
  /** A model connection of the organization (budget 0: its test call makes no request). */
  modelConnectionId: string;
  /** Two experiments over the dataset's version 1, their runs in the project. */
  experimentId: string;
  otherExperimentId: string;
}

interface RouteCase {
  method: Method;
  /** The route as documented, for the test name. */
  route: string;
  path: (ids: Ids) => string;
  body?: (ids: Ids) => unknown;
  /** What the resource's own owner gets for the same request. */
  ok: number;
  /** Refused to a member too (admin+); defaults to every DELETE. */
  adminOnly?: boolean;
  /** What a member gets when it is not `ok`: the owner's claimed item is not theirs to complete (409) and leaves them none to claim (204). */
  asMember?: number;
}

const validRun = () => ({ name: 'ChatOpenAI', kind: 'llm', startTime: '2026-11-02T10:00:00.000Z', inputs: { q: 'hi' } });
const validMonitor = () => ({ name: 'errors', metric: 'error_count', window: '1h', threshold: { op: '>', value: 0 } });
const datasetPath = (i: Ids, suffix = '') => `/v1/datasets/${i.datasetId}${suffix}`;
const itemPath = (i: Ids) => datasetPath(i, `/items/${i.itemId}`);
const monitorPath = (i: Ids, suffix = '') => `/v1/projects/${i.projectId}/monitors/${i.monitorId}${suffix}`;
const scorePath = (i: Ids, suffix = '') => `/v1/projects/${i.projectId}/scores${suffix}`;
const validScore = () => ({ name: 'helpfulness', value: 0.5 });
const queuePath = (i: Ids, suffix = '') => `/v1/projects/${i.projectId}/annotation-queues/${i.queueId}${suffix}`;
const evaluatorPath = (i: Ids) => `/v1/projects/${i.projectId}/evaluators/${i.evaluatorId}`;
const validEvaluatorRule = () => ({ name: `r-${newId('evr').slice(-12)}`, evaluator: { type: 'json_valid' }, scoreName: 'valid-json' });
const connectionPath = (i: Ids, suffix = '') => `/v1/model-connections/${i.modelConnectionId}${suffix}`;
const validConnection = () => ({ name: `c-${newId('mcn').slice(-12)}`, baseUrl: 'https://models.example.com/v1', model: 'gpt-4o-mini', monthlyBudgetUsd: 0 });
const experimentPath = (i: Ids, suffix = '') => `/v1/experiments/${i.experimentId}${suffix}`;

/** Every /v1 route that takes an id. Add new id-taking routes here. */
const ID_ROUTES: RouteCase[] = [
  { method: 'GET', route: '/v1/projects/{project_id}', path: (i) => `/v1/projects/${i.projectId}`, ok: 200 },
  { method: 'PATCH', route: '/v1/projects/{project_id}', path: (i) => `/v1/projects/${i.projectId}`, body: () => ({ description: 'hijacked' }), ok: 200 },
  { method: 'DELETE', route: '/v1/projects/{project_id}', path: (i) => `/v1/projects/${i.projectId}`, ok: 204 },
  { method: 'GET', route: '/v1/projects/{project_id}/runs', path: (i) => `/v1/projects/${i.projectId}/runs`, ok: 200 },
  { method: 'POST', route: '/v1/projects/{project_id}/runs', path: (i) => `/v1/projects/${i.projectId}/runs`, body: validRun, ok: 201 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/runs/batch',
    path: (i) => `/v1/projects/${i.projectId}/runs/batch`,
    body: () => ({ runs: [validRun()] }),
    ok: 200,
  },
  { method: 'GET', route: '/v1/projects/{project_id}/runs/metrics', path: (i) => `/v1/projects/${i.projectId}/runs/metrics`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/traces/metrics', path: (i) => `/v1/projects/${i.projectId}/traces/metrics`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/runs/values', path: (i) => `/v1/projects/${i.projectId}/runs/values?field=name`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/runs/{run_id}', path: (i) => `/v1/projects/${i.projectId}/runs/${i.runId}`, ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}/runs/{run_id}',
    path: (i) => `/v1/projects/${i.projectId}/runs/${i.runId}`,
    body: () => ({ status: 'succeeded', endTime: '2026-11-02T10:00:05.000Z' }),
    ok: 200,
  },
  { method: 'DELETE', route: '/v1/tokens/{token_id}', path: (i) => `/v1/tokens/${i.tokenId}`, ok: 204 },
  { method: 'GET', route: '/v1/prompts/{prompt_id}', path: (i) => `/v1/prompts/${i.promptId}`, ok: 200 },
  { method: 'PATCH', route: '/v1/prompts/{prompt_id}', path: (i) => `/v1/prompts/${i.promptId}`, body: () => ({ description: 'hijacked' }), ok: 200 },
  { method: 'DELETE', route: '/v1/prompts/{prompt_id}', path: (i) => `/v1/prompts/${i.promptId}`, ok: 204 },
  { method: 'GET', route: '/v1/prompts/{prompt_id}/versions', path: (i) => `/v1/prompts/${i.promptId}/versions`, ok: 200 },
  {
    method: 'POST',
    route: '/v1/prompts/{prompt_id}/versions',
    path: (i) => `/v1/prompts/${i.promptId}/versions`,
    body: () => ({ template: 'hijacked {{x}}' }),
    ok: 201,
  },
  { method: 'GET', route: '/v1/prompts/{prompt_id}/versions/{version}', path: (i) => `/v1/prompts/${i.promptId}/versions/1`, ok: 200 },
  { method: 'GET', route: '/v1/prompts/{prompt_id}/versions/{label}', path: (i) => `/v1/prompts/${i.promptId}/versions/production`, ok: 200 },
  {
    method: 'PUT',
    route: '/v1/prompts/{prompt_id}/labels/{label}',
    path: (i) => `/v1/prompts/${i.promptId}/labels/production`,
    body: () => ({ version: 2 }),
    ok: 200,
  },
  { method: 'DELETE', route: '/v1/prompts/{prompt_id}/labels/{label}', path: (i) => `/v1/prompts/${i.promptId}/labels/production`, ok: 204, adminOnly: false },
  { method: 'GET', route: '/v1/prompts/{prompt_id}/label-history', path: (i) => `/v1/prompts/${i.promptId}/label-history`, ok: 200 },
  {
    method: 'POST',
    route: '/v1/prompts/{prompt_id}/render',
    path: (i) => `/v1/prompts/${i.promptId}/render`,
    body: () => ({ variables: { name: 'x' } }),
    ok: 200,
  },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors', path: (i) => `/v1/projects/${i.projectId}/monitors`, ok: 200 },
  { method: 'POST', route: '/v1/projects/{project_id}/monitors', path: (i) => `/v1/projects/${i.projectId}/monitors`, body: validMonitor, ok: 201 },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors/{monitor_id}', path: (i) => monitorPath(i), ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}/monitors/{monitor_id}',
    path: (i) => monitorPath(i),
    body: () => ({ name: 'hijacked', enabled: false }),
    ok: 200,
  },
  { method: 'DELETE', route: '/v1/projects/{project_id}/monitors/{monitor_id}', path: (i) => monitorPath(i), ok: 204 },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors/{monitor_id}/metrics', path: (i) => monitorPath(i, '/metrics'), ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors/{monitor_id}/events', path: (i) => monitorPath(i, '/events'), ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors/{monitor_id}/deliveries', path: (i) => monitorPath(i, '/deliveries'), ok: 200 },
  { method: 'POST', route: '/v1/projects/{project_id}/monitors/{monitor_id}/rotate-secret', path: (i) => monitorPath(i, '/rotate-secret'), ok: 200 },
  { method: 'GET', route: '/v1/models/{model_id}', path: (i) => `/v1/models/${i.modelId}`, ok: 200 },
  { method: 'PATCH', route: '/v1/models/{model_id}', path: (i) => `/v1/models/${i.modelId}`, body: () => ({ inputPrice: 0 }), ok: 200, adminOnly: true },
  { method: 'DELETE', route: '/v1/models/{model_id}', path: (i) => `/v1/models/${i.modelId}`, ok: 204 },
  { method: 'GET', route: '/v1/projects/{project_id}/traces', path: (i) => `/v1/projects/${i.projectId}/traces`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/traces/{trace_id}', path: (i) => `/v1/projects/${i.projectId}/traces/${i.runId}`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/sessions', path: (i) => `/v1/projects/${i.projectId}/sessions`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/sessions/{session_id}', path: (i) => `/v1/projects/${i.projectId}/sessions/${i.sessionId}`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/users', path: (i) => `/v1/projects/${i.projectId}/users`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/users/{user_id}', path: (i) => `/v1/projects/${i.projectId}/users/${i.userId}`, ok: 200 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/runs/{run_id}/scores',
    path: (i) => `/v1/projects/${i.projectId}/runs/${i.runId}/scores`,
    body: validScore,
    ok: 201,
  },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/traces/{trace_id}/scores',
    path: (i) => `/v1/projects/${i.projectId}/traces/${i.runId}/scores`,
    body: validScore,
    ok: 201,
  },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/sessions/{session_id}/scores',
    path: (i) => `/v1/projects/${i.projectId}/sessions/${i.sessionId}/scores`,
    body: validScore,
    ok: 201,
  },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/scores/batch',
    path: (i) => scorePath(i, '/batch'),
    body: () => ({ scores: [{ ...validScore(), traceId: 'any' }] }),
    ok: 200,
  },
  { method: 'GET', route: '/v1/projects/{project_id}/scores', path: (i) => scorePath(i), ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/scores/metrics', path: (i) => scorePath(i, '/metrics'), ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/scores/values', path: (i) => scorePath(i, '/values?field=name'), ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/scores/{score_id}', path: (i) => scorePath(i, `/${i.scoreId}`), ok: 200 },
  // By their author or an admin: the member of the roles table is neither (scores.test.ts has the author).
  { method: 'PATCH', route: '/v1/projects/{project_id}/scores/{score_id}', path: (i) => scorePath(i, `/${i.scoreId}`), body: () => ({ value: 0 }), ok: 200 },
  { method: 'DELETE', route: '/v1/projects/{project_id}/scores/{score_id}', path: (i) => scorePath(i, `/${i.scoreId}`), ok: 204 },
  { method: 'GET', route: '/v1/score-configs/{config_id}', path: (i) => `/v1/score-configs/${i.scoreConfigId}`, ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/score-configs/{config_id}',
    path: (i) => `/v1/score-configs/${i.scoreConfigId}`,
    body: () => ({ description: 'hijacked' }),
    ok: 200,
    adminOnly: true,
  },
  { method: 'DELETE', route: '/v1/score-configs/{config_id}', path: (i) => `/v1/score-configs/${i.scoreConfigId}`, ok: 204 },
  { method: 'GET', route: '/v1/datasets/{dataset_id}', path: (i) => datasetPath(i), ok: 200 },
  { method: 'PATCH', route: '/v1/datasets/{dataset_id}', path: (i) => datasetPath(i), body: () => ({ description: 'hijacked' }), ok: 200 },
  { method: 'DELETE', route: '/v1/datasets/{dataset_id}', path: (i) => datasetPath(i), ok: 204 },
  { method: 'GET', route: '/v1/datasets/{dataset_id}/items', path: (i) => datasetPath(i, '/items'), ok: 200 },
  {
    method: 'POST',
    route: '/v1/datasets/{dataset_id}/items',
    path: (i) => datasetPath(i, '/items'),
    body: () => ({ items: [{ input: 'hijacked' }] }),
    ok: 201,
  },
  { method: 'GET', route: '/v1/datasets/{dataset_id}/items/{item_id}', path: itemPath, ok: 200 },
  { method: 'PATCH', route: '/v1/datasets/{dataset_id}/items/{item_id}', path: itemPath, body: () => ({ input: 'hijacked' }), ok: 200 },
  { method: 'DELETE', route: '/v1/datasets/{dataset_id}/items/{item_id}', path: itemPath, ok: 204, adminOnly: false },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/runs/{run_id}/dataset-items',
    path: (i) => `/v1/projects/${i.projectId}/runs/${i.runId}/dataset-items`,
    body: (i) => ({ datasetId: i.datasetId }),
    ok: 201,
  },
  { method: 'GET', route: '/v1/projects/{project_id}/annotation-queues', path: (i) => `/v1/projects/${i.projectId}/annotation-queues`, ok: 200 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/annotation-queues',
    path: (i) => `/v1/projects/${i.projectId}/annotation-queues`,
    body: () => ({ name: `q-${newId('aq').slice(-12)}` }),
    ok: 201,
  },
  { method: 'GET', route: '/v1/projects/{project_id}/annotation-queues/{queue_id}', path: (i) => queuePath(i), ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}/annotation-queues/{queue_id}',
    path: (i) => queuePath(i),
    body: () => ({ description: 'hijacked' }),
    ok: 200,
  },
  { method: 'DELETE', route: '/v1/projects/{project_id}/annotation-queues/{queue_id}', path: (i) => queuePath(i), ok: 204 },
  { method: 'GET', route: '/v1/projects/{project_id}/annotation-queues/{queue_id}/items', path: (i) => queuePath(i, '/items'), ok: 200 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/annotation-queues/{queue_id}/items',
    path: (i) => queuePath(i, '/items'),
    body: (i) => ({ ids: [i.runId] }),
    ok: 200,
  },
  { method: 'POST', route: '/v1/projects/{project_id}/annotation-queues/{queue_id}/claim', path: (i) => queuePath(i, '/claim'), ok: 200, asMember: 204 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/annotation-queues/{queue_id}/items/{item_id}/complete',
    path: (i) => queuePath(i, `/items/${i.annotationItemId}/complete`),
    body: () => ({ scores: [validScore()] }),
    ok: 200,
    asMember: 409,
  },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/annotation-queues/{queue_id}/items/{item_id}/skip',
    path: (i) => queuePath(i, `/items/${i.annotationItemId}/skip`),
    ok: 200,
    asMember: 409,
  },
  { method: 'GET', route: '/v1/projects/{project_id}/evaluators', path: (i) => `/v1/projects/${i.projectId}/evaluators`, ok: 200 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/evaluators',
    path: (i) => `/v1/projects/${i.projectId}/evaluators`,
    body: validEvaluatorRule,
    ok: 201,
    adminOnly: true,
  },
  { method: 'GET', route: '/v1/projects/{project_id}/evaluators/{rule_id}', path: evaluatorPath, ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}/evaluators/{rule_id}',
    path: evaluatorPath,
    body: () => ({ enabled: false }),
    ok: 200,
    adminOnly: true,
  },
  { method: 'DELETE', route: '/v1/projects/{project_id}/evaluators/{rule_id}', path: evaluatorPath, ok: 204 },
  // Model connections: admin material, even to read.
  { method: 'GET', route: '/v1/model-connections/{connection_id}', path: (i) => connectionPath(i), ok: 200, adminOnly: true },
  {
    method: 'PATCH',
    route: '/v1/model-connections/{connection_id}',
    path: (i) => connectionPath(i),
    body: () => ({ baseUrl: 'https://hijacked.example/v1' }),
    ok: 200,
    adminOnly: true,
  },
  { method: 'DELETE', route: '/v1/model-connections/{connection_id}', path: (i) => connectionPath(i), ok: 204 },
  { method: 'POST', route: '/v1/model-connections/{connection_id}/test', path: (i) => connectionPath(i, '/test'), ok: 200, adminOnly: true },
  { method: 'GET', route: '/v1/experiments/compare', path: (i) => `/v1/experiments/compare?ids=${i.experimentId},${i.otherExperimentId}`, ok: 200 },
  { method: 'GET', route: '/v1/experiments/{experiment_id}', path: (i) => experimentPath(i), ok: 200 },
  { method: 'PATCH', route: '/v1/experiments/{experiment_id}', path: (i) => experimentPath(i), body: () => ({ metadata: { hijacked: true } }), ok: 200 },
  { method: 'DELETE', route: '/v1/experiments/{experiment_id}', path: (i) => experimentPath(i), ok: 204 },
  { method: 'GET', route: '/v1/experiments/{experiment_id}/results', path: (i) => experimentPath(i, '/results'), ok: 200 },
  {
    method: 'POST',
    route: '/v1/experiments/{experiment_id}/results',
    path: (i) => experimentPath(i, '/results'),
    body: (i) => ({ results: [{ itemId: i.itemId, runId: i.runId, output: 'Hello', latencyMs: 5 }] }),
    ok: 200,
  },
];

const adminOnly = (r: RouteCase) => r.adminOnly ?? r.method === 'DELETE';
/** Rendering is a read: a POST a viewer may send. */
const isWrite = (r: RouteCase) => r.method !== 'GET' && !r.route.endsWith('/render');

/** Every write a viewer must be refused, with what a member gets instead. */
const WRITE_ROUTES: RouteCase[] = [
  { method: 'POST', route: '/v1/projects', path: () => '/v1/projects', body: () => ({ name: `p-${newId('prj').slice(-10)}` }), ok: 201 },
  ...ID_ROUTES.filter((r) => isWrite(r) && r.route.startsWith('/v1/projects') && !r.route.includes('{score_id}')),
  { method: 'POST', route: '/v1/prompts', path: () => '/v1/prompts', body: () => ({ name: `p-${newId('prm').slice(-10)}`, template: 'x' }), ok: 201 },
  ...ID_ROUTES.filter((r) => isWrite(r) && r.route.startsWith('/v1/prompts')),
  {
    method: 'POST',
    route: '/v1/models',
    path: () => '/v1/models',
    body: () => ({ model: `m-${newId('mdl').slice(-10)}`, inputPrice: 1, outputPrice: 2 }),
    ok: 201,
    adminOnly: true,
  },
  ...ID_ROUTES.filter((r) => isWrite(r) && r.route.startsWith('/v1/models')),
  {
    method: 'POST',
    route: '/v1/score-configs',
    path: () => '/v1/score-configs',
    body: () => ({ name: `c-${newId('scc').slice(-10)}`, dataType: 'boolean' }),
    ok: 201,
    adminOnly: true,
  },
  ...ID_ROUTES.filter((r) => isWrite(r) && r.route.startsWith('/v1/score-configs')),
  { method: 'POST', route: '/v1/datasets', path: () => '/v1/datasets', body: () => ({ name: `d-${newId('ds').slice(-10)}` }), ok: 201 },
  ...ID_ROUTES.filter((r) => isWrite(r) && r.route.startsWith('/v1/datasets')),
  { method: 'POST', route: '/v1/model-connections', path: () => '/v1/model-connections', body: validConnection, ok: 201, adminOnly: true },
  ...ID_ROUTES.filter((r) => isWrite(r) && r.route.startsWith('/v1/model-connections')),
  {
    method: 'POST',
    route: '/v1/experiments',
    path: () => '/v1/experiments',
    body: (i) => ({ name: `e-${newId('exp').slice(-10)}`, datasetId: i.datasetId, projectId: i.projectId }),
    ok: 201,
  },
  ...ID_ROUTES.filter((r) => isWrite(r) && r.route.startsWith('/v1/experiments')),
];

interface World extends Ids {
  owner: Caller;
}

describeEachDialect('tenancy and roles', (ctx: TestContext) => {
  const db = () => ctx.database.storage.db;

  /** An organization with an owner, a project and a running run in it. */
  async function world(organizationId?: string): Promise<World> {
    const owner = await ctx.make.caller({ role: 'owner', ...(organizationId ? { organizationId } : {}) });
    const project = await ctx.make.project(owner.organizationId);
    const [runId] = await ctx.make.runs(project.id, 1, () => ({ sessionId: 'tenancy-session', userId: 'tenancy-user' }));
    const prompt = await ctx.request('POST', '/v1/prompts', { token: owner.token, body: { name: `p-${newId('prm').slice(-12)}`, template: 'Hi {{name}}' } });
    expect(prompt.statusCode, prompt.body).toBe(201);
    const promptId = prompt.json().id as string;
    expect((await ctx.request('POST', `/v1/prompts/${promptId}/versions`, { token: owner.token, body: { template: 'Hello {{name}}' } })).statusCode).toBe(201);
    expect((await ctx.request('PUT', `/v1/prompts/${promptId}/labels/production`, { token: owner.token, body: { version: 1 } })).statusCode).toBe(200);
    const monitor = await ctx.request('POST', `/v1/projects/${project.id}/monitors`, {
      token: owner.token,
      body: { name: 'latency', metric: 'latency_p95', window: '1h', threshold: { op: '>', value: 1000 } },
    });
    expect(monitor.statusCode, monitor.body).toBe(201);
    const price = await ctx.request('POST', '/v1/models', {
      token: owner.token,
      body: { model: `m-${newId('mdl').slice(-12)}`, inputPrice: 1, outputPrice: 2 },
    });
    expect(price.statusCode, price.body).toBe(201);
    const score = await ctx.request('POST', `/v1/projects/${project.id}/runs/${runId}/scores`, { token: owner.token, body: validScore() });
    expect(score.statusCode, score.body).toBe(201);
    const config = await ctx.request('POST', '/v1/score-configs', { token: owner.token, body: { name: `c-${newId('scc').slice(-12)}`, dataType: 'boolean' } });
    expect(config.statusCode, config.body).toBe(201);
    const dataset = await ctx.request('POST', '/v1/datasets', { token: owner.token, body: { name: `d-${newId('ds').slice(-12)}` } });
    expect(dataset.statusCode, dataset.body).toBe(201);
    const datasetId = dataset.json().id as string;
    const added = await ctx.request('POST', `/v1/datasets/${datasetId}/items`, { token: owner.token, body: { items: [{ input: 'Hi' }] } });
    expect(added.statusCode, added.body).toBe(201);
    const queue = await ctx.request('POST', `/v1/projects/${project.id}/annotation-queues`, {
      token: owner.token,
      body: { name: `q-${newId('aq').slice(-12)}` },
    });
    expect(queue.statusCode, queue.body).toBe(201);
    const queueId = queue.json().id as string;
    expect(
      (await ctx.request('POST', `/v1/projects/${project.id}/annotation-queues/${queueId}/items`, { token: owner.token, body: { ids: [runId] } })).statusCode,
    ).toBe(200);
    const claimed = await ctx.request('POST', `/v1/projects/${project.id}/annotation-queues/${queueId}/claim`, { token: owner.token });
    expect(claimed.statusCode, claimed.body).toBe(200);
    const evaluator = await ctx.request('POST', `/v1/projects/${project.id}/evaluators`, { token: owner.token, body: validEvaluatorRule() });
    expect(evaluator.statusCode, evaluator.body).toBe(201);
    const connection = await ctx.request('POST', '/v1/model-connections', { token: owner.token, body: validConnection() });
    expect(connection.statusCode, connection.body).toBe(201);
    const [experimentId, otherExperimentId] = await Promise.all(
      [1, 2].map(async () => {
        const res = await ctx.request('POST', '/v1/experiments', {
          token: owner.token,
          body: { name: `e-${newId('exp').slice(-12)}`, datasetId, projectId: project.id },
        });
        expect(res.statusCode, res.body).toBe(201);
        return res.json().id as string;
      }),
    );
    return {
      owner,
      projectId: project.id,
      runId: runId!,
      tokenId: owner.tokenId,
      promptId,
      monitorId: monitor.json().id as string,
      modelId: price.json().id as string,
      sessionId: 'tenancy-session',
      userId: 'tenancy-user',
      scoreId: score.json().id as string,
      scoreConfigId: config.json().id as string,
      datasetId,
      itemId: added.json().items[0].id as string,
      queueId,
      annotationItemId: claimed.json().id as string,
      evaluatorId: evaluator.json().id as string,
      modelConnectionId: connection.json().id as string,
      experimentId: experimentId!,
      otherExperimentId: otherExperimentId!,
    };
  }

  const send = (caller: Caller, r: RouteCase, ids: Ids) =>
    ctx.request(r.method, r.path(ids), { token: caller.token, ...(r.body ? { body: r.body(ids) } : {}) });

  /** What an outsider could observe or have changed: read back with the rightful owner's token. */
  async function snapshot(w: World) {
    const project = await ctx.request('GET', `/v1/projects/${w.projectId}`, { token: w.owner.token });
    const run = await ctx.request('GET', `/v1/projects/${w.projectId}/runs/${w.runId}`, { token: w.owner.token });
    const runs = await ctx.request('GET', `/v1/projects/${w.projectId}/runs?limit=100`, { token: w.owner.token });
    const me = await ctx.request('GET', '/v1/me', { token: w.owner.token });
    const prompt = await ctx.request('GET', `/v1/prompts/${w.promptId}`, { token: w.owner.token });
    const versions = await ctx.request('GET', `/v1/prompts/${w.promptId}/versions?limit=100`, { token: w.owner.token });
    const history = await ctx.request('GET', `/v1/prompts/${w.promptId}/label-history?limit=100`, { token: w.owner.token });
    const prompts = await ctx.request('GET', '/v1/prompts?limit=100', { token: w.owner.token });
    const monitors = await ctx.request('GET', `/v1/projects/${w.projectId}/monitors?limit=100`, { token: w.owner.token });
    const events = await ctx.request('GET', `/v1/projects/${w.projectId}/monitors/${w.monitorId}/events?limit=100`, { token: w.owner.token });
    const price = await ctx.request('GET', `/v1/models/${w.modelId}`, { token: w.owner.token });
    const prices = await ctx.request('GET', '/v1/models?limit=100', { token: w.owner.token });
    const scores = await ctx.request('GET', `/v1/projects/${w.projectId}/scores?limit=100`, { token: w.owner.token });
    const dataset = await ctx.request('GET', `/v1/datasets/${w.datasetId}`, { token: w.owner.token });
    const items = await ctx.request('GET', `/v1/datasets/${w.datasetId}/items?limit=100`, { token: w.owner.token });
    const configs = await ctx.request('GET', '/v1/score-configs?limit=100', { token: w.owner.token });
    const queue = await ctx.request('GET', queuePath(w), { token: w.owner.token });
    const queueItems = await ctx.request('GET', queuePath(w, '/items?limit=100'), { token: w.owner.token });
    const evaluator = await ctx.request('GET', evaluatorPath(w), { token: w.owner.token });
    const connections = await db().selectFrom('model_connections').selectAll().where('organization_id', '=', w.owner.organizationId).orderBy('id').execute();
    const experiment = await ctx.request('GET', experimentPath(w), { token: w.owner.token });
    const results = await ctx.request('GET', experimentPath(w, '/results?limit=100'), { token: w.owner.token });
    // The monitor as stored (its signing secret included), less what its evaluation moves by itself.
    const monitorRow = await db().selectFrom('monitors').selectAll().where('id', '=', w.monitorId).executeTakeFirst();
    const {
      last_evaluated_at: _at,
      next_evaluation_at: _next,
      lease_owner: _owner,
      lease_until: _until,
      ...monitor
    } = monitorRow ?? ({} as Record<string, unknown>);
    return {
      project: [project.statusCode, project.body],
      run: [run.statusCode, run.body],
      runs: [runs.statusCode, runs.json().items?.length],
      me: me.statusCode,
      prompt: [prompt.statusCode, prompt.body],
      promptVersions: [versions.statusCode, versions.json().items?.length],
      promptHistory: [history.statusCode, history.json().items?.length],
      prompts: [prompts.statusCode, prompts.json().items?.length],
      monitor,
      monitors: [monitors.statusCode, monitors.json().items?.length],
      monitorEvents: [events.statusCode, events.json().items?.length],
      modelPrice: [price.statusCode, price.body],
      modelPrices: [prices.statusCode, prices.json().items?.length],
      scores: [scores.statusCode, scores.body],
      scoreConfigs: [configs.statusCode, configs.body],
      dataset: [dataset.statusCode, dataset.body],
      datasetItems: [items.statusCode, items.body],
      queue: [queue.statusCode, queue.body],
      queueItems: [queueItems.statusCode, queueItems.body],
      evaluator: [evaluator.statusCode, evaluator.body],
      connections,
      experiment: [experiment.statusCode, experiment.body],
      experimentResults: [results.statusCode, results.body],
    };
  }

  /** A problem body with the ids and the request id taken out, to compare two 404s. */
  const normalized = (body: Record<string, unknown>, ids: string[]) => {
    let detail = String(body.detail);
    for (const id of ids) detail = detail.split(id).join('<id>');
    return { type: body.type, title: body.title, status: body.status, detail, errors: body.errors };
  };

  for (const r of ID_ROUTES) {
    it(`${r.method} ${r.route}: a caller of another organization gets 404, indistinguishable from a missing id; the owner gets ${r.ok}`, async () => {
      const w = await world();
      const outsider = await ctx.make.caller({ role: 'owner' });
      const before = await snapshot(w);

      const res = await send(outsider, r, w);
      const body = expectProblem(res, 404, 'not-found');
      const idsOf = (i: Ids) => [
        i.projectId,
        i.runId,
        i.tokenId,
        i.promptId,
        i.monitorId,
        i.modelId,
        i.sessionId,
        i.userId,
        i.scoreId,
        i.scoreConfigId,
        i.datasetId,
        i.itemId,
        i.queueId,
        i.annotationItemId,
        i.evaluatorId,
        i.modelConnectionId,
        i.experimentId,
        i.otherExperimentId,
      ];
      expectCleanProblem(res, idsOf(w));

      const missing: Ids = { ...missingIds(), userId: 'no-such-user' };
      const res2 = await send(outsider, r, missing);
      const body2 = expectProblem(res2, 404, 'not-found');
      expect(normalized(body, idsOf(w))).toEqual(normalized(body2, idsOf(missing)));

      expect(await snapshot(w)).toEqual(before);

      const own = await send(w.owner, r, w);
      expect(own.statusCode, own.body).toBe(r.ok);
    });
  }

  it("a run of another organization's project, addressed through the caller's own project: 404", async () => {
    const w = await world();
    const outsider = await world();
    for (const r of ID_ROUTES.filter((x) => x.route.includes('{run_id}'))) {
      const res = await send(outsider.owner, r, { ...outsider, runId: w.runId });
      expectProblem(res, 404, 'not-found');
    }
    const run = await ctx.request('GET', `/v1/projects/${w.projectId}/runs/${w.runId}`, { token: w.owner.token });
    expect(run.json().status).toBe('running');
  });

  it('a run of another project of the same organization, addressed through the wrong project: 404', async () => {
    const w = await world();
    const second = await ctx.make.project(w.owner.organizationId);
    for (const r of ID_ROUTES.filter((x) => x.route.includes('{run_id}'))) {
      const res = await send(w.owner, r, { ...w, projectId: second.id });
      expectProblem(res, 404, 'not-found');
    }
  });

  it("an experiment's result naming a run of another project, of the organization or another one: 400 at its runId, as a missing run, and nothing is recorded", async () => {
    const w = await world();
    const outsider = await world();
    const second = await ctx.make.project(w.owner.organizationId);
    const [sibling] = await ctx.make.runs(second.id, 1);
    const record = (runId: string) =>
      ctx.request('POST', experimentPath(w, '/results'), {
        token: w.owner.token,
        body: { results: [{ itemId: w.itemId, runId, output: 'Hello', latencyMs: 5 }] },
      });
    const before = await snapshot(w);
    const missing = `run-${newId('run').slice(-12)}`;
    const expected = expectProblem(await record(missing), 400, 'validation');
    expect(expected.errors).toEqual([{ pointer: '/results/0/runId', detail: `Run ${missing} does not exist in the experiment's project.` }]);
    for (const foreign of [sibling!, outsider.runId]) {
      const res = await record(foreign);
      const body = expectProblem(res, 400, 'validation');
      for (const other of [second.id, outsider.projectId, outsider.owner.organizationId]) expect(res.body).not.toContain(other);
      expect(body.errors).toEqual([{ pointer: '/results/0/runId', detail: `Run ${foreign} does not exist in the experiment's project.` }]);
      expect(normalized(body, [foreign])).toEqual({ ...normalized(expected, [missing]), errors: body.errors });
    }
    expect(await snapshot(w)).toEqual(before);
    // The trace a result names is marked as experiment traffic in the experiment's project only: another
    // project's trace of that id stays production traffic.
    const named = await ctx.request('POST', experimentPath(w, '/results'), {
      token: w.owner.token,
      body: { results: [{ itemId: w.itemId, runId: w.runId, traceId: sibling, output: 'Hello', latencyMs: 5 }] },
    });
    expect(named.statusCode, named.body).toBe(200);
    const experimentTraces = async (projectId: string) =>
      (await ctx.request('GET', `/v1/projects/${projectId}/traces?experiment=only`, { token: w.owner.token }))
        .json()
        .items.map((t: { traceId: string }) => t.traceId);
    expect(await experimentTraces(second.id)).toEqual([]);
    expect(await experimentTraces(w.projectId)).toEqual([w.runId]);
  });

  it("a monitor of another organization's project, addressed through the caller's own project: 404, as a missing one, and nothing changes", async () => {
    const w = await world();
    const outsider = await world();
    const before = await snapshot(w);
    for (const r of ID_ROUTES.filter((x) => x.route.includes('{monitor_id}'))) {
      const res = await send(outsider.owner, r, { ...outsider, monitorId: w.monitorId });
      const body = expectProblem(res, 404, 'not-found');
      expectCleanProblem(res, [w.monitorId, outsider.projectId]);
      const missing = newId('mon');
      const body2 = expectProblem(await send(outsider.owner, r, { ...outsider, monitorId: missing }), 404, 'not-found');
      expect(normalized(body, [w.monitorId]), r.route).toEqual(normalized(body2, [missing]));
    }
    expect(await snapshot(w)).toEqual(before);
    // The outsider's own monitor is still theirs.
    expect(
      (
        await send(
          outsider.owner,
          ID_ROUTES.find((x) => x.method === 'GET' && x.route.endsWith('{monitor_id}'))!,
          outsider,
        )
      ).statusCode,
    ).toBe(200);
  });

  it('a monitor of another project of the same organization, addressed through the wrong project: 404', async () => {
    const w = await world();
    const second = await ctx.make.project(w.owner.organizationId);
    const before = await snapshot(w);
    for (const r of ID_ROUTES.filter((x) => x.route.includes('{monitor_id}'))) {
      const res = await send(w.owner, r, { ...w, projectId: second.id });
      expectProblem(res, 404, 'not-found');
    }
    expect(await snapshot(w)).toEqual(before);
  });

  it("lists never show another organization's projects or tokens", async () => {
    const w = await world();
    const outsider = await ctx.make.caller({ role: 'owner' });
    const projects = await ctx.request('GET', '/v1/projects?limit=100', { token: outsider.token });
    expect(projects.statusCode).toBe(200);
    expect(projects.json().items.map((p: { id: string }) => p.id)).not.toContain(w.projectId);
    const tokens = await ctx.request('GET', '/v1/tokens?limit=100', { token: outsider.token });
    expect(tokens.statusCode).toBe(200);
    expect(tokens.json().items.map((t: { id: string }) => t.id)).toEqual([outsider.tokenId]);
    const prompts = await ctx.request('GET', '/v1/prompts?limit=100', { token: outsider.token });
    expect(prompts.statusCode).toBe(200);
    expect(prompts.json().items).toEqual([]);
    const prices = await ctx.request('GET', '/v1/models?limit=100', { token: outsider.token });
    expect(prices.statusCode).toBe(200);
    expect(prices.json().items).toEqual([]);
    const datasets = await ctx.request('GET', '/v1/datasets?limit=100', { token: outsider.token });
    expect(datasets.statusCode).toBe(200);
    expect(datasets.json().items).toEqual([]);
    const experiments = await ctx.request('GET', '/v1/experiments?limit=100', { token: outsider.token });
    expect(experiments.statusCode).toBe(200);
    expect(experiments.json().items).toEqual([]);
    // The audit log: the world's events (its model connection created, say) are its organization's alone.
    const own = await ctx.request('GET', '/v1/organization/audit-log?limit=100', { token: w.owner.token });
    expect(own.json().items.map((e: { action: string }) => e.action)).toContain('model_connection.created');
    const audit = await ctx.request('GET', '/v1/organization/audit-log?limit=100', { token: outsider.token });
    expect(audit.statusCode).toBe(200);
    expect(audit.json().items).toEqual([]);
  });

  for (const r of WRITE_ROUTES) {
    it(`${r.method} ${r.route}: a viewer gets 403 and nothing changes; a member gets ${adminOnly(r) ? '403 too' : r.ok}`, async () => {
      const w = await world();
      const viewer = await ctx.make.caller({ role: 'viewer', organizationId: w.owner.organizationId });
      const member = await ctx.make.caller({ role: 'member', organizationId: w.owner.organizationId });
      const before = await snapshot(w);
      const projectsBefore = (await ctx.request('GET', '/v1/projects?limit=100', { token: w.owner.token })).json().items.length;

      const res = await send(viewer, r, w);
      expectProblem(res, 403, 'forbidden');
      expect(res.json().detail).toMatch(
        /^Your role \(viewer\) does not allow ((projects|runs|prompts|monitors|models|scores):(write|delete)|quality:admin)\.$/,
      );
      expectCleanProblem(res);
      expect(await snapshot(w)).toEqual(before);
      expect((await ctx.request('GET', '/v1/projects?limit=100', { token: w.owner.token })).json().items.length).toBe(projectsBefore);

      const asMember = await send(member, r, w);
      if (adminOnly(r)) {
        expectProblem(asMember, 403, 'forbidden');
        expect(asMember.json().detail).toMatch(/^Your role \(member\) does not allow ((projects|runs|prompts|monitors):delete|models:write|quality:admin)\.$/);
        expect(await snapshot(w)).toEqual(before);
      } else {
        expect(asMember.statusCode, asMember.body).toBe(r.asMember ?? r.ok);
      }
    });
  }

  /** The owner's token narrowed when minted (docs/tokens-and-access.md, Scoped tokens): to `body`'s scopes or projects. */
  async function narrowedOwner(w: World, body: Record<string, unknown>): Promise<Caller> {
    const minted = await ctx.request('POST', '/v1/tokens', { token: w.owner.token, body: { name: 'narrowed', ...body } });
    expect(minted.statusCode, minted.body).toBe(201);
    return { ...w.owner, token: minted.json().token, tokenId: minted.json().id };
  }

  for (const r of ID_ROUTES.filter((x) => x.route.includes('{project_id}'))) {
    it(`${r.method} ${r.route}: the owner's token narrowed to another project gets the 404 of a missing project, and nothing changes`, async () => {
      const w = await world();
      const other = await ctx.make.project(w.owner.organizationId);
      const narrowed = await narrowedOwner(w, { projectIds: [other.id] });
      const before = await snapshot(w);
      const res = await send(narrowed, r, w);
      expectProblem(res, 404, 'not-found', `Project ${w.projectId} does not exist.`);
      expectCleanProblem(res, [w.runId, w.monitorId, w.scoreId, w.queueId, w.evaluatorId]);
      expect(await snapshot(w)).toEqual(before);
    });
  }

  for (const r of WRITE_ROUTES) {
    it(`${r.method} ${r.route}: the owner's read-only token gets 403 naming the scope, and nothing changes`, async () => {
      const w = await world();
      const reader = await narrowedOwner(w, {
        scopes: ['organization:read', 'projects:read', 'runs:read', 'prompts:read', 'monitors:read', 'models:read', 'scores:read'],
      });
      const before = await snapshot(w);
      const res = await send(reader, r, w);
      expectProblem(res, 403, 'forbidden');
      expect(res.json().detail).toMatch(/^This token is limited to organization:read, .*, scores:read; it does not allow [a-z]+:(write|delete|admin)\.$/);
      expectCleanProblem(res);
      expect(await snapshot(w)).toEqual(before);
    });
  }

  it('a viewer reads everything in the organization', async () => {
    const w = await world();
    const viewer = await ctx.make.caller({ role: 'viewer', organizationId: w.owner.organizationId });
    for (const r of ID_ROUTES.filter((x) => x.method === 'GET' && !adminOnly(x))) {
      const res = await send(viewer, r, w);
      expect(res.statusCode, `${r.route}: ${res.body}`).toBe(200);
    }
    expect((await ctx.request('GET', '/v1/projects', { token: viewer.token })).statusCode).toBe(200);
  });

  for (const role of ['admin', 'owner'] as Role[]) {
    it(`an ${role} deletes a project with its runs and monitors`, async () => {
      const w = await world();
      const caller = await ctx.make.caller({ role, organizationId: w.owner.organizationId });
      const res = await ctx.request('DELETE', `/v1/projects/${w.projectId}`, { token: caller.token });
      expect(res.statusCode, res.body).toBe(204);
      expect(res.body).toBe('');
      expectProblem(await ctx.request('GET', `/v1/projects/${w.projectId}`, { token: caller.token }), 404, 'not-found');
      expectProblem(await ctx.request('GET', `/v1/projects/${w.projectId}/runs/${w.runId}`, { token: caller.token }), 404, 'not-found');
      const left = await db().selectFrom('runs').select('id').where('project_id', '=', w.projectId).execute();
      expect(left).toEqual([]);
      // Its monitors and their events go with it.
      expect(await db().selectFrom('monitors').select('id').where('project_id', '=', w.projectId).execute()).toEqual([]);
      expect(await db().selectFrom('monitor_events').select('id').where('monitor_id', '=', w.monitorId).execute()).toEqual([]);
    });
  }

  it('a role change applies to an existing token on its very next request', async () => {
    const w = await world();
    const user = await ctx.make.caller({ role: 'viewer', organizationId: w.owner.organizationId });
    const createRun = () => ctx.request('POST', `/v1/projects/${w.projectId}/runs`, { token: user.token, body: validRun() });
    const role = async () => (await ctx.request('GET', '/v1/me', { token: user.token })).json().role;

    expectProblem(await createRun(), 403, 'forbidden');
    expect(await role()).toBe('viewer');

    await setMembership(db(), user.organizationId, user.userId, 'member', Date.now());
    const created = await createRun();
    expect(created.statusCode, created.body).toBe(201);
    expect(await role()).toBe('member');
    expectProblem(await ctx.request('DELETE', `/v1/projects/${w.projectId}`, { token: user.token }), 403, 'forbidden');

    await setMembership(db(), user.organizationId, user.userId, 'viewer', Date.now());
    expectProblem(await createRun(), 403, 'forbidden');
    expectProblem(await ctx.request('PATCH', `/v1/projects/${w.projectId}`, { token: user.token, body: { description: 'x' } }), 403, 'forbidden');
    expect(await role()).toBe('viewer');

    await setMembership(db(), user.organizationId, user.userId, 'admin', Date.now());
    const deleted = await ctx.request('DELETE', `/v1/projects/${w.projectId}`, { token: user.token });
    expect(deleted.statusCode, deleted.body).toBe(204);
  });

  it("members and viewers cannot revoke another member's token (404); an admin can (204), and that token then gets 401", async () => {
    const w = await world();
    const org = w.owner.organizationId;
    const target = await ctx.make.caller({ role: 'member', organizationId: org });
    const member = await ctx.make.caller({ role: 'member', organizationId: org });
    const viewer = await ctx.make.caller({ role: 'viewer', organizationId: org });
    const admin = await ctx.make.caller({ role: 'admin', organizationId: org });

    for (const caller of [member, viewer]) {
      const res = await ctx.request('DELETE', `/v1/tokens/${target.tokenId}`, { token: caller.token });
      expectProblem(res, 404, 'not-found');
      expectCleanProblem(res, [target.tokenId]);
      expect((await ctx.request('GET', '/v1/me', { token: target.token })).statusCode).toBe(200);
    }
    // The admin's own token list does not show it, but the admin may revoke it.
    const res = await ctx.request('DELETE', `/v1/tokens/${target.tokenId}`, { token: admin.token });
    expect(res.statusCode, res.body).toBe(204);
    expectUnauthorized(await ctx.request('GET', '/v1/me', { token: target.token }), 'token_revoked', target.token);
    // Revoking twice is harmless; the revoker's own token still works.
    expect((await ctx.request('DELETE', `/v1/tokens/${target.tokenId}`, { token: admin.token })).statusCode).toBe(204);
    expect((await ctx.request('GET', '/v1/me', { token: admin.token })).statusCode).toBe(200);
  });

  it('a member revokes their own token (204)', async () => {
    const w = await world();
    const member = await ctx.make.caller({ role: 'member', organizationId: w.owner.organizationId });
    const minted = await ctx.request('POST', '/v1/tokens', { token: member.token, body: { name: 'ci' } });
    expect(minted.statusCode, minted.body).toBe(201);
    const { id, token } = minted.json() as { id: string; token: string };
    expect((await ctx.request('DELETE', `/v1/tokens/${id}`, { token: member.token })).statusCode).toBe(204);
    expectUnauthorized(await ctx.request('GET', '/v1/me', { token }), 'token_revoked', token);
  });
});
