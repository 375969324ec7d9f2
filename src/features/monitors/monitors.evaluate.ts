import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/dialect.js';
import type { Database, MonitorRow } from '../../db/schema.js';
import { aggregateRuns, type AggregateResult } from '../runs/runs.aggregate.js';
import { metricValue, stateFor } from './monitors.rules.js';
import { monitorRunFilters, thresholdOf, type Threshold } from './monitors.repo.js';
import { WINDOWS, type Metric, type MonitorFilter, type MonitorState, type Window } from './monitors.schemas.js';

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
export function measure(
  db: Kysely<Database>,
  dialect: Dialect,
  monitor: MonitorDefinition,
  from: number,
  to: number,
  bucketMs: number | null,
): Promise<AggregateResult> {
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
  return {
    value,
    count: total.count,
    state: stateFor({ enabled: monitor.enabled, value, count: total.count, threshold: monitor.threshold }),
    windowStart,
    windowEnd: now,
  };
}
