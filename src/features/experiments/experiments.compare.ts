import type { Kysely } from 'kysely';
import type { Database, DatasetItemVersionRow, ExperimentResultRow, ExperimentRow, ScoreRow } from '../../db/schema.js';
import type { KeysetRows, Position } from '../../lib/pagination.js';
import { problems } from '../../lib/problems.js';
import { listItems } from '../datasets/index.js';
import { valueOf } from '../scores/index.js';
import { requireExperimentRow } from './experiments.repo.js';
import { scoresOfRuns } from './experiments.results.js';
import { MAX_COMPARED, MIN_COMPARED, type ComparisonRow } from './experiments.schemas.js';

type Cell = ComparisonRow['results'][number];

/** The experiments `ids` names (comma-separated), in order: 2 to 5 distinct ones of the organization, of one dataset. */
export async function comparedExperiments(db: Kysely<Database>, organizationId: string, ids: string): Promise<ExperimentRow[]> {
  const list = ids.split(',').map((id) => id.trim());
  const fault = (detail: string) => problems.validation([{ parameter: 'ids', detail }]);
  if (list.some((id) => id === '')) throw fault('Give experiment ids separated by commas, none empty.');
  if (new Set(list).size !== list.length) throw fault('An experiment is named twice.');
  if (list.length < MIN_COMPARED || list.length > MAX_COMPARED)
    throw fault(`Give ${MIN_COMPARED} to ${MAX_COMPARED} experiment ids; ${list.length} were given.`);
  const experiments: ExperimentRow[] = [];
  for (const id of list) experiments.push(await requireExperimentRow(db, organizationId, id));
  if (new Set(experiments.map((e) => e.dataset_id)).size > 1) throw fault('The experiments must be of one dataset.');
  return experiments;
}

function cellScores(scores: ScoreRow[]): Cell['scores'] {
  const out: Cell['scores'] = {};
  // Oldest first: values in the order they were given.
  for (const score of [...scores].reverse()) {
    const cell = (out[score.name] ??= { count: 0, mean: null, values: [] });
    cell.count += 1;
    cell.values.push(valueOf(score));
  }
  for (const cell of Object.values(out)) {
    const numbers = cell.values.flatMap((v) => (typeof v === 'number' ? [v] : typeof v === 'boolean' ? [v ? 1 : 0] : []));
    cell.mean = numbers.length === 0 ? null : numbers.reduce((a, b) => a + b, 0) / numbers.length;
  }
  return out;
}

function cellOf(experimentId: string, result: ExperimentResultRow | undefined, scores: Map<string, ScoreRow[]>): Cell {
  if (!result) return { experimentId, recorded: false, runId: null, traceId: null, output: null, error: null, latencyMs: null, cost: null, scores: {} };
  return {
    experimentId,
    recorded: true,
    runId: result.run_id,
    traceId: result.trace_id,
    output: JSON.parse(result.output) as unknown,
    error: result.error,
    latencyMs: Number(result.latency_ms),
    cost: result.cost === null ? null : Number(result.cost),
    scores: cellScores(scores.get(result.run_id) ?? []),
  };
}

/** Means differ by float rounding (0.1 + 0.2 against 0.3): a drop must exceed the threshold by more than this. */
const ROUNDING = 1e-9;

/** What counts as a regression: a drop of more than `threshold` in the mean of `metric` (of any score name when null). */
export interface RegressionRule {
  metric: string | null;
  threshold: number;
}

/**
 * Each other experiment's mean of each score name minus the baseline's (the first cell's): a regression
 * when it falls below minus the rule's threshold, for the rule's metric (any name without one).
 */
export function differencesOf(cells: Cell[], rule: RegressionRule = { metric: null, threshold: 0 }): ComparisonRow['differences'] {
  const [baseline, ...others] = cells;
  const differences: ComparisonRow['differences'] = [];
  for (const other of others) {
    const names = [...new Set([...Object.keys(baseline!.scores), ...Object.keys(other.scores)])].sort();
    for (const name of names) {
      const before = baseline!.scores[name]?.mean ?? null;
      const after = other.scores[name]?.mean ?? null;
      const difference = before === null || after === null ? null : after - before;
      const counted = rule.metric === null || rule.metric === name;
      const regression = counted && difference !== null && difference < -(rule.threshold + ROUNDING);
      differences.push({ name, experimentId: other.experimentId, difference, regression });
    }
  }
  return differences;
}

/** The other experiments whose result is an error where the baseline has a result without one: new failures. */
export function newErrorsOf(cells: Cell[]): string[] {
  const [baseline, ...others] = cells;
  if (!baseline!.recorded || baseline!.error !== null) return [];
  return others.filter((cell) => cell.recorded && cell.error !== null).map((cell) => cell.experimentId);
}

/**
 * A page of the comparison: the items at the baseline's dataset version (the items list's order), each
 * with every experiment's result and the scores on its run, the differences of the scores' means, and
 * the experiments that failed where the baseline did not; either kind of regression flags the row.
 */
export async function comparisonPage(
  db: Kysely<Database>,
  experiments: ExperimentRow[],
  rule: RegressionRule,
  after: Position | null,
  take: number,
): Promise<KeysetRows<ComparisonRow>> {
  const baseline = experiments[0]!;
  const page = await listItems(db, { organizationId: baseline.organization_id, datasetId: baseline.dataset_id }, baseline.dataset_version, after, take);
  const itemIds = page.rows.map((r) => r.item_id);
  const results = new Map<string, Map<string, ExperimentResultRow>>();
  const scores = new Map<string, Map<string, ScoreRow[]>>();
  for (const experiment of experiments) {
    const rows =
      itemIds.length === 0
        ? []
        : await db
            .selectFrom('experiment_results')
            .selectAll()
            .where('organization_id', '=', experiment.organization_id)
            .where('experiment_id', '=', experiment.id)
            .where('item_id', 'in', itemIds)
            .execute();
    results.set(experiment.id, new Map(rows.map((r) => [r.item_id, r])));
    scores.set(
      experiment.id,
      await scoresOfRuns(
        db,
        experiment.project_id,
        rows.map((r) => r.run_id),
      ),
    );
  }
  const byItem = new Map<DatasetItemVersionRow, ComparisonRow>();
  for (const item of page.rows) {
    const cells = experiments.map((e) => cellOf(e.id, results.get(e.id)!.get(item.item_id), scores.get(e.id)!));
    const differences = differencesOf(cells, rule);
    const newErrors = newErrorsOf(cells);
    byItem.set(item, {
      itemId: item.item_id,
      input: JSON.parse(item.input) as unknown,
      expectedOutput: JSON.parse(item.expected_output) as unknown,
      results: cells,
      differences,
      newErrors,
      regression: newErrors.length > 0 || differences.some((d) => d.regression),
    });
  }
  const rows = page.rows.map((item) => byItem.get(item)!);
  return { rows, positionOf: (row) => page.positionOf(page.rows[rows.indexOf(row)]!) };
}
