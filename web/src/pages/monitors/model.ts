/**
 * What the monitors pages know about monitors: the metrics, windows and operators of the API, how a
 * metric reads, and the rules that turn a value into a state. The rules mirror the server's
 * (src/features/monitors/monitors.evaluate.ts), which stays the authority; they are repeated here only
 * for the live preview, which cannot import server code that touches the database.
 */
import { fmtCost, fmtMs, fmtNumber, fmtPercent } from '../../format.js';
import type { Monitor } from '../../types.js';
import {
  ADDITIVE_METRICS as ADDITIVE,
  breaches,
  isScoreMetric,
  metricValue,
  OPERATORS as SERVER_OPERATORS,
  scoreDefinitionFaults,
  scoreMetricValue,
  stateFor,
  WINDOW_MS,
} from '../../../../src/features/monitors/monitors.rules.js';

/** The server's own rules (the evaluator uses the very same functions), re-exported for the pages. */
export { ADDITIVE, breaches, isScoreMetric, metricValue, scoreDefinitionFaults, scoreMetricValue, stateFor, WINDOW_MS };

export type Metric = Monitor['metric'];
export type Window = Monitor['window'];
export type MonitorState = Monitor['state'];
export type Threshold = NonNullable<Monitor['threshold']>;
export type Operator = Threshold['op'];
export type MonitorFilter = Monitor['filter'] & Record<`metadata.${string}`, string>;
export type MonitorScore = NonNullable<Monitor['score']>;

export const METRIC_LABELS: Record<Metric, string> = {
  count: 'Run count',
  error_count: 'Error count',
  error_rate: 'Error rate',
  latency_p50: 'Latency p50',
  latency_p95: 'Latency p95',
  latency_p99: 'Latency p99',
  total_tokens: 'Total tokens',
  cost: 'Cost',
  score_mean: 'Score mean',
  score_share: 'Score share',
};
export const METRICS = Object.keys(METRIC_LABELS) as Metric[];

export const WINDOWS = Object.keys(WINDOW_MS) as Window[];
export const WINDOW_LABELS: Record<Window, string> = { '5m': '5 minutes', '15m': '15 minutes', '1h': '1 hour', '6h': '6 hours', '1d': '1 day', '7d': '7 days' };

export const OPERATORS: Operator[] = [...SERVER_OPERATORS];

/** The unit a threshold is typed in, said next to the field. */
export const METRIC_UNITS: Record<Metric, string> = {
  count: 'runs',
  error_count: 'failed runs',
  error_rate: 'percent: type 5 for 5 %',
  latency_p50: 'milliseconds',
  latency_p95: 'milliseconds',
  latency_p99: 'milliseconds',
  total_tokens: 'tokens',
  cost: 'dollars',
  score_mean: 'the score’s own scale (booleans: 0 to 1)',
  score_share: 'percent: type 10 for 10 %',
};

/**
 * The form takes an error rate as a percentage (5 for 5 %), while the API's `error_rate` is a fraction
 * (0.05): these two turn one into the other, rounded to 12 significant digits so that 7 % is 7, not
 * 7.000000000000001.
 */
const PERCENT: ReadonlySet<Metric> = new Set<Metric>(['error_rate', 'score_share']);
const tidy = (n: number) => Number(n.toPrecision(12));

/** A stored threshold value as the form shows it. */
export function thresholdInput(metric: Metric, value: number): string {
  return String(PERCENT.has(metric) ? tidy(value * 100) : value);
}

/** A typed threshold as the API takes it. */
export function thresholdValue(metric: Metric, typed: number): number {
  return PERCENT.has(metric) ? tidy(typed / 100) : typed;
}

/** Why a typed threshold cannot be sent (said under the field), or null. */
export function thresholdFault(metric: Metric, typed: string): string | null {
  if (typed.trim() === '') return `Type the value to compare with (${METRIC_UNITS[metric]}), or choose the operator “none”.`;
  const value = Number(typed);
  if (!Number.isFinite(value)) return 'The threshold must be a number.';
  if (PERCENT.has(metric) && (value < 0 || value > 100)) return `${metric === 'error_rate' ? 'An error rate' : 'A share'} is a percentage from 0 to 100.`;
  return null;
}

export function formatMetric(metric: Metric, value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  switch (metric) {
    case 'error_rate':
    case 'score_share':
      return fmtPercent(value);
    case 'latency_p50':
    case 'latency_p95':
    case 'latency_p99':
      return fmtMs(value);
    case 'cost':
      return fmtCost(value);
    default:
      return fmtNumber(value);
  }
}

export function formatThreshold(metric: Metric, threshold: Threshold | null): string {
  if (!threshold) return 'none';
  return `${threshold.op} ${formatMetric(metric, threshold.value)}`;
}

/** What a score metric watches, in words: `helpfulness`, `thumbs_down = true`. */
export function describeScore(score: Monitor['score']): string {
  if (!score) return '';
  return score.label === undefined ? score.name : `${score.name} = ${score.label}`;
}

/** `kind = llm`, `tag prod`, `roots only`… ; an empty list means every run of the project. */
export function describeFilter(filter: Monitor['filter']): string[] {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(filter as Record<string, unknown>)) {
    if (value === undefined) continue;
    if (key === 'parentRunId') parts.push(value === null ? 'roots only' : `parent = ${String(value)}`);
    else if (key === 'tag' && Array.isArray(value)) parts.push(...value.map((t) => `tag ${String(t)}`));
    else parts.push(`${key} = ${String(value)}`);
  }
  return parts;
}

/** The runs metrics endpoint has no p99: the preview says so rather than guess. */
export function previewable(metric: Metric): boolean {
  return metric !== 'latency_p99';
}

/** Why a state is what it is, in a sentence. */
export function explainState(state: MonitorState, input: { enabled: boolean; count: number; threshold: Threshold | null; metric: Metric }): string {
  if (!input.enabled) return 'Paused monitors are always no data.';
  if (state === 'no_data') {
    if (input.count === 0 && isScoreMetric(input.metric)) return 'No score of this name in the window.';
    if (input.count === 0)
      return input.threshold && ADDITIVE.has(input.metric) ? 'No run matched, and 0 does not breach the threshold.' : 'No run matched in the window.';
    return 'No value to compare.';
  }
  if (!input.threshold) return 'No threshold: the monitor only records the metric.';
  if (state === 'alerting') return input.count === 0 ? 'No run matched, and 0 breaches the threshold.' : 'The threshold is breached.';
  return 'Within the threshold.';
}

/** The buckets the preview splits a window into (the runs metrics endpoint offers 1m, 5m, 1h, 1d). */
export const PREVIEW_BUCKET: Record<Window, '1m' | '5m' | '1h' | '1d'> = { '5m': '1m', '15m': '1m', '1h': '5m', '6h': '5m', '1d': '1h', '7d': '1d' };

export const BUCKET_MS: Record<string, number> = { '1m': 60_000, ...WINDOW_MS };

/**
 * The chart's unit for a metric: the chart's scale starts at 0..1, so fractions and small dollar
 * amounts are charted as percent and cents to be readable.
 */
export function chartUnit(metric: Metric): { factor: number; unit: string } {
  if (metric === 'error_rate' || metric === 'score_share') return { factor: 100, unit: '%' };
  if (metric === 'cost') return { factor: 100, unit: '¢' };
  if (metric.startsWith('latency')) return { factor: 1, unit: 'ms' };
  return { factor: 1, unit: '' };
}

export function scaled(value: number | null | undefined, factor: number): number | null {
  return value === null || value === undefined ? null : Math.round(value * factor * 1e6) / 1e6;
}
