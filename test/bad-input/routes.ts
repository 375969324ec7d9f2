import { newId } from '../../src/lib/ids.js';

/** The bad-input suites' table: every /v1 route with a valid request, and the junk each part of a request is tried with. */
export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

export interface Fixture {
  projectId: string;
  runId: string;
  tokenId: string;
  promptId: string;
  /** A monitor of the fixture's project. */
  monitorId: string;
  /** A model price of the fixture's organization. */
  modelId: string;
  /** A saved view of the fixture's owner in its project. */
  viewId: string;
  /** A dataset of the fixture's organization, and one of its items. */
  datasetId: string;
  itemId: string;
  /** The session of the fixture's runs. */
  sessionId: string;
  /** A score (of a run of the project) and a score config of the organization. */
  scoreId: string;
  scoreConfigId: string;
  /** An annotation queue of the project, and one of its items, claimed by the fixture's owner. */
  queueId: string;
  annotationItemId: string;
  /** An evaluator rule of the project. */
  evaluatorId: string;
  /** A member of the fixture's organization (not its owner), and a pending invitation to it. */
  memberUserId: string;
  invitationId: string;
  /** A model connection of the organization (budget 0: its test call is refused before any request). */
  modelConnectionId: string;
  /** Two experiments over the fixture's dataset (version 1, its item), in the fixture's project. */
  experimentId: string;
  otherExperimentId: string;
}

export const FIXTURE_SESSION = 'bad-input-session';

export interface Route {
  method: Method;
  route: string;
  path: (f: Fixture) => string;
  /** The route declares query parameters (lists and metrics). */
  query?: boolean;
  /** A valid body, for routes that take one (with the fixture's ids, for a body that names a resource). */
  body?: (f: Fixture) => Record<string, unknown>;
  /** What the valid request answers. */
  ok: number;
  /** Wrong values per field of the body; each must be a 400 naming the field. */
  fields?: Record<string, unknown[]>;
  /** The body's format ignores fields it does not know (OTLP JSON, as its specification asks). */
  ignoresUnknownFields?: boolean;
  /** The valid request uses up what it names (an item completed or skipped): each is sent with ids of its own. */
  consumes?: boolean;
  /** Headers every request to the route carries (the project of Langfuse's and OTLP's endpoints, beside the bearer token). */
  headers?: (f: Fixture) => Record<string, string>;
}

export const validRun = (): Record<string, unknown> => ({ name: 'ChatOpenAI', kind: 'llm', startTime: '2026-11-02T10:00:00.000Z' });
export const uniqueName = () => `p-${newId('prj').slice(-12)}`;
export const uniquePromptName = () => `prompt-${newId('prm').slice(-12)}`;
export const validMonitor = (): Record<string, unknown> => ({ name: 'errors', metric: 'error_count', window: '1h', threshold: { op: '>', value: 0 } });
export const validInvitation = (): Record<string, unknown> => ({ email: `invitee-${newId('inv').slice(-12).toLowerCase()}@example.com`, role: 'member' });
export const validView = (): Record<string, unknown> => ({
  name: `view-${newId('vew').slice(-12)}`,
  page: 'traces',
  filters: { status: 'failed', q: 'refund' },
});
export const validScore = (): Record<string, unknown> => ({ name: 'helpfulness', value: 0.5, comment: 'fine', metadata: { by: 'ci' } });
export const validScoreConfig = (): Record<string, unknown> => ({ name: `config-${newId('scc').slice(-12)}`, dataType: 'numeric', min: 0, max: 1 });
export const SCORE_FIELDS: Record<string, unknown[]> = {
  id: ['', 'has space', 'null', 'x'.repeat(129), 1],
  name: ['', ' padded', 'x'.repeat(101), 1, null],
  configId: ['', 1, null],
  value: [null, [], {}, '', 'x'.repeat(101)],
  comment: [1, {}, 'x'.repeat(10_001)],
  source: ['robot', 1, null],
  metadata: ['x', [], 1, null],
};
const scorePath = (f: Fixture, suffix = '') => `/v1/projects/${f.projectId}/scores${suffix}`;
export const validModelPrice = (): Record<string, unknown> => ({ model: `acme-${newId('mdl').slice(-12)}`, inputPrice: 1, outputPrice: 2 });
export const validModelConnection = (): Record<string, unknown> => ({
  name: `connection-${newId('mcn').slice(-12)}`,
  baseUrl: 'https://models.example.com/v1',
  model: 'gpt-4o-mini',
  apiKey: 'sk-bad-input-0000000000',
  monthlyBudgetUsd: 0,
});
export const MODEL_CONNECTION_FIELDS: Record<string, unknown[]> = {
  name: ['', ' padded', 'x'.repeat(101), 1, null],
  baseUrl: ['', 'not a url', 'ftp://x.example.com/', 'http://127.0.0.1/v1', 'http://user:pw@models.example.com/', 1, null],
  model: ['', ' padded', 'x'.repeat(201), 1, null],
  apiKey: ['', 'a\nb', 'x'.repeat(4097), 1, null],
  headers: ['x', [], { 'bad name': 'v' }, { 'x-a': 1 }, { 'x-a': 'a\nb' }, { Authorization: 'Bearer x' }, { Host: 'x' }],
  monthlyBudgetUsd: ['1', -1, 1_000_001, null],
  pricing: ['x', {}, { inputPerMillion: 1 }, { inputPerMillion: -1, outputPerMillion: 1 }, { inputPerMillion: 1, outputPerMillion: 1, cache: 1 }],
};
export const validDataset = (): Record<string, unknown> => ({ name: `Dataset ${newId('ds').slice(-12)}`, description: 'Hard cases', metadata: { team: 'qa' } });
export const datasetPath = (f: Fixture, suffix = '') => `/v1/datasets/${f.datasetId}${suffix}`;
export const itemPath = (f: Fixture) => `/v1/datasets/${f.datasetId}/items/${f.itemId}`;
export const queuePath = (f: Fixture, suffix = '') => `/v1/projects/${f.projectId}/annotation-queues/${f.queueId}${suffix}`;
export const QUEUE_FIELDS: Record<string, unknown[]> = {
  name: [1, null, [], '', ' padded', 'x'.repeat(201)],
  description: [1, null, {}, 'x'.repeat(10_001)],
  scoreConfigIds: ['x', {}, [1], [''], ['scc_nope'], ['a', 'a'], Array.from({ length: 51 }, (_, i) => `scc_${i}`)],
  id: ['aq_x'],
  counts: [{}],
};
export const validEvaluatorRule = (): Record<string, unknown> => ({
  name: `Rule ${newId('evr').slice(-12)}`,
  filter: { kind: 'llm' },
  sampleRate: 0.5,
  evaluator: { type: 'regex', pattern: '^ok' },
  scoreName: 'starts-ok',
});
export const evaluatorPath = (f: Fixture) => `/v1/projects/${f.projectId}/evaluators/${f.evaluatorId}`;
const EVALUATOR_FIELDS: Record<string, unknown[]> = {
  name: [1, null, [], '', ' padded', 'x'.repeat(201)],
  filter: ['x', [], 1, { status: 'bogus' }, { tag: 'a' }, { unknown: 1 }, { 'metadata.k': 1 }, { startedAfter: 'yesterday' }],
  sampleRate: [-0.1, 1.5, 'x', null],
  evaluator: [
    'x',
    {},
    { type: 'nope' },
    { type: 'regex' },
    { type: 'regex', pattern: '(a+)+$' },
    { type: 'regex', pattern: '(' },
    { type: 'json_schema', schema: { type: 'nonsense' } },
    { type: 'length' },
    { type: 'latency', maxMs: -1 },
    { type: 'contains', values: [] },
    { type: 'llm_judge', promptName: 'p' },
  ],
  scoreName: [1, null, '', 'x'.repeat(101)],
  enabled: ['yes', 1, null],
  counts: [{}],
};
const QUEUE_ITEM_FIELDS: Record<string, unknown[]> = {
  ids: [[], 'x', {}, [1], [''], ['no-such-run'], ['x'.repeat(129)], Array.from({ length: 1001 }, (_, i) => `r${i}`)],
  filter: ['x', [], 1, { status: 'bogus' }, { tag: 'a' }, { unknown: 1 }, { 'metadata.k': 1 }],
  rate: [0, -0.5, 1.5, 'x', null],
  limit: [0, 1001, 1.5, 'x', null],
};
const COMPLETE_FIELDS: Record<string, unknown[]> = {
  scores: [
    [],
    'x',
    {},
    [1],
    [{}],
    [{ name: 'x', value: null }],
    [{ name: 'x', value: 1, source: 'api' }],
    Array.from({ length: 51 }, () => ({ name: 'x', value: 1 })),
  ],
};
export const monitorPath = (f: Fixture, suffix = '') => `/v1/projects/${f.projectId}/monitors/${f.monitorId}${suffix}`;

