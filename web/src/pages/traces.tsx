import { useMemo, useState, type FormEvent } from 'react';
import { traces } from '../api.js';
import { ProjectTabs } from '../components/layout.js';
import { ExportButton } from '../components/export-button.js';
import { SavedViews } from '../components/saved-views.js';
import { Button, ErrorBox, PageHeader } from '../components/ui.js';
import { VirtualRows } from '../components/virtual-rows.js';
import { fmtCost, fmtMs, fmtNumber, fmtStart } from '../format.js';
import { useDocumentTitle, useList, useProject } from '../hooks.js';
import { Link, navigate, useLocation } from '../router.js';
import type { Trace } from '../types.js';
import { RunsChart } from './runs/chart.js';
import { RunFilters } from './runs/filters.js';
import { clearedSearch, DEFAULT_RANGE, filtersFromSearch, isRange, windowOf, type Range } from './runs/query.js';
import { Breadcrumbs, setQuery } from './runs/shared.js';
import './runs/runs.css';
import './trace/trace.css';

const ROW = 52;

function TraceRow({ trace, base }: { trace: Trace; base: string }) {
  const open = () => navigate(`${base}/traces/${encodeURIComponent(trace.traceId)}`);
  return (
    <>
      <span role="cell" className="sl-tr-name">
        <Link to={`${base}/traces/${encodeURIComponent(trace.traceId)}`} onKeyDown={(e) => e.key === ' ' && open()}>
          {trace.status === 'failed' && (
            <span title="failed" aria-label="failed">
              ✕{' '}
            </span>
          )}
          {trace.name}
        </Link>
        <span className="muted sl-tr-when">{fmtStart(trace.startTime)}</span>
      </span>
      <span role="cell" className="sl-tr-io">
        <span className="sl-tr-preview" title={trace.input ?? ''}>
          <span className="muted">in </span>
          {trace.input ?? '—'}
        </span>
        <span className="sl-tr-preview" title={trace.output ?? ''}>
          <span className="muted">out </span>
          {trace.output ?? (trace.status === 'running' ? 'running…' : '—')}
        </span>
      </span>
      <span role="cell" className="sl-tr-num">
        {fmtMs(trace.latencyMs)}
      </span>
      <span role="cell" className="sl-tr-num">
        {fmtNumber(trace.usage.totalTokens)}
      </span>
      <span role="cell" className="sl-tr-num">
        {fmtCost(trace.cost)}
      </span>
      <span role="cell" className="sl-tr-num">
        {trace.errorCount > 0 ? <span className="badge bad">{trace.errorCount}</span> : '0'}
      </span>
      <span role="cell" className="sl-tr-who">
        {trace.sessionId ? <Link to={`${base}/sessions/${encodeURIComponent(trace.sessionId)}`}>{trace.sessionId}</Link> : <span className="muted">—</span>}
        {trace.userId ? <Link to={`${base}/users/${encodeURIComponent(trace.userId)}`}>{trace.userId}</Link> : null}
      </span>
    </>
  );
}

