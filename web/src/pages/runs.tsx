import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { api, ApiError } from '../api.js';
import { ProjectTabs } from '../components/layout.js';
import { Button, Chart, Empty, ErrorBox, Field, Loading, LoadMore, PageHeader, StatusBadge } from '../components/ui.js';
import { fmtCost, fmtDate, fmtMs, fmtNumber } from '../format.js';
import { useAsync, useList } from '../hooks.js';
import { Link, useLocation } from '../router.js';
import type { Run, RunMetrics } from '../types.js';
import {
  Breadcrumbs,
  fmtInstant,
  fromLocalInput,
  rememberRunsSearch,
  RUN_KINDS,
  RUN_STATUSES,
  setQuery,
  toLocalInput,
  totalTokens,
  useDocumentTitle,
  useProject,
} from './runs/shared.js';
import './runs/runs.css';

type Query = Record<string, string | string[] | undefined>;

/** The list filters kept in the URL under their API names (plus `tag` repeated and `metadata.<key>`). */
const SINGLE_KEYS = ['status', 'kind', 'name', 'model', 'traceId', 'parentRunId', 'startedAfter', 'startedBefore'] as const;

const FILTER_LABELS: Record<string, string> = {
  status: 'Status',
  kind: 'Kind',
  name: 'Name',
  model: 'Model',
  traceId: 'Trace id',
  parentRunId: 'Parent run',
  startedAfter: 'Started after',
  startedBefore: 'Started before',
  tag: 'Tag',
};

/** The runs-list query (API names) held in the page's URL. */
function filtersFromSearch(search: URLSearchParams): Query {
  const query: Query = {};
  for (const key of SINGLE_KEYS) {
    const value = search.get(key);
    if (value !== null && value !== '') query[key] = value;
  }
  const tags = search.getAll('tag').filter((t) => t !== '');
  if (tags.length > 0) query.tag = tags;
  for (const [key, value] of search) if (key.startsWith('metadata.') && value !== '' && query[key] === undefined) query[key] = value;
  return query;
}

interface Draft {
  status: string;
  kind: string;
  name: string;
  model: string;
  tags: string;
  traceId: string;
  rootsOnly: boolean;
  startedAfter: string;
  startedBefore: string;
  metaKey: string;
  metaValue: string;
}

function draftFromFilters(filters: Query): Draft {
  const str = (key: string) => (typeof filters[key] === 'string' ? (filters[key] as string) : '');
  const meta = Object.entries(filters).find(([key]) => key.startsWith('metadata.'));
  return {
    status: str('status'),
    kind: str('kind'),
    name: str('name'),
    model: str('model'),
    tags: ((filters.tag as string[] | undefined) ?? []).join(', '),
    traceId: str('traceId'),
    rootsOnly: str('parentRunId') === 'null',
    startedAfter: toLocalInput(str('startedAfter') || null),
    startedBefore: toLocalInput(str('startedBefore') || null),
    metaKey: meta ? meta[0].slice('metadata.'.length) : '',
    metaValue: meta && typeof meta[1] === 'string' ? meta[1] : '',
  };
}

/** The URL query for a draft; timestamps left as they were keep their exact value. */
function searchFromDraft(draft: Draft, current: Query, range: string): URLSearchParams {
  const params = new URLSearchParams();
  const set = (key: string, value: string) => {
    if (value.trim() !== '') params.set(key, value.trim());
  };
  set('status', draft.status);
  set('kind', draft.kind);
  set('name', draft.name);
  set('model', draft.model);
  for (const tag of new Set(
    draft.tags
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
  ))
    params.append('tag', tag);
  set('traceId', draft.traceId);
  const parent = typeof current.parentRunId === 'string' ? current.parentRunId : '';
  if (draft.rootsOnly) params.set('parentRunId', 'null');
  else if (parent && parent !== 'null') params.set('parentRunId', parent);
  for (const key of ['startedAfter', 'startedBefore'] as const) {
    const before = typeof current[key] === 'string' ? (current[key] as string) : '';
    if (draft[key] !== '' && draft[key] === toLocalInput(before || null)) params.set(key, before);
    else set(key, fromLocalInput(draft[key]));
  }
  if (draft.metaKey.trim() !== '' && draft.metaValue !== '') params.set(`metadata.${draft.metaKey.trim()}`, draft.metaValue);
  if (range !== DEFAULT_RANGE) params.set('range', range);
  return params;
}