export const MONITOR_FIELDS: Record<string, unknown[]> = {
  name: [1, null, [], '', 'x'.repeat(201)],
  description: [1, null, {}, 'x'.repeat(2001)],
  filter: [
    'x',
    [],
    1,
    null,
    { bogus: 1 },
    { q: '!!!' },
    { q: '' },
    { startedAfter: '2026-11-01T00:00:00.000Z' },
    { status: 'bogus' },
    { kind: 1 },
    { tag: 'x' },
    { tag: [''] },
    { tag: Array.from({ length: 11 }, (_, i) => `t${i}`) },
    { parentRunId: '' },
    { parentRunId: 1 },
    { 'metadata.bad key': '1' },
    { 'metadata.k': 1 },
    { 'metadata.k': { $ne: null } },
    // The scores' filter names are for the score metrics only (this monitor's metric is error_count).
    { source: 'api' },
    { target: 'run' },
  ],
  metric: [1, null, '', 'p99', 'COUNT', 'latency_p90'],
  // Refused for a run metric; malformed in any case.
  score: ['x', 1, [], {}, { name: '' }, { name: ' padded' }, { name: 'a', bogus: 1 }, { name: 'a', label: '' }, { name: 'helpfulness' }],
  window: [1, null, '', '2h', '1H', '30d'],
  threshold: [
    'x',
    1,
    [],
    {},
    { op: '!=', value: 1 },
    { op: '>' },
    { value: 1 },
    { op: '>', value: '1' },
    { op: '>', value: 1e16 },
    { op: '>', value: 1, extra: 1 },
  ],
  enabled: ['true', 1, null, {}],
  webhookUrls: [
    'x',
    {},
    [1],
    [''],
    ['ftp://example.com/'],
    ['not a url'],
    ['http://127.0.0.1/hook'],
    ['https://u:p@example.com/'],
    ['https://a.example.com/', 'https://a.example.com/'],
    Array.from({ length: 6 }, (_, i) => `https://h${i}.example.com/`),
  ],
  state: ['ok'],
  id: ['mon_x'],
  webhookSecret: ['whsec_x'],
};

/** Query strings the monitors list refuses. */
export const MONITOR_LIST_JUNK: [string, string][] = [
  ['state=bogus', 'state'],
  ['state=OK', 'state'],
  ['state=', 'state'],
  ['state=ok&state=alerting', 'state'],
  ['enabled=yes', 'enabled'],
  ['enabled=1', 'enabled'],
  ['enabled=', 'enabled'],
  ['enabled=true&enabled=false', 'enabled'],
  ['status=running', 'status'],
  ['metric=count', 'metric'],
];

export const MODEL_PRICE_FIELDS: Record<string, unknown[]> = {
  model: [1, null, [], '', ' lead', 'has space', 'a*b', '*', 'x'.repeat(201)],
  provider: [1, [], '', 'OpenAI', 'has space', 'x'.repeat(65)],
  inputPrice: ['1', -1, -0.001, null, {}, 1_000_001],
  outputPrice: ['2', -1, null, true],
  cacheReadPrice: ['0.1', -1, {}],
  cacheWritePrice: ['0.1', -1, []],
  reasoningPrice: ['0.1', -1, 2_000_000],
  currency: [1, null, '', 'EUR', 'usd'],
  effectiveFrom: [1, null, '', 'tomorrow', '2026-11-02', '2026-11-02T10:00:00', '2026-13-01T00:00:00Z'],
  id: ['mdl_x'],
  createdBy: ['usr_x'],
};

