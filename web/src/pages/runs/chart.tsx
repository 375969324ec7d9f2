import { ApiError, runs } from '../../api.js';
import { Chart } from '../../components/chart.js';
import { ErrorBox, Field, Loading } from '../../components/ui.js';
import { fmtBucket, fmtCost, fmtMs, fmtNumber, fmtShare } from '../../format.js';
import { useAsync } from '../../hooks.js';
import { RANGES, type Range, type RunQuery } from './query.js';

/** Run counts and errors per bucket over the chosen range, for the same filters as the table. */
export function RunsChart({
  projectId,
  filters,
  range,
  onRange,
  tick,
}: {
  projectId: string;
  filters: RunQuery;
  range: Range;
  onRange: (range: Range) => void;
  tick: number;
}) {
  const metrics = useAsync(
    () => {
      const to = Date.now();
      const { ms, bucket } = RANGES[range];
      return runs.metrics(projectId, {
        ...filters,
        from: new Date(to - ms).toISOString(),
        to: new Date(to).toISOString(),
        bucket,
      });
    },
    `${projectId}|${JSON.stringify(filters)}|${range}|${tick}`,
  );
  const data = metrics.data;
  const series = data?.groups[0]?.series ?? [];
  const total = data?.total;
  const errorShare = total ? fmtShare(total.errorCount, total.count) : null;

  return (
    <section className="panel" aria-labelledby="runs-chart-title">
      <div className="sl-chart-head">
        <h2 id="runs-chart-title">Runs and errors</h2>
        <Field label="Range">
          <select value={range} onChange={(e) => onRange(e.target.value as Range)}>
            {Object.entries(RANGES).map(([value, r]) => (
              <option key={value} value={value}>
                {r.label}
              </option>
            ))}
          </select>
        </Field>
      </div>
      {metrics.error instanceof ApiError && metrics.error.status === 400 ? (
        <p className="muted">No chart: the filters are not valid (the problem is shown with the runs below).</p>
      ) : metrics.error ? (
        <ErrorBox error={metrics.error} onRetry={metrics.reload} />
      ) : !data ? (
        <Loading label="Loading metrics…" />
      ) : (
        <div className={metrics.loading ? 'sl-stale' : ''}>
          <dl className="stats sl-stats">
            <Stat label="Runs" value={fmtNumber(total?.count)} />
            <Stat label="Errors" value={`${fmtNumber(total?.errorCount)}${errorShare !== null ? ` (${errorShare})` : ''}`} />
            <Stat label="Latency p50" value={fmtMs(total?.latencyP50)} />
            <Stat label="Latency p95" value={fmtMs(total?.latencyP95)} />
            <Stat label="Tokens" value={fmtNumber(total?.totalTokens)} />
            <Stat label="Cost" value={fmtCost(total?.cost)} />
          </dl>
          <div className="sl-chart-box">
            <Chart
              ariaLabel="Runs and errors over time"
              labels={series.map((p) => fmtBucket(p.start, RANGES[range].bucketMs, range === '7d'))}
              series={[
                { name: 'runs', values: series.map((p) => p.count), kind: 'bar', tone: 'primary' },
                { name: 'errors', values: series.map((p) => p.errorCount), kind: 'bar', tone: 'bad' },
              ]}
            />
          </div>
          <div className="sl-legend" aria-hidden="true">
            <span>
              <span className="sl-swatch primary" />
              Runs
            </span>
            <span>
              <span className="sl-swatch bad" />
              Errors
            </span>
            <span>
              per {RANGES[range].bucket === '1m' ? 'minute' : RANGES[range].bucket === '1h' ? 'hour' : 'day'}, {RANGES[range].label.toLowerCase()}
            </span>
          </div>
        </div>
      )}
    </section>
  );
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className="stat">
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}
