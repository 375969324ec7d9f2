import { useState } from 'react';
import { endUsers, runs, sessions } from '../api.js';
import { Conversation, conversationOf, type Message } from '../components/conversation.js';
import { ScoresPanel } from '../components/scores.js';
import { ErrorBox, Loading, PageHeader } from '../components/ui.js';
import { estimatedTitle, fmtInstant, fmtMs, fmtNumber, fmtTotalCost, fmtTotalTokens } from '../format.js';
import { useAsync, useDocumentTitle, useProject } from '../hooks.js';
import { Link } from '../router.js';
import type { Trace } from '../types.js';
import { Breadcrumbs, Pending } from './runs/shared.js';
import { Totals } from './trace.js';
import { Failure } from './trace/failure.js';
import './trace/trace.css';

const TURNS_AT_ONCE = 20;

/**
 * One trace as a turn of the conversation (a session's page) or as one of an end user's traces (their page,
 * which may span sessions: each names its own): what the user said last, and what the application answered.
 */
function Turn({ projectId, trace, index, noun }: { projectId: string; trace: Trace; index: number; noun: 'Turn' | 'Trace' }) {
  const root = useAsync(() => (trace.rootRunId ? runs.get(projectId, trace.rootRunId) : Promise.resolve(null)), `run:${projectId}/${trace.rootRunId}`);
  const base = `/projects/${projectId}`;
  let messages: Message[] | null = null;
  if (root.data) {
    const asked = conversationOf(root.data.inputs, 'input');
    const answered = root.data.outputs === null ? [] : (conversationOf(root.data.outputs, 'output') ?? []);
    // The turn's own message (the last the user sent), not the history the application replays each time.
    const lastUser = asked ? [...asked].reverse().find((m) => m.role === 'user') : undefined;
    messages = [...(lastUser ? [lastUser] : []), ...answered];
  }
  return (
    <li className="sl-turn">
      <div className="sl-turn-head">
        <strong>
          {noun} {index + 1}
        </strong>
        <Link to={`${base}/traces/${encodeURIComponent(trace.traceId)}`}>{trace.name}</Link>
        {noun === 'Trace' && trace.sessionId !== null && (
          <span className="muted">
            session <Link to={`${base}/sessions/${encodeURIComponent(trace.sessionId)}`}>{trace.sessionId}</Link>
          </span>
        )}
        <span className="muted">{fmtInstant(trace.startTime)}</span>
        <span className="muted">
          {fmtMs(trace.latencyMs)} · <span title={estimatedTitle(trace)}>{fmtTotalTokens(trace.usage)} tokens</span> · {fmtTotalCost(trace)}
        </span>
      </div>
      <Failure projectId={projectId} traceId={trace.traceId} errorCount={trace.errorCount} />
      {root.error ? (
        <ErrorBox error={root.error} onRetry={root.reload} />
      ) : !root.data && trace.rootRunId ? (
        <Loading label="Loading the turn…" />
      ) : messages && messages.length > 0 ? (
        <Conversation messages={messages} label={`${noun} ${index + 1}`} />
      ) : (
        <p>
          <span className="muted">in </span>
          {trace.input ?? '—'}
          <br />
          <span className="muted">out </span>
          {trace.output ?? '—'}
        </p>
      )}
    </li>
  );
}

/** A session read as the conversation it was (its traces oldest first, turn by turn), or an end user's activity. */
export function SessionPage({ projectId, id, kind }: { projectId: string; id: string; kind: 'sessions' | 'users' }) {
  const project = useProject(projectId);
  const session = kind === 'sessions';
  const state = useAsync(async () => {
    if (session) {
      const detail = await sessions.get(projectId, id);
      return { totals: detail.session, traces: detail.traces, truncated: detail.truncated, other: detail.session.userId };
    }
    const detail = await endUsers.get(projectId, id);
    return { totals: detail.user, traces: detail.traces, truncated: detail.truncated, other: null };
  }, `${kind}/${projectId}/${id}`);
  const [shown, setShown] = useState(TURNS_AT_ONCE);
  useDocumentTitle(`${session ? 'Session' : 'User'} ${id}`, project.data?.name);
  const base = `/projects/${projectId}`;
  const crumbs = [
    { label: 'Projects', to: '/projects' },
    { label: project.data?.name ?? 'Project', to: `${base}/traces` },
    { label: session ? 'Sessions' : 'Users', to: `${base}/${kind}` },
    { label: id },
  ];
  if (!state.data) return <Pending crumbs={crumbs} state={state} label={`Loading the ${session ? 'session' : 'user'}…`} retryable={() => true} />;
  const { totals, traces, truncated, other } = state.data;
  return (
    <>
      <Breadcrumbs items={crumbs} />
      <PageHeader
        title={
          <>
            {session ? 'Session' : 'User'} <code>{id}</code>
          </>
        }
        subtitle={
          <>
            {fmtInstant(totals.startTime)} – {fmtInstant(totals.endTime)} · {fmtNumber(totals.traceCount)} traces
            {other && (
              <>
                {' · user '}
                <Link to={`${base}/users/${encodeURIComponent(other)}`}>{other}</Link>
              </>
            )}
            {' · '}
            <Link to={`${base}/traces?${session ? 'sessionId' : 'userId'}=${encodeURIComponent(id)}&range=30d`}>its traces in the list</Link>
          </>
        }
      />
      <Totals of={totals} label={`${session ? 'Session' : 'User'} totals`} />
      {session && <ScoresPanel projectId={projectId} kind="sessions" targetId={id} />}
      <ol className="sl-turns" aria-label={session ? 'The conversation, turn by turn' : 'Their traces, oldest first'}>
        {traces.slice(0, shown).map((trace, i) => (
          <Turn key={trace.traceId} projectId={projectId} trace={trace} index={i} noun={session ? 'Turn' : 'Trace'} />
        ))}
      </ol>
      {traces.length > shown && (
        <button type="button" onClick={() => setShown(shown + TURNS_AT_ONCE)}>
          Show {Math.min(TURNS_AT_ONCE, traces.length - shown)} more turns (of {traces.length - shown})
        </button>
      )}
      {truncated && <p className="muted">Only the first {fmtNumber(traces.length)} traces are shown here; the traces list holds them all.</p>}
    </>
  );
}
