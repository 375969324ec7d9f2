import { traces } from '../api.js';
import { ProjectTabs } from '../components/layout.js';
import { ExportButton } from '../components/export-button.js';
import { StartSortHeading } from '../components/list-page.js';
import { Button, ErrorBox, PageHeader } from '../components/ui.js';
import { ScoreChips, ScoreColumnHeading, useScoreNames } from '../components/score-chips.js';
import { VirtualRows } from '../components/virtual-rows.js';
import { estimatedTitle, fmtMs, fmtStart, fmtTotalCost, fmtTotalTokens } from '../format.js';
import { useDocumentTitle, useList, useProject } from '../hooks.js';
import { Link, navigate } from '../router.js';
import type { Trace } from '../types.js';
import { Breadcrumbs } from './runs/shared.js';
import { ListStatus, useListWindow, WindowControls } from './runs/window.js';
import { Onboarding, useHasRuns } from './traces/onboarding.js';
import './runs/runs.css';
import './trace/trace.css';

const ROW = 52;

function TraceRow({ trace, base, scoreColumn }: { trace: Trace; base: string; scoreColumn: string | undefined }) {
  const open = () => navigate(`${base}/traces/${encodeURIComponent(trace.traceId)}`);
  return (
    <>
      <span role="cell" className="sl-tr-name">
        <Link to={`${base}/traces/${encodeURIComponent(trace.traceId)}`} onKeyDown={(e) => e.key === ' ' && open()} data-row-link="">
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
      <span role="cell" className="sl-tr-num hide-narrow" title={estimatedTitle(trace)}>
        {fmtTotalTokens(trace.usage)}
      </span>
      <span role="cell" className="sl-tr-num hide-narrow" title={estimatedTitle(trace)}>
        {fmtTotalCost(trace)}
      </span>
      <span role="cell" className="sl-tr-num">
        {trace.errorCount > 0 ? <span className="badge bad">{trace.errorCount}</span> : '0'}
      </span>
      <span role="cell" className="sl-rr-scores hide-narrow">
        <ScoreChips scores={trace.scores} rootScores={trace.rootScores} only={scoreColumn} max={2} />
      </span>
      <span role="cell" className="sl-tr-who">
        {trace.sessionId ? <Link to={`${base}/sessions/${encodeURIComponent(trace.sessionId)}`}>{trace.sessionId}</Link> : <span className="muted">—</span>}
        {trace.userId ? <Link to={`${base}/users/${encodeURIComponent(trace.userId)}`}>{trace.userId}</Link> : null}
      </span>
    </>
  );
}

/** A project's home: its traces newest first or oldest first (root rows with previews), the chart over the same window, search and filters. */
export function TracesPage({ projectId }: { projectId: string }) {
  const base = `/projects/${projectId}`;
  const win = useListWindow(`${base}/traces`);
  const project = useProject(projectId);
  const list = useList(traces.list(projectId), win.listQuery, 100);
  const scoreNames = useScoreNames();
  useDocumentTitle('Traces', project.data?.name);
  const empty = list.items.length === 0 && !list.loading && list.loaded && !list.error;
  // An empty window of an unfiltered list may be an empty project: then it shows how to send the first trace.
  const hasRuns = useHasRuns(projectId, empty && !win.filtered);
  const reload = () => {
    win.refresh();
    list.reload();
  };

  return (
    <>
      <Breadcrumbs items={[{ label: 'Projects', to: '/projects' }, { label: project.data?.name ?? '…' }]} />
      <PageHeader
        title={<span className="sl-title">{project.data?.name ?? 'Traces'}</span>}
        actions={
          <>
            <ExportButton projectId={projectId} what="traces" query={win.listQuery} />
            <Button onClick={reload}>↻ Refresh</Button>
          </>
        }
      />
      <ProjectTabs projectId={projectId} active="traces" />
      <WindowControls projectId={projectId} page="traces" win={win} listReady={list.loaded || Boolean(list.error)} />
      <ListStatus title="Traces" count={list.items.length} hasMore={list.hasMore} loading={list.loading} order={win.order} />
      {list.error ? (
        <ErrorBox error={list.error} onRetry={list.reload} />
      ) : empty && hasRuns.data === false ? (
        <Onboarding projectId={projectId} projectName={project.data?.name ?? projectId} onFirstRun={reload} />
      ) : empty ? (
        <p className="muted">
          No traces in this window{win.filtered ? ' match these filters' : ''}.{' '}
          {win.filtered && (
            <button type="button" className="link" onClick={win.clear}>
              Clear the filters
            </button>
          )}
        </p>
      ) : (
        <VirtualRows
          label="Traces"
          items={list.items}
          rowHeight={ROW}
          scroll="page"
          onNearEnd={list.hasMore ? list.loadMore : undefined}
          header={
            <div role="row" className="sl-tr-head">
              <StartSortHeading label="Trace" className="sl-tr-name" order={win.order} onOrder={win.setOrder} />
              {['Input and output', 'Latency', 'Tokens', 'Cost', 'Errors', 'Scores', 'Session, user'].map((h) => (
                <span
                  key={h}
                  role="columnheader"
                  className={
                    h.startsWith('Input')
                      ? 'sl-tr-io'
                      : h.startsWith('Session')
                        ? 'sl-tr-who'
                        : h === 'Scores'
                          ? 'sl-rr-scores hide-narrow'
                          : h === 'Tokens' || h === 'Cost'
                            ? 'sl-tr-num hide-narrow'
                            : 'sl-tr-num'
                  }
                >
                  {h === 'Scores' ? <ScoreColumnHeading names={scoreNames} rows={list.items} value={win.scoreColumn} onChange={win.setScoreColumn} /> : h}
                </span>
              ))}
            </div>
          }
          renderRow={(trace) => <TraceRow trace={trace} base={base} scoreColumn={win.scoreColumn} />}
        />
      )}
    </>
  );
}
