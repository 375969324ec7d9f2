/** The OWASP suites' world: an organization as an attacker finds it, and the routes each risk is tried on. */
import { expect } from 'vitest';
import type { Caller, TestContext } from '../helpers/harness.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

export const PAT_TYP = 'sl-pat+jwt';
let seq = 0;
export const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${(seq++).toString(36)}`;
export const validRun = () => ({ name: 'ChatOpenAI', kind: 'llm', startTime: '2026-11-02T10:00:00.000Z', inputs: { question: 'hi' } });
export const validMonitor = () => ({ name: unique('monitor'), metric: 'count', window: '1h', threshold: { op: '<', value: 1 } });

/** An organization as an attacker would find it: an owner with a spare token, a member, a project with a run, an invitation. */
export interface World {
  owner: Caller;
  member: Caller;
  projectId: string;
  runId: string;
  spareTokenId: string;
  invitationId: string;
  /** A prompt with versions 1 and 2 and the label `production` on version 1. */
  promptId: string;
  /** A monitor of the project (its webhook secret was shown once, at creation). */
  monitorId: string;
  webhookSecret: string;
  /** A model price of the organization. */
  modelId: string;
  /** A saved view of the owner's, in the project. */
  viewId: string;
  /** A dataset of the organization, and one of its items. */
  datasetId: string;
  itemId: string;
  /** The session and end user of the run. */
  sessionId: string;
  userId: string;
  /** A score of the run (the owner's) and a score config of the organization. */
  scoreId: string;
  scoreConfigId: string;
  /** An annotation queue of the project with the run in it, that item claimed by the owner. */
  queueId: string;
  annotationItemId: string;
  /** Two experiments over the dataset (its version 1), their runs in the project. */
  experimentId: string;
  otherExperimentId: string;
  /** An evaluator rule of the project. */
  evaluatorId: string;
  /** A model connection of the organization (its key shown to nobody; budget 0: a test call makes no request). */
  modelConnectionId: string;
}

/** The key of the world's model connection: no answer may show it. */
export const MODEL_API_KEY = 'sk-owasp-model-connection-key-0123456789';
export const validModelConnection = () => ({
  name: unique('connection'),
  baseUrl: 'https://models.example.com/v1',
  model: 'gpt-4o-mini',
  apiKey: MODEL_API_KEY,
  monthlyBudgetUsd: 0,
});

export const validScore = () => ({ name: 'helpfulness', value: 1 });

export async function buildWorld(ctx: TestContext): Promise<World> {
  const owner = await ctx.make.caller({ role: 'owner' });
  const member = await ctx.make.caller({ role: 'member', organizationId: owner.organizationId });
  const project = await ctx.make.project(owner.organizationId);
  const [runId] = await ctx.make.runs(project.id, 1, () => ({ sessionId: 'owasp-session', userId: 'owasp-user' }));
  const spare = await ctx.request('POST', '/v1/tokens', { token: owner.token, body: { name: 'spare' } });
  expect(spare.statusCode, spare.body).toBe(201);
  const invitation = await ctx.request('POST', '/v1/organization/invitations', {
    token: owner.token,
    body: { email: `${unique('inv')}@example.test`, role: 'viewer' },
  });
  expect(invitation.statusCode, invitation.body).toBe(201);
  const prompt = await ctx.request('POST', '/v1/prompts', { token: owner.token, body: { name: unique('prompt'), template: 'Hi {{name}}' } });
  expect(prompt.statusCode, prompt.body).toBe(201);
  const promptId = prompt.json().id as string;
  const dataset = await ctx.request('POST', '/v1/datasets', { token: owner.token, body: { name: unique('dataset') } });
  expect(dataset.statusCode, dataset.body).toBe(201);
  const datasetId = dataset.json().id as string;
  const added = await ctx.request('POST', `/v1/datasets/${datasetId}/items`, {
    token: owner.token,
    body: { items: [{ input: 'Hi', expectedOutput: 'Hello' }] },
  });
  expect(added.statusCode, added.body).toBe(201);
  expect((await ctx.request('POST', `/v1/prompts/${promptId}/versions`, { token: owner.token, body: { template: 'Hello {{name}}' } })).statusCode).toBe(201);
  expect((await ctx.request('PUT', `/v1/prompts/${promptId}/labels/production`, { token: owner.token, body: { version: 1 } })).statusCode).toBe(200);
  const monitor = await ctx.request('POST', `/v1/projects/${project.id}/monitors`, { token: owner.token, body: validMonitor() });
  expect(monitor.statusCode, monitor.body).toBe(201);
  const [experimentId, otherExperimentId] = await Promise.all(
    [1, 2].map(async () => {
      const res = await ctx.request('POST', '/v1/experiments', { token: owner.token, body: { name: unique('experiment'), datasetId, projectId: project.id } });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    }),
  );
  const price = await ctx.request('POST', '/v1/models', { token: owner.token, body: { model: unique('model'), inputPrice: 1, outputPrice: 2 } });
  expect(price.statusCode, price.body).toBe(201);
  const view = await ctx.request('POST', `/v1/projects/${project.id}/views`, { token: owner.token, body: { name: unique('view'), page: 'traces' } });
  expect(view.statusCode, view.body).toBe(201);
  const score = await ctx.request('POST', `/v1/projects/${project.id}/runs/${runId}/scores`, { token: owner.token, body: validScore() });
  expect(score.statusCode, score.body).toBe(201);
  const config = await ctx.request('POST', '/v1/score-configs', { token: owner.token, body: { name: unique('config'), dataType: 'boolean' } });
  expect(config.statusCode, config.body).toBe(201);
  const queue = await ctx.request('POST', `/v1/projects/${project.id}/annotation-queues`, { token: owner.token, body: { name: unique('queue') } });
  expect(queue.statusCode, queue.body).toBe(201);
  const queuePath = `/v1/projects/${project.id}/annotation-queues/${queue.json().id}`;
  expect((await ctx.request('POST', `${queuePath}/items`, { token: owner.token, body: { ids: [runId] } })).statusCode).toBe(200);
  const claimed = await ctx.request('POST', `${queuePath}/claim`, { token: owner.token });
  expect(claimed.statusCode, claimed.body).toBe(200);
  const evaluator = await ctx.request('POST', `/v1/projects/${project.id}/evaluators`, { token: owner.token, body: validEvaluatorRule() });
  expect(evaluator.statusCode, evaluator.body).toBe(201);
  const connection = await ctx.request('POST', '/v1/model-connections', { token: owner.token, body: validModelConnection() });
  expect(connection.statusCode, connection.body).toBe(201);
  return {
    owner,
    member,
    projectId: project.id,
    runId: runId!,
    spareTokenId: spare.json().id,
    invitationId: invitation.json().id,
    promptId,
    monitorId: monitor.json().id,
    webhookSecret: monitor.json().webhookSecret,
    modelId: price.json().id,
    viewId: view.json().id,
    sessionId: 'owasp-session',
    userId: 'owasp-user',
    scoreId: score.json().id,
    scoreConfigId: config.json().id,
    datasetId,
    itemId: added.json().items[0].id,
    queueId: queue.json().id,
    annotationItemId: claimed.json().id,
    evaluatorId: evaluator.json().id,
    modelConnectionId: connection.json().id,
    experimentId: experimentId!,
    otherExperimentId: otherExperimentId!,
  };
}

export const experimentPath = (w: World, suffix = '') => `/v1/experiments/${w.experimentId}${suffix}`;

export const validEvaluatorRule = () => ({ name: unique('rule'), evaluator: { type: 'json_valid' }, scoreName: 'valid-json' });
export const evaluatorPath = (w: World) => `/v1/projects/${w.projectId}/evaluators/${w.evaluatorId}`;

export const connectionPath = (w: World, suffix = '') => `/v1/model-connections/${w.modelConnectionId}${suffix}`;

export const datasetPath = (w: World, suffix = '') => `/v1/datasets/${w.datasetId}${suffix}`;
export const itemPath = (w: World) => datasetPath(w, `/items/${w.itemId}`);

export const queuePath = (w: World, suffix = '') => `/v1/projects/${w.projectId}/annotation-queues/${w.queueId}${suffix}`;

const scorePath = (w: World, suffix = '') => `/v1/projects/${w.projectId}/scores${suffix}`;

export const monitorPath = (w: World, suffix = '') => `/v1/projects/${w.projectId}/monitors/${w.monitorId}${suffix}`;

export interface RouteCase {
  method: Method;
  route: string;
  path: (w: World) => string;
  body?: (w: World) => unknown;
  /** What the rightful owner of the organization gets (control: the refusal is about the caller, not the request). */
  ok: number;
}

/** API1: every id-taking route. */
export const ID_ROUTES: RouteCase[] = [
  { method: 'GET', route: '/v1/projects/{project_id}', path: (w) => `/v1/projects/${w.projectId}`, ok: 200 },
  { method: 'PATCH', route: '/v1/projects/{project_id}', path: (w) => `/v1/projects/${w.projectId}`, body: () => ({ description: 'pwned' }), ok: 200 },
  { method: 'DELETE', route: '/v1/projects/{project_id}', path: (w) => `/v1/projects/${w.projectId}`, ok: 204 },
  { method: 'GET', route: '/v1/projects/{project_id}/runs', path: (w) => `/v1/projects/${w.projectId}/runs`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/traces', path: (w) => `/v1/projects/${w.projectId}/traces`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/traces/export', path: (w) => `/v1/projects/${w.projectId}/traces/export`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/runs/export', path: (w) => `/v1/projects/${w.projectId}/runs/export`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/sessions', path: (w) => `/v1/projects/${w.projectId}/sessions`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/users', path: (w) => `/v1/projects/${w.projectId}/users`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/traces/{trace_id}', path: (w) => `/v1/projects/${w.projectId}/traces/${w.runId}`, ok: 200 },
  { method: 'POST', route: '/v1/projects/{project_id}/runs', path: (w) => `/v1/projects/${w.projectId}/runs`, body: validRun, ok: 201 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/runs/batch',
    path: (w) => `/v1/projects/${w.projectId}/runs/batch`,
    body: () => ({ runs: [validRun()] }),
    ok: 200,
  },
  { method: 'GET', route: '/v1/projects/{project_id}/runs/metrics', path: (w) => `/v1/projects/${w.projectId}/runs/metrics`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/traces/metrics', path: (w) => `/v1/projects/${w.projectId}/traces/metrics`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/runs/values', path: (w) => `/v1/projects/${w.projectId}/runs/values?field=name`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/runs/{run_id}', path: (w) => `/v1/projects/${w.projectId}/runs/${w.runId}`, ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}/runs/{run_id}',
    path: (w) => `/v1/projects/${w.projectId}/runs/${w.runId}`,
    body: () => ({ status: 'succeeded', endTime: '2026-11-02T10:00:05.000Z' }),
    ok: 200,
  },
  { method: 'DELETE', route: '/v1/tokens/{token_id}', path: (w) => `/v1/tokens/${w.spareTokenId}`, ok: 204 },
  { method: 'POST', route: '/v1/tokens/{token_id}/rotate', path: (w) => `/v1/tokens/${w.spareTokenId}/rotate`, ok: 201 },
  {
    method: 'PATCH',
    route: '/v1/organization/members/{user_id}',
    path: (w) => `/v1/organization/members/${w.member.userId}`,
    body: () => ({ role: 'viewer' }),
    ok: 200,
  },
  { method: 'DELETE', route: '/v1/organization/members/{user_id}', path: (w) => `/v1/organization/members/${w.member.userId}`, ok: 204 },
  { method: 'DELETE', route: '/v1/organization/invitations/{invitation_id}', path: (w) => `/v1/organization/invitations/${w.invitationId}`, ok: 204 },
  { method: 'GET', route: '/v1/prompts/{prompt_id}', path: (w) => `/v1/prompts/${w.promptId}`, ok: 200 },
  { method: 'PATCH', route: '/v1/prompts/{prompt_id}', path: (w) => `/v1/prompts/${w.promptId}`, body: () => ({ description: 'pwned' }), ok: 200 },
  { method: 'DELETE', route: '/v1/prompts/{prompt_id}', path: (w) => `/v1/prompts/${w.promptId}`, ok: 204 },
  { method: 'GET', route: '/v1/prompts/{prompt_id}/versions', path: (w) => `/v1/prompts/${w.promptId}/versions`, ok: 200 },
  {
    method: 'POST',
    route: '/v1/prompts/{prompt_id}/versions',
    path: (w) => `/v1/prompts/${w.promptId}/versions`,
    body: () => ({ template: 'pwned {{x}}' }),
    ok: 201,
  },
  { method: 'GET', route: '/v1/prompts/{prompt_id}/versions/{version}', path: (w) => `/v1/prompts/${w.promptId}/versions/1`, ok: 200 },
  { method: 'GET', route: '/v1/prompts/{prompt_id}/versions/{label}', path: (w) => `/v1/prompts/${w.promptId}/versions/production`, ok: 200 },
  {
    method: 'PUT',
    route: '/v1/prompts/{prompt_id}/labels/{label}',
    path: (w) => `/v1/prompts/${w.promptId}/labels/production`,
    body: () => ({ version: 2 }),
    ok: 200,
  },
  { method: 'DELETE', route: '/v1/prompts/{prompt_id}/labels/{label}', path: (w) => `/v1/prompts/${w.promptId}/labels/production`, ok: 204 },
  { method: 'GET', route: '/v1/prompts/{prompt_id}/label-history', path: (w) => `/v1/prompts/${w.promptId}/label-history`, ok: 200 },
  {
    method: 'POST',
    route: '/v1/prompts/{prompt_id}/render',
    path: (w) => `/v1/prompts/${w.promptId}/render`,
    body: () => ({ variables: { name: 'x' } }),
    ok: 200,
  },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors', path: (w) => `/v1/projects/${w.projectId}/monitors`, ok: 200 },
  { method: 'POST', route: '/v1/projects/{project_id}/monitors', path: (w) => `/v1/projects/${w.projectId}/monitors`, body: validMonitor, ok: 201 },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors/{monitor_id}', path: (w) => monitorPath(w), ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}/monitors/{monitor_id}',
    path: (w) => monitorPath(w),
    body: () => ({ enabled: false, webhookUrls: ['https://attacker.example/hook'] }),
    ok: 200,
  },
  { method: 'DELETE', route: '/v1/projects/{project_id}/monitors/{monitor_id}', path: (w) => monitorPath(w), ok: 204 },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors/{monitor_id}/metrics', path: (w) => monitorPath(w, '/metrics'), ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors/{monitor_id}/events', path: (w) => monitorPath(w, '/events'), ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors/{monitor_id}/deliveries', path: (w) => monitorPath(w, '/deliveries'), ok: 200 },
  { method: 'POST', route: '/v1/projects/{project_id}/monitors/{monitor_id}/rotate-secret', path: (w) => monitorPath(w, '/rotate-secret'), ok: 200 },
  { method: 'GET', route: '/v1/models/{model_id}', path: (w) => `/v1/models/${w.modelId}`, ok: 200 },
  { method: 'PATCH', route: '/v1/models/{model_id}', path: (w) => `/v1/models/${w.modelId}`, body: () => ({ inputPrice: 0 }), ok: 200 },
  { method: 'DELETE', route: '/v1/models/{model_id}', path: (w) => `/v1/models/${w.modelId}`, ok: 204 },
  { method: 'GET', route: '/v1/projects/{project_id}/views/{view_id}', path: (w) => `/v1/projects/${w.projectId}/views/${w.viewId}`, ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}/views/{view_id}',
    path: (w) => `/v1/projects/${w.projectId}/views/${w.viewId}`,
    body: () => ({ name: unique('pwned') }),
    ok: 200,
  },
  { method: 'DELETE', route: '/v1/projects/{project_id}/views/{view_id}', path: (w) => `/v1/projects/${w.projectId}/views/${w.viewId}`, ok: 204 },
  { method: 'GET', route: '/v1/projects/{project_id}/views', path: (w) => `/v1/projects/${w.projectId}/views`, ok: 200 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/views',
    path: (w) => `/v1/projects/${w.projectId}/views`,
    body: () => ({ name: unique('view'), page: 'runs' }),
    ok: 201,
  },
  { method: 'GET', route: '/v1/projects/{project_id}/sessions/{session_id}', path: (w) => `/v1/projects/${w.projectId}/sessions/${w.sessionId}`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/users/{user_id}', path: (w) => `/v1/projects/${w.projectId}/users/${w.userId}`, ok: 200 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/runs/{run_id}/scores',
    path: (w) => `/v1/projects/${w.projectId}/runs/${w.runId}/scores`,
    body: validScore,
    ok: 201,
  },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/traces/{trace_id}/scores',
    path: (w) => `/v1/projects/${w.projectId}/traces/${w.runId}/scores`,
    body: validScore,
    ok: 201,
  },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/sessions/{session_id}/scores',
    path: (w) => `/v1/projects/${w.projectId}/sessions/${w.sessionId}/scores`,
    body: validScore,
    ok: 201,
  },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/scores/batch',
    path: (w) => scorePath(w, '/batch'),
    body: () => ({ scores: [{ ...validScore(), sessionId: 'owasp-session' }] }),
    ok: 200,
  },
  { method: 'GET', route: '/v1/projects/{project_id}/scores', path: (w) => scorePath(w), ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/scores/metrics', path: (w) => scorePath(w, '/metrics'), ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/scores/values', path: (w) => scorePath(w, '/values?field=name'), ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/scores/{score_id}', path: (w) => scorePath(w, `/${w.scoreId}`), ok: 200 },
  { method: 'PATCH', route: '/v1/projects/{project_id}/scores/{score_id}', path: (w) => scorePath(w, `/${w.scoreId}`), body: () => ({ value: 0 }), ok: 200 },
  { method: 'DELETE', route: '/v1/projects/{project_id}/scores/{score_id}', path: (w) => scorePath(w, `/${w.scoreId}`), ok: 204 },
  { method: 'GET', route: '/v1/score-configs/{config_id}', path: (w) => `/v1/score-configs/${w.scoreConfigId}`, ok: 200 },
  { method: 'PATCH', route: '/v1/score-configs/{config_id}', path: (w) => `/v1/score-configs/${w.scoreConfigId}`, body: () => ({ archived: true }), ok: 200 },
  { method: 'DELETE', route: '/v1/score-configs/{config_id}', path: (w) => `/v1/score-configs/${w.scoreConfigId}`, ok: 204 },
  { method: 'GET', route: '/v1/datasets/{dataset_id}', path: (w) => datasetPath(w), ok: 200 },
  { method: 'PATCH', route: '/v1/datasets/{dataset_id}', path: (w) => datasetPath(w), body: () => ({ name: unique('pwned') }), ok: 200 },
  { method: 'DELETE', route: '/v1/datasets/{dataset_id}', path: (w) => datasetPath(w), ok: 204 },
  { method: 'GET', route: '/v1/datasets/{dataset_id}/items', path: (w) => datasetPath(w, '/items'), ok: 200 },
  { method: 'POST', route: '/v1/datasets/{dataset_id}/items', path: (w) => datasetPath(w, '/items'), body: () => ({ items: [{ input: 'pwned' }] }), ok: 201 },
  { method: 'GET', route: '/v1/datasets/{dataset_id}/items/{item_id}', path: itemPath, ok: 200 },
  { method: 'PATCH', route: '/v1/datasets/{dataset_id}/items/{item_id}', path: itemPath, body: () => ({ expectedOutput: 'pwned' }), ok: 200 },
  { method: 'DELETE', route: '/v1/datasets/{dataset_id}/items/{item_id}', path: itemPath, ok: 204 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/runs/{run_id}/dataset-items',
    path: (w) => `/v1/projects/${w.projectId}/runs/${w.runId}/dataset-items`,
    body: (w) => ({ datasetId: w.datasetId }),
    ok: 201,
  },
  {
    method: 'GET',
    route: '/v1/projects/{project_id}/annotation-queues',
    path: (w) => `/v1/projects/${w.projectId}/annotation-queues`,
    ok: 200,
  },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/annotation-queues',
    path: (w) => `/v1/projects/${w.projectId}/annotation-queues`,
    body: () => ({ name: unique('pwned') }),
    ok: 201,
  },
  { method: 'GET', route: '/v1/projects/{project_id}/annotation-queues/{queue_id}', path: (w) => queuePath(w), ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}/annotation-queues/{queue_id}',
    path: (w) => queuePath(w),
    body: () => ({ description: 'pwned' }),
    ok: 200,
  },
  { method: 'DELETE', route: '/v1/projects/{project_id}/annotation-queues/{queue_id}', path: (w) => queuePath(w), ok: 204 },
  { method: 'GET', route: '/v1/projects/{project_id}/annotation-queues/{queue_id}/items', path: (w) => queuePath(w, '/items'), ok: 200 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/annotation-queues/{queue_id}/items',
    path: (w) => queuePath(w, '/items'),
    body: (w) => ({ ids: [w.runId] }),
    ok: 200,
  },
  // The owner holds the world's one item: claiming again renews it.
  { method: 'POST', route: '/v1/projects/{project_id}/annotation-queues/{queue_id}/claim', path: (w) => queuePath(w, '/claim'), ok: 200 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/annotation-queues/{queue_id}/items/{item_id}/complete',
    path: (w) => queuePath(w, `/items/${w.annotationItemId}/complete`),
    body: () => ({ scores: [validScore()] }),
    ok: 200,
  },
  { method: 'GET', route: '/v1/experiments/compare', path: (w) => `/v1/experiments/compare?ids=${w.experimentId},${w.otherExperimentId}`, ok: 200 },
  { method: 'GET', route: '/v1/experiments/{experiment_id}', path: (w) => experimentPath(w), ok: 200 },
  { method: 'PATCH', route: '/v1/experiments/{experiment_id}', path: (w) => experimentPath(w), body: () => ({ metadata: { pwned: true } }), ok: 200 },
  { method: 'DELETE', route: '/v1/experiments/{experiment_id}', path: (w) => experimentPath(w), ok: 204 },
  { method: 'GET', route: '/v1/experiments/{experiment_id}/results', path: (w) => experimentPath(w, '/results'), ok: 200 },
  {
    method: 'POST',
    route: '/v1/experiments/{experiment_id}/results',
    path: (w) => experimentPath(w, '/results'),
    body: (w) => ({ results: [{ itemId: w.itemId, runId: w.runId, output: 'pwned', latencyMs: 1 }] }),
    ok: 200,
  },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/annotation-queues/{queue_id}/items/{item_id}/skip',
    path: (w) => queuePath(w, `/items/${w.annotationItemId}/skip`),
    ok: 200,
  },
  { method: 'GET', route: '/v1/projects/{project_id}/evaluators', path: (w) => `/v1/projects/${w.projectId}/evaluators`, ok: 200 },
  { method: 'POST', route: '/v1/projects/{project_id}/evaluators', path: (w) => `/v1/projects/${w.projectId}/evaluators`, body: validEvaluatorRule, ok: 201 },
  { method: 'GET', route: '/v1/projects/{project_id}/evaluators/{rule_id}', path: evaluatorPath, ok: 200 },
  { method: 'PATCH', route: '/v1/projects/{project_id}/evaluators/{rule_id}', path: evaluatorPath, body: () => ({ sampleRate: 0.1 }), ok: 200 },
  { method: 'DELETE', route: '/v1/projects/{project_id}/evaluators/{rule_id}', path: evaluatorPath, ok: 204 },
  // Model connections.
  { method: 'GET', route: '/v1/model-connections/{connection_id}', path: (w) => connectionPath(w), ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/model-connections/{connection_id}',
    path: (w) => connectionPath(w),
    body: () => ({ baseUrl: 'https://attacker.example/v1' }),
    ok: 200,
  },
  { method: 'DELETE', route: '/v1/model-connections/{connection_id}', path: (w) => connectionPath(w), ok: 204 },
  { method: 'POST', route: '/v1/model-connections/{connection_id}/test', path: (w) => connectionPath(w, '/test'), ok: 200 },
];

/** API5: every admin-only route, with what an admin gets. */
export const ADMIN_ROUTES: RouteCase[] = [
  { method: 'DELETE', route: '/v1/projects/{project_id}', path: (w) => `/v1/projects/${w.projectId}`, ok: 204 },
  { method: 'DELETE', route: '/v1/prompts/{prompt_id}', path: (w) => `/v1/prompts/${w.promptId}`, ok: 204 },
  { method: 'DELETE', route: '/v1/projects/{project_id}/monitors/{monitor_id}', path: (w) => monitorPath(w), ok: 204 },
  { method: 'PATCH', route: '/v1/organization (name)', path: () => '/v1/organization', body: () => ({ name: unique('renamed') }), ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/organization (allowedOrigins)',
    path: () => '/v1/organization',
    body: () => ({ allowedOrigins: ['https://attacker.example'] }),
    ok: 200,
  },
  {
    method: 'PATCH',
    route: '/v1/organization/members/{user_id}',
    path: (w) => `/v1/organization/members/${w.member.userId}`,
    body: () => ({ role: 'viewer' }),
    ok: 200,
  },
  { method: 'DELETE', route: '/v1/experiments/{experiment_id}', path: (w) => experimentPath(w), ok: 204 },
  { method: 'DELETE', route: '/v1/organization/members/{user_id}', path: (w) => `/v1/organization/members/${w.member.userId}`, ok: 204 },
  { method: 'GET', route: '/v1/organization/invitations', path: () => '/v1/organization/invitations', ok: 200 },
  {
    method: 'POST',
    route: '/v1/organization/invitations',
    path: () => '/v1/organization/invitations',
    body: () => ({ email: `${unique('inv')}@example.test`, role: 'admin' }),
    ok: 201,
  },
  { method: 'DELETE', route: '/v1/organization/invitations/{invitation_id}', path: (w) => `/v1/organization/invitations/${w.invitationId}`, ok: 204 },
  { method: 'GET', route: '/v1/organization/tokens', path: () => '/v1/organization/tokens', ok: 200 },
  { method: 'GET', route: '/v1/organization/audit-log', path: () => '/v1/organization/audit-log', ok: 200 },
  { method: 'POST', route: '/v1/models', path: () => '/v1/models', body: () => ({ model: unique('model'), inputPrice: 0, outputPrice: 0 }), ok: 201 },
  { method: 'PATCH', route: '/v1/models/{model_id}', path: (w) => `/v1/models/${w.modelId}`, body: () => ({ outputPrice: 0 }), ok: 200 },
  { method: 'DELETE', route: '/v1/models/{model_id}', path: (w) => `/v1/models/${w.modelId}`, ok: 204 },
  { method: 'POST', route: '/v1/score-configs', path: () => '/v1/score-configs', body: () => ({ name: unique('config'), dataType: 'numeric' }), ok: 201 },
  { method: 'PATCH', route: '/v1/score-configs/{config_id}', path: (w) => `/v1/score-configs/${w.scoreConfigId}`, body: () => ({ description: 'x' }), ok: 200 },
  { method: 'DELETE', route: '/v1/score-configs/{config_id}', path: (w) => `/v1/score-configs/${w.scoreConfigId}`, ok: 204 },
  { method: 'DELETE', route: '/v1/datasets/{dataset_id}', path: (w) => datasetPath(w), ok: 204 },
  { method: 'DELETE', route: '/v1/projects/{project_id}/annotation-queues/{queue_id}', path: (w) => queuePath(w), ok: 204 },
  { method: 'POST', route: '/v1/projects/{project_id}/evaluators', path: (w) => `/v1/projects/${w.projectId}/evaluators`, body: validEvaluatorRule, ok: 201 },
  { method: 'PATCH', route: '/v1/projects/{project_id}/evaluators/{rule_id}', path: evaluatorPath, body: () => ({ sampleRate: 0.1 }), ok: 200 },
  { method: 'DELETE', route: '/v1/projects/{project_id}/evaluators/{rule_id}', path: evaluatorPath, ok: 204 },
  // Model connections are admin material: even reading them.
  { method: 'GET', route: '/v1/model-connections', path: () => '/v1/model-connections', ok: 200 },
  { method: 'POST', route: '/v1/model-connections', path: () => '/v1/model-connections', body: () => validModelConnection(), ok: 201 },
  { method: 'GET', route: '/v1/model-connections/{connection_id}', path: (w) => connectionPath(w), ok: 200 },
  { method: 'PATCH', route: '/v1/model-connections/{connection_id}', path: (w) => connectionPath(w), body: () => ({ monthlyBudgetUsd: 5 }), ok: 200 },
  { method: 'DELETE', route: '/v1/model-connections/{connection_id}', path: (w) => connectionPath(w), ok: 204 },
  { method: 'POST', route: '/v1/model-connections/{connection_id}/test', path: (w) => connectionPath(w, '/test'), ok: 200 },
];

export const send = (ctx: TestContext, caller: Caller, r: RouteCase, w: World) =>
  ctx.request(r.method, r.path(w), { token: caller.token, ...(r.body ? { body: r.body(w) } : {}) });

/** Everything an attacker could have changed, read back by the rightful owner (fields that move by themselves left out). */
export async function snapshot(ctx: TestContext, w: World) {
  const get = async (url: string) => {
    const res = await ctx.request('GET', url, { token: w.owner.token });
    return { status: res.statusCode, body: res.statusCode === 200 ? (res.json() as Record<string, unknown>) : null };
  };
  const org = await get('/v1/organization');
  const project = await get(`/v1/projects/${w.projectId}`);
  const run = await get(`/v1/projects/${w.projectId}/runs/${w.runId}`);
  const runs = await get(`/v1/projects/${w.projectId}/runs?limit=100`);
  const tokens = await get('/v1/tokens?limit=100');
  const members = await get('/v1/organization/members?limit=100');
  const invitations = await get('/v1/organization/invitations?limit=100');
  const prompt = await get(`/v1/prompts/${w.promptId}`);
  const promptVersions = await get(`/v1/prompts/${w.promptId}/versions?limit=100`);
  const promptHistory = await get(`/v1/prompts/${w.promptId}/label-history?limit=100`);
  const monitors = await get(`/v1/projects/${w.projectId}/monitors?limit=100`);
  const monitorEvents = await get(`${monitorPath(w, '/events')}?limit=100`);
  const modelPrices = await get('/v1/models?limit=100');
  const dataset = await get(datasetPath(w));
  const datasetItems = await get(datasetPath(w, '/items?limit=100'));
  const scores = await get(`/v1/projects/${w.projectId}/scores?limit=100`);
  const scoreConfigs = await get('/v1/score-configs?limit=100');
  const queues = await get(`/v1/projects/${w.projectId}/annotation-queues?limit=100`);
  const queueItems = await get(queuePath(w, '/items?limit=100'));
  const experiment = await get(experimentPath(w));
  const experimentResults = await get(experimentPath(w, '/results?limit=100'));
  const evaluators = await get(`/v1/projects/${w.projectId}/evaluators?limit=100`);
  // The model connections as stored (sealed key included).
  const modelConnections = await ctx.database.storage.db
    .selectFrom('model_connections')
    .selectAll()
    .where('organization_id', '=', w.owner.organizationId)
    .orderBy('id')
    .execute();
  // The monitor as stored (its sealed signing secret included), less what its evaluation moves by itself.
  const monitorRow = await ctx.database.storage.db.selectFrom('monitors').selectAll().where('id', '=', w.monitorId).executeTakeFirst();
  const {
    last_evaluated_at: _at,
    next_evaluation_at: _next,
    lease_owner: _owner,
    lease_until: _until,
    ...monitor
  } = monitorRow ?? ({} as Record<string, unknown>);
  const items = (x: { body: Record<string, unknown> | null }) => (x.body?.items ?? []) as Record<string, unknown>[];
  return {
    org,
    project,
    run,
    runIds: items(runs).map((r) => r.id),
    tokens: items(tokens).map((t) => [t.id, t.revokedAt]),
    members: items(members).map((m) => [(m.user as { id: string }).id, m.role]),
    invitations: items(invitations).map((i) => i.id),
    prompt,
    promptVersions: items(promptVersions).map((v) => v.version),
    promptHistory: items(promptHistory).map((e) => e.id),
    monitor,
    monitors: items(monitors).map((m) => m.id),
    dataset,
    datasetItems: items(datasetItems),
    monitorEvents: items(monitorEvents).map((e) => e.id),
    modelPrices: items(modelPrices).map((p) => [p.id, p.inputPrice, p.outputPrice]),
    scores: items(scores).map((x) => [x.id, x.value, x.comment]),
    scoreConfigs: items(scoreConfigs).map((c) => [c.id, c.name, c.description, c.archived]),
    queues: items(queues),
    queueItems: items(queueItems),
    evaluators: items(evaluators),
    modelConnections,
    experiment,
    experimentResults: items(experimentResults),
  };
}

/** Every object key in a JSON value, at any depth. */
export function keysOf(value: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysOf(v, into);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      keysOf(v, into);
    }
  }
  return into;
}

export const SECRET_KEYS = [
  'token_hash',
  'tokenHash',
  'private',
  'privateKey',
  'private_key',
  'd',
  'p',
  'q',
  'dp',
  'dq',
  'qi',
  'k',
  'content_hash',
  'contentHash',
  'doc',
  'organization_id',
  'organizationId',
  'family_id',
  'revoked_reason',
  'secret',
  'password',
];
