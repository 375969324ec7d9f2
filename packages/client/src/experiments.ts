import { SightlineProblem } from './errors.js';
import { derivedId } from './ids.js';
import type { ListOptions, Paginated } from './pagination.js';
import type { RunHandle } from './span.js';
import type { Tracer, TracerOptions } from './tracer.js';
import type {
  CreateExperimentInput,
  Dataset,
  DatasetFilters,
  DatasetItem,
  DatasetItemFilters,
  Experiment,
  ExperimentFilters,
  ExperimentResult,
  ExperimentResultsRecorded,
  JsonObject,
  NewExperimentResult,
  ProblemDocument,
  Run,
  ScoreBatchItem,
  ScoreBatchResult,
  UpdateExperimentInput,
} from './types.js';

/** The calls of the client that `runExperiment` makes (the `Sightline` client has them all). */
export interface ExperimentClient {
  datasets: {
    get(datasetId: string): Promise<Dataset>;
    list(filters?: DatasetFilters, options?: ListOptions): Paginated<Dataset>;
    items: { list(datasetId: string, filters?: DatasetItemFilters, options?: ListOptions): Paginated<DatasetItem> };
  };
  experiments: {
    list(filters?: ExperimentFilters, options?: ListOptions): Paginated<Experiment>;
    create(body: CreateExperimentInput): Promise<Experiment>;
    update(experimentId: string, body: UpdateExperimentInput): Promise<Experiment>;
    results: {
      list(experimentId: string, options?: ListOptions): Paginated<ExperimentResult>;
      record(experimentId: string, results: readonly NewExperimentResult[]): Promise<ExperimentResultsRecorded>;
    };
  };
  runs: { get(projectId: string, runId: string): Promise<Run> };
  scores: { batch(projectId: string, scores: readonly ScoreBatchItem[]): Promise<ScoreBatchResult> };
  tracer(projectId: string, options?: TracerOptions): Tracer;
}

/** A score an evaluator gives: its name, a number, a boolean or a category, and a comment. */
export interface EvaluatorScore {
  name: string;
  value: number | boolean | string;
  comment?: string;
}

/** What an evaluator is given for one item: the item's input, the task's output, the item's expected output, the item. */
export interface EvaluatorArgs<Output = unknown> {
  input: unknown;
  output: Output;
  expected: unknown;
  item: DatasetItem;
}

export type Evaluator<Output = unknown> = (
  args: EvaluatorArgs<Output>,
) => EvaluatorScore | EvaluatorScore[] | null | undefined | Promise<EvaluatorScore | EvaluatorScore[] | null | undefined>;

export interface ExperimentProgress {
  /** Items with a result (failed ones included), those recorded before this call too. */
  done: number;
  /** Items at the experiment's dataset version. */
  total: number;
  /** Results with an error. */
  failed: number;
}

export interface RunExperimentOptions<Output = unknown> {
  /** The dataset: its id (`ds_…`) or its name. */
  dataset: string;
  /** The experiment's name, unique per dataset: a second call with the same name resumes it. */
  name: string;
  /** The project the runs are stored in. */
  projectId: string;
  /** The work to measure: given an item's input (and the item, and its run to add usage, cost or child runs), its output. */
  task: (input: unknown, item: DatasetItem, run: RunHandle) => Output | Promise<Output>;
  /** Scorers of each output (not called when the task failed). */
  evaluators?: Evaluator<Awaited<Output>>[];
  /** Items worked on at once (default 4, at most 50). */
  concurrency?: number;
  /** Told after each item's result is recorded. */
  onProgress?: (progress: ExperimentProgress) => void;
  /** The experiment's metadata (model, prompt…), given when it is created. */
  metadata?: JsonObject;
  /** A dataset version (default: the current one), when the experiment is created. */
  datasetVersion?: number;
  /** The runs' name (default `experiment <name>`). */
  runName?: string;
}

