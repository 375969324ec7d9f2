import { useMemo } from 'react';
import { endUsers, sessions } from '../api.js';
import { ProjectTabs } from '../components/layout.js';
import { num, PagedTable } from '../components/paged.js';
import { ScoreChips } from '../components/score-chips.js';
import { Empty, PageHeader } from '../components/ui.js';
import { estimatedTitle, fmtNumber, fmtStart, fmtTotalCost, fmtTotalTokens } from '../format.js';
import { useDocumentTitle, useList, useProject } from '../hooks.js';
import { Link, useLocation } from '../router.js';
import type { EndUser, Session } from '../types.js';
import { RunFilters } from './runs/filters.js';
import { DEFAULT_RANGE, filtersFromSearch, isFiltered } from './runs/query.js';
import { Breadcrumbs, setQuery } from './runs/shared.js';

/** A project's sessions (conversations) or end users, newest activity first, with their totals; filtered as the runs are. */
export function ActivityPage({ projectId, kind }: { projectId: string; kind: 'sessions' | 'users' }) {
  const project = useProject(projectId);
  const session = kind === 'sessions';
  const { search } = useLocation();
  const searchText = search.toString();
  // The runs' filters (pickers, score filters, experiment traffic left out by default), held in the URL as on the traces page.
  const filters = useMemo(() => filtersFromSearch(search), [searchText]); // eslint-disable-line react-hooks/exhaustive-deps
  const list = useList<Session | EndUser>(session ? sessions.list(projectId) : endUsers.list(projectId), filters, 50);
  const title = session ? 'Sessions' : 'Users';
  useDocumentTitle(title, project.data?.name);
  const base = `/projects/${projectId}`;
  const idOf = (item: Session | EndUser) => ('sessionId' in item ? item.sessionId : item.userId);
  return (
    <>
      <Breadcrumbs items={[{ label: 'Projects', to: '/projects' }, { label: project.data?.name ?? '…', to: `${base}/traces` }, { label: title }]} />
      <PageHeader
        title={title}
        subtitle={session ? 'Conversations: runs that share a sessionId.' : 'The end users your application served: runs that share a userId.'}
      />
      <ProjectTabs projectId={projectId} active={kind} />
      <RunFilters
        projectId={projectId}
        filters={filters}
        range={DEFAULT_RANGE}
        onApply={(params) => setQuery(`${base}/${kind}`, params)}
        searchText={searchText}
        defaultOpen={false}
      />
      <PagedTable
        list={list}
        caption={title}
        auto
        loadingLabel={`Loading ${kind}…`}
        empty={
          isFiltered(filters) ? (
            <Empty title={session ? 'No sessions match these filters' : 'No users match these filters'}>
              A {session ? 'session' : 'user'} is listed when one of its runs matches them all.
            </Empty>
          ) : (
            <Empty title={session ? 'No sessions yet' : 'No users yet'}>
              Runs with a <code>{session ? 'sessionId' : 'userId'}</code> appear here.
            </Empty>
          )
        }
        columns={[
          session ? 'Session' : 'User',
          'First activity',
          'Last activity',
          num('Traces'),
          num('Runs'),
          num('Tokens'),
          num('Cost'),
          num('Errors'),
          ...(session ? ['Scores'] : []),
        ]}
        row={(item) => (
          <tr key={idOf(item)}>
            <td>
              <Link to={`${base}/${kind}/${encodeURIComponent(idOf(item))}`} data-row-link="">
                <code>{idOf(item)}</code>
              </Link>
            </td>
            <td>{fmtStart(item.startTime)}</td>
            <td>{fmtStart(item.endTime)}</td>
            <td className="num">{fmtNumber(item.traceCount)}</td>
            <td className="num">{fmtNumber(item.runCount)}</td>
            <td className="num" title={estimatedTitle(item)}>
              {fmtTotalTokens(item.usage)}
            </td>
            <td className="num" title={estimatedTitle(item)}>
              {fmtTotalCost(item)}
            </td>
            <td className="num">{fmtNumber(item.errorCount)}</td>
            {'sessionId' in item && (
              <td className="sl-score-cell">
                <ScoreChips scores={item.scores} />
              </td>
            )}
          </tr>
        )}
      />
    </>
  );
}
