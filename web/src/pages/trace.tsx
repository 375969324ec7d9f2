import { ScoresPanel } from '../components/scores.js';
import { Fact, PageHeader, StatusBadge } from '../components/ui.js';
import { costSplit, fmtCost, fmtInstant, fmtMs, fmtNumber, fmtTotalCost, fmtTotalTokens, someCost } from '../format.js';
import { useDocumentTitle, useProject } from '../hooks.js';
import { Link, navigate, useLocation } from '../router.js';
import type { Trace } from '../types.js';
import { Breadcrumbs, Pending } from './runs/shared.js';
import { AddToQueue } from './annotations/add-to-queue.js';
import { useEscape } from '../components/shortcuts.js';
import { useTraceDetail } from './trace/detail.js';
import { Failure } from './trace/failure.js';
import { RunPanel } from './trace/run-panel.js';
import { Waterfall } from './trace/waterfall.js';
import './trace/trace.css';

/** Tokens by type and cost: a trace's, a session's or a user's totals. */
export function Totals({
  of,
  label,
}: {
  of: Pick<Trace, 'runCount' | 'errorCount' | 'usage' | 'cost' | 'computedCost' | 'estimatedCost'> & { latencyMs?: number };
  label: string;
}) {
  const u = of.usage;
  return (
    <dl className="stats sl-stats" aria-label={label}>
      {of.latencyMs !== undefined && (
        <Fact label="Latency" className="stat">
          {fmtMs(of.latencyMs)}
        </Fact>
      )}
      <Fact label="Runs" className="stat">
        {fmtNumber(of.runCount)}
      </Fact>
      <Fact label="Errors" className="stat">
        {fmtNumber(of.errorCount)}
      </Fact>
      <div className="stat">
        <dt>Tokens</dt>
        <dd
          title={`prompt ${u.promptTokens}, completion ${u.completionTokens}, cache reads ${u.cacheReadTokens}, cache writes ${u.cacheCreationTokens}, reasoning ${u.reasoningTokens}`}
        >
          {fmtTotalTokens(u)}
          <small className="muted">
            {' '}
            {fmtNumber(u.promptTokens)} in · {fmtNumber(u.completionTokens)} out
            {u.cacheReadTokens > 0 ? ` · ${fmtNumber(u.cacheReadTokens)} cached` : ''}
            {u.reasoningTokens > 0 ? ` · ${fmtNumber(u.reasoningTokens)} reasoning` : ''}
            {u.estimatedTokens > 0 ? ` · ${fmtNumber(u.estimatedTokens)} estimated from runs’ texts` : ''}
          </small>
        </dd>
      </div>
      <Fact label="Cost" className="stat">
        {fmtTotalCost(of)}
        {of.cost > 0 && <small className="muted"> {costSplit(of.cost, of.computedCost)}</small>}
        {someCost(of.estimatedCost) && <small className="muted"> · {fmtCost(of.estimatedCost)} from estimated tokens</small>}
      </Fact>
    </dl>
  );
}

/**
 * A trace: what failed (the run its failure began at, and its error), its totals, its runs as a waterfall
 * (`?errors=1` keeps the failed ones), and the selected run beside it (`?run=`), without reloading.
 */
export function TracePage({ projectId, traceId }: { projectId: string; traceId: string }) {
  const project = useProject(projectId);
  const { search } = useLocation();
  const selected = search.get('run');
  const { state, detail, rest } = useTraceDetail(projectId, traceId);
  useDocumentTitle(detail ? `Trace ${detail.trace.name}` : 'Trace', project.data?.name);
  const base = `/projects/${projectId}`;
  const errorsOnly = search.get('errors') === '1';
  const setParam = (key: string, value: string | null) => {
    const params = new URLSearchParams(search);
    if (value) params.set(key, value);
    else params.delete(key);
    const query = params.toString();
    navigate(`${base}/traces/${encodeURIComponent(traceId)}${query ? `?${query}` : ''}`, { replace: true, keepScroll: true });
  };
  const select = (runId: string | null) => setParam('run', runId);
  useEscape(selected ? () => select(null) : null);
  const crumbs = [
    { label: 'Projects', to: '/projects' },
    { label: project.data?.name ?? 'Project', to: `${base}/traces` },
    { label: detail?.trace.name ?? traceId },
  ];
  if (!detail) return <Pending crumbs={crumbs} state={state} label="Loading trace…" />;
  const t = detail.trace;
  return (
    <>
      <Breadcrumbs items={crumbs} />
      <PageHeader
        title={<span className="sl-title">{t.name}</span>}
        actions={<AddToQueue projectId={projectId} target="trace" targetId={traceId} />}
        subtitle={
          <>
            <StatusBadge status={t.status} /> <span className="muted">{fmtInstant(t.startTime)}</span>
            {t.sessionId && (
              <>
                {' · session '}
                <Link to={`${base}/sessions/${encodeURIComponent(t.sessionId)}`}>{t.sessionId}</Link>
              </>
            )}
            {t.userId && (
              <>
                {' · user '}
                <Link to={`${base}/users/${encodeURIComponent(t.userId)}`}>{t.userId}</Link>
              </>
            )}
          </>
        }
      />
      <Failure projectId={projectId} traceId={traceId} errorCount={t.errorCount} onOpen={select} />
      <Totals of={t} label="Trace totals" />
      <div className={`sl-trace-layout${selected ? ' with-panel' : ''}`}>
        <Waterfall
          projectId={projectId}
          detail={detail}
          rest={rest}
          selected={selected}
          onSelect={(id) => select(id)}
          errorsOnly={errorsOnly}
          onErrorsOnly={(on) => setParam('errors', on ? '1' : null)}
        />
        {selected && <RunPanel projectId={projectId} runId={selected} onClose={() => select(null)} />}
      </div>
      <details className="sl-trace-scores" open>
        <summary>Scores of the trace and its runs</summary>
        <ScoresPanel
          projectId={projectId}
          kind="traces"
          targetId={traceId}
          runNames={new Map(detail.runs.map((run) => [run.id, run.name]))}
          onOpenRun={select}
        />
      </details>
    </>
  );
}
