import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/dialect.js';
import type { Database, MonitorRow } from '../../db/schema.js';
import { aggregateRuns, bucketStarts, emptyAggregate } from '../query/index.js';
import { scoreMetrics } from '../scores/index.js';
import { isScoreMetric, metricValue, scoreMetricValue, stateFor, type ScoreMetric } from './monitors.rules.js';
import { monitorRunFilters, thresholdOf, type Threshold } from './monitors.repo.js';
import { WINDOWS, type Metric, type MonitorFilter, type MonitorScore, type MonitorState, type Window } from './monitors.schemas.js';

export interface MonitorDefinition {
  projectId: string;
  filter: MonitorFilter;
  metric: Metric;
  /** The scores a score metric watches; null for the run metrics. */
  score: MonitorScore | null;
  window: Window;
  threshold: Threshold | null;
  enabled: boolean;
}

export function definitionOf(row: MonitorRow): MonitorDefinition {
  return {
    projectId: row.project_id,
    filter: JSON.parse(row.filter) as MonitorFilter,
    metric: row.metric as Metric,
    score: row.score === null ? null : (JSON.parse(row.score) as MonitorScore),
    window: row.window_size as Window,
    threshold: thresholdOf(row.threshold_op, row.threshold_value),
    enabled: Number(row.enabled) === 1,
  };
}

/** The metric's value and how many runs (or scores, for a score metric) it was computed over. */
export interface Measure {
  value: number | null;
  count: number;
}

export interface Measured {
  total: Measure;
  /** Per bucket start when measured in buckets (every bucket of the range, empty ones included). */
  buckets: Map<number, Measure>;
}

/**
 * The monitor's metric over [from, to), optionally in buckets: run metrics over its runs (the list's
 * filter code); score metrics over the scores of its name (and filter's `source`/`target`), from the
 * very aggregate that GET …/scores/metrics answers with.
 */
export async function measure(
  db: Kysely<Database>,
  dialect: Dialect,
  monitor: MonitorDefinition,
  from: number,
  to: number,
  bucketMs: number | null,
): Promise<Measured> {
  const starts = bucketStarts(from, to, bucketMs);
  const { metric } = monitor;
  if (isScoreMetric(metric)) {
    const score = monitor.score ?? { name: '' };
    const { source, target } = monitor.filter;
    const result = await scoreMetrics(db, monitor.projectId, { filters: { name: score.name, source, target }, from, to, bucketMs, groupBy: null });
    const of = (a: { count: number; mean: number | null; shares: Record<string, number> }): Measure => ({
      value: scoreMetricValue(metric as ScoreMetric, score, a),
      count: a.count,
    });
    const series = result.groups[0]?.series ?? [];
    return { total: of(result.total), buckets: new Map(series.map((bucket, i) => [starts[i] ?? from, of(bucket)])) };
  }
  const runMetric = metric as Exclude<Metric, ScoreMetric>;
  const { total, cells } = await aggregateRuns(db, dialect, {
    projectId: monitor.projectId,
    filters: monitorRunFilters(monitor.filter),
    from,
    to,
    bucketMs,
    groupBy: null,
  });
  const byStart = new Map(cells.map((cell) => [cell.bucket, cell]));
  const buckets = new Map<number, Measure>();
  for (const start of starts) {
    const cell = byStart.get(start) ?? emptyAggregate();
    buckets.set(start, { value: metricValue(runMetric, cell), count: cell.count });
  }
  return { total: { value: metricValue(runMetric, total), count: total.count }, buckets };
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
  return {
    value: total.value,
    count: total.count,
    state: stateFor({ enabled: monitor.enabled, value: total.value, count: total.count, threshold: monitor.threshold }),
    windowStart,
    windowEnd: now,
  };
}