export interface ExperimentSummary {
  /** The experiment as it ended: completed, with its counts and aggregates. */
  experiment: Experiment;
  total: number;
  done: number;
  failed: number;
  /** Items that had a result before this call (a resumed experiment). */
  skipped: number;
  /** Items whose task ran in this call. */
  ran: number;
  /** Items whose run was stored before this call (a crash before its result): reused, the task not run again. */
  reused: number;
  /** Evaluators that threw, by item id and evaluator index (the item's result is recorded without their scores). */
  evaluatorErrors: { itemId: string; evaluator: number; error: unknown }[];
}

const isProblem = (error: unknown, status: number) => error instanceof SightlineProblem && error.status === status;

async function resolveDataset(client: ExperimentClient, dataset: string): Promise<Dataset> {
  if (dataset.startsWith('ds_')) {
    try {
      return await client.datasets.get(dataset);
    } catch (error) {
      if (!isProblem(error, 404)) throw error;
    }
  }
  // Names are unique regardless of case; the filter is a substring: keep the one that is the name.
  for await (const found of client.datasets.list({ name: dataset })) if (found.name.toLowerCase() === dataset.toLowerCase()) return found;
  throw new Error(`sightline: no dataset has the id or the name "${dataset}".`);
}

async function findExperiment(client: ExperimentClient, datasetId: string, name: string): Promise<Experiment | null> {
  const [found] = await client.experiments.list({ datasetId, name }, { limit: 1 }).toArray();
  return found ?? null;
}

async function openExperiment(client: ExperimentClient, dataset: Dataset, options: RunExperimentOptions<unknown>): Promise<Experiment> {
  const existing = await findExperiment(client, dataset.id, options.name);
  const experiment =
    existing ??
    (await client.experiments
      .create({
        name: options.name,
        datasetId: dataset.id,
        projectId: options.projectId,
        ...(options.metadata ? { metadata: options.metadata } : {}),
        ...(options.datasetVersion !== undefined ? { datasetVersion: options.datasetVersion } : {}),
      })
      .catch(async (error: unknown) => {
        // Created by another process at the same time: resume that one.
        const raced = isProblem(error, 409) ? await findExperiment(client, dataset.id, options.name) : null;
        if (!raced) throw error;
        return raced;
      }));
  if (experiment.projectId !== options.projectId)
    throw new Error(`sightline: experiment "${options.name}" stores its runs in project ${experiment.projectId}, not ${options.projectId}.`);
  return experiment;
}

async function readRun(client: ExperimentClient, projectId: string, runId: string): Promise<Run | null> {
  try {
    return await client.runs.get(projectId, runId);
  } catch (error) {
    if (isProblem(error, 404)) return null;
    throw error;
  }
}

/**
 * Runs `task` over every item of a dataset version as an experiment, resumable after a crash at any
 * point without duplicating anything. Per item, in this order:
 *
 * 1. the run, its id derived from (experiment, item): when it is stored already (a crash came after
 *    it), its outputs are reused and the task is not run again; else the task runs inside a traced run
 *    with that id (the item's input as its inputs, `{ experimentId, datasetItemId }` in its metadata),
 *    sent and read back;
 * 2. the evaluators' scores on the run, their ids derived from (experiment, item, score name), so a
 *    retry answers `existing`;
 * 3. the result (item, run, output, error, latency, usage, cost): the item is done, and a resumed
 *    experiment skips it.
 *
 * At the end the experiment is marked `completed` and its summary returned.
 */
