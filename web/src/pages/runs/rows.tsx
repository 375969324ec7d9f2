/** The runs list: a fixed-height row per run, windowed as the page scrolls (10,000 runs cost what 30 do), and its empty states. */
import { memo } from 'react';
import { runs } from '../../api.js';
import { StartSortHeading } from '../../components/list-page.js';
import { EmptyList } from '../../components/paged.js';
import { ScoreChips, ScoreColumnHeading, useScoreNames } from '../../components/score-chips.js';
import { Button, Empty, ErrorBox, StatusBadge } from '../../components/ui.js';
import { VirtualRows } from '../../components/virtual-rows.js';
import { fmtCost, fmtDate, fmtMs, fmtNumber, fmtStart } from '../../format.js';
import { useAsync, type List } from '../../hooks.js';
import { Link } from '../../router.js';
import type { Run } from '../../types.js';
import { previewOf } from '../../../../src/features/traces/traces.preview.js';
import { RANGES } from './query.js';
import type { ListWindow } from './window.js';

const ROW = 52;
const TAGS_SHOWN = 3;

/**
 * The headings and their cells' classes: a run's start under its name and its kind under its model, so that
 * its input and output keep room to be read (`hide-medium` columns give way below 1100 px, `hide-narrow`
 * ones on a phone).
 */
const COLUMNS: [string, string][] = [
  ['Status', 'sl-rr-status'],
  ['Name and start', 'sl-rr-name'],
  ['Model and kind', 'sl-rr-model hide-narrow'],
  ['Input and output', 'sl-tr-io sl-rr-io'],
  ['Latency', 'sl-tr-num'],
  ['Tokens', 'sl-tr-num hide-narrow hide-medium'],
  ['Cost', 'sl-tr-num hide-narrow hide-medium'],
  ['Scores', 'sl-rr-scores hide-narrow'],
  ['Tags', 'sl-rr-tags hide-narrow hide-medium'],
];
const cls = (heading: string) => COLUMNS.find(([h]) => h === heading)![1];

// Memoised: scrolling re-renders the window of rows, and a row that stays in view is not redrawn (nor its previews recomputed).
const RunRow = memo(function RunRow({ run, base, scoreColumn }: { run: Run; base: string; scoreColumn: string | undefined }) {
  const input = previewOf(run.inputs, 'input');
  const output = previewOf(run.outputs, 'output');
  return (
    <>
      <span role="cell" className={cls('Status')}>
        <StatusBadge status={run.status} />
      </span>
      <span role="cell" className={cls('Name and start')}>
        <span className="sl-rr-line">
          {run.parentRunId !== null && (
            <span className="sl-child-mark" title="Child run">
              ↳<span className="sl-sr-only">child run:</span>
            </span>
          )}
          <Link to={`${base}/runs/${encodeURIComponent(run.id)}`} className="sl-strong-link" title={run.name} data-row-link="">
            {run.name}
          </Link>
        </span>
        <time className="sl-rr-sub" dateTime={run.startTime} title={fmtDate(run.startTime)}>
          {fmtStart(run.startTime)}
        </time>
      </span>
      <span role="cell" className={cls('Model and kind')}>
        <span className="sl-rr-line" title={run.model ?? undefined}>
          {run.model ?? <span className="muted">—</span>}
        </span>
        <span className="sl-rr-sub">{run.kind}</span>
      </span>
      <span role="cell" className={cls('Input and output')}>
        <span className="sl-tr-preview" title={input ?? ''}>
          <span className="muted">in </span>
          {input ?? '—'}
        </span>
        <span className="sl-tr-preview" title={output ?? run.error ?? ''}>
          <span className="muted">out </span>
          {output ?? (run.error ? <span className="sl-rr-error">{run.error}</span> : run.status === 'running' ? 'running…' : '—')}
        </span>
      </span>
      <span role="cell" className={cls('Latency')}>
        {run.status === 'running' && run.latencyMs === null ? <span className="muted">running</span> : fmtMs(run.latencyMs)}
      </span>
      {/* Estimated counts (the run reported none) and the cost computed from them are marked `≈`. */}
      <span role="cell" className={cls('Tokens')} title={run.usage?.estimated ? 'Estimated from the run’s texts: it reported no tokens' : undefined}>
        {run.usage?.estimated ? `≈${fmtNumber(run.usage.totalTokens)}` : fmtNumber(run.usage?.totalTokens)}
      </span>
      <span role="cell" className={cls('Cost')} title={run.usage?.estimated && run.costSource === 'computed' ? 'Computed from estimated tokens' : undefined}>
        {run.usage?.estimated && run.costSource === 'computed' ? `≈${fmtCost(run.cost)}` : fmtCost(run.cost)}
      </span>
      <span role="cell" className={cls('Scores')}>
        <ScoreChips scores={run.scores} only={scoreColumn} max={2} />
      </span>
      <span role="cell" className={cls('Tags')} title={run.tags.join(', ')}>
        {run.tags.length === 0 ? (
          <span className="muted">—</span>
        ) : (
          <>
            {run.tags.slice(0, TAGS_SHOWN).map((tag) => (
              <span key={tag} className="sl-tag">
                {tag}
              </span>
            ))}
            {run.tags.length > TAGS_SHOWN && <span className="muted">+{run.tags.length - TAGS_SHOWN}</span>}
          </>
        )}
      </span>
    </>
  );
});

