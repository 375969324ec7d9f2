import { useEffect, useRef, useState } from 'react';
import { runs, scoreMetrics } from '../../api.js';
import { Chart, type ChartSeries } from '../../components/chart.js';
import { ErrorBox, StatusBadge } from '../../components/ui.js';
import { fmtBucket, fmtNumber } from '../../format.js';
import type { RunMetrics, ScoreMetrics } from '../../types.js';
import { useDebounced } from '../prompts/controls.js';
import {
  ADDITIVE,
  BUCKET_MS,
  chartUnit,
  explainState,
  formatMetric,
  isScoreMetric,
  METRIC_LABELS,
  metricValue,
  scoreMetricValue,
  PREVIEW_BUCKET,
  previewable,
  scaled,
  stateFor,
  WINDOW_LABELS,
  WINDOW_MS,
  type Metric,
  type MonitorFilter,
  type MonitorScore,
  type Threshold,
  type Window,
} from './model.js';

export interface PreviewDefinition {
  filter: MonitorFilter;
  metric: Metric;
  /** The scores a score metric watches (null, or a blank name, for none yet). */
  score: MonitorScore | null;
  window: Window;
  threshold: Threshold | null;
}

/** A monitor's filter as runs-list query parameters (`parentRunId: null` is `parentRunId=null`). */
export function filterQuery(filter: MonitorFilter): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(filter as Record<string, unknown>)) {
    if (value === undefined) continue;
    if (value === null) query[key] = 'null';
    else if (Array.isArray(value)) query[key] = value.map(String);
    else query[key] = String(value);
  }
  return query;
}

/** The runs metrics (run metrics) or the score metrics of one score name (score metrics). */
type Measured = { kind: 'runs'; metrics: RunMetrics; at: number } | { kind: 'scores'; metrics: ScoreMetrics; at: number };

interface Query {
  filter: MonitorFilter;
  window: Window;
  /** The score name, for a score metric; null for a run metric. */
  scoreName: string | null;
}

/**
 * What the monitor being edited would say now: its metric over the last window, computed from the
 * runs metrics endpoint with the same filter (the server counts exactly the runs the list returns),
 * or for a score metric from the score metrics of its name (the aggregate the monitor reads), the
 * state that value gives, and the window split into a few buckets for a chart.
 */
