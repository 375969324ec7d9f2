/** What the runs and traces pages share above their lists: one time window in the URL, and the controls that move it. */
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { SavedViews } from '../../components/saved-views.js';
import { Button } from '../../components/ui.js';
import { fmtNumber } from '../../format.js';
import { useLocation } from '../../router.js';
import { RunsChart, useChartFold } from './chart.js';
import { RunFilters } from './filters.js';
import { clearedSearch, DEFAULT_RANGE, filtersFromSearch, isFiltered, isRange, type ListOrder, orderOf, scoreColumnOf, windowOf, type Range } from './query.js';
import { setQuery } from './shared.js';

/**
 * A list page's filters, range and order, read from its URL (`path`), and the window they give: the chart
 * and the list show the same `[from, to)`, passed to the list as `startedAfter`/`startedBefore`. `query`
 * is the window's filters (the chart's too); `listQuery` adds the list's order.
 */
export function useListWindow(path: string) {
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

  const order = orderOf(search);
  const listQuery = useMemo(() => (order === 'asc' ? { ...query, order } : query), [query, order]);

  const go = (params: URLSearchParams) => {
    if (params.toString() !== searchText) setQuery(path, params);
  };
  const scoreColumn = scoreColumnOf(search);
  /** Shows one score's value in the list's score column (undefined: every score as chips). */
  const setScoreColumn = (name: string | undefined) => {
    const params = new URLSearchParams(search);
    if (name) params.set('scoreColumn', name);
    else params.delete('scoreColumn');
    go(params);
  };
  /** Lists oldest or newest first (the URL says `order=asc` only for the first). */
  const setOrder = (next: ListOrder) => {
    const params = new URLSearchParams(search);
    if (next === 'asc') params.set('order', 'asc');
    else params.delete('order');
    go(params);
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
  return {
    search,
    searchText,
    filters,
    /** Whether any filter is in force (a zoom counts: it is in the URL like the others). */
    filtered: isFiltered(filters),
    range,
    tick,
    refresh: () => setTick((t) => t + 1),
    now,
    query,
    listQuery,
    order,
    setOrder,
    go,
    scoreColumn,
    setScoreColumn,
    setRange,
    zoom,
    clear: () => go(clearedSearch(range)),
  };
}

export type ListWindow = ReturnType<typeof useListWindow>;

/**
 * Above a list: the search box over `q`, your saved views, the folded filters, the chart of the window
 * (drag to zoom, click to drill) and "Reset zoom" while zoomed.
 */
export function WindowControls({
  projectId,
  page,
  win,
  listReady = true,
}: {
  projectId: string;
  page: 'runs' | 'traces';
  win: ListWindow;
  /** Whether the list's first page is there (or failed): the chart is read after it, so the first rows never wait for it. */
  listReady?: boolean;
}) {
  const { filters, range } = win;
  const [folded, setFolded] = useChartFold(page);
  const urlQ = typeof filters.q === 'string' ? filters.q : '';
  const [q, setQ] = useState(urlQ);
  // The URL is the truth: a saved view, a removed chip or Back changes the box too.
  useEffect(() => setQ(urlQ), [urlQ]);
  const submitSearch = (event: FormEvent) => {
    event.preventDefault();
    const params = new URLSearchParams(win.search);
    if (q.trim()) params.set('q', q.trim());
    else params.delete('q');
    win.go(params);
  };
  return (
    <div className="sl-window-controls">
      <div className="sl-list-bar">
        <form className="sl-search" role="search" aria-label={`Search ${page}`} onSubmit={submitSearch}>
          <input
            type="search"
            aria-label="Search inputs, outputs, errors and names"
            placeholder="Search inputs, outputs, errors and names"
            value={q}
            onChange={(e) => setQ(e.target.value)}
          />
          <Button type="submit">Search</Button>
        </form>
        <SavedViews projectId={projectId} page={page} search={win.search} onApply={win.go} />
      </div>
      <RunFilters
        projectId={projectId}
        filters={filters}
        range={range}
        onApply={win.go}
        searchText={win.searchText}
        scoreColumn={win.scoreColumn}
        defaultOpen={false}
      />
      <RunsChart
        projectId={projectId}
        counting={page}
        filters={filters}
        range={range}
        onRange={win.setRange}
        onZoom={win.zoom}
        tick={win.tick}
        now={win.now}
        folded={folded}
        onFold={setFolded}
        hold={!listReady}
      />
      {(filters.startedAfter || filters.startedBefore) && (
        <p>
          <Button variant="ghost" onClick={() => win.setRange(range)}>
            Reset zoom
          </Button>
        </p>
      )}
    </div>
  );
}

/** The list's heading and its live count: "N shown, newest first — scroll for more". */
export function ListStatus({
  title,
  count,
  hasMore,
  loading,
  order = 'desc',
}: {
  title: string;
  count: number;
  hasMore: boolean;
  loading: boolean;
  order?: ListOrder;
}) {
  return (
    <div className="sl-list-meta">
      <h2>{title}</h2>
      <span className="muted" role="status" aria-live="polite">
        {count > 0
          ? `${fmtNumber(count)} shown, ${order === 'asc' ? 'oldest' : 'newest'} first${hasMore ? ' — scroll for more' : ''}`
          : loading
            ? 'Loading…'
            : ''}
      </span>
    </div>
  );
}
