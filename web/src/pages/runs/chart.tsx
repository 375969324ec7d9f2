import { useMemo, useState } from 'react';
import { ApiError, runs, traces } from '../../api.js';
import { Chart } from '../../components/chart.js';
import { Button, ErrorBox, Field, Loading } from '../../components/ui.js';
import { fmtBucket, fmtCost, fmtMs, fmtNumber, fmtShare } from '../../format.js';
import { useAsync } from '../../hooks.js';
import { RANGES, windowOf, type Range, type RunQuery } from './query.js';

const FOLD_KEY = 'sightline.chart.';

/**
 * Whether a list page's chart is folded to its strip, remembered per page in this browser (the traces
 * page starts folded, so that its list starts on the first screen; the runs page open).
 */
export function useChartFold(page: 'runs' | 'traces'): [boolean, (folded: boolean) => void] {
  const key = FOLD_KEY + page;
  const [folded, setFolded] = useState(() => {
    const kept = readStored(key);
    return kept === null ? page === 'traces' : kept === 'folded';
  });
  return [
    folded,
    (next) => {
      setFolded(next);
      try {
        window.localStorage.setItem(key, next ? 'folded' : 'open');
      } catch {
        // Storage refused (a private window's quota): the choice lasts as long as the page.
      }
    },
  ];
}

function readStored(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

/**
 * What the list below counts per bucket over the chosen range, for the same filters as the list: runs
 * and failed runs (`GET …/runs/metrics`), or over the traces list traces by their start and those
 * holding a failed run, with the tokens and cost of all of their runs (`GET …/traces/metrics`). Folded,
 * a strip of the totals.
 */
export function RunsChart({
  projectId,
  counting = 'runs',
  filters,
  range,
  onRange,
  onZoom,
  tick,
  now: givenNow,
  folded = false,
  onFold,
  hold = false,
}: {
  projectId: string;
  /** What the bars count: the list's items. */
  counting?: 'runs' | 'traces';
  filters: RunQuery;
  range: Range;
  onRange: (range: Range) => void;
  /** Zoom or drill into [from, to) (ISO times): dragging over bars, or clicking one. */
  onZoom?: (from: string, to: string) => void;
  tick: number;
  now?: number;
  /** Shown as a strip of the totals (the bars a click away). */
  folded?: boolean;
  onFold?: (folded: boolean) => void;
  /**
   * Not read yet (while the list's first page is on its way): a range's metrics read every run in it, which
   * over a month of a busy project takes seconds, and on SQLite holds the one thread the list's page waits for.
   */
  hold?: boolean;
}) {
  // "Now" moves with the range, the filters and a refresh only: a new one every render would refetch forever.
  const ownNow = useMemo(() => Date.now(), [range, tick, JSON.stringify(filters)]); // eslint-disable-line react-hooks/exhaustive-deps
  const win = windowOf(filters, range, givenNow ?? ownNow);
  const metrics = useAsync(
    () => {
      if (hold) return Promise.resolve(undefined);
      const { startedAfter: _a, startedBefore: _b, ...rest } = filters;
      const query = { ...rest, from: new Date(win.from).toISOString(), to: new Date(win.to).toISOString(), bucket: win.bucket };
      return counting === 'traces' ? traces.metrics(projectId, query) : runs.metrics(projectId, query);
    },
    hold ? `${counting}-metrics:held` : `${counting}-metrics:${projectId}|${JSON.stringify(filters)}|${range}|${tick}|${win.from}|${win.to}`,
  );
  const noun = counting === 'traces' ? 'Traces' : 'Runs';
  const data = metrics.data;
  const series = data?.groups[0]?.series ?? [];
  const total = data?.total;
  const errorShare = total ? fmtShare(total.errorCount, total.count) : null;
  const stats = (
    <>
      <Stat label={noun} value={fmtNumber(total?.count)} />
      <Stat label="Errors" value={`${fmtNumber(total?.errorCount)}${errorShare !== null ? ` (${errorShare})` : ''}`} />
      <Stat label="Latency p50" value={fmtMs(total?.latencyP50)} />
      <Stat label="Latency p95" value={fmtMs(total?.latencyP95)} />
      <Stat label="Tokens" value={fmtNumber(total?.totalTokens)} />
      <Stat label="Cost" value={fmtCost(total?.cost)} />
    </>
  );
  const fold = onFold && (
    <Button variant="ghost" aria-expanded={!folded} onClick={() => onFold(!folded)}>
      {folded ? '▸ Show chart' : '▾ Fold chart'}
    </Button>
  );
  const rangeField = (
    <Field label="Range">
      <select value={range} onChange={(e) => onRange(e.target.value as Range)}>
        {Object.entries(RANGES).map(([value, r]) => (
          <option key={value} value={value}>
            {r.label}
          </option>
        ))}
      </select>
    </Field>
  );

  if (folded)
    return (
      <section className="panel sl-chart-strip" aria-labelledby="runs-chart-title">
        <h2 id="runs-chart-title">{noun} and errors</h2>
        {fold}
        {data && !metrics.error ? (
          <dl className={`stats sl-stats${metrics.loading ? ' sl-stale' : ''}`}>{stats}</dl>
        ) : (
          <span className="muted">{metrics.error ? 'No totals' : 'Loading…'}</span>
        )}
        {rangeField}
      </section>
    );

  return (
    <section className="panel" aria-labelledby="runs-chart-title">
      <div className="sl-chart-head">
        <h2 id="runs-chart-title">{noun} and errors</h2>
        {fold}
        {rangeField}
      </div>
      {metrics.error instanceof ApiError && metrics.error.status === 400 ? (
        <p className="muted">No chart: the filters are not valid (the problem is shown with the {noun.toLowerCase()} below).</p>
      ) : metrics.error ? (
        <ErrorBox error={metrics.error} onRetry={metrics.reload} />
      ) : !data ? (
        <Loading label="Loading metrics…" />
      ) : (
        <div className={metrics.loading ? 'sl-stale' : ''}>
          <dl className="stats sl-stats">{stats}</dl>
          <div className="sl-chart-box">
            <Chart
              ariaLabel={`${noun} and errors over time`}
              labels={series.map((p) => fmtBucket(p.start, win.bucketMs, win.to - win.from > 86_400_000 && win.bucketMs < 86_400_000))}
              onSelect={
                onZoom &&
                ((first, last) => {
                  const start = series[first]?.start;
                  const end = series[last]?.start;
                  if (start && end) onZoom(start, new Date(Date.parse(end) + win.bucketMs).toISOString());
                })
              }
              series={[
                { name: noun.toLowerCase(), values: series.map((p) => p.count), kind: 'bar', tone: 'primary' },
                { name: 'errors', values: series.map((p) => p.errorCount), kind: 'bar', tone: 'bad' },
              ]}
            />
          </div>
          <div className="sl-legend" aria-hidden="true">
            <span>
              <span className="sl-swatch primary" />
              {noun}
            </span>
            <span>
              <span className="sl-swatch bad" />
              Errors
            </span>
            <span>
              per {win.bucket === '1m' ? 'minute' : win.bucket === '1h' ? 'hour' : 'day'},{' '}
              {typeof filters.startedAfter === 'string' || typeof filters.startedBefore === 'string' ? 'the chosen window' : RANGES[range].label.toLowerCase()}
              {onZoom ? ' · drag over bars to zoom, click one to drill in' : ''}
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