/** A project's home: its traces newest first (root rows with previews), the chart over the same window, search and filters. */
export function TracesPage({ projectId }: { projectId: string }) {
  const { search } = useLocation();
  const searchText = search.toString();
  const filters = useMemo(() => filtersFromSearch(search), [searchText]); // eslint-disable-line react-hooks/exhaustive-deps
  const rangeParam = search.get('range');
  const range: Range = isRange(rangeParam) ? rangeParam : DEFAULT_RANGE;
  const [tick, setTick] = useState(0);
  // "Now" moves only on refresh, so the window (and the list's query) stays put between renders.
  const now = useMemo(() => Date.now(), [range, tick]); // eslint-disable-line react-hooks/exhaustive-deps
  const win = windowOf(filters, range, now);
  const query = useMemo(
    () => ({ ...filters, startedAfter: new Date(win.from).toISOString(), startedBefore: new Date(win.to).toISOString() }),
    [filters, win.from, win.to],
  );
  const project = useProject(projectId);
  const list = useList(traces.list(projectId), query, 100);
  useDocumentTitle('Traces', project.data?.name);
  const base = `/projects/${projectId}`;
  const [q, setQ] = useState(typeof filters.q === 'string' ? filters.q : '');

  const go = (params: URLSearchParams) => {
    if (params.toString() !== searchText) setQuery(`${base}/traces`, params);
  };
  const setRange = (next: Range) => {
    const params = new URLSearchParams(search);
    params.delete('startedAfter');
    params.delete('startedBefore');
    if (next === DEFAULT_RANGE) params.delete('range');
    else params.set('range', next);
    go(params);
  };
  const zoom = (from: string, to: string) => {
    const params = new URLSearchParams(search);
    params.set('startedAfter', from);
    params.set('startedBefore', to);
    go(params);
  };
  const submitSearch = (event: FormEvent) => {
    event.preventDefault();
    const params = new URLSearchParams(search);
    if (q.trim()) params.set('q', q.trim());
    else params.delete('q');
    go(params);
  };

  return (
    <>
      <Breadcrumbs items={[{ label: 'Projects', to: '/projects' }, { label: project.data?.name ?? '…' }]} />
      <PageHeader
        title={<span className="sl-title">{project.data?.name ?? 'Traces'}</span>}
        actions={
          <>
            <ExportButton projectId={projectId} what="traces" query={query} />
            <Button
              onClick={() => {
                setTick((t) => t + 1);
                list.reload();
              }}
            >
              ↻ Refresh
            </Button>
          </>
        }
      />
      <ProjectTabs projectId={projectId} active="traces" />
      <form className="sl-search" role="search" aria-label="Search traces" onSubmit={submitSearch}>
        <input
          type="search"
          aria-label="Search inputs, outputs, errors and names"
          placeholder="Search inputs, outputs, errors and names"
          value={q}
          onChange={(e) => setQ(e.target.value)}
        />
        <Button type="submit">Search</Button>
      </form>
      <SavedViews projectId={projectId} page="traces" search={search} onApply={go} />
      <RunFilters filters={filters} range={range} onApply={go} searchText={searchText} defaultOpen={false} />
      <RunsChart projectId={projectId} filters={filters} range={range} onRange={setRange} onZoom={zoom} tick={tick} now={now} />
      {(filters.startedAfter || filters.startedBefore) && (
        <p>
          <Button variant="ghost" onClick={() => setRange(range)}>
            Reset zoom
          </Button>
        </p>
      )}
      <div className="sl-list-meta">
        <h2>Traces</h2>
        <span className="muted" role="status" aria-live="polite">
          {list.items.length > 0
            ? `${fmtNumber(list.items.length)} shown, newest first${list.hasMore ? ' — scroll for more' : ''}`
            : list.loading
              ? 'Loading…'
              : ''}
        </span>
      </div>
      {list.error ? (
        <ErrorBox error={list.error} onRetry={list.reload} />
      ) : list.items.length === 0 && !list.loading && list.loaded ? (
        <p className="muted">
          No traces in this window{Object.keys(filters).length > 0 ? ' match these filters' : ''}.{' '}
          {Object.keys(filters).length > 0 && (
            <button type="button" className="link" onClick={() => go(clearedSearch(range))}>
              Clear the filters
            </button>
          )}
        </p>
      ) : (
        <VirtualRows
          label="Traces"
          items={list.items}
          rowHeight={ROW}
          height={Math.min(620, Math.max(4, list.items.length) * ROW)}
          onNearEnd={list.hasMore ? list.loadMore : undefined}
          header={
            <div role="row" className="sl-tr-head">
              {['Trace', 'Input and output', 'Latency', 'Tokens', 'Cost', 'Errors', 'Session, user'].map((h) => (
                <span
                  key={h}
                  role="columnheader"
                  className={h === 'Trace' ? 'sl-tr-name' : h.startsWith('Input') ? 'sl-tr-io' : h.startsWith('Session') ? 'sl-tr-who' : 'sl-tr-num'}
                >
                  {h}
                </span>
              ))}
            </div>
          }
          renderRow={(trace) => <TraceRow trace={trace} base={base} />}
        />
      )}
    </>
  );
}
