/** The run page's trace panel: the runs of its trace as a tree, each with its bar on the trace's time line. */
import { useState, type ReactNode } from 'react';
import { runs } from '../../api.js';
import { Empty, ErrorBox, Loading } from '../../components/ui.js';
import { fmtMs, fmtNumber } from '../../format.js';
import { toggled, useAsync } from '../../hooks.js';
import { Link } from '../../router.js';
import type { Run } from '../../types.js';

/** The most runs of one trace the page loads for its tree. */
const TRACE_CAP = 1000;

interface TraceData {
  runs: Run[];
  truncated: boolean;
}

/**
 * The runs of the run's trace (following nextCursor, at most TRACE_CAP), plus, whatever the trace
 * holds, the run's ancestors and direct children, so its parent and children always show.
 */
async function loadTrace(projectId: string, run: Run): Promise<TraceData> {
  const byId = new Map<string, Run>();
  let truncated = false;
  const list = runs.list(projectId);
  const children = list.page({ parentRunId: run.id, limit: 100 });
  children.catch(() => undefined); // awaited below; not an unhandled rejection if the trace fails first
  let cursor: string | undefined;
  for (;;) {
    const page = await list.page({ traceId: run.traceId, limit: 100, cursor });
    for (const r of page.items) byId.set(r.id, r);
    if (!page.nextCursor) break;
    if (byId.size >= TRACE_CAP) {
      truncated = true;
      break;
    }
    cursor = page.nextCursor;
  }
  byId.set(run.id, run);
  for (const child of (await children).items) if (!byId.has(child.id)) byId.set(child.id, child);
  let parentId = run.parentRunId;
  for (let steps = 0; parentId && !byId.has(parentId) && steps < 50; steps++) {
    try {
      const parent = await runs.get(projectId, parentId);
      byId.set(parent.id, parent);
      parentId = parent.parentRunId;
    } catch {
      break;
    }
  }
  return { runs: [...byId.values()], truncated };
}

interface TreeNode {
  run: Run;
  children: TreeNode[];
}

/** Builds the forest by parentRunId (children in start order); a run whose parent is not loaded is a root. */
function buildTree(runs: Run[]): TreeNode[] {
  const nodes = new Map(runs.map((run) => [run.id, { run, children: [] as TreeNode[] }]));
  const roots: TreeNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.run.parentRunId ? nodes.get(node.run.parentRunId) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  // A cycle (never produced by the server, but cheap to survive) would leave runs unreachable.
  const seen = new Set<string>();
  const visit = (node: TreeNode) => {
    if (seen.has(node.run.id)) return;
    seen.add(node.run.id);
    node.children.forEach(visit);
  };
  roots.forEach(visit);
  for (const node of nodes.values()) {
    if (!seen.has(node.run.id)) {
      roots.push(node);
      visit(node);
    }
  }
  const order = (a: TreeNode, b: TreeNode) => a.run.startTime.localeCompare(b.run.startTime) || a.run.id.localeCompare(b.run.id);
  for (const node of nodes.values()) node.children.sort(order);
  return roots.sort(order);
}

function endOf(run: Run, now: number): number {
  if (run.endTime) return Date.parse(run.endTime);
  if (run.latencyMs !== null) return Date.parse(run.startTime) + run.latencyMs;
  return run.status === 'running' ? now : Date.parse(run.startTime);
}

