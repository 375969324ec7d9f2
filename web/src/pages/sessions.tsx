import { useMemo, useState, type FormEvent } from 'react';
import { endUsers, sessions } from '../api.js';
import { ProjectTabs } from '../components/layout.js';
import { num, PagedTable } from '../components/paged.js';
import { EMPTY_SCORE_FILTER, ScoreChips, ScoreFilterFields, useScoreNames, type ScoreFilterDraft } from '../components/score-chips.js';
import { scoreFilterLabel, scoreFiltersFromSearch, withScoreFilter } from '../components/score-filters.js';
import { Empty, PageHeader } from '../components/ui.js';
import { estimatedTitle, fmtNumber, fmtStart, fmtTotalCost, fmtTotalTokens } from '../format.js';
import { useDocumentTitle, useList, useProject } from '../hooks.js';
import { Link, useLocation } from '../router.js';
import type { EndUser, Session } from '../types.js';
import { FilterSubmit } from './runs/filters.js';
import { Breadcrumbs, setQuery } from './runs/shared.js';

/** The list's score filters, held in the URL (so saved views and links keep them): a form that adds one, and chips that remove them. */
function ScoreFilterBar({ path, search }: { path: string; search: URLSearchParams }) {
  const [draft, setDraft] = useState<ScoreFilterDraft>(EMPTY_SCORE_FILTER);
  const [problem, setProblem] = useState('');
  const names = useScoreNames();
  const active = [...search].filter(([key, value]) => value !== '' && (key === 'hasScore' || scoreFilterLabel(key) !== null));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const next = withScoreFilter(search, { name: draft.scoreName, test: draft.scoreTest, value: draft.scoreValue });
    if ('fault' in next) return setProblem(next.fault);
    setProblem('');
    setDraft(EMPTY_SCORE_FILTER);
    setQuery(path, next);
  };
  const remove = (key: string, value: string) => {
    const next = new URLSearchParams();
    for (const [k, v] of search) if (!(k === key && v === value)) next.append(k, v);
    setQuery(path, next);
  };
  return (
    <section className="panel" aria-label="Score filters">
      {active.length > 0 && (
        <ul className="sl-chips" aria-label="Active filters" style={{ listStyle: 'none', padding: 0, margin: '0 0 8px' }}>
          {active.map(([key, value]) => (
            <li key={`${key}=${value}`} className="sl-chip">
              <span className="muted">{key === 'hasScore' ? 'Has score' : scoreFilterLabel(key)}:</span> <code>{value}</code>
              <button type="button" onClick={() => remove(key, value)} title="Remove this filter">
                <span aria-hidden="true">✕</span>
                <span className="sl-sr-only">
                  Remove filter: {key} {value}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="sl-run-filters" onSubmit={submit} role="search" aria-label="Filter by score">
        <ScoreFilterFields draft={draft} names={names} onChange={setDraft} />
        <FilterSubmit label="Add score filter" problem={problem} />
      </form>
    </section>
  );
}

/** A project's sessions (conversations) or end users, newest activity first, with their totals. */
export function ActivityPage({ projectId, kind }: { projectId: string; kind: 'sessions' | 'users' }) {
  const project = useProject(projectId);
  const session = kind === 'sessions';
  const { search } = useLocation();
  const searchText = search.toString();
  const query = useMemo(() => scoreFiltersFromSearch(search), [searchText]); // eslint-disable-line react-hooks/exhaustive-deps
  const list = useList<Session | EndUser>(session ? sessions.list(projectId) : endUsers.list(projectId), query, 50);
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
      <ScoreFilterBar path={`${base}/${kind}`} search={search} />
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
