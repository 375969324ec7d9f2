/**
 * How a monitor's metric and state are computed from an aggregate of runs: the server's evaluator and
 * the dashboard's live preview both use this file (it depends on nothing, so the dashboard imports it
 * as it is), so a preview can never follow different rules than the evaluation.
 */

import type { MetricInputs } from '../query/metrics.rules.js';

export const METRICS = [
  'count',
  'error_count',
  'error_rate',
  'latency_p50',
  'latency_p95',
  'latency_p99',
  'total_tokens',
  'cost',
  'score_mean',
  'score_share',
] as const;
export type Metric = (typeof METRICS)[number];
/** Metrics over the project's scores (the scores metrics' aggregate) rather than its runs. */
export const SCORE_METRICS = ['score_mean', 'score_share'] as const;
export type ScoreMetric = (typeof SCORE_METRICS)[number];
export const isScoreMetric = (metric: Metric): metric is ScoreMetric => (SCORE_METRICS as readonly Metric[]).includes(metric);
/** The keys of a monitor's filter that select scores (for score metrics; every other key selects runs). */
export const SCORE_FILTER_KEYS = ['source', 'target'] as const;
export const WINDOW_MS = { '5m': 300_000, '15m': 900_000, '1h': 3_600_000, '6h': 21_600_000, '1d': 86_400_000, '7d': 604_800_000 } as const;
export type Window = keyof typeof WINDOW_MS;
export const OPERATORS = ['>', '>=', '<', '<='] as const;
export type Operator = (typeof OPERATORS)[number];
export const MONITOR_STATES = ['no_data', 'ok', 'alerting'] as const;
export type MonitorState = (typeof MONITOR_STATES)[number];

export interface Threshold {
  op: Operator;
  value: number;
}

/** Metrics whose value over no runs is 0 (the others have no value then). */
export const ADDITIVE_METRICS: ReadonlySet<Metric> = new Set<Metric>(['count', 'error_count', 'total_tokens', 'cost']);

export type { MetricInputs };

/** Which scores a score metric watches: their name, and for `score_share` the label counted. */
export interface ScoreSelector {
  name: string;
  label?: string | undefined;
}

/** What the scores metrics report for a bucket or a window (GET …/scores/metrics). */
export interface ScoreAggregate {
  count: number;
  mean: number | null;
  /** Each label's share (numbers; typed loosely so the dashboard's wire type fits). */
  shares: Readonly<Record<string, unknown>>;
}

/**
 * A score metric's value over the scores of its name: `score_mean` their mean (null without a numeric
 * or boolean one); `score_share` the share of the labelled (boolean or categorical) ones whose label is
 * `label`: 0 when others are labelled but none so, null when none is labelled.
 */
export function scoreMetricValue(metric: ScoreMetric, score: ScoreSelector, a: ScoreAggregate): number | null {
  if (metric === 'score_mean') return a.mean;
  if (Object.keys(a.shares).length === 0) return null;
  const label = score.label ?? '';
  // An own key only: a label such as `constructor` must not read the prototype's.
  const share = Object.hasOwn(a.shares, label) ? a.shares[label] : undefined;
  return typeof share === 'number' ? share : 0;
}

/** A run metric's value over an aggregate: additive metrics are 0 over no runs; ratios and percentiles null. */
export function metricValue(metric: Exclude<Metric, ScoreMetric>, a: MetricInputs): number | null {
  switch (metric) {
    case 'count':
      return a.count;
    case 'error_count':
      return a.errorCount;
    case 'error_rate':
      return a.count === 0 ? null : a.errorCount / a.count;
    case 'latency_p50':
      return a.latencyP50;
    case 'latency_p95':
      return a.latencyP95;
    case 'latency_p99':
      return a.latencyP99 ?? null;
    case 'total_tokens':
      return a.totalTokens;
    case 'cost':
      return a.cost;
  }
}

export function breaches(value: number, threshold: Threshold): boolean {
  switch (threshold.op) {
    case '>':
      return value > threshold.value;
    case '>=':
      return value >= threshold.value;
    case '<':
      return value < threshold.value;
    case '<=':
      return value <= threshold.value;
  }
}

/**
 * The state a value gives (docs/monitors-and-webhooks.md): `no_data` when paused or when no run matched; except that a
 * threshold the value of no runs breaches ("fewer than 5 runs": a count of 0) alerts, so a silent
 * project is noticed. Otherwise `alerting` while the threshold is breached, `ok` when not (or when the
 * monitor has no threshold and runs matched).
 */
export function stateFor(input: { enabled: boolean; value: number | null; count: number; threshold: Threshold | null }): MonitorState {
  if (!input.enabled || input.value === null) return 'no_data';
  if (input.threshold === null) return input.count === 0 ? 'no_data' : 'ok';
  const breached = breaches(input.value, input.threshold);
  if (input.count === 0) return breached ? 'alerting' : 'no_data';
  return breached ? 'alerting' : 'ok';
}

/** A JSON pointer's escaping of one key. */
const pointerKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Why a monitor's metric, `score` and filter do not go together (400 with these pointers), or nothing:
 * the score metrics need `score` (`score_share` with a `label`, `score_mean` without) and take only
 * `source` and `target` in their filter; the run metrics take no `score` and no `source`/`target`.
 */
export function scoreDefinitionFaults(input: {
  metric: Metric;
  score: ScoreSelector | null | undefined;
  filter: Record<string, unknown> | undefined;
}): { pointer: string; detail: string }[] {
  const faults: { pointer: string; detail: string }[] = [];
  const keys = Object.keys(input.filter ?? {}).filter((key) => input.filter?.[key] !== undefined);
  const scoreKeys: readonly string[] = SCORE_FILTER_KEYS;
  if (isScoreMetric(input.metric)) {
    if (!input.score) faults.push({ pointer: '/score', detail: `\`${input.metric}\` watches the scores of one name: give \`score: { "name": … }\`.` });
    else if (input.metric === 'score_share' && input.score.label === undefined)
      faults.push({
        pointer: '/score/label',
        detail: '`score_share` counts one label: give `score.label` (`true` or `false` for boolean scores, or a category).',
      });
    else if (input.metric === 'score_mean' && input.score.label !== undefined)
      faults.push({ pointer: '/score/label', detail: '`score_mean` averages every score of the name: `label` is for `score_share` only.' });
    for (const key of keys.filter((k) => !scoreKeys.includes(k)))
      faults.push({
        pointer: `/filter/${pointerKey(key)}`,
        detail: `\`${key}\` selects runs: the filter of a score metric takes \`source\` and \`target\` only.`,
      });
  } else {
    if (input.score)
      faults.push({ pointer: '/score', detail: '`score` is for the score metrics (`score_mean`, `score_share`) only: send null or leave it out.' });
    for (const key of keys.filter((k) => scoreKeys.includes(k)))
      faults.push({ pointer: `/filter/${key}`, detail: `\`${key}\` selects scores: it is for the score metrics (\`score_mean\`, \`score_share\`) only.` });
  }
  return faults;
}