export async function runExperiment<Output>(client: ExperimentClient, options: RunExperimentOptions<Output>): Promise<ExperimentSummary> {
  const dataset = await resolveDataset(client, options.dataset);
  const experiment = await openExperiment(client, dataset, options as RunExperimentOptions<unknown>);
  const { projectId } = options;
  const items = await client.datasets.items.list(dataset.id, { version: experiment.datasetVersion }, { limit: 100 }).toArray();
  const recorded = await client.experiments.results.list(experiment.id, { limit: 100 }).toArray();
  const have = new Set(recorded.map((r) => r.itemId));
  const progress: ExperimentProgress = { done: have.size, total: items.length, failed: recorded.filter((r) => r.error !== null).length };
  const summary = { skipped: have.size, ran: 0, reused: 0, evaluatorErrors: [] as ExperimentSummary['evaluatorErrors'] };
  const queue = items.filter((item) => !have.has(item.id));
  const tracer = client.tracer(projectId, { flushIntervalMs: 0, onError: () => {} });
  const runName = options.runName ?? `experiment ${options.name}`;

  const work = async (item: DatasetItem): Promise<void> => {
    const runId = await derivedId('exprun', experiment.id, item.id);
    let run = await readRun(client, projectId, runId);
    if (run) summary.reused += 1;
    else {
      summary.ran += 1;
      await tracer
        .trace(runName, (handle) => options.task(item.input, item, handle), {
          id: runId,
          parent: null,
          inputs: item.input,
          metadata: { experimentId: experiment.id, datasetItemId: item.id, datasetId: dataset.id, datasetVersion: experiment.datasetVersion },
        })
        .catch(() => {}); // a failed task is a failed run: its error is recorded with the result
      await tracer.flush();
      run = await readRun(client, projectId, runId);
      if (!run) throw new Error(`sightline: the run of item ${item.id} was not stored (see the tracer's stats: ${JSON.stringify(tracer.stats)}).`);
    }
    const failed = run.status === 'failed' || run.error !== null;

    if (!failed && options.evaluators && options.evaluators.length > 0) {
      const scores: EvaluatorScore[] = [];
      for (const [index, evaluate] of options.evaluators.entries()) {
        try {
          const given = await evaluate({ input: item.input, output: run.outputs as Awaited<Output>, expected: item.expectedOutput, item });
          if (given) scores.push(...(Array.isArray(given) ? given : [given]));
        } catch (error) {
          summary.evaluatorErrors.push({ itemId: item.id, evaluator: index, error });
        }
      }
      if (scores.length > 0) {
        const batch = await Promise.all(
          scores.map(async (score) => ({
            id: await derivedId('expscr', experiment.id, item.id, score.name),
            runId,
            name: score.name,
            value: score.value,
            ...(score.comment !== undefined ? { comment: score.comment } : {}),
            metadata: { experimentId: experiment.id, datasetItemId: item.id },
          })),
        );
        const { results } = await client.scores.batch(projectId, batch);
        // A 409 is a score of that id stored before with another value (an evaluator that is not deterministic): it stays.
        const problemOf = (r: (typeof results)[number]) => r.problem as ProblemDocument | undefined;
        const refused = results.filter((r) => r.status === 'rejected' && problemOf(r)?.status !== 409);
        if (refused.length > 0)
          throw new Error(`sightline: scores of item ${item.id} refused: ${refused.map((r) => `${batch[r.index]?.name}: ${problemOf(r)?.detail}`).join('; ')}`);
      }
    }

    const result: NewExperimentResult = {
      itemId: item.id,
      runId,
      traceId: run.traceId,
      output: run.outputs ?? null,
      error: run.error,
      latencyMs: Math.max(0, run.latencyMs ?? 0),
      usage: run.usage ? { promptTokens: run.usage.promptTokens, completionTokens: run.usage.completionTokens, totalTokens: run.usage.totalTokens } : null,
      cost: run.cost,
    };
    try {
      await client.experiments.results.record(experiment.id, [result]);
    } catch (error) {
      // Another process recorded this item first: it is done.
      if (!isProblem(error, 409)) throw error;
    }
    progress.done += 1;
    if (failed) progress.failed += 1;
    options.onProgress?.({ ...progress });
  };

  const concurrency = Math.min(50, Math.max(1, Math.floor(options.concurrency ?? 4)));
  let firstError: unknown = null;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (firstError === null) {
        const item = queue.shift();
        if (!item) return;
        try {
          await work(item);
        } catch (error) {
          firstError ??= error;
        }
      }
    }),
  );
  await tracer.shutdown().catch(() => {});
  if (firstError !== null) throw firstError;
  const completed = await client.experiments.update(experiment.id, { status: 'completed' });
  return { experiment: completed, total: progress.total, done: progress.done, failed: progress.failed, ...summary };
}