const RANGES = {
  '1h': { label: 'Last hour', ms: 3_600_000, bucket: '1m' },
  '24h': { label: 'Last 24 hours', ms: 86_400_000, bucket: '1h' },
  '7d': { label: 'Last 7 days', ms: 7 * 86_400_000, bucket: '1h' },
  '30d': { label: 'Last 30 days', ms: 30 * 86_400_000, bucket: '1d' },
} as const;
type Range = keyof typeof RANGES;
const DEFAULT_RANGE: Range = '24h';
const isRange = (value: string | null): value is Range => value !== null && value in RANGES;

/** Whether trying the same request again may help (not for a bad filter, a missing project or a forbidden read). */
const retryable = (error: unknown) => !(error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 429);

/** A project's runs: the chart of counts and errors, every list filter, and the newest-first table. */
export function RunsPage({ projectId }: { projectId: string }) {
  const { search } = useLocation();
  const searchText = search.toString();
  const filters = useMemo(() => filtersFromSearch(search), [searchText]); // eslint-disable-line react-hooks/exhaustive-deps
  const rangeParam = search.get('range');
  const range: Range = isRange(rangeParam) ? rangeParam : DEFAULT_RANGE;
  const project = useProject(projectId);
  const [tick, setTick] = useState(0);
  const runsPath = `/projects/${encodeURIComponent(projectId)}/runs`;
  const list = useList<Run>(runsPath, filters, 50);
  useDocumentTitle(project.data ? `Runs · ${project.data.name}` : 'Runs');
  // The run page links back to the list as it was filtered.
  useEffect(() => rememberRunsSearch(projectId, searchText), [projectId, searchText]);

  const go = (params: URLSearchParams) => {
    const text = params.toString();
    if (text === searchText) return;
    setQuery(`/projects/${projectId}/runs`, params);
  };

  const setRange = (next: Range) => {
    const params = new URLSearchParams(search);
    if (next === DEFAULT_RANGE) params.delete('range');
    else params.set('range', next);
    go(params);
  };

  if (project.error) {
    return (
      <>
        <Breadcrumbs items={[{ label: 'Projects', to: '/projects' }, { label: 'Runs' }]} />
        <ErrorBox error={project.error} onRetry={retryable(project.error) ? project.reload : undefined} />
      </>
    );
  }

  const activeCount = Object.keys(filters).length;

  return (
    <>
      <Breadcrumbs items={[{ label: 'Projects', to: '/projects' }, { label: project.data?.name ?? '…' }]} />
      <PageHeader
        title={<span className="sl-title">{project.data?.name ?? 'Runs'}</span>}
        subtitle={project.data?.description || undefined}
        actions={
          <Button
            onClick={() => {
              setTick((t) => t + 1);
              list.reload();
            }}
            disabled={list.loading && list.items.length === 0}
          >
            ↻ Refresh
          </Button>
        }
      />
      <ProjectTabs projectId={projectId} active="runs" />

      <RunFilters filters={filters} range={range} onApply={go} searchText={searchText} />

      <RunsChart projectId={projectId} filters={filters} range={range} onRange={setRange} tick={tick} />

      <div className="sl-list-meta">
        <h2>Runs</h2>
        <span className="muted" role="status" aria-live="polite">
          {list.items.length > 0 ? `${fmtNumber(list.items.length)} shown, newest first${list.hasMore ? ' — scroll for more' : ''}` : ''}
        </span>
      </div>

      {list.error !== null && list.items.length === 0 ? (
        <ErrorBox error={list.error} onRetry={retryable(list.error) ? list.reload : undefined} />
      ) : list.items.length === 0 && list.loading ? (
        <Loading label="Loading runs…" />
      ) : list.items.length === 0 && list.loaded ? (
        activeCount > 0 ? (
          <Empty title="No run matches these filters">
            <p>Change or clear the filters to see more runs.</p>
            <Button onClick={() => go(new URLSearchParams(range === DEFAULT_RANGE ? '' : `range=${range}`))}>Clear filters</Button>
          </Empty>
        ) : (
          <Empty title="No runs yet">
            <p>
              Send runs to <code>POST /v1/projects/{projectId}/runs</code> (or <code>…/runs/batch</code>) with a personal access token from{' '}
              <Link to="/settings">Settings</Link>.
            </p>
          </Empty>
        )
      ) : list.items.length > 0 ? (
        <RunsTable runs={list.items} projectId={projectId} />
      ) : null}

      {list.error !== null && list.items.length > 0 && <ErrorBox error={list.error} onRetry={list.loadMore} />}
      <LoadMore auto hasMore={list.hasMore && list.error === null} loading={list.loading} onLoadMore={list.loadMore} />
      {!list.hasMore && list.items.length > 0 && !list.loading && <p className="sl-end">End of the list.</p>}
    </>
  );
}

