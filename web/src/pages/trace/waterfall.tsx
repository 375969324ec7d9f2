import { useEffect, useMemo, useState } from 'react';
import { runs as runsApi } from '../../api.js';
import type { TraceDetail } from '../../types.js';
import { VirtualRows } from '../../components/virtual-rows.js';
import { fmtCost, fmtMs, fmtNumber } from '../../format.js';
import { toggled } from '../../hooks.js';

type Outline = TraceDetail['runs'][number];

const ROW = 30;

/** "Nice" tick steps for a duration in ms: 1, 2 or 5 × 10^k, about five ticks. */
function tickStep(span: number): number {
  const raw = Math.max(1, span / 5);
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const step of [1, 2, 5, 10]) if (step * power >= raw) return step * power;
  return 10 * power;
}

/** Runs whose content the search reads at most: the first pages of the runs list's `q` over the trace. */
const CONTENT_MATCHES = 500;

/**
 * The runs of a trace whose name, inputs, outputs or error hold every word of `text` (the runs list's `q`
 * search, whole words), read after typing pauses; null while there is nothing to search or it is on its way.
 */
function useContentMatches(projectId: string, traceId: string, text: string): Set<string> | null {
  const [matches, setMatches] = useState<{ text: string; ids: Set<string> } | null>(null);
  useEffect(() => {
    if (text === '') return;
    let cancelled = false;
    const timer = setTimeout(async () => {
      const ids = new Set<string>();
      let cursor: string | undefined;
      try {
        do {
          const page = await runsApi.list(projectId).page({ traceId, q: text, limit: '100', cursor });
          for (const run of page.items) ids.add(run.id);
          cursor = page.nextCursor ?? undefined;
        } while (cursor && ids.size < CONTENT_MATCHES && !cancelled);
      } catch {
        // The names, kinds and models still match; the content search is a help, not a must.
      }
      if (!cancelled) setMatches({ text, ids });
    }, 300);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [projectId, traceId, text]);
  return matches && matches.text === text ? matches.ids : null;
}

/**
 * A trace's runs as a waterfall: one row per run in tree order, indented by depth (subtrees fold), a bar
 * at the run's true offset from the trace's start and of its true length on a shared time axis, failed
 * runs marked (colour, icon and text), running ones open-ended. "Find in trace" keeps the runs whose name,
 * kind or model contains it or whose inputs, outputs or error hold its words; "Errors only" the failed
 * runs (each with its ancestors, so it stays in its place). The selected run is highlighted and brought
 * into view (a link with `?run=` opens on it).
 */
export function Waterfall({
  projectId,
  detail,
  rest,
  selected,
  onSelect,
  errorsOnly,
  onErrorsOnly,
}: {
  projectId: string;
  detail: TraceDetail;
  /** While only the outline's first runs are here: the rest is 'loading', or 'failed'. */
  rest: 'loading' | 'failed' | null;
  selected: string | null;
  onSelect: (runId: string) => void;
  errorsOnly: boolean;
  onErrorsOnly: (on: boolean) => void;
}) {
  const [folded, setFolded] = useState<Set<string>>(new Set());
  const [filter, setFilter] = useState('');
  const needle = filter.trim().toLowerCase();
  const content = useContentMatches(projectId, detail.trace.traceId, needle);
  const failedCount = useMemo(() => detail.runs.filter((run) => run.status === 'failed').length, [detail.runs]);
  const start = Date.parse(detail.trace.startTime);
  const end = Math.max(Date.parse(detail.trace.endTime), start + 1);
  const span = end - start;
  const now = Date.now();

  const rows = useMemo(() => {
    const byId = new Map(detail.runs.map((r) => [r.id, r]));
    const narrowed = needle !== '' || errorsOnly;
    const keep = new Set<string>();
    if (narrowed) {
      for (const run of detail.runs) {
        if (errorsOnly && run.status !== 'failed') continue;
        if (needle && !content?.has(run.id) && ![run.name, run.kind, run.model ?? ''].some((text) => text.toLowerCase().includes(needle))) continue;
        for (let at: Outline | undefined = run; at && !keep.has(at.id); at = at.parentRunId ? byId.get(at.parentRunId) : undefined) keep.add(at.id);
      }
    }
    const out: Outline[] = [];
    let hideBelow: number | null = null;
    for (const run of detail.runs) {
      if (hideBelow !== null && run.depth > hideBelow) continue;
      hideBelow = null;
      if (narrowed && !keep.has(run.id)) continue;
      out.push(run);
      if (folded.has(run.id)) hideBelow = run.depth;
    }
    return out;
  }, [detail.runs, folded, needle, content, errorsOnly]);
  const selectedIndex = useMemo(() => (selected === null ? null : rows.findIndex((run) => run.id === selected)), [rows, selected]);
  const hasChildren = useMemo(() => new Set(detail.runs.map((r) => r.parentRunId).filter((id): id is string => id !== null)), [detail.runs]);

  const step = tickStep(span);
  const ticks: number[] = [];
  for (let t = 0; t <= span; t += step) ticks.push(t);
  const pct = (ms: number) => `${Math.min(100, Math.max(0, (ms / span) * 100))}%`;

  const toggle = (id: string) => setFolded((previous) => toggled(previous, id));

  return (
    <section className="panel sl-waterfall" aria-labelledby="waterfall-title">
      <div className="sl-panel-head">
        <h2 id="waterfall-title">Waterfall</h2>
        <label className="sl-inline-field">
          <span>Find in trace</span>
          <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="name, model, input, output or error" />
        </label>
        <label className="sl-inline-check">
          <input type="checkbox" checked={errorsOnly} onChange={(e) => onErrorsOnly(e.target.checked)} disabled={failedCount === 0 && !errorsOnly} /> Errors
          only
          <span className="muted"> ({fmtNumber(failedCount)})</span>
        </label>
        <span className="muted" role="status">
          {needle || errorsOnly ? `${fmtNumber(rows.length)} of ${fmtNumber(detail.runs.length)} runs` : `${fmtNumber(detail.runs.length)} runs`}
          {needle && content === null ? ', searching inputs and outputs…' : ''}
          {rest === 'loading'
            ? ` of ${fmtNumber(detail.trace.runCount)}, loading the rest…`
            : rest === 'failed'
              ? ` of ${fmtNumber(detail.trace.runCount)} (the rest could not be loaded)`
              : detail.truncated
                ? ' (the first of more)'
                : ''}
        </span>
      </div>
      <VirtualRows
        label="Runs of the trace on a time axis"
        items={rows}
        rowHeight={ROW}
        height={Math.min(560, Math.max(3, rows.length) * ROW)}
        reveal={selectedIndex}
        rowClassName={(run) => (run.id === selected ? 'selected' : undefined)}
        header={
          <div role="row" className="sl-wf-axis">
            <span role="columnheader" className="sl-wf-name">
              Run
            </span>
            <span role="columnheader" className="sl-wf-track" aria-label="Time from the trace's start">
              {ticks.map((t) =>
                // The line at the tick's instant, its label beside it: after it, or before it near the end of the axis.
                t / span > 0.85 ? (
                  <span key={t} className="sl-wf-tick end" style={{ right: `calc(100% - ${pct(t)})` }}>
                    {fmtMs(t)}
                  </span>
                ) : (
                  <span key={t} className="sl-wf-tick" style={{ left: pct(t) }}>
                    {fmtMs(t)}
                  </span>
                ),
              )}
            </span>
          </div>
        }
        renderRow={(run) => {
          const offset = Date.parse(run.startTime) - start;
          const length = (run.endTime ? Date.parse(run.endTime) : Math.max(now, end)) - Date.parse(run.startTime);
          const failed = run.status === 'failed';
          return (
            <>
              <span role="cell" className="sl-wf-name" style={{ paddingLeft: 8 + run.depth * 14 }}>
                {hasChildren.has(run.id) ? (
                  <button
                    type="button"
                    className="sl-wf-fold"
                    aria-expanded={!folded.has(run.id)}
                    aria-label={`${folded.has(run.id) ? 'Unfold' : 'Fold'} ${run.name}`}
                    onClick={() => toggle(run.id)}
                  >
                    {folded.has(run.id) ? '▸' : '▾'}
                  </button>
                ) : (
                  <span className="sl-wf-fold" />
                )}
                <button
                  type="button"
                  className={`sl-wf-run${selected === run.id ? ' selected' : ''}`}
                  onClick={() => onSelect(run.id)}
                  aria-current={selected === run.id ? 'true' : undefined}
                >
                  {failed && (
                    <span aria-label="failed" title="failed">
                      ✕{' '}
                    </span>
                  )}
                  {run.name}
                  <span className="muted">
                    {' '}
                    {run.kind}
                    {run.model ? ` · ${run.model}` : ''}
                  </span>
                </button>
              </span>
              <span
                role="cell"
                className="sl-wf-track"
                title={`${run.name}: starts at +${fmtMs(offset)}, lasts ${run.endTime ? fmtMs(length) : 'still running'}${run.cost ? `, ${fmtCost(run.cost)}` : ''}`}
              >
                <span
                  className={`sl-wf-bar ${failed ? 'bad' : run.status === 'running' ? 'running' : run.kind}`}
                  style={{ left: pct(offset), width: `max(2px, ${pct(length)})` }}
                  data-run={run.id}
                />
                <span className="sl-wf-len">{run.endTime ? fmtMs(length) : 'running'}</span>
              </span>
            </>
          );
        }}
      />
    </section>
  );
}