const deep = (levels: number): unknown => (levels === 0 ? 1 : { d: deep(levels - 1) });
export const validExperiment = (f: Fixture): Record<string, unknown> => ({
  name: `Experiment ${newId('exp').slice(-12)}`,
  datasetId: f.datasetId,
  datasetVersion: 1,
  projectId: f.projectId,
  metadata: { model: 'gpt-4o' },
});
export const EXPERIMENT_FIELDS: Record<string, unknown[]> = {
  name: [1, null, [], '', ' padded', 'x'.repeat(201)],
  datasetId: [1, null, '', 'x'.repeat(201)],
  datasetVersion: ['1', -1, 1.5, 1_000_000, null],
  projectId: [1, null, '', 'x'.repeat(201)],
  metadata: [1, 'x', [], null],
  status: ['done'],
  id: ['exp_x'],
};
export const experimentPath = (f: Fixture, suffix = '') => `/v1/experiments/${f.experimentId}${suffix}`;
/** The fixture's one result: the same each time (the first is created, the others are `existing`). */
export const validResult = (f: Fixture): Record<string, unknown> => ({ itemId: f.itemId, runId: f.runId, output: { answer: 'Hello' }, latencyMs: 120 });
const RESULT_FIELDS: Record<string, unknown[]> = {
  results: [
    [],
    {},
    null,
    [1],
    [{}],
    Array.from({ length: 101 }, () => ({ itemId: 'a', runId: 'r', latencyMs: 1 })),
    [{ itemId: 'no-such-item', runId: 'r', latencyMs: 1 }],
    [{ itemId: '', runId: 'r', latencyMs: 1 }],
    [{ itemId: 'a', runId: 'has space', latencyMs: 1 }],
    [{ itemId: 'a', runId: 'r', latencyMs: -1 }],
    [{ itemId: 'a', runId: 'r', latencyMs: 1.5 }],
    [{ itemId: 'a', runId: 'r', latencyMs: 1, cost: -1 }],
    [{ itemId: 'a', runId: 'r', latencyMs: 1, usage: { promptTokens: 1 } }],
    [{ itemId: 'a', runId: 'r', latencyMs: 1, output: deep(101) }],
    [{ itemId: 'a', runId: 'r', latencyMs: 1, bogus: 1 }],
  ],
};

export const DATASET_FIELDS: Record<string, unknown[]> = {
  name: [1, null, [], '', ' padded', 'x'.repeat(201)],
  description: [1, null, {}, 'x'.repeat(10_001)],
  metadata: [1, 'x', [], null],
  id: ['ds_x'],
  version: [2],
  itemCount: [5],
};
export const ITEM_FIELDS: Record<string, unknown[]> = {
  input: [deep(101)],
  expectedOutput: [deep(101)],
  metadata: [1, 'x', [], null, { k: deep(100) }],
  version: [2],
  datasetId: ['ds_x'],
};

/** Query strings the model price lists refuse. */
export const MODEL_LIST_JUNK: [string, string][] = [
  ['model=', 'model'],
  [`model=${'x'.repeat(201)}`, 'model'],
  ['model=a&model=b', 'model'],
  ['provider=', 'provider'],
  ['provider=OpenAI', 'provider'],
  ['provider=a&provider=b', 'provider'],
  ['status=running', 'status'],
];

/** Query strings a monitor's metrics refuse (besides the runs metrics' ones). */
export const MONITOR_METRICS_JUNK: [string, string][] = [
  ['bucket=5m&from=2000-01-01T00:00:00Z', 'bucket'],
  ['status=failed', 'status'],
  ['to=2026-11-02', 'to'],
  ['cursor=x', 'cursor'],
];

/** JSON nested past the bound every free-form field keeps (lib/json.ts MAX_JSON_DEPTH). */
const TOO_DEEP: unknown = Array.from({ length: 101 }).reduce((inner: unknown) => [inner], 'deep');

export const RUN_FIELDS: Record<string, unknown[]> = {
  id: [1, '', 'null', 'batch', 'metrics', 'values', 'has space', 'x'.repeat(129), {}],
  traceId: [1, '', 'a/b'],
  parentRunId: [1, {}, '', '../x'],
  name: [1, '', null, [], 'x'.repeat(257)],
  kind: [1, null, 'bogus', 'LLM', ''],
  status: [1, 'bogus', 'RUNNING', 'done'],
  startTime: ['yesterday', 1, null, '2026-13-01T00:00:00Z', '2026-11-02', '2026-11-02T10:00:00'],
  endTime: ['soon', 1, {}],
  // Inputs and outputs are any JSON value: only nesting past the bound is refused.
  inputs: [TOO_DEEP],
  outputs: [TOO_DEEP],
  error: [1, {}, 'x'.repeat(100_001)],
  model: [1, '', {}],
  provider: [1, '', {}, 'x'.repeat(257)],
  sessionId: [1, '', [], 'x'.repeat(257)],
  userId: [1, '', {}, 'x'.repeat(257)],
  usage: [
    'x',
    [],
    { promptTokens: -1, completionTokens: 0 },
    { promptTokens: '1', completionTokens: 1 },
    { promptTokens: 1.5, completionTokens: 1 },
    { promptTokens: 1 },
    { promptTokens: 1, completionTokens: 1, extra: 1 },
    { promptTokens: 1, completionTokens: 1, cacheReadTokens: -1 },
    { promptTokens: 1, completionTokens: 1, reasoningTokens: 1.5 },
  ],
  cost: [-1, 'free', {}],
  tags: ['x', [1], ['a', 'a'], [''], Array.from({ length: 51 }, (_, i) => `t${i}`)],
  metadata: ['x', [], 1, null],
};

export const PATCH_RUN_FIELDS: Record<string, unknown[]> = {
  status: [1, null, 'bogus', 'RUNNING'],
  endTime: ['soon', 1, null],
  outputs: [TOO_DEEP],
  error: [1, {}],
  usage: ['x', { promptTokens: -1, completionTokens: 0 }],
  cost: [-1, 'x'],
  tags: ['x', [1], ['a', 'a']],
  metadata: [[], 'x', null],
  bogus: [1],
};

