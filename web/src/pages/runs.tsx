import { useEffect, useMemo, useState } from 'react';
import { ApiError, runs } from '../api.js';
import { ProjectTabs } from '../components/layout.js';
import { Button, ErrorBox, PageHeader } from '../components/ui.js';
import { fmtNumber } from '../format.js';
import { useDocumentTitle, useList, useProject } from '../hooks.js';
import { useLocation } from '../router.js';
import { RunsChart } from './runs/chart.js';
import { RunFilters } from './runs/filters.js';
import { clearedSearch, DEFAULT_RANGE, filtersFromSearch, isRange, type Range } from './runs/query.js';
import { Breadcrumbs, rememberRunsSearch, setQuery } from './runs/shared.js';
import { RunsTable } from './runs/table.js';
import './runs/runs.css';

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
  const list = useList(runs.list(projectId), filters, 50);
  useDocumentTitle('Runs', project.data?.name);
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

      <RunsTable list={list} projectId={projectId} filtered={Object.keys(filters).length > 0} onClear={() => go(clearedSearch(range))} retryable={retryable} />
    </>
  );
}