/**
 * The window's runs, newest or oldest first, the next page loaded as the view nears the end; the first page's
 * error in place of the list, a later page's under it (its Retry asks for that page again).
 */
export function RunsList({ list, projectId, win, retryable }: { list: List<Run>; projectId: string; win: ListWindow; retryable: (error: unknown) => boolean }) {
  const base = `/projects/${projectId}`;
  const scoreNames = useScoreNames();
  if (list.error !== null && list.items.length === 0) return <ErrorBox error={list.error} onRetry={retryable(list.error) ? list.reload : undefined} />;
  if (list.items.length === 0 && list.loaded && !list.loading) return <NoRuns projectId={projectId} win={win} />;
  return (
    <>
      <VirtualRows
        label="Runs"
        items={list.items}
        rowHeight={ROW}
        scroll="page"
        onNearEnd={list.hasMore && list.error === null ? list.loadMore : undefined}
        header={
          <div role="row" className="sl-tr-head">
            {COLUMNS.map(([heading, className]) =>
              heading === 'Name and start' ? (
                <StartSortHeading key={heading} label={heading} className={className} order={win.order} onOrder={win.setOrder} />
              ) : (
                <span key={heading} role="columnheader" className={className}>
                  {heading === 'Scores' ? (
                    <ScoreColumnHeading names={scoreNames} rows={list.items} value={win.scoreColumn} onChange={win.setScoreColumn} />
                  ) : (
                    heading
                  )}
                </span>
              ),
            )}
          </div>
        }
        renderRow={(run) => <RunRow run={run} base={base} scoreColumn={win.scoreColumn} />}
      />
      {list.error !== null && <ErrorBox error={list.error} onRetry={list.loadMore} />}
    </>
  );
}

/**
 * No run in the window: with filters (a zoom too), clearing them; else, when the project has runs
 * outside the range, a longer one; when it has none at all, how to send the first.
 */
function NoRuns({ projectId, win }: { projectId: string; win: ListWindow }) {
  const any = useAsync(() => (win.filtered ? Promise.resolve(null) : runs.list(projectId).page({ limit: '1' })), `any-run:${projectId}|${win.filtered}`);
  if (win.filtered)
    return (
      <EmptyList one="run" many="runs" filtered whenFiltered={<Button onClick={win.clear}>Clear the filters</Button>}>
        {null}
      </EmptyList>
    );
  if (any.loading) return null;
  if (any.data?.items.length !== 0)
    return (
      <Empty title={`No runs in the ${RANGES[win.range].label.toLowerCase()}`}>
        {win.range !== '30d' && <Button onClick={() => win.setRange('30d')}>Show the last 30 days</Button>}
      </Empty>
    );
  return (
    <EmptyList one="run" many="runs" filtered={false}>
      <p>
        Send runs to <code>POST /v1/projects/{projectId}/runs</code> (or <code>…/runs/batch</code>) with a personal access token from{' '}
        <Link to="/settings">Settings</Link>.
      </p>
    </EmptyList>
  );
}