/** Every /v1 route. */
export const ROUTES: Route[] = [
  { method: 'GET', route: '/v1/me', path: () => '/v1/me', ok: 200 },
  { method: 'GET', route: '/v1/tokens', path: () => '/v1/tokens', query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/tokens',
    path: () => '/v1/tokens',
    body: () => ({ name: 'ci' }),
    ok: 201,
    fields: { name: [1, null, [], {}, '', ' ', 'x'.repeat(101)], expiresInDays: ['30', 1.5, 0, -1, null, 100_000, true], bogus: [1] },
  },
  { method: 'DELETE', route: '/v1/tokens/{token_id}', path: (f) => `/v1/tokens/${f.tokenId}`, ok: 204 },
  { method: 'GET', route: '/v1/projects', path: () => '/v1/projects', query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/projects',
    path: () => '/v1/projects',
    body: () => ({ name: uniqueName() }),
    ok: 201,
    fields: {
      name: [1, null, [], {}, '', ' lead', 'trail ', 'tab\there', 'x'.repeat(101)],
      description: [1, null, {}, 'x'.repeat(2001)],
      organizationId: ['org_x'],
    },
  },
  { method: 'GET', route: '/v1/projects/{project_id}', path: (f) => `/v1/projects/${f.projectId}`, ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}',
    path: (f) => `/v1/projects/${f.projectId}`,
    body: () => ({ description: 'changed' }),
    ok: 200,
    fields: { name: [1, null, '', ' lead'], description: [1, null, 'x'.repeat(2001)], id: ['prj_x'] },
  },
  { method: 'DELETE', route: '/v1/projects/{project_id}', path: (f) => `/v1/projects/${f.projectId}`, ok: 204 },
  { method: 'GET', route: '/v1/projects/{project_id}/runs', path: (f) => `/v1/projects/${f.projectId}/runs`, query: true, ok: 200 },
  { method: 'POST', route: '/v1/projects/{project_id}/runs', path: (f) => `/v1/projects/${f.projectId}/runs`, body: validRun, ok: 201, fields: RUN_FIELDS },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/runs/batch',
    path: (f) => `/v1/projects/${f.projectId}/runs/batch`,
    body: () => ({ runs: [validRun()] }),
    ok: 200,
    fields: { runs: ['x', [], {}, null, 1, Array.from({ length: 1001 }, validRun)], bogus: [1] },
  },
  { method: 'GET', route: '/v1/projects/{project_id}/traces', path: (f) => `/v1/projects/${f.projectId}/traces`, query: true, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/traces/export', path: (f) => `/v1/projects/${f.projectId}/traces/export`, query: true, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/runs/export', path: (f) => `/v1/projects/${f.projectId}/runs/export`, query: true, ok: 200 },
  // The fixture's runs are roots: each is a trace of its own id.
  { method: 'GET', route: '/v1/projects/{project_id}/traces/{trace_id}', path: (f) => `/v1/projects/${f.projectId}/traces/${f.runId}`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/sessions', path: (f) => `/v1/projects/${f.projectId}/sessions`, query: true, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/users', path: (f) => `/v1/projects/${f.projectId}/users`, query: true, ok: 200 },
  { method: 'POST', route: '/v1/traces', path: () => '/v1/traces', body: () => ({ resourceSpans: [] }), ok: 200, ignoresUnknownFields: true },
  {
    method: 'POST',
    route: '/api/public/otel/v1/traces',
    path: () => '/api/public/otel/v1/traces',
    headers: (f) => ({ 'sightline-project': f.projectId }),
    body: () => ({ resourceSpans: [] }),
    ok: 200,
    ignoresUnknownFields: true,
  },
  {
    method: 'POST',
    route: '/api/public/ingestion',
    path: () => '/api/public/ingestion',
    headers: (f) => ({ 'sightline-project': f.projectId }),
    body: () => ({ batch: [] }),
    ok: 207,
    // Langfuse's request carries its SDK's `metadata` beside the batch, and may carry more.
    ignoresUnknownFields: true,
    fields: {
      batch: ['x', {}, null, 1, Array.from({ length: 1001 }, (_, i) => ({ id: `e${i}`, type: 'sdk-log', timestamp: '2026-11-02T10:00:00.000Z', body: {} }))],
    },
  },
  { method: 'GET', route: '/v1/projects/{project_id}/runs/metrics', path: (f) => `/v1/projects/${f.projectId}/runs/metrics`, query: true, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/traces/metrics', path: (f) => `/v1/projects/${f.projectId}/traces/metrics`, query: true, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/runs/values', path: (f) => `/v1/projects/${f.projectId}/runs/values?field=name`, query: true, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/runs/{run_id}', path: (f) => `/v1/projects/${f.projectId}/runs/${f.runId}`, ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}/runs/{run_id}',
    path: (f) => `/v1/projects/${f.projectId}/runs/${f.runId}`,
    body: () => ({ metadata: { step: 1 } }),
    ok: 200,
    fields: PATCH_RUN_FIELDS,
  },
  { method: 'GET', route: '/v1/prompts', path: () => '/v1/prompts', query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/prompts',
    path: () => '/v1/prompts',
    body: () => ({ name: uniquePromptName(), template: 'Hi {{name}}' }),
    ok: 201,
    fields: {
      name: [1, null, [], '', 'Upper', 'has space', 'prm_x', '-x', 'x'.repeat(101)],
      description: [1, null, {}, 'x'.repeat(2001)],
      template: [1, null, {}, [], [{ role: 'wizard', content: 'x' }], [{ role: 'user' }], [{ role: 'user', content: 1 }], 'x'.repeat(100_001)],
      config: ['x', [], 1, null],
      message: [1, null, 'x'.repeat(2001)],
      latestVersion: [2],
      id: ['prm_x'],
    },
  },
  { method: 'GET', route: '/v1/prompts/{prompt_id}', path: (f) => `/v1/prompts/${f.promptId}`, ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/prompts/{prompt_id}',
    path: (f) => `/v1/prompts/${f.promptId}`,
    body: () => ({ description: 'changed' }),
    ok: 200,
    fields: { description: [1, null, {}, 'x'.repeat(2001)], name: ['renamed'], latestVersion: [9], labels: [{}] },
  },
  { method: 'DELETE', route: '/v1/prompts/{prompt_id}', path: (f) => `/v1/prompts/${f.promptId}`, ok: 204 },
  { method: 'GET', route: '/v1/prompts/{prompt_id}/versions', path: (f) => `/v1/prompts/${f.promptId}/versions`, query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/prompts/{prompt_id}/versions',
    path: (f) => `/v1/prompts/${f.promptId}/versions`,
    body: () => ({ template: 'Hello {{name}}' }),
    ok: 201,
    fields: { template: [1, null, {}, []], config: ['x', [], null], message: [1, {}], version: [5], bogus: [1] },
  },
  { method: 'GET', route: '/v1/prompts/{prompt_id}/versions/{version}', path: (f) => `/v1/prompts/${f.promptId}/versions/1`, ok: 200 },
  {
    method: 'PUT',
    route: '/v1/prompts/{prompt_id}/labels/{label}',
    path: (f) => `/v1/prompts/${f.promptId}/labels/production`,
    body: () => ({ version: 1 }),
    ok: 200,
    fields: { version: [0, -1, 1.5, '1', null, {}, 99], bogus: [1] },
  },
  { method: 'DELETE', route: '/v1/prompts/{prompt_id}/labels/{label}', path: (f) => `/v1/prompts/${f.promptId}/labels/staging`, ok: 204 },
  { method: 'GET', route: '/v1/prompts/{prompt_id}/label-history', path: (f) => `/v1/prompts/${f.promptId}/label-history`, query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/prompts/{prompt_id}/render',
    path: (f) => `/v1/prompts/${f.promptId}/render`,
    body: () => ({ variables: { name: 'x' } }),
    ok: 200,
    fields: { variables: ['x', null, [], { name: null }, { name: {} }, { name: 'x', other: 1 }], version: [0, 'x'], label: ['123', 'Upper', 1], bogus: [1] },
  },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors', path: (f) => `/v1/projects/${f.projectId}/monitors`, query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/monitors',
    path: (f) => `/v1/projects/${f.projectId}/monitors`,
    body: validMonitor,
    ok: 201,
    fields: MONITOR_FIELDS,
  },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors/{monitor_id}', path: (f) => monitorPath(f), ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}/monitors/{monitor_id}',
    path: (f) => monitorPath(f),
    body: () => ({ description: 'changed' }),
    ok: 200,
    fields: {
      name: [1, null, ''],
      metric: ['p99', null],
      score: ['x', { name: 'helpfulness' }],
      window: ['2h', null],
      threshold: ['x', {}, { op: '!=', value: 1 }],
      enabled: ['no', 0, null],
      filter: ['x', null, { bogus: 1 }, { 'metadata.k': 1 }],
      webhookUrls: ['x', null, ['javascript:alert(1)'], ['http://169.254.169.254/latest/meta-data/']],
      state: ['ok'],
      projectId: ['prj_x'],
      lastEvaluatedAt: ['2026-11-02T10:00:00.000Z'],
    },
  },
  { method: 'DELETE', route: '/v1/projects/{project_id}/monitors/{monitor_id}', path: (f) => monitorPath(f), ok: 204 },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors/{monitor_id}/metrics', path: (f) => monitorPath(f, '/metrics'), query: true, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors/{monitor_id}/events', path: (f) => monitorPath(f, '/events'), query: true, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/monitors/{monitor_id}/deliveries', path: (f) => monitorPath(f, '/deliveries'), query: true, ok: 200 },
  { method: 'POST', route: '/v1/projects/{project_id}/monitors/{monitor_id}/rotate-secret', path: (f) => monitorPath(f, '/rotate-secret'), ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/views', path: (f) => `/v1/projects/${f.projectId}/views`, query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/views',
    path: (f) => `/v1/projects/${f.projectId}/views`,
    body: validView,
    ok: 201,
    fields: {
      name: ['', ' padded', 'x'.repeat(101), 1, null],
      page: ['dashboards', null, 1],
      filters: [[], 'status=failed', { status: 'broken' }, { nope: 1 }, { 'metadata.bad key': 'x' }],
    },
  },
  { method: 'GET', route: '/v1/projects/{project_id}/views/{view_id}', path: (f) => `/v1/projects/${f.projectId}/views/${f.viewId}`, ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}/views/{view_id}',
    path: (f) => `/v1/projects/${f.projectId}/views/${f.viewId}`,
    body: () => ({ filters: { kind: 'llm', tag: ['a', 'b'] } }),
    ok: 200,
    fields: { name: ['', 2], filters: [{ kind: 'robot' }, null] },
  },
  { method: 'DELETE', route: '/v1/projects/{project_id}/views/{view_id}', path: (f) => `/v1/projects/${f.projectId}/views/${f.viewId}`, ok: 204 },
  { method: 'GET', route: '/v1/projects/{project_id}/sessions/{session_id}', path: (f) => `/v1/projects/${f.projectId}/sessions/${f.sessionId}`, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/users/{user_id}', path: (f) => `/v1/projects/${f.projectId}/users/nobody`, ok: 404 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/runs/{run_id}/scores',
    path: (f) => `/v1/projects/${f.projectId}/runs/${f.runId}/scores`,
    body: validScore,
    ok: 201,
    fields: SCORE_FIELDS,
  },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/traces/{trace_id}/scores',
    path: (f) => `/v1/projects/${f.projectId}/traces/${f.runId}/scores`,
    body: validScore,
    ok: 201,
    fields: SCORE_FIELDS,
  },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/sessions/{session_id}/scores',
    path: (f) => `/v1/projects/${f.projectId}/sessions/${f.sessionId}/scores`,
    body: validScore,
    ok: 201,
    fields: SCORE_FIELDS,
  },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/scores/batch',
    path: (f) => scorePath(f, '/batch'),
    // Every item is answered on its own (a score whose run does not exist too): the envelope is what is checked here.
    body: () => ({ scores: [{ ...validScore(), runId: 'any-run' }] }),
    ok: 200,
    fields: { scores: [[], 'x', null, {}, [1], Array.from({ length: 1001 }, () => ({}))] },
  },
  { method: 'GET', route: '/v1/projects/{project_id}/scores', path: (f) => scorePath(f), query: true, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/scores/metrics', path: (f) => scorePath(f, '/metrics'), query: true, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/scores/values', path: (f) => scorePath(f, '/values?field=name'), query: true, ok: 200 },
  { method: 'GET', route: '/v1/projects/{project_id}/scores/{score_id}', path: (f) => scorePath(f, `/${f.scoreId}`), ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}/scores/{score_id}',
    path: (f) => scorePath(f, `/${f.scoreId}`),
    body: () => ({ comment: 'changed' }),
    ok: 200,
    fields: { value: [null, [], ''], comment: [1, []], metadata: ['x', null], name: ['other'], source: ['api'] },
  },
  { method: 'DELETE', route: '/v1/projects/{project_id}/scores/{score_id}', path: (f) => scorePath(f, `/${f.scoreId}`), ok: 204 },
  { method: 'GET', route: '/v1/score-configs', path: () => '/v1/score-configs', query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/score-configs',
    path: () => '/v1/score-configs',
    body: validScoreConfig,
    ok: 201,
    fields: {
      name: ['', ' padded', 1, null],
      dataType: ['ordinal', 1, null],
      min: ['x', {}, 5],
      max: ['x', [], -1],
      categories: ['x', [], [''], [1], ['a', 'a']],
      description: [1, 'x'.repeat(1001)],
    },
  },
  { method: 'GET', route: '/v1/score-configs/{config_id}', path: (f) => `/v1/score-configs/${f.scoreConfigId}`, ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/score-configs/{config_id}',
    path: (f) => `/v1/score-configs/${f.scoreConfigId}`,
    body: () => ({ description: 'changed' }),
    ok: 200,
    fields: { name: ['', 1], dataType: ['boolean'], archived: ['yes', 1, null], min: [2], categories: [['a']] },
  },
  { method: 'DELETE', route: '/v1/score-configs/{config_id}', path: (f) => `/v1/score-configs/${f.scoreConfigId}`, ok: 204 },
  { method: 'GET', route: '/v1/models', path: () => '/v1/models', query: true, ok: 200 },
  { method: 'POST', route: '/v1/models', path: () => '/v1/models', body: validModelPrice, ok: 201, fields: MODEL_PRICE_FIELDS },
  { method: 'GET', route: '/v1/models/builtin', path: () => '/v1/models/builtin', query: true, ok: 200 },
  { method: 'GET', route: '/v1/models/{model_id}', path: (f) => `/v1/models/${f.modelId}`, ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/models/{model_id}',
    path: (f) => `/v1/models/${f.modelId}`,
    body: () => ({ outputPrice: 3 }),
    ok: 200,
    fields: { ...MODEL_PRICE_FIELDS, inputPrice: ['1', -1, null], outputPrice: [-1, null], createdAt: ['2026-11-02T10:00:00.000Z'] },
  },
  { method: 'DELETE', route: '/v1/models/{model_id}', path: (f) => `/v1/models/${f.modelId}`, ok: 204 },
  { method: 'GET', route: '/v1/datasets', path: () => '/v1/datasets', query: true, ok: 200 },
  { method: 'POST', route: '/v1/datasets', path: () => '/v1/datasets', body: validDataset, ok: 201, fields: DATASET_FIELDS },
  { method: 'GET', route: '/v1/datasets/{dataset_id}', path: (f) => datasetPath(f), ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/datasets/{dataset_id}',
    path: (f) => datasetPath(f),
    body: () => ({ description: 'Harder cases' }),
    ok: 200,
    fields: DATASET_FIELDS,
  },
  { method: 'DELETE', route: '/v1/datasets/{dataset_id}', path: (f) => datasetPath(f), ok: 204 },
  { method: 'GET', route: '/v1/datasets/{dataset_id}/items', path: (f) => datasetPath(f, '/items'), query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/datasets/{dataset_id}/items',
    path: (f) => datasetPath(f, '/items'),
    body: () => ({ items: [{ input: { question: 'Refund?' }, expectedOutput: 'Yes' }] }),
    ok: 201,
    fields: { items: [[], {}, null, [1], [{}], [{ id: 'has space', input: 1 }], [{ input: deep(101) }], [{ input: 1, bogus: 1 }]] },
  },
  { method: 'GET', route: '/v1/datasets/{dataset_id}/items/{item_id}', path: itemPath, ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/datasets/{dataset_id}/items/{item_id}',
    path: itemPath,
    body: () => ({ expectedOutput: 'Yes' }),
    ok: 200,
    fields: ITEM_FIELDS,
  },
  { method: 'DELETE', route: '/v1/datasets/{dataset_id}/items/{item_id}', path: itemPath, ok: 204 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/runs/{run_id}/dataset-items',
    path: (f) => `/v1/projects/${f.projectId}/runs/${f.runId}/dataset-items`,
    body: (f) => ({ datasetId: f.datasetId }),
    ok: 201,
    fields: { ...ITEM_FIELDS, datasetId: [1, null, '', 'x'.repeat(201)] },
  },
  {
    method: 'GET',
    route: '/v1/projects/{project_id}/annotation-queues',
    path: (f) => `/v1/projects/${f.projectId}/annotation-queues`,
    query: true,
    ok: 200,
  },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/annotation-queues',
    path: (f) => `/v1/projects/${f.projectId}/annotation-queues`,
    body: (f) => ({ name: `Queue ${newId('aq').slice(-12)}`, description: 'Weekly', target: 'run', scoreConfigIds: [f.scoreConfigId] }),
    ok: 201,
    fields: { ...QUEUE_FIELDS, target: ['session', 1, null] },
  },
  { method: 'GET', route: '/v1/projects/{project_id}/annotation-queues/{queue_id}', path: (f) => queuePath(f), ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}/annotation-queues/{queue_id}',
    path: (f) => queuePath(f),
    body: (f) => ({ description: 'Daily', scoreConfigIds: [f.scoreConfigId] }),
    ok: 200,
    fields: { ...QUEUE_FIELDS, target: ['trace'] },
  },
  { method: 'DELETE', route: '/v1/projects/{project_id}/annotation-queues/{queue_id}', path: (f) => queuePath(f), ok: 204 },
  { method: 'GET', route: '/v1/projects/{project_id}/annotation-queues/{queue_id}/items', path: (f) => queuePath(f, '/items'), query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/annotation-queues/{queue_id}/items',
    path: (f) => queuePath(f, '/items'),
    body: (f) => ({ ids: [f.runId] }),
    ok: 200,
    fields: QUEUE_ITEM_FIELDS,
  },
  { method: 'POST', route: '/v1/projects/{project_id}/annotation-queues/{queue_id}/claim', path: (f) => queuePath(f, '/claim'), ok: 200 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/annotation-queues/{queue_id}/items/{item_id}/complete',
    path: (f) => queuePath(f, `/items/${f.annotationItemId}/complete`),
    body: () => ({ scores: [validScore()] }),
    ok: 200,
    fields: COMPLETE_FIELDS,
    consumes: true,
  },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/annotation-queues/{queue_id}/items/{item_id}/skip',
    path: (f) => queuePath(f, `/items/${f.annotationItemId}/skip`),
    ok: 200,
    consumes: true,
  },
  { method: 'GET', route: '/v1/projects/{project_id}/evaluators', path: (f) => `/v1/projects/${f.projectId}/evaluators`, query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/projects/{project_id}/evaluators',
    path: (f) => `/v1/projects/${f.projectId}/evaluators`,
    body: validEvaluatorRule,
    ok: 201,
    fields: EVALUATOR_FIELDS,
  },
  { method: 'GET', route: '/v1/projects/{project_id}/evaluators/{rule_id}', path: (f) => evaluatorPath(f), ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/projects/{project_id}/evaluators/{rule_id}',
    path: (f) => evaluatorPath(f),
    body: () => ({ sampleRate: 0.5, enabled: true }),
    ok: 200,
    fields: EVALUATOR_FIELDS,
  },
  { method: 'DELETE', route: '/v1/projects/{project_id}/evaluators/{rule_id}', path: (f) => evaluatorPath(f), ok: 204 },
  // The organization: its detail, members, invitations and every member's tokens; rotating a token.
  { method: 'GET', route: '/v1/organization', path: () => '/v1/organization', ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/organization',
    path: () => '/v1/organization',
    body: () => ({ name: uniqueName() }),
    ok: 200,
    fields: {
      name: [1, null, [], '', ' lead', 'trail ', 'x'.repeat(101)],
      allowedOrigins: ['x', null, [1], [''], ['ftp://example.com'], ['https://example.com/path'], ['https://a.example', 'https://a.example']],
      plan: ['enterprise'],
      id: ['org_x'],
    },
  },
  { method: 'GET', route: '/v1/organization/members', path: () => '/v1/organization/members', query: true, ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/organization/members/{user_id}',
    path: (f) => `/v1/organization/members/${f.memberUserId}`,
    body: () => ({ role: 'member' }),
    ok: 200,
    fields: { role: ['god', '', 1, null, ['member']], userId: ['usr_x'] },
  },
  { method: 'DELETE', route: '/v1/organization/members/{user_id}', path: (f) => `/v1/organization/members/${f.memberUserId}`, ok: 204 },
  { method: 'GET', route: '/v1/organization/invitations', path: () => '/v1/organization/invitations', query: true, ok: 200 },
  { method: 'GET', route: '/v1/organization/audit-log', path: () => '/v1/organization/audit-log', query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/organization/invitations',
    path: () => '/v1/organization/invitations',
    body: validInvitation,
    ok: 201,
    fields: { email: ['', 'x', 'a@', 1, null, [], `${'x'.repeat(320)}@example.com`], role: ['god', '', null, 1], invitedBy: ['usr_x'] },
  },
  { method: 'DELETE', route: '/v1/organization/invitations/{invitation_id}', path: (f) => `/v1/organization/invitations/${f.invitationId}`, ok: 204 },
  { method: 'GET', route: '/v1/organization/tokens', path: () => '/v1/organization/tokens', query: true, ok: 200 },
  // Rotating uses the token up (rotating it again is theft): each valid request rotates a token of its own.
  { method: 'POST', route: '/v1/tokens/{token_id}/rotate', path: (f) => `/v1/tokens/${f.tokenId}/rotate`, ok: 201, consumes: true },
  // Model connections (a public base URL that is never called: the budget is 0).
  { method: 'GET', route: '/v1/model-connections', path: () => '/v1/model-connections', query: true, ok: 200 },
  { method: 'POST', route: '/v1/model-connections', path: () => '/v1/model-connections', body: validModelConnection, ok: 201, fields: MODEL_CONNECTION_FIELDS },
  { method: 'GET', route: '/v1/model-connections/{connection_id}', path: (f) => `/v1/model-connections/${f.modelConnectionId}`, ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/model-connections/{connection_id}',
    path: (f) => `/v1/model-connections/${f.modelConnectionId}`,
    body: () => ({ monthlyBudgetUsd: 0 }),
    ok: 200,
    fields: { ...MODEL_CONNECTION_FIELDS, name: ['', 1], apiKey: ['', 1, 'a\nb'], spentThisMonthUsd: [1], id: ['mcn_x'] },
  },
  { method: 'DELETE', route: '/v1/model-connections/{connection_id}', path: (f) => `/v1/model-connections/${f.modelConnectionId}`, ok: 204 },
  { method: 'POST', route: '/v1/model-connections/{connection_id}/test', path: (f) => `/v1/model-connections/${f.modelConnectionId}/test`, ok: 200 },
  { method: 'GET', route: '/v1/experiments', path: () => '/v1/experiments', query: true, ok: 200 },
  { method: 'POST', route: '/v1/experiments', path: () => '/v1/experiments', body: validExperiment, ok: 201, fields: EXPERIMENT_FIELDS },
  {
    method: 'GET',
    route: '/v1/experiments/compare',
    path: (f) => `/v1/experiments/compare?ids=${f.experimentId},${f.otherExperimentId}`,
    query: true,
    ok: 200,
  },
  { method: 'GET', route: '/v1/experiments/{experiment_id}', path: (f) => experimentPath(f), ok: 200 },
  {
    method: 'PATCH',
    route: '/v1/experiments/{experiment_id}',
    path: (f) => experimentPath(f),
    body: () => ({ metadata: { note: 'checked' } }),
    ok: 200,
    fields: { ...EXPERIMENT_FIELDS, name: ['renamed'], datasetVersion: [0] },
  },
  { method: 'DELETE', route: '/v1/experiments/{experiment_id}', path: (f) => experimentPath(f), ok: 204 },
  { method: 'GET', route: '/v1/experiments/{experiment_id}/results', path: (f) => experimentPath(f, '/results'), query: true, ok: 200 },
  {
    method: 'POST',
    route: '/v1/experiments/{experiment_id}/results',
    path: (f) => experimentPath(f, '/results'),
    body: (f) => ({ results: [validResult(f)] }),
    ok: 200,
    fields: RESULT_FIELDS,
  },
];

