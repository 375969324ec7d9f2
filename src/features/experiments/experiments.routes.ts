import type { App, Deps } from '../../deps.js';
import { routeKit } from '../route-kit.js';
import { comparedExperiments, comparisonPage } from './experiments.compare.js';
import {
  createExperiment,
  deleteExperiment,
  listExperiments,
  requireExperiment,
  requireExperimentRow,
  toExperiment,
  updateExperiment,
} from './experiments.repo.js';
import { listResults, recordResults, toExperimentResult } from './experiments.results.js';
import {
  CompareQuery,
  ComparisonPage,
  CreateExperimentBody,
  ExperimentPage,
  ExperimentParams,
  ExperimentResultPage,
  ListExperimentsQuery,
  MAX_COMPARED,
  MAX_RESULTS_PER_REQUEST,
  RecordResultsBody,
  ResultsRecordedSchema,
  UpdateExperimentBody,
} from './experiments.schemas.js';

const tags = ['Experiments'];

export function experimentRoutes(app: App, { db, clock, cursors }: Deps): void {
  const route = routeKit(app, { tags, cursors });

  route.page(
    '/experiments',
    {
      scope: 'scores:read',
      operationId: 'listExperiments',
      summary: "List the organization's experiments",
      description: 'Newest first (then id), each with its counts and aggregates. Filters: `datasetId`, and `name` (exactly).',
      querystring: ListExperimentsQuery,
      page: ExperimentPage,
    },
    async ({ principal: { organizationId }, query: { datasetId, name } }) => {
      const filters = { ...(datasetId === undefined ? {} : { datasetId }), ...(name === undefined ? {} : { name }) };
      return {
        identity: { endpoint: 'experiments', organizationId, filters },
        fetch: (after, take) => listExperiments(db, organizationId, filters, after, take),
      };
    },
    toExperiment,
  );

  route.create(
    '/experiments',
    {
      scope: 'scores:write',
      operationId: 'createExperiment',
      summary: 'Create an experiment',
      description:
        'Over a version of a dataset (default: its current one), its runs stored in `projectId`; `running` until marked `completed`. A dataset or a project that is not your organization’s is a 404; a name the dataset’s experiments have is a 409.',
      body: CreateExperimentBody,
      answer: 'Experiment',
      problems: [404, 409],
    },
    async (request) => toExperiment(await createExperiment(db, request.principal.organizationId, request.body, clock.now())),
  );

  route.page(
    '/experiments/compare',
    {
      scope: 'scores:read',
      operationId: 'compareExperiments',
      summary: 'Compare experiments item by item',
      description: `2 to ${MAX_COMPARED} experiments of one dataset (else a 400), the first the baseline: one row per item at the baseline's dataset version (the items list's order), with each experiment's output, error, latency, cost and the scores on its run (by name: count, mean, values), and per other experiment and score name the difference of the means from the baseline's. A difference below minus \`threshold\` (default 0) is a \`regression\` (of the \`metric\` score name only, when given), and so is a result that is an error where the baseline's is not (\`newErrors\`).`,
      querystring: CompareQuery,
      page: ComparisonPage,
      problems: [404],
    },
    async ({ principal: { organizationId }, query }) => {
      const experiments = await comparedExperiments(db, organizationId, query.ids);
      const rule = { metric: query.metric ?? null, threshold: query.threshold ?? 0 };
      return {
        identity: { endpoint: 'experiments-compare', organizationId, parents: experiments.map((e) => e.id), filters: rule },
        fetch: (after, take) => comparisonPage(db, experiments, rule, after, take),
      };
    },
    (row) => row,
  );

  route.get(
    '/experiments/:experiment_id',
    {
      scope: 'scores:read',
      operationId: 'getExperiment',
      summary: 'Get an experiment with its counts and aggregates',
      description:
        'Counts of items and results; latency (mean, nearest-rank p50 and p95), tokens and cost of its results; count and mean of the scores on its runs, by name.',
      params: ExperimentParams,
      answer: 'Experiment',
    },
    async (request) => toExperiment(await requireExperiment(db, request.principal.organizationId, request.params.experiment_id)),
  );

  route.patch(
    '/experiments/:experiment_id',
    {
      scope: 'scores:write',
      operationId: 'updateExperiment',
      summary: "Change an experiment's status or metadata",
      description: '`status: completed` marks it done (`completedAt`); `running` opens it again. Results are accepted in either status.',
      params: ExperimentParams,
      body: UpdateExperimentBody,
      answer: 'Experiment',
    },
    async (request) => toExperiment(await updateExperiment(db, request.principal.organizationId, request.params.experiment_id, request.body, clock.now())),
  );

  route.delete(
    '/experiments/:experiment_id',
    {
      scope: 'quality:admin',
      operationId: 'deleteExperiment',
      summary: 'Delete an experiment',
      description: 'With its results; its runs and their scores stay in the project. Admins and owners only.',
      params: ExperimentParams,
    },
    (request) => deleteExperiment(db, request.principal.organizationId, request.params.experiment_id),
  );

  route.post(
    '/experiments/:experiment_id/results',
    {
      scope: 'scores:write',
      operationId: 'recordExperimentResults',
      summary: 'Record results of an experiment',
      description: `1 to ${MAX_RESULTS_PER_REQUEST} results, all or nothing, one per dataset item for good: an item that has a result is \`existing\` when the result sent is the same (a retry), else a 409 and nothing is recorded. An item not in the experiment's dataset version, or given twice, or a run that is not in the experiment's project (another project's is answered as a missing one), is a 400 naming each.`,
      params: ExperimentParams,
      body: RecordResultsBody,
      answer: ResultsRecordedSchema,
      problems: [409],
    },
    async (request) => {
      const experiment = await requireExperimentRow(db, request.principal.organizationId, request.params.experiment_id);
      return { results: await recordResults(db, experiment, request.body.results, clock.now()) };
    },
  );

  route.page(
    '/experiments/:experiment_id/results',
    {
      scope: 'scores:read',
      operationId: 'listExperimentResults',
      summary: "List an experiment's results",
      description: "Newest first (then item id), each with its item's input and expected output at the experiment's dataset version and the scores on its run.",
      params: ExperimentParams,
      page: ExperimentResultPage,
    },
    async ({ principal: { organizationId }, params }) => {
      const experiment = await requireExperimentRow(db, organizationId, params.experiment_id);
      return {
        identity: { endpoint: 'experiment-results', organizationId, parents: [experiment.id] },
        fetch: (after, take) => listResults(db, experiment, after, take),
      };
    },
    toExperimentResult,
  );
}
