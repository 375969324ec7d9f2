import type { ReactNode } from 'react';
import { runs } from '../api.js';
import { RunValue } from '../components/conversation.js';
import { ScoresPanel } from '../components/scores.js';
import { costSourceText } from './trace/run-panel.js';
import { RunPromptFact } from '../components/prompt-link.js';
import { Button, CopyButton, JsonView, PageHeader, Panel, StatusBadge } from '../components/ui.js';
import { fmtCost, fmtInstant, fmtMs, fmtNumber } from '../format.js';
import { useAsync, useProject } from '../hooks.js';
import { Link } from '../router.js';
import { AddToQueue } from './annotations/add-to-queue.js';
import { AddToDataset } from './datasets/add-run.js';
import { Breadcrumbs, Pending, runsListPath, useDocumentTitle } from './runs/shared.js';
import { TraceTree } from './runs/trace-tree.js';
import './runs/runs.css';

/** One run: timing, tokens, cost, tags, metadata, inputs and outputs, and its place in the trace. */
export function RunPage({ projectId, runId }: { projectId: string; runId: string }) {
  const project = useProject(projectId);
  const runState = useAsync(() => runs.get(projectId, runId), `${projectId}/${runId}`);
  const run = runState.data && runState.data.id === runId ? runState.data : undefined;
  useDocumentTitle(run ? run.name : 'Run');
  const listLink = `/projects/${projectId}/runs`;
  const backLink = runsListPath(projectId);

  const crumbs = [{ label: 'Projects', to: '/projects' }, { label: project.data?.name ?? 'Project', to: backLink }, { label: run?.name ?? runId }];

  if (!run) return <Pending crumbs={crumbs} state={runState} label="Loading run…" back={<Link to={backLink}>← Back to the runs</Link>} />;

  const usage = run.usage;
  return (
    <>
      <Breadcrumbs items={crumbs} />
      <PageHeader
        title={<span className="sl-title">{run.name}</span>}
        subtitle={
          <>
            <StatusBadge status={run.status} /> <span className="sl-kind">{run.kind}</span>
            {run.model && <span className="muted"> · {run.model}</span>}
          </>
        }
        actions={
          <>
            <Link to={backLink} className="button">
              ← Runs
            </Link>
            <AddToDataset projectId={projectId} run={run} />
            <AddToQueue projectId={projectId} target="run" targetId={run.id} />
            <Button onClick={runState.reload} disabled={runState.loading}>
              ↻ Refresh
            </Button>
          </>
        }
      />

      <div className="sl-run-layout">
        <div className="sl-run-main">
          <Panel heading="run-overview" title="Overview">
            <dl className="sl-facts">
              <Fact label="Latency" value={run.latencyMs === null && run.status === 'running' ? 'still running' : fmtMs(run.latencyMs)} />
              <Fact
                label="Started"
                value={
                  <time dateTime={run.startTime} title={run.startTime}>
                    {fmtInstant(run.startTime)}
                  </time>
                }
              />
              <Fact
                label="Ended"
                value={
                  run.endTime ? (
                    <time dateTime={run.endTime} title={run.endTime}>
                      {fmtInstant(run.endTime)}
                    </time>
                  ) : (
                    '—'
                  )
                }
              />
              <Fact label="Model" value={run.model ? `${run.model}${run.provider ? ` (${run.provider})` : ''}` : (run.provider ?? '—')} />
              <Fact label="Prompt tokens" value={fmtNumber(usage?.promptTokens)} />
              {usage?.cacheReadTokens !== undefined && <Fact label="of which cache reads" value={fmtNumber(usage.cacheReadTokens)} />}
              {usage?.cacheCreationTokens !== undefined && <Fact label="of which cache writes" value={fmtNumber(usage.cacheCreationTokens)} />}
              <Fact label="Completion tokens" value={fmtNumber(usage?.completionTokens)} />
              {usage?.reasoningTokens !== undefined && <Fact label="of which reasoning" value={fmtNumber(usage.reasoningTokens)} />}
              <Fact label="Total tokens" value={fmtNumber(usage?.totalTokens)} />
              <Fact label="Cost" value={`${fmtCost(run.cost)}${run.costSource ? ` (${costSourceText(run)})` : ''}`} />
            </dl>
            <dl className="sl-ids">
              <dt>Run id</dt>
              <dd>
                <code>{run.id}</code> <CopyButton text={run.id} label="Copy id" />
              </dd>
              <dt>Trace id</dt>
              <dd>
                <Link
                  to={`/projects/${projectId}/traces/${encodeURIComponent(run.traceId)}?run=${encodeURIComponent(run.id)}`}
                  title="Open the trace's waterfall"
                >
                  <code>{run.traceId}</code>
                </Link>
              </dd>
              <dt>Parent</dt>
              <dd>
                {run.parentRunId ? (
                  <Link to={`${listLink}/${encodeURIComponent(run.parentRunId)}`}>
                    <code>{run.parentRunId}</code>
                  </Link>
                ) : (
                  <span className="muted">none (root run)</span>
                )}
              </dd>
              <dt>Session</dt>
              <dd>
                {run.sessionId ? (
                  <Link to={`${listLink}?sessionId=${encodeURIComponent(run.sessionId)}`} title="List the runs of this session">
                    <code>{run.sessionId}</code>
                  </Link>
                ) : (
                  <span className="muted">none</span>
                )}
              </dd>
              <dt>User</dt>
              <dd>
                {run.userId ? (
                  <Link to={`${listLink}?userId=${encodeURIComponent(run.userId)}`} title="List the runs of this user">
                    <code>{run.userId}</code>
                  </Link>
                ) : (
                  <span className="muted">none</span>
                )}
              </dd>
              <dt>Tags</dt>
              <dd>
                {run.tags.length > 0 ? (
                  <span className="sl-tags">
                    {run.tags.map((tag) => (
                      <Link key={tag} to={`${listLink}?tag=${encodeURIComponent(tag)}`} className="sl-tag" title={`Runs tagged ${tag}`}>
                        {tag}
                      </Link>
                    ))}
                  </span>
                ) : (
                  <span className="muted">none</span>
                )}
              </dd>
              <RunPromptFact metadata={run.metadata} />
            </dl>
          </Panel>

          {run.error !== null && (
            <section className="panel sl-error-panel" aria-labelledby="run-error">
              <div className="sl-panel-head">
                <h2 id="run-error">Error</h2>
                <CopyButton text={run.error} label="Copy text" />
              </div>
              <pre className="sl-error-text">{run.error}</pre>
            </section>
          )}

          <div className="sl-io">
            <section className="panel">
              <RunValue value={run.inputs} side="input" label="Inputs" />
            </section>
            <section className="panel">
              {run.outputs === null ? (
                <p className="muted">{run.status === 'running' ? 'No outputs yet: the run is still running.' : 'This run has no outputs.'}</p>
              ) : (
                <RunValue value={run.outputs} side="output" label="Outputs" />
              )}
            </section>
          </div>

          <JsonPanel id="run-metadata" title="Metadata" value={run.metadata} empty="No metadata." />
          <ScoresPanel projectId={projectId} kind="runs" targetId={run.id} />
        </div>

        <aside className="sl-run-side">
          <TraceTree projectId={projectId} run={run} />
        </aside>
      </div>
    </>
  );
}

function Fact({ label, value }: { label: string; value: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

/** `openDepth`: how many levels start expanded (JsonView opens nodes above its depth 2). */
function JsonPanel({ id, title, value, empty = 'Empty.', openDepth = 2 }: { id: string; title: string; value: unknown; empty?: string; openDepth?: number }) {
  const isEmpty = value === null || value === undefined || (typeof value === 'object' && Object.keys(value as object).length === 0);
  return (
    <section className="panel" aria-labelledby={id}>
      <div className="sl-panel-head">
        <h2 id={id}>{title}</h2>
        {!isEmpty && <CopyButton text={JSON.stringify(value, null, 2)} label="Copy JSON" />}
      </div>
      {isEmpty ? (
        <p className="muted" style={{ margin: 0 }}>
          {empty}
        </p>
      ) : (
        <JsonView value={value} depth={2 - openDepth} />
      )}
    </section>
  );
}
