import { runs } from '../../api.js';
import { RunValue } from '../../components/conversation.js';
import { ScoresPanel } from '../../components/scores.js';
import { AddToQueue } from '../annotations/add-to-queue.js';
import { AddToDataset } from '../datasets/add-run.js';
import { ErrorBox, Fact, JsonView, Loading, StatusBadge } from '../../components/ui.js';
import { fmtCost, fmtInstant, fmtMs, fmtNumber, fmtPrice } from '../../format.js';
import { useAsync } from '../../hooks.js';
import { Link } from '../../router.js';
import type { Run } from '../../types.js';

/** Where a run's cost came from, in words: the client's figure, or the price it was computed at. */
export function costSourceText(run: Pick<Run, 'costSource' | 'price' | 'usage'>): string {
  if (run.costSource === 'client') return 'sent by the client';
  if (run.costSource !== 'computed' || !run.price) return '';
  const p = run.price;
  const where = p.source === 'builtin' ? 'the built-in price' : 'your organization’s price';
  const tokens = run.usage?.estimated ? ' from estimated tokens' : '';
  return `computed${tokens} at ${where} of ${p.model} (${fmtPrice(p.inputPrice)} in / ${fmtPrice(p.outputPrice)} out per million tokens)`;
}

/** The selected run of a trace: its facts, its conversation (or values), its error and metadata. */
export function RunPanel({ projectId, runId, onClose }: { projectId: string; runId: string; onClose: () => void }) {
  const state = useAsync(() => runs.get(projectId, runId), `run:${projectId}/${runId}`);
  const run = state.data?.id === runId ? state.data : undefined;
  const base = `/projects/${projectId}`;
  return (
    <aside className="panel sl-run-panel" aria-labelledby="run-panel-title">
      <div className="sl-panel-head">
        <h2 id="run-panel-title">{run?.name ?? 'Run'}</h2>
        <Link to={`${base}/runs/${encodeURIComponent(runId)}`}>Open the run page</Link>
        <button type="button" className="link" onClick={onClose} aria-label="Close the run's details">
          ✕
        </button>
      </div>
      {state.error ? (
        <ErrorBox error={state.error} onRetry={state.reload} />
      ) : !run ? (
        <Loading label="Loading run…" />
      ) : (
        <>
          <p>
            <StatusBadge status={run.status} /> <span className="sl-kind">{run.kind}</span>
            {run.model && (
              <span className="muted">
                {' '}
                · {run.model}
                {run.provider ? ` (${run.provider})` : ''}
              </span>
            )}
          </p>
          <div className="sl-ds-panel-actions">
            <AddToDataset projectId={projectId} run={run} />
            <AddToQueue projectId={projectId} target="run" targetId={run.id} />
          </div>
          <dl className="sl-facts">
            <Fact label="Started">{fmtInstant(run.startTime, true)}</Fact>
            <Fact label="Latency">{run.status === 'running' ? 'still running' : fmtMs(run.latencyMs)}</Fact>
            <Fact label="Tokens">
              {run.usage
                ? `${fmtNumber(run.usage.promptTokens)} in${run.usage.cacheReadTokens ? ` (${fmtNumber(run.usage.cacheReadTokens)} cached)` : ''} · ${fmtNumber(run.usage.completionTokens)} out${run.usage.reasoningTokens ? ` (${fmtNumber(run.usage.reasoningTokens)} reasoning)` : ''}${run.usage.estimated ? ' · estimated' : ''}`
                : '—'}
            </Fact>
            <Fact label="Cost">
              {fmtCost(run.cost)}
              {run.costSource && <span className="muted"> · {costSourceText(run)}</span>}
            </Fact>
            {run.sessionId && (
              <Fact label="Session">
                <Link to={`${base}/sessions/${encodeURIComponent(run.sessionId)}`}>{run.sessionId}</Link>
              </Fact>
            )}
            {run.userId && (
              <Fact label="User">
                <Link to={`${base}/users/${encodeURIComponent(run.userId)}`}>{run.userId}</Link>
              </Fact>
            )}
            {run.tags.length > 0 && <Fact label="Tags">{run.tags.join(', ')}</Fact>}
          </dl>
          {run.error !== null && (
            <section aria-label="Error">
              <h3>Error</h3>
              <pre className="sl-error-text">{run.error}</pre>
            </section>
          )}
          <RunValue value={run.inputs} side="input" label="Input" kind={run.kind} />
          {run.outputs !== null && <RunValue value={run.outputs} side="output" label="Output" kind={run.kind} />}
          <ScoresPanel projectId={projectId} kind="runs" targetId={run.id} />
          {Object.keys(run.metadata).length > 0 && (
            <details>
              <summary>Metadata ({Object.keys(run.metadata).length})</summary>
              <JsonView value={run.metadata} />
            </details>
          )}
        </>
      )}
    </aside>
  );
}