export function TraceTree({ projectId, run }: { projectId: string; run: Run }) {
  const trace = useAsync(() => loadTrace(projectId, run), `trace-tree:${projectId}/${run.id}/${run.traceId}`);
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  const data = trace.data;

  let body: ReactNode;
  if (trace.error) body = <ErrorBox error={trace.error} onRetry={trace.reload} />;
  else if (!data) body = <Loading label="Loading the trace…" />;
  else {
    const roots = buildTree(data.runs);
    const now = Date.now();
    const start = Math.min(...data.runs.map((r) => Date.parse(r.startTime)));
    const end = Math.max(start + 1, ...data.runs.map((r) => endOf(r, now)));
    const span = { start, length: end - start };
    const toggle = (id: string) => setCollapsed((previous) => toggled(previous, id));
    body =
      data.runs.length <= 1 ? (
        <Empty title="A trace of one run">This run has no parent and no children.</Empty>
      ) : (
        <>
          <p className="muted" style={{ margin: '0 0 8px', fontSize: '0.85rem' }}>
            {fmtNumber(data.runs.length)} runs · {fmtMs(span.length)} from first start to last end
          </p>
          <ul className="tree sl-trace" aria-label="Trace tree">
            {roots.map((node) => (
              <TreeItem key={node.run.id} node={node} projectId={projectId} currentId={run.id} span={span} collapsed={collapsed} onToggle={toggle} now={now} />
            ))}
          </ul>
          {data.truncated && (
            <p className="muted" role="note" style={{ fontSize: '0.85rem' }}>
              This trace has more than {fmtNumber(TRACE_CAP)} runs: only the {fmtNumber(TRACE_CAP)} most recent are shown, with this run's parents and children.{' '}
              <Link to={`/projects/${projectId}/runs?traceId=${encodeURIComponent(run.traceId)}`}>List every run of the trace</Link>
            </p>
          )}
        </>
      );
  }

  return (
    <section className="panel" aria-labelledby="run-trace">
      <div className="sl-panel-head">
        <h2 id="run-trace">Trace</h2>
        {data && trace.loading && (
          <span className="muted" style={{ fontSize: '0.85rem' }}>
            Updating…
          </span>
        )}
      </div>
      {body}
    </section>
  );
}

function TreeItem({
  node,
  projectId,
  currentId,
  span,
  collapsed,
  onToggle,
  now,
}: {
  node: TreeNode;
  projectId: string;
  currentId: string;
  span: { start: number; length: number };
  collapsed: Set<string>;
  onToggle: (id: string) => void;
  now: number;
}) {
  const { run, children } = node;
  const current = run.id === currentId;
  const open = !collapsed.has(run.id);
  const startAt = Date.parse(run.startTime);
  const left = ((startAt - span.start) / span.length) * 100;
  const width = Math.max(0, ((endOf(run, now) - startAt) / span.length) * 100);
  return (
    <li>
      <div className={`sl-node${current ? ' sl-current' : ''}`}>
        {children.length > 0 ? (
          <button
            type="button"
            className="sl-node-toggle"
            aria-expanded={open}
            aria-label={`${open ? 'Collapse' : 'Expand'} ${run.name}`}
            onClick={() => onToggle(run.id)}
          >
            {open ? '▾' : '▸'}
          </button>
        ) : (
          <span aria-hidden="true" />
        )}
        <span style={{ minWidth: 0, display: 'flex', alignItems: 'center' }}>
          <span className={`sl-dot ${run.status}`} title={run.status} aria-hidden="true" />
          <Link
            to={`/projects/${projectId}/runs/${encodeURIComponent(run.id)}`}
            aria-current={current ? 'page' : undefined}
            title={`${run.name} · ${run.kind} · ${run.status}`}
          >
            {run.name}
          </Link>
          <span className="sl-sr-only">
            {' '}
            ({run.kind}, {run.status}
            {current ? ', this run' : ''})
          </span>
        </span>
        <span className="sl-node-meta">{run.status === 'running' && run.latencyMs === null ? 'running' : fmtMs(run.latencyMs)}</span>
        <span className="sl-bar-track" aria-hidden="true">
          <span className={`sl-bar ${run.status}`} style={{ left: `${Math.min(99.5, left)}%`, width: `${Math.min(100 - left, width)}%` }} />
        </span>
      </div>
      {children.length > 0 && open && (
        <ul className="tree">
          {children.map((child) => (
            <TreeItem
              key={child.run.id}
              node={child}
              projectId={projectId}
              currentId={currentId}
              span={span}
              collapsed={collapsed}
              onToggle={onToggle}
              now={now}
            />
          ))}
        </ul>
      )}
    </li>
  );
}
