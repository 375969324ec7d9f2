import { runs } from '../api.js';
import { RunValue } from '../components/conversation.js';
import { ScoresPanel } from '../components/scores.js';
import { costSourceText } from './trace/run-panel.js';
import { RunPromptFact } from '../components/prompt-link.js';
import { Button, CopyButton, Fact, JsonView, PageHeader, Panel, StatusBadge } from '../components/ui.js';
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
  const runState = useAsync(() => runs.get(projectId, runId), `run:${projectId}/${runId}`);
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
              <Fact label="Latency">{run.latencyMs === null && run.status === 'running' ? 'still running' : fmtMs(run.latencyMs)}</Fact>
              <Fact label="Started">
                <time dateTime={run.startTime} title={run.startTime}>
                  {fmtInstant(run.startTime)}
                </time>
              </Fact>
              <Fact label="Ended">
                {run.endTime ? (
                  <time dateTime={run.endTime} title={run.endTime}>
                    {fmtInstant(run.endTime)}
                  </time>
                ) : (
                  '—'
                )}
              </Fact>
              <Fact label="Model">{run.model ? `${run.model}${run.provider ? ` (${run.provider})` : ''}` : (run.provider ?? '—')}</Fact>
              <Fact label="Prompt tokens">{fmtNumber(usage?.promptTokens)}</Fact>
              {usage?.cacheReadTokens !== undefined && <Fact label="of which cache reads">{fmtNumber(usage.cacheReadTokens)}</Fact>}
              {usage?.cacheCreationTokens !== undefined && <Fact label="of which cache writes">{fmtNumber(usage.cacheCreationTokens)}</Fact>}
              <Fact label="Completion tokens">{fmtNumber(usage?.completionTokens)}</Fact>
              {usage?.reasoningTokens !== undefined && <Fact label="of which reasoning">{fmtNumber(usage.reasoningTokens)}</Fact>}
              <Fact label="Total tokens">{`${fmtNumber(usage?.totalTokens)}${usage?.estimated ? ' (estimated from the run’s texts: it reported none)' : ''}`}</Fact>
              <Fact label="Cost">{`${fmtCost(run.cost)}${run.costSource ? ` (${costSourceText(run)})` : ''}`}</Fact>
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
                <RunsOf listLink={listLink} param="sessionId" id={run.sessionId} title="List the runs of this session" />
              </dd>
              <dt>User</dt>
              <dd>
                <RunsOf listLink={listLink} param="userId" id={run.userId} title="List the runs of this user" />
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
              <RunValue value={run.inputs} side="input" label="Inputs" kind={run.kind} />
            </section>
            <section className="panel">
              {run.outputs === null ? (
                <p className="muted">{run.status === 'running' ? 'No outputs yet: the run is still running.' : 'This run has no outputs.'}</p>
              ) : (
                <RunValue value={run.outputs} side="output" label="Outputs" kind={run.kind} />
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

/** A link to the runs list filtered by a session or user id, or "none". */
function RunsOf({ listLink, param, id, title }: { listLink: string; param: 'sessionId' | 'userId'; id: string | null | undefined; title: string }) {
  if (!id) return <span className="muted">none</span>;
  return (
    <Link to={`${listLink}?${param}=${encodeURIComponent(id)}`} title={title}>
      <code>{id}</code>
    </Link>
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
