import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/index.js';
import type { Database, MonitorRow } from '../../db/schema.js';
import { aggregateRuns, type Aggregate, type AggregateResult } from '../runs/runs.aggregate.js';
import { monitorRunFilters, thresholdOf, type Threshold } from './monitors.repo.js';
import { WINDOWS, type Metric, type MonitorFilter, type MonitorState, type Window } from './monitors.schemas.js';

/** A metric's value over an aggregate: additive metrics are 0 over no runs; ratios and percentiles null. */
export function metricValue(metric: Metric, a: Aggregate): number | null {
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
      return a.latencyP99;
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
 * The state a value gives (api.md 4.5): `no_data` when paused or when no run matched; except that a
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

export interface MonitorDefinition {
  projectId: string;
  filter: MonitorFilter;
  metric: Metric;
  window: Window;
  threshold: Threshold | null;
  enabled: boolean;
}

export function definitionOf(row: MonitorRow): MonitorDefinition {
  return {
    projectId: row.project_id,
    filter: JSON.parse(row.filter) as MonitorFilter,
    metric: row.metric as Metric,
    window: row.window_size as Window,
    threshold: thresholdOf(row.threshold_op, row.threshold_value),
    enabled: Number(row.enabled) === 1,
  };
}

/** The monitor's runs (the list's filter code) aggregated over [from, to), optionally in buckets. */
export function measure(db: Kysely<Database>, dialect: Dialect, monitor: MonitorDefinition, from: number, to: number, bucketMs: number | null): Promise<AggregateResult> {
  return aggregateRuns(db, dialect, { projectId: monitor.projectId, filters: monitorRunFilters(monitor.filter), from, to, bucketMs, groupBy: null });
}

export interface Evaluation {
  value: number | null;
  count: number;
  state: MonitorState;
  windowStart: number;
  windowEnd: number;
}

/** The metric over the latest window, ending at `now`, and the state it gives. */
export async function evaluate(db: Kysely<Database>, dialect: Dialect, monitor: MonitorDefinition, now: number): Promise<Evaluation> {
  const windowStart = now - WINDOWS[monitor.window];
  const { total } = await measure(db, dialect, monitor, windowStart, now, null);
  const value = metricValue(monitor.metric, total);
  return { value, count: total.count, state: stateFor({ enabled: monitor.enabled, value, count: total.count, threshold: monitor.threshold }), windowStart, windowEnd: now };
}
