import { EmptyList, narrow, num, PagedTable, type Column } from '../../components/paged.js';
import { Button, StatusBadge } from '../../components/ui.js';
import { fmtCost, fmtDate, fmtMs, fmtNumber, fmtStart } from '../../format.js';
import type { List } from '../../hooks.js';
import { Link } from '../../router.js';
import type { Run } from '../../types.js';

const COLUMNS: Column[] = [
  'Status',
  'Name',
  narrow('Kind'),
  narrow('Model'),
  narrow('Started'),
  num('Latency'),
  num('Tokens', 'hide-narrow'),
  num('Cost', 'hide-narrow'),
  narrow('Tags'),
];

/** The runs, newest first, a page at a time as the end of the table scrolls into view. */
export function RunsTable({
  list,
  projectId,
  filtered,
  onClear,
  retryable,
}: {
  list: List<Run>;
  projectId: string;
  /** Whether filters are in force (the empty state then offers to clear them). */
  filtered: boolean;
  onClear: () => void;
  retryable: (error: unknown) => boolean;
}) {
  return (
    <PagedTable
      list={list}
      auto
      retryable={retryable}
      loadingLabel="Loading runs…"
      end={<p className="sl-end">End of the list.</p>}
      empty={
        <EmptyList
          one="run"
          many="runs"
          filtered={filtered}
          whenFiltered={
            <>
              <p>Change or clear the filters to see more runs.</p>
              <Button onClick={onClear}>Clear filters</Button>
            </>
          }
        >
          <p>
            Send runs to <code>POST /v1/projects/{projectId}/runs</code> (or <code>…/runs/batch</code>) with a personal access token from{' '}
            <Link to="/settings">Settings</Link>.
          </p>
        </EmptyList>
      }
      className="sl-runs-table"
      caption="Runs, newest first"
      columns={COLUMNS}
      row={(run) => <RunRow key={run.id} run={run} projectId={projectId} />}
    />
  );
}

function RunRow({ run, projectId }: { run: Run; projectId: string }) {
  return (
    <tr>
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
      <td className="num hide-narrow">{fmtNumber(run.usage?.totalTokens)}</td>
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
  );
}
