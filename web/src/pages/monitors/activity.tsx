import { Chart } from '../../components/chart.js';
import { narrow, num, PagedTable } from '../../components/paged.js';
import { Badge, Empty, ErrorBox, Loading, Panel, StatusBadge, When } from '../../components/ui.js';
import { fmtBucket, fmtDate, fmtMs, fmtNumber, fmtRelative, fmtTime } from '../../format.js';
import type { List, useAsync } from '../../hooks.js';
import type { Monitor, MonitorEvent, MonitorMetrics, WebhookAttempt } from '../../types.js';
import { ADDITIVE, BUCKET_MS, chartUnit, formatMetric, formatThreshold, METRIC_LABELS, scaled } from './model.js';

/** The monitor's metric over its last 24 windows with the threshold drawn, and the current value. */
export function MetricPanel({
  monitor,
  metrics,
  onRefresh,
}: {
  monitor: Monitor;
  metrics: ReturnType<typeof useAsync<MonitorMetrics>>;
  onRefresh: () => void;
}) {
  const data = metrics.data;
  const bucketMs = data ? (BUCKET_MS[data.bucket] ?? 3_600_000) : 3_600_000;
  const { factor, unit } = chartUnit(monitor.metric);
  return (
    <section className="panel" aria-labelledby="metric-heading">
      <div className="section-head">
        <h2 id="metric-heading">Metric over time</h2>
        <button type="button" className="button ghost compact" style={{ marginTop: 0 }} onClick={onRefresh} disabled={metrics.loading}>
          {metrics.loading ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      {metrics.error !== undefined && <ErrorBox error={metrics.error} onRetry={onRefresh} />}
      {!data && metrics.loading && <Loading label="Loading the metric…" />}
      {data && (
        <>
          <div className="kpis" style={{ marginBottom: 8 }} aria-live="polite">
            <div className="kpi">
              <span className="kpi-label">Current {METRIC_LABELS[data.metric].toLowerCase()}</span>
              <span className="kpi-value">{formatMetric(data.metric, data.current.value)}</span>
            </div>
            <div className="kpi">
              <span className="kpi-label">{data.metric === 'score_mean' || data.metric === 'score_share' ? 'Scores in window' : 'Runs in window'}</span>
              <span className="kpi-value">{fmtNumber(data.current.count)}</span>
            </div>
            <div className="kpi">
              <span className="kpi-label">State now</span>
              <span className="kpi-value">
                <StatusBadge status={data.current.state} />
              </span>
            </div>
            <div className="kpi">
              <span className="kpi-label">Threshold</span>
              <span className="kpi-value">{formatThreshold(data.metric, monitor.threshold)}</span>
            </div>
          </div>
          {data.series.length === 0 ? (
            <Empty title="No data in this range" />
          ) : (
            <Chart
              ariaLabel="Metric over time"
              labels={data.series.map((p) => fmtBucket(p.start, bucketMs))}
              series={[
                {
                  name: METRIC_LABELS[data.metric],
                  values: data.series.map((p) => scaled(p.value, factor)),
                  kind: ADDITIVE.has(data.metric) ? 'bar' : 'line',
                  tone: 'primary',
                },
              ]}
              threshold={scaled(monitor.threshold?.value, factor)}
            />
          )}
          <div className="legend">
            <span>
              {METRIC_LABELS[data.metric]}
              {unit ? ` (${unit})` : ''} per {data.bucket} bucket, {fmtBucket(data.from, bucketMs)} – now
            </span>
            {monitor.threshold && <span>dashed line: threshold</span>}
          </div>
        </>
      )}
    </section>
  );
}

const REASONS: Record<MonitorEvent['reason'], string> = { evaluated: 'evaluated', paused: 'paused', resumed: 'resumed', changed: 'edited' };

/** State changes, newest first. */
export function EventsPanel({ monitor, events }: { monitor: Monitor; events: List<MonitorEvent> }) {
  return (
    <Panel heading="events-heading" title="Events">
      <PagedTable
        list={events}
        loadingLabel="Loading events…"
        empty={<Empty title="No state changes yet">Each change of state (and each pause, resume or edit that changes it) is listed here.</Empty>}
        label="Events"
        columns={['When', 'Change', num('Value'), num('Runs'), 'Reason', narrow('Threshold')]}
        row={(e) => (
          <tr key={e.id}>
            <td className="nowrap">
              <When iso={e.createdAt} />
            </td>
            <td className="nowrap">
              <StatusBadge status={e.from} /> <span aria-label="to">→</span> <StatusBadge status={e.to} />
            </td>
            <td className="num">{formatMetric(monitor.metric, e.value)}</td>
            <td className="num">{fmtNumber(e.count)}</td>
            <td>{REASONS[e.reason]}</td>
            <td className="hide-narrow nowrap">{formatThreshold(monitor.metric, e.threshold)}</td>
          </tr>
        )}
      />
    </Panel>
  );
}

const OUTCOME_TONE: Record<WebhookAttempt['outcome'], 'ok' | 'warn' | 'bad'> = { succeeded: 'ok', retrying: 'warn', failed: 'bad' };

/** Every webhook delivery attempt, newest first. */
export function DeliveriesPanel({ monitor, deliveries }: { monitor: Monitor; deliveries: List<WebhookAttempt> }) {
  return (
    <Panel heading="deliveries-heading" title="Webhook deliveries">
      <PagedTable
        list={deliveries}
        loadingLabel="Loading deliveries…"
        empty={
          <Empty title="No deliveries yet">
            {monitor.webhookUrls.length === 0
              ? 'This monitor has no webhook URLs: add some with "Edit".'
              : 'Each state change is POSTed to the webhook URLs; every attempt is listed here.'}
          </Empty>
        }
        label="Webhook deliveries"
        columns={['When', 'Outcome', num('Response'), num('Attempt'), 'URL', num('Latency'), 'Error', 'Next attempt']}
        row={(d) => (
          <tr key={d.id}>
            <td className="nowrap">
              <When iso={d.createdAt} />
            </td>
            <td>
              <Badge tone={OUTCOME_TONE[d.outcome]}>{d.outcome}</Badge>
            </td>
            <td className="num">{d.responseStatus ?? <span className="muted">none</span>}</td>
            <td className="num">{d.attempt}</td>
            <td className="mono" style={{ minWidth: 160, wordBreak: 'break-all' }}>
              {d.url}
            </td>
            <td className="num">{fmtMs(d.latencyMs)}</td>
            <td className="cell-wrap" style={{ minWidth: 140 }}>
              {d.error ?? <span className="muted">—</span>}
            </td>
            <td className="nowrap" title={fmtDate(d.nextAttemptAt)}>
              {d.nextAttemptAt === null ? (
                <span className="muted">—</span>
              ) : Date.parse(d.nextAttemptAt) > Date.now() ? (
                fmtRelative(d.nextAttemptAt)
              ) : (
                <span className="muted">{fmtTime(d.nextAttemptAt)}</span>
              )}
            </td>
          </tr>
        )}
      />
    </Panel>
  );
}
