/**
 * How a monitor's metric and state are computed from an aggregate of runs: the server's evaluator and
 * the dashboard's live preview both use this file (it depends on nothing, so the dashboard imports it
 * as it is), so a preview can never follow different rules than the evaluation.
 */

import type { MetricInputs } from '../runs/metrics.rules.js';

export const METRICS = ['count', 'error_count', 'error_rate', 'latency_p50', 'latency_p95', 'latency_p99', 'total_tokens', 'cost'] as const;
export type Metric = (typeof METRICS)[number];
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

/** A metric's value over an aggregate: additive metrics are 0 over no runs; ratios and percentiles null. */
export function metricValue(metric: Metric, a: MetricInputs): number | null {
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
 * The state a value gives (README, Monitors): `no_data` when paused or when no run matched; except that a
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
