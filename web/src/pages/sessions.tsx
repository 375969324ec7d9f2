import { endUsers, sessions } from '../api.js';
import { ProjectTabs } from '../components/layout.js';
import { num, PagedTable } from '../components/paged.js';
import { Empty, PageHeader } from '../components/ui.js';
import { fmtCost, fmtNumber, fmtStart } from '../format.js';
import { useDocumentTitle, useList, useProject } from '../hooks.js';
import { Link } from '../router.js';
import type { EndUser, Session } from '../types.js';
import { Breadcrumbs } from './runs/shared.js';

/** A project's sessions (conversations) or end users, newest activity first, with their totals. */
export function ActivityPage({ projectId, kind }: { projectId: string; kind: 'sessions' | 'users' }) {
  const project = useProject(projectId);
  const session = kind === 'sessions';
  const list = useList<Session | EndUser>(session ? sessions.list(projectId) : endUsers.list(projectId), {}, 50);
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
      <PagedTable
        list={list}
        caption={title}
        auto
        loadingLabel={`Loading ${kind}…`}
        empty={
          <Empty title={session ? 'No sessions yet' : 'No users yet'}>
            Runs with a <code>{session ? 'sessionId' : 'userId'}</code> appear here.
          </Empty>
        }
        columns={[session ? 'Session' : 'User', 'First activity', 'Last activity', num('Traces'), num('Runs'), num('Tokens'), num('Cost'), num('Errors')]}
        row={(item) => (
          <tr key={idOf(item)}>
            <td>
              <Link to={`${base}/${kind}/${encodeURIComponent(idOf(item))}`}>
                <code>{idOf(item)}</code>
              </Link>
            </td>
            <td>{fmtStart(item.startTime)}</td>
            <td>{fmtStart(item.endTime)}</td>
            <td className="num">{fmtNumber(item.traceCount)}</td>
            <td className="num">{fmtNumber(item.runCount)}</td>
            <td className="num">{fmtNumber(item.usage.totalTokens)}</td>
            <td className="num">{fmtCost(item.cost)}</td>
            <td className="num">{fmtNumber(item.errorCount)}</td>
          </tr>
        )}
      />
    </>
  );
}