/** A path with a query string added (after the one it may have: the comparison's `ids`). */
export const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

export const BODY_ROUTES = ROUTES.filter((r) => r.body);
export const ID_ROUTES = ROUTES.filter((r) => r.route.includes('{'));
export const QUERY_ROUTES = ROUTES.filter((r) => r.query);
export const PLAIN_ROUTES = ROUTES.filter((r) => !r.query);

export const MALFORMED_JSON = [
  '{',
  '{"name":',
  "{'name':'x'}",
  '{"name":"x",}',
  'nul',
  '{"a":1}}',
  '{"a":1} {"b":2}',
  '\u0000',
  '{"name":"x"\u0000}',
  'undefined',
  'NaN',
  '{"a":01}',
  ' ',
];
export const NOT_OBJECTS = ['[]', '[{}]', '"string"', '42', '-1.5e300', 'null', 'true', 'false'];
/** Keys JSON.parse keeps as own data properties: where a body takes no such field, it is an unknown field. */
export const PROTO_POLLUTION: [string, string][] = [
  ['{"__proto__":{"admin":true}}', '/__proto__'],
  ['{"constructor":{"prototype":{"admin":true}}}', '/constructor'],
];

/** Path segments no id looks like. Raw, as they appear in the URL. */
export const JUNK_SEGMENTS = [
  'x'.repeat(201),
  'x'.repeat(600),
  'x'.repeat(5000),
  '%00',
  'prj_%00',
  '%00%00%00',
  '..%2F..%2Fetc%2Fpasswd',
  '..',
  '%2e%2e',
  '%2F',
  '%E2%98%83',
  encodeURIComponent('проект'),
  encodeURIComponent('🚀🚀'),
  '%F0%9F',
  '%zz',
  '%',
  '%C0%AF',
  '%FF%FE',
  encodeURIComponent("' OR 1=1 --"),
  encodeURIComponent('"; DROP TABLE runs; --'),
  '%20',
  '%0d%0aX-Injected:%201',
  'null',
  '__proto__',
  encodeURIComponent('{"$ne":null}'),
];

