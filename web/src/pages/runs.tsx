import { useEffect } from 'react';
import { ApiError, runs } from '../api.js';
import { ExportButton } from '../components/export-button.js';
import { ProjectTabs } from '../components/layout.js';
import { Button, ErrorBox, PageHeader } from '../components/ui.js';
import { useDocumentTitle, useList, useProject } from '../hooks.js';
import { RunsList } from './runs/rows.js';
import { Breadcrumbs, rememberRunsSearch } from './runs/shared.js';
import { ListStatus, useListWindow, WindowControls } from './runs/window.js';
import './runs/runs.css';
import './trace/trace.css';

/** Whether trying the same request again may help (not for a bad filter, a missing project or a forbidden read). */
const retryable = (error: unknown) => !(error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 429);

/** A project's runs: search, filters and the chart over one time window, and that window's runs newest first in windowed rows. */
export function RunsPage({ projectId }: { projectId: string }) {
  const win = useListWindow(`/projects/${projectId}/runs`);
  const project = useProject(projectId);
  const list = useList(runs.list(projectId), win.listQuery, 100);
  useDocumentTitle('Runs', project.data?.name);
  // The run page links back to the list as it was filtered.
  useEffect(() => rememberRunsSearch(projectId, win.searchText), [projectId, win.searchText]);

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
          <>
            <ExportButton projectId={projectId} what="runs" query={win.listQuery} />
            <Button
              onClick={() => {
                win.refresh();
                list.reload();
              }}
              disabled={list.loading && list.items.length === 0}
            >
              ↻ Refresh
            </Button>
          </>
        }
      />
      <ProjectTabs projectId={projectId} active="runs" />
      <WindowControls projectId={projectId} page="runs" win={win} listReady={list.loaded || Boolean(list.error)} />
      <ListStatus title="Runs" count={list.items.length} hasMore={list.hasMore} loading={list.loading} order={win.order} />
      <RunsList list={list} projectId={projectId} win={win} retryable={retryable} />
    </>
  );
}
