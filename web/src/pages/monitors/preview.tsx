import { useEffect, useRef, useState } from 'react';
import { runs } from '../../api.js';
import { Chart, type ChartSeries } from '../../components/chart.js';
import { ErrorBox, StatusBadge } from '../../components/ui.js';
import { fmtBucket, fmtNumber } from '../../format.js';
import type { RunMetrics } from '../../types.js';
import { useDebounced } from '../prompts/controls.js';
import {
  ADDITIVE,
  BUCKET_MS,
  chartUnit,
  explainState,
  formatMetric,
  METRIC_LABELS,
  metricValue,
  PREVIEW_BUCKET,
  previewable,
  scaled,
  stateFor,
  WINDOW_LABELS,
  WINDOW_MS,
  type Metric,
  type MonitorFilter,
  type Threshold,
  type Window,
} from './model.js';

export interface PreviewDefinition {
  filter: MonitorFilter;
  metric: Metric;
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

interface Measured {
  metrics: RunMetrics;
  at: number;
}

/**
 * What the monitor being edited would say now: its metric over the last window, computed from the
 * runs metrics endpoint with the same filter (the server counts exactly the runs the list returns),
 * the state that value gives, and the window split into a few buckets for a chart.
 */
export function MetricPreview({ projectId, definition, enabled = true }: { projectId: string; definition: PreviewDefinition; enabled?: boolean }) {
  // The threshold only changes the verdict, not the numbers: no new request when it alone changes.
  const queryKey = useDebounced(JSON.stringify({ filter: definition.filter, window: definition.window }), 450);
  const [measured, setMeasured] = useState<Measured | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const [refresh, setRefresh] = useState(0);
  const generation = useRef(0);

  useEffect(() => {
    const { filter, window } = JSON.parse(queryKey) as { filter: MonitorFilter; window: Window };
    const mine = ++generation.current;
    const to = Date.now();
    const from = to - WINDOW_MS[window];
    setLoading(true);
    runs
      .metrics(projectId, {
        ...filterQuery(filter),
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        bucket: PREVIEW_BUCKET[window],
      })
      .then((metrics) => {
        if (mine !== generation.current) return;
        setMeasured({ metrics, at: to });
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
  const total = measured?.metrics.total;
  const value = total ? metricValue(metric, total) : null;
  const count = total?.count ?? 0;
  const state = stateFor({ enabled, value: previewable(metric) ? value : null, count, threshold });
  const series = measured?.metrics.groups[0]?.series ?? [];
  const bucketMs = BUCKET_MS[PREVIEW_BUCKET[definition.window]] ?? 60_000;
  const { factor, unit } = chartUnit(metric);
  const perBucket = series.map((b) => scaled(metricValue(metric, b), factor));
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
      {measured && error === null && (
        <>
          <div className="kpis" aria-live="polite">
            <div className="kpi">
              <span className="kpi-label">{METRIC_LABELS[metric]}</span>
              <span className="kpi-value">{previewable(metric) ? formatMetric(metric, value) : 'n/a'}</span>
            </div>
            <div className="kpi">
              <span className="kpi-label">Runs matched</span>
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
                {!enabled && ' Resume it to evaluate.'} Computed from the runs metrics with the same filter over the last {windowLabel}, as the monitor
                evaluates it.
              </p>
            </>
          ) : (
            <p className="preview-note" role="note">
              Preview unavailable for p99: the runs metrics endpoint reports p50 and p95 only. The monitor computes p99 itself once saved.
            </p>
          )}
        </>
      )}
      {!measured && error === null && <p className="preview-note">Measuring…</p>}
    </section>
  );
}