/** Every runs-list filter as a labelled control; selects and the checkbox apply at once, the rest on submit. */
function RunFilters({ filters, range, onApply, searchText }: { filters: Query; range: Range; onApply: (params: URLSearchParams) => void; searchText: string }) {
  const [draft, setDraft] = useState<Draft>(() => draftFromFilters(filters));
  const [open, setOpen] = useState(() => typeof window === 'undefined' || !window.matchMedia?.('(max-width: 720px)').matches);
  const [problem, setProblem] = useState('');
  // The URL is the truth: back/forward and chip removal reset the form.
  useEffect(() => {
    setDraft(draftFromFilters(filters));
    setProblem('');
  }, [searchText]); // eslint-disable-line react-hooks/exhaustive-deps

  const apply = (next: Draft) => {
    if ((next.metaKey.trim() === '') !== (next.metaValue === '')) {
      setProblem('Give both a metadata key and a value, or neither.');
      return;
    }
    setProblem('');
    onApply(searchFromDraft(next, filters, range));
  };
  const change = <K extends keyof Draft>(key: K, value: Draft[K], now = false) => {
    const next = { ...draft, [key]: value };
    setDraft(next);
    if (now) apply(next);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    apply(draft);
  };

  const chips: { key: string; label: string; value: string; remove: () => void }[] = [];
  const without = (key: string, value?: string) => {
    const params = new URLSearchParams(searchText);
    if (value === undefined) params.delete(key);
    else {
      const rest = params.getAll(key).filter((v) => v !== value);
      params.delete(key);
      for (const v of rest) params.append(key, v);
    }
    onApply(params);
  };
  for (const [key, value] of Object.entries(filters)) {
    if (Array.isArray(value))
      for (const v of value) chips.push({ key: `${key}=${v}`, label: FILTER_LABELS[key] ?? key, value: v, remove: () => without(key, v) });
    else if (value !== undefined) {
      const label = key.startsWith('metadata.') ? `metadata.${key.slice(9)}` : (FILTER_LABELS[key] ?? key);
      const shown =
        key === 'parentRunId' && value === 'null' ? 'roots only' : key.startsWith('started') && !Number.isNaN(Date.parse(value)) ? fmtInstant(value) : value;
      chips.push({ key, label: key === 'parentRunId' && value === 'null' ? 'Runs' : label, value: shown, remove: () => without(key) });
    }
  }

  return (
    <section className="panel" aria-labelledby="run-filters-title">
      <div className="sl-filter-head">
        <h2 id="run-filters-title">
          <button type="button" className="button ghost sl-filter-toggle" aria-expanded={open} aria-controls="run-filters" onClick={() => setOpen(!open)}>
            {open ? '▾' : '▸'} Filters{chips.length > 0 ? ` (${chips.length} active)` : ''}
          </button>
        </h2>
        {chips.length > 0 && (
          <Button variant="ghost" onClick={() => onApply(new URLSearchParams(range === DEFAULT_RANGE ? '' : `range=${range}`))}>
            Clear all
          </Button>
        )}
      </div>
      {chips.length > 0 && (
        <ul className="sl-chips" aria-label="Active filters" style={{ listStyle: 'none', padding: 0, margin: '8px 0 0' }}>
          {chips.map((chip) => (
            <li key={chip.key} className="sl-chip">
              <span className="muted">{chip.label}:</span> <code title={chip.value}>{chip.value}</code>
              {/* Named by its content, not aria-label: the filter's own label stays unique for getByLabel-style lookups. */}
              <button type="button" onClick={chip.remove} title="Remove this filter">
                <span aria-hidden="true">✕</span>
                <span className="sl-sr-only">
                  Remove filter: {chip.label} {chip.value}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <form id="run-filters" className="sl-run-filters" onSubmit={submit} hidden={!open} role="search" aria-label="Run filters">
        <Field label="Status">
          <select value={draft.status} onChange={(e) => change('status', e.target.value, true)}>
            <option value="">Any</option>
            {RUN_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Kind">
          <select value={draft.kind} onChange={(e) => change('kind', e.target.value, true)}>
            <option value="">Any</option>
            {RUN_KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Name">
          <input value={draft.name} onChange={(e) => change('name', e.target.value)} placeholder="Exact run name" autoComplete="off" maxLength={256} />
        </Field>
        <Field label="Model">
          <input value={draft.model} onChange={(e) => change('model', e.target.value)} placeholder="e.g. gpt-4o" autoComplete="off" maxLength={256} />
        </Field>
        <Field label="Tag">
          <input value={draft.tags} onChange={(e) => change('tags', e.target.value)} placeholder="a, b (all must match)" autoComplete="off" />
        </Field>
        <Field label="Trace id">
          <input value={draft.traceId} onChange={(e) => change('traceId', e.target.value)} autoComplete="off" maxLength={128} spellCheck={false} />
        </Field>
        <Field label="Started after">
          <input type="datetime-local" value={draft.startedAfter} onChange={(e) => change('startedAfter', e.target.value)} />
        </Field>
        <Field label="Started before">
          <input type="datetime-local" value={draft.startedBefore} onChange={(e) => change('startedBefore', e.target.value)} />
        </Field>
        <Field label="Metadata key">
          <input value={draft.metaKey} onChange={(e) => change('metaKey', e.target.value)} placeholder="e.g. userId" autoComplete="off" spellCheck={false} />
        </Field>
        <Field label="Metadata value">
          <input
            value={draft.metaValue}
            onChange={(e) => change('metaValue', e.target.value)}
            placeholder="Exact value"
            autoComplete="off"
            spellCheck={false}
          />
        </Field>
        <div className="field">
          <label className="sl-check">
            <input type="checkbox" checked={draft.rootsOnly} onChange={(e) => change('rootsOnly', e.target.checked, true)} />
            Roots only
          </label>
        </div>
        <div className="sl-filter-buttons">
          <Button type="submit" variant="primary">
            Apply filters
          </Button>
        </div>
        {problem && (
          <p role="alert" className="sl-filter-problem">
            {problem}
          </p>
        )}
      </form>
    </section>
  );
}

function bucketLabel(iso: string, range: Range): string {
  const d = new Date(iso);
  if (range === '30d') return d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  if (range === '7d')
    return `${d.toLocaleDateString(undefined, { weekday: 'short' })} ${d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}`;
  return d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

/** Run counts and errors per bucket over the chosen range, for the same filters as the table. */
function RunsChart({
  projectId,
  filters,
  range,
  onRange,
  tick,
}: {
  projectId: string;
  filters: Query;
  range: Range;
  onRange: (range: Range) => void;
  tick: number;
}) {
  const metrics = useAsync(
    () => {
      const to = Date.now();
      const { ms, bucket } = RANGES[range];
      return api.get<RunMetrics>(`/projects/${encodeURIComponent(projectId)}/runs/metrics`, {
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
  const errorRate = total && total.count > 0 ? (total.errorCount / total.count) * 100 : null;

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
            <Stat
              label="Errors"
              value={`${fmtNumber(total?.errorCount)}${errorRate !== null ? ` (${errorRate < 10 ? errorRate.toFixed(1) : Math.round(errorRate)}%)` : ''}`}
            />
            <Stat label="Latency p50" value={fmtMs(total?.latencyP50)} />
            <Stat label="Latency p95" value={fmtMs(total?.latencyP95)} />
            <Stat label="Tokens" value={fmtNumber(total?.totalTokens)} />
            <Stat label="Cost" value={fmtCost(total?.cost)} />
          </dl>
          <div className="sl-chart-box">
            <Chart
              ariaLabel="Runs and errors over time"
              labels={series.map((p) => bucketLabel(p.start, range))}
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

/** A short start time: the time today, else the date and time. */
function fmtStart(iso: string): string {
  const d = new Date(iso);
  const now = new Date();
  const sameDay = d.toDateString() === now.toDateString();
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  if (sameDay) return time;
  return `${d.toLocaleDateString(undefined, { month: 'short', day: 'numeric', ...(d.getFullYear() !== now.getFullYear() ? { year: 'numeric' } : {}) })}, ${time}`;
}

function RunsTable({ runs, projectId }: { runs: Run[]; projectId: string }) {
  return (
    <div className="table-wrap">
      <table className="sl-runs-table">
        <caption className="sl-sr-only">Runs, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">Name</th>
            <th scope="col" className="hide-narrow">
              Kind
            </th>
            <th scope="col" className="hide-narrow">
              Model
            </th>
            <th scope="col" className="hide-narrow">
              Started
            </th>
            <th scope="col" className="num">
              Latency
            </th>
            <th scope="col" className="num hide-narrow">
              Tokens
            </th>
            <th scope="col" className="num hide-narrow">
              Cost
            </th>
            <th scope="col" className="hide-narrow">
              Tags
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id}>
              <td>
                <StatusBadge status={run.status} />
              </td>
              <td className="sl-name-cell">
                {run.parentRunId !== null && (
                  <span className="sl-child-mark" title="Child run">
                    ↳<span className="sl-sr-only">child run:</span>
                  </span>
                )}
                <Link to={`/projects/${projectId}/runs/${encodeURIComponent(run.id)}`} className="sl-strong-link">
                  {run.name}
                </Link>
                <span className="sl-sub sl-show-narrow">
                  {run.kind}
                  {run.model ? ` · ${run.model}` : ''} · {fmtStart(run.startTime)}
                </span>
              </td>
              <td className="hide-narrow">{run.kind}</td>
              <td className="hide-narrow">{run.model ?? <span className="muted">—</span>}</td>
              <td className="hide-narrow sl-nowrap">
                <time dateTime={run.startTime} title={fmtDate(run.startTime)}>
                  {fmtStart(run.startTime)}
                </time>
              </td>
              <td className="num">{run.status === 'running' && run.latencyMs === null ? <span className="muted">running</span> : fmtMs(run.latencyMs)}</td>
              <td className="num hide-narrow">{fmtNumber(totalTokens(run))}</td>
              <td className="num hide-narrow">{fmtCost(run.cost)}</td>
              <td className="hide-narrow">
                {run.tags.length > 0 ? (
                  <span className="sl-tags">
                    {run.tags.slice(0, 4).map((tag) => (
                      <span key={tag} className="sl-tag" title={tag}>
                        {tag}
                      </span>
                    ))}
                    {run.tags.length > 4 && <span className="muted">+{run.tags.length - 4}</span>}
                  </span>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
