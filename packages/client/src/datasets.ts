import type { ListOptions, Paginated } from './pagination.js';
import { Collection, Resource, seg, type CallOptions } from './resource.js';
import type {
  ComparisonRule,
  CreateDatasetInput,
  CreateExperimentInput,
  Dataset,
  DatasetFilters,
  DatasetItem,
  DatasetItemFilters,
  DatasetItemsAdded,
  Experiment,
  ExperimentComparisonRow,
  ExperimentFilters,
  ExperimentResult,
  ExperimentResultsRecorded,
  NewDatasetItem,
  NewExperimentResult,
  UpdateDatasetInput,
  UpdateDatasetItemInput,
  UpdateExperimentInput,
} from './types.js';

/** `/v1/datasets/{id}/items`: a dataset's items; each add, edit or delete makes a new version of the dataset. */
class DatasetItemsResource extends Resource {
  /** The items at `version` (default: the current one), newest item first. */
  list(datasetId: string, filters: DatasetItemFilters = {}, options: ListOptions = {}): Paginated<DatasetItem> {
    return this.paginate<DatasetItem>(`/datasets/${seg(datasetId)}/items`, filters, options);
  }
  /** Adds 1 to 1,000 items as one new version (an id the dataset has had is a 409, and nothing is added). */
  add(datasetId: string, items: readonly NewDatasetItem[], options: CallOptions = {}): Promise<DatasetItemsAdded> {
    return this.send('POST', `/datasets/${seg(datasetId)}/items`, { items }, options);
  }
  /** The item as it was at `version` (default: the current one). */
  get(datasetId: string, itemId: string, filters: DatasetItemFilters = {}, options: CallOptions = {}): Promise<DatasetItem> {
    return this.read(`/datasets/${seg(datasetId)}/items/${seg(itemId)}`, options, filters);
  }
  update(datasetId: string, itemId: string, body: UpdateDatasetItemInput, options: CallOptions = {}): Promise<DatasetItem> {
    return this.send('PATCH', `/datasets/${seg(datasetId)}/items/${seg(itemId)}`, body, options);
  }
  /** Deletes the item from the next version on; earlier versions keep it. */
  async delete(datasetId: string, itemId: string, options: CallOptions = {}): Promise<void> {
    await this.deleteAt(`/datasets/${seg(datasetId)}/items/${seg(itemId)}`, options);
  }
}

/**
 * `/v1/datasets`: the organization's datasets (admins and owners delete them), newest first; the `name`
 * filter keeps those whose name holds it (case-insensitive).
 */
export class DatasetsResource extends Collection<Dataset, CreateDatasetInput, UpdateDatasetInput, DatasetFilters> {
  protected readonly path = '/datasets';
  readonly items = new DatasetItemsResource(this.http);
}

/** `/v1/experiments/{id}/results`: one result per dataset item. */
class ExperimentResultsResource extends Resource {
  /** Newest first, each with its item at the experiment's dataset version and the scores on its run. */
  list(experimentId: string, options: ListOptions = {}): Paginated<ExperimentResult> {
    return this.paginate<ExperimentResult>(`/experiments/${seg(experimentId)}/results`, {}, options);
  }
  /**
   * Records 1 to 100 results, all or nothing: a result the item has already is `existing` when it is
   * the same (so a retry is safe), else a 409; an item not in the experiment's dataset version, or a
   * run not stored in the experiment's project, is a 400.
   */
  record(experimentId: string, results: readonly NewExperimentResult[], options: CallOptions = {}): Promise<ExperimentResultsRecorded> {
    return this.send('POST', `/experiments/${seg(experimentId)}/results`, { results }, options, true);
  }
}

/**
 * `/v1/experiments`: tasks run over dataset versions, their results and aggregates, compared item by item.
 * Listed newest first, with counts and aggregates (filters: `datasetId`, and `name` exactly); created over
 * a dataset version (default: its current one), a name the dataset's experiments have being a 409;
 * updated with `status: 'completed'` (or `'running'` again) and metadata; deleted with its results
 * (admins), its runs and their scores staying.
 */
export class ExperimentsResource extends Collection<Experiment, CreateExperimentInput, UpdateExperimentInput, ExperimentFilters> {
  protected readonly path = '/experiments';
  readonly results = new ExperimentResultsResource(this.http);
  /**
   * 2 to 5 experiments of one dataset, item by item (the items at the first one's version): each one's
   * output, latency and scores, and per score name the difference from the first. A drop of more than
   * `threshold` (default 0) in `metric`'s mean (any score name's, without one) is a `regression`, and so is
   * an experiment failing an item the first did not (`newErrors`).
   */
  compare(experimentIds: readonly string[], options: ListOptions & ComparisonRule = {}): Paginated<ExperimentComparisonRow> {
    const { metric, threshold, ...page } = options;
    return this.paginate<ExperimentComparisonRow>('/experiments/compare', { ids: experimentIds.join(','), metric, threshold }, page);
  }
}