export function MetricPreview({ projectId, definition, enabled = true }: { projectId: string; definition: PreviewDefinition; enabled?: boolean }) {
  // The threshold only changes the verdict, not the numbers: no new request when it alone changes.
  const scoreMetric = isScoreMetric(definition.metric);
  const wanted: Query = { filter: definition.filter, window: definition.window, scoreName: scoreMetric ? (definition.score?.name.trim() ?? '') : null };
  const queryKey = useDebounced(JSON.stringify(wanted), 450);
  const [measured, setMeasured] = useState<Measured | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const [refresh, setRefresh] = useState(0);
  const generation = useRef(0);

  useEffect(() => {
    const { filter, window, scoreName } = JSON.parse(queryKey) as Query;
    const mine = ++generation.current;
    if (scoreName === '') {
      // A score metric without a name yet: nothing to measure.
      setMeasured(null);
      setError(null);
      return;
    }
    const to = Date.now();
    const from = to - WINDOW_MS[window];
    const range = { from: new Date(from).toISOString(), to: new Date(to).toISOString(), bucket: PREVIEW_BUCKET[window] };
    setLoading(true);
    const measuring: Promise<Measured> =
      scoreName === null
        ? runs.metrics(projectId, { ...filterQuery(filter), ...range }).then((metrics) => ({ kind: 'runs', metrics, at: to }))
        : scoreMetrics(projectId, { ...filterQuery(filter), name: scoreName, ...range }).then((metrics) => ({ kind: 'scores', metrics, at: to }));
    measuring
      .then((result) => {
        if (mine !== generation.current) return;
        setMeasured(result);
        setError(null);
      })
      .catch((e: unknown) => {
        if (mine === generation.current) setError(e);
      })
      .finally(() => {
        if (mine === generation.current) setLoading(false);
      });
  }, [projectId, queryKey, refresh]);

  const { metric, threshold } = definition;
  const windowLabel = WINDOW_LABELS[definition.window];
  // A measure of the other kind (the metric was just switched) is not shown: it would say another thing.
  const current = measured && (measured.kind === 'scores') === scoreMetric ? measured : null;
  const valueOf = (bucket: RunMetrics['total'] | ScoreMetrics['total']): number | null =>
    isScoreMetric(metric)
      ? scoreMetricValue(metric, definition.score ?? { name: '' }, bucket as ScoreMetrics['total'])
      : metricValue(metric, bucket as RunMetrics['total']);
  const total = current?.metrics.total;
  const value = total ? valueOf(total) : null;
  const count = total?.count ?? 0;
  const state = stateFor({ enabled, value: previewable(metric) ? value : null, count, threshold });
  const series: ((RunMetrics['total'] | ScoreMetrics['total']) & { start: string })[] = current?.metrics.groups[0]?.series ?? [];
  const bucketMs = BUCKET_MS[PREVIEW_BUCKET[definition.window]] ?? 60_000;
  const { factor, unit } = chartUnit(metric);
  const perBucket = series.map((b) => scaled(valueOf(b), factor));
  // A threshold applies to the whole window: additive metrics are drawn as a running total too, whose
  // last point is the value compared with it. Ratios and percentiles per bucket compare as they are.
  const additive = ADDITIVE.has(metric);
  let sum = 0;
  const running = perBucket.map((v) => (sum = Math.round((sum + (v ?? 0)) * 1e6) / 1e6));
  const chartSeries: ChartSeries[] = additive
    ? [
        { name: `per ${PREVIEW_BUCKET[definition.window]}`, values: perBucket, kind: 'bar', tone: 'muted' },
        { name: 'running total', values: running, kind: 'line', tone: 'primary' },
      ]
    : [{ name: METRIC_LABELS[metric], values: perBucket, kind: 'line', tone: 'primary' }];

  return (
    <section className="preview" aria-labelledby="preview-heading" aria-busy={loading}>
      <div className="section-head" style={{ marginBottom: 8 }}>
        <h3 id="preview-heading">
          Live preview <span className="muted nowrap">· last {windowLabel}</span>
        </h3>
        <span className="state-line">
          {loading && (
            <span className="muted" style={{ fontSize: '0.85rem' }}>
              updating…
            </span>
          )}
          <button type="button" className="button ghost compact" style={{ marginTop: 0 }} aria-label="Refresh preview" onClick={() => setRefresh((n) => n + 1)}>
            Refresh
          </button>
        </span>
      </div>
      {error !== null && <ErrorBox error={error} />}
      {current && error === null && (
        <>
          <div className="kpis" aria-live="polite">
            <div className="kpi">
              <span className="kpi-label">{METRIC_LABELS[metric]}</span>
              <span className="kpi-value">{previewable(metric) ? formatMetric(metric, value) : 'n/a'}</span>
            </div>
            <div className="kpi">
              <span className="kpi-label">{scoreMetric ? 'Scores matched' : 'Runs matched'}</span>
              <span className="kpi-value">{fmtNumber(count)}</span>
            </div>
            <div className="kpi">
              <span className="kpi-label">Would be</span>
              <span className="kpi-value">{previewable(metric) ? <StatusBadge status={state} /> : <span className="muted">—</span>}</span>
            </div>
          </div>
          {previewable(metric) ? (
            <>
              <Chart
                ariaLabel={`Preview of ${METRIC_LABELS[metric]} over the last ${windowLabel}`}
                labels={series.map((b) => fmtBucket(b.start, bucketMs))}
                series={chartSeries}
                threshold={scaled(threshold?.value, factor)}
                height={120}
              />
              <p className="preview-note">
                {additive
                  ? `Bars: per ${PREVIEW_BUCKET[definition.window]}; line: running total over the window, whose last point is what the threshold is compared with`
                  : `Per ${PREVIEW_BUCKET[definition.window]} bucket`}
                {unit ? ` (in ${unit})` : ''}
                {threshold ? '; dashed line: threshold.' : '.'}
              </p>
              <p className="preview-note">
                {explainState(state, { enabled, count, threshold, metric })}
                {!enabled && ' Resume it to evaluate.'} Computed from the {scoreMetric ? 'score metrics of this name' : 'runs metrics'} with the same filter
                over the last {windowLabel}, as the monitor evaluates it.
              </p>
            </>
          ) : (
            <p className="preview-note" role="note">
              Preview unavailable for p99: the runs metrics endpoint reports p50 and p95 only. The monitor computes p99 itself once saved.
            </p>
          )}
        </>
      )}
      {!current && error === null && <p className="preview-note">{wanted.scoreName === '' ? 'Name the score to preview its metric.' : 'Measuring…'}</p>}
    </section>
  );
}