/** Query strings every list route refuses: [query, parameter the fault must name]. */
export const LIST_JUNK: [string, string][] = [
  ['bogus=1', 'bogus'],
  ['constructor=1', 'constructor'],
  ['limit=abc', 'limit'],
  ['limit=', 'limit'],
  ['limit=1.5', 'limit'],
  ['limit=1e2', 'limit'],
  ['limit=0x10', 'limit'],
  ['limit=%205', 'limit'],
  ['limit=1&limit=2', 'limit'],
  ['cursor=a&cursor=b', 'cursor'],
  ['cursor=', 'cursor'],
  ['cursor=not-a-cursor', 'cursor'],
  ['cursor=%00', 'cursor'],
];

/** Query strings the runs list and the metrics refuse (the shared filter grammar). */
export const FILTER_JUNK: [string, string][] = [
  ['startedAfter=yesterday', 'startedAfter'],
  ['startedBefore=2026-13-45T00:00:00Z', 'startedBefore'],
  ['startedAfter=2026-11-02', 'startedAfter'],
  ['status=bogus', 'status'],
  ['status=RUNNING', 'status'],
  ['kind=bogus', 'kind'],
  ['status=running&status=failed', 'status'],
  ['name=a&name=b', 'name'],
  ['metadata.bad%20key=1', 'metadata.bad key'],
  ['metadata.=1', 'metadata.'],
  [`metadata.${'k'.repeat(65)}=1`, `metadata.${'k'.repeat(65)}`],
  ['metadata.a.b=1', 'metadata.a.b'],
  ['metadata.a=1&metadata.a=2', 'metadata.a'],
  ['tag=', 'tag'],
  [Array.from({ length: 11 }, (_, i) => `tag=t${i}`).join('&'), 'tag'],
  ['parentRunId=', 'parentRunId'],
  [`traceId=${'x'.repeat(129)}`, 'traceId'],
  ['name=', 'name'],
  ['sessionId=', 'sessionId'],
  [`sessionId=${'s'.repeat(257)}`, 'sessionId'],
  ['sessionId=a&sessionId=b', 'sessionId'],
  ['userId=', 'userId'],
  [`userId=${'u'.repeat(257)}`, 'userId'],
  ['q=', 'q'],
  ['q=%21%21%21', 'q'],
  [`q=${'w '.repeat(17)}`, 'q'],
  ['q=a&q=b', 'q'],
  ['score.helpfulness%3E=high', 'score.helpfulness>'],
  ['score.helpfulness%3C=', 'score.helpfulness<'],
  [`score.${'n'.repeat(101)}=1`, `score.${'n'.repeat(101)}`],
  ['score.a=1&score.a=2', 'score.a'],
  ['score.a=', 'score.a'],
  ['hasScore=', 'hasScore'],
  [Array.from({ length: 11 }, (_, i) => `hasScore=s${i}`).join('&'), 'hasScore'],
];

