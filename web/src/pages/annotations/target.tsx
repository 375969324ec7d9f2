/** What a queue item asks to be judged: a run, or a trace shown by its root run, as its conversation. */
import { runs, traces } from '../../api.js';
import { RunValue } from '../../components/conversation.js';
import { ErrorBox, Loading, StatusBadge } from '../../components/ui.js';
import { fmtInstant, fmtMs, fmtNumber } from '../../format.js';
import { useAsync } from '../../hooks.js';
import type { AnnotationItem } from '../../types.js';
import { targetPath } from './shared.js';
import '../trace/trace.css';

export function ItemTarget({ projectId, item }: { projectId: string; item: Pick<AnnotationItem, 'target' | 'targetId'> }) {
  const key = `${item.target}:${item.targetId}`;
  const state = useAsync(async () => {
    if (item.target === 'run') return { key, trace: null, run: await runs.get(projectId, item.targetId) };
    const detail = await traces.get(projectId, item.targetId);
    const root = detail.trace.rootRunId;
    return { key, trace: detail.trace, run: root ? await runs.get(projectId, root) : null };
  }, `review-target:${projectId}/${key}`);
  const data = state.data?.key === key ? state.data : undefined;
  const noun = item.target === 'run' ? 'run' : 'trace';
  return (
    <section className="panel" aria-labelledby="review-target-title">
      <div className="sl-panel-head">
        <h2 id="review-target-title">{data?.trace?.name ?? data?.run?.name ?? `The ${noun}`}</h2>
        <a href={targetPath(projectId, item)} target="_blank" rel="noreferrer">
          Open the {noun} page ↗
        </a>
      </div>
      <p className="muted">
        {noun} <code data-testid="review-target-id">{item.targetId}</code>
      </p>
      {state.error ? (
        <ErrorBox error={state.error} onRetry={state.reload} />
      ) : !data ? (
        <Loading label={`Loading the ${noun}…`} />
      ) : (
        <>
          {data.trace && (
            <p>
              <StatusBadge status={data.trace.status} /> <span className="muted">{fmtInstant(data.trace.startTime)}</span>
              <span className="muted">
                {' '}
                · {fmtNumber(data.trace.runCount)} runs · {fmtMs(data.trace.latencyMs)}
                {data.run && ' · shown by its root run'}
              </span>
            </p>
          )}
          {!data.run ? (
            <p className="muted">The trace’s root run has not arrived yet: open the trace page to read its runs.</p>
          ) : (
            <>
              {!data.trace && (
                <p>
                  <StatusBadge status={data.run.status} /> <span className="sl-kind">{data.run.kind}</span>
                  <span className="muted">
                    {data.run.model ? ` · ${data.run.model}` : ''} · {fmtInstant(data.run.startTime)}
                  </span>
                </p>
              )}
              {data.run.error !== null && (
                <section aria-label="Error">
                  <h3>Error</h3>
                  <pre className="sl-error-text">{data.run.error}</pre>
                </section>
              )}
              <RunValue value={data.run.inputs} side="input" label="Input" kind={data.run.kind} />
              {data.run.outputs === null ? (
                <p className="muted">No output.</p>
              ) : (
                <RunValue value={data.run.outputs} side="output" label="Output" kind={data.run.kind} />
              )}
            </>
          )}
        </>
      )}
    </section>
  );
}