/** The `experiment` filter of the lists that share the runs' filters (runs, traces, sessions, end users, their exports and metrics). */
export const EXPERIMENT_JUNK: [string, string][] = [
  ['experiment=', 'experiment'],
  ['experiment=yes', 'experiment'],
  ['experiment=Exclude', 'experiment'],
  ['experiment=exclude&experiment=only', 'experiment'],
];

export const METRICS_JUNK: [string, string][] = [
  ['from=garbage', 'from'],
  ['to=garbage', 'to'],
  ['from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z', 'from'],
  ['bucket=2m', 'bucket'],
  ['bucket=1M', 'bucket'],
  ['bucket=1w', 'bucket'],
  ['bucket=1m&bucket=1h', 'bucket'],
  ['groupBy=user', 'groupBy'],
  ['groupBy=STATUS', 'groupBy'],
  ['groupBy=status&groupBy=kind', 'groupBy'],
  ['from=0001-01-01T00:00:00Z&bucket=1m', 'bucket'],
  ['limit=10', 'limit'],
];

/** Query strings the values lists refuse, each added to a valid `field=name` (so a second `field` is a repeat). */
export const VALUES_JUNK: [string, string][] = [
  ['field=model', 'field'],
  ['key=env', 'key'],
  ['key=bad%20key', 'key'],
  ['prefix=', 'prefix'],
  [`prefix=${'x'.repeat(257)}`, 'prefix'],
  ['prefix=a&prefix=b', 'prefix'],
];

export const PROMPT_LIST_JUNK: [string, string][] = [
  ['name=', 'name'],
  [`name=${'x'.repeat(101)}`, 'name'],
  ['name=a&name=b', 'name'],
  ['label=', 'label'],
  ['label=123', 'label'],
  ['label=Production', 'label'],
  ['label=a&label=b', 'label'],
  ['status=running', 'status'],
];

export const PROJECT_LIST_JUNK: [string, string][] = [
  ['name=', 'name'],
  [`name=${'x'.repeat(101)}`, 'name'],
  ['name=a&name=b', 'name'],
  ['status=running', 'status'],
];
