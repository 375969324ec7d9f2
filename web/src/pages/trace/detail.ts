import { traces } from '../../api.js';
import { useAsync } from '../../hooks.js';

/** Runs of the outline the first answer holds: the waterfall's first screens, drawn while the rest is on its way. */
export const FIRST_RUNS = 300;

/**
 * A trace's detail as the trace page draws it: first its totals and the outline's first FIRST_RUNS runs
 * (a trace of 25,000 runs is several megabytes of outline: its first screen need not wait for them), then,
 * when there are more, the whole outline. `rest`: 'loading' or 'failed' while only the first runs are there.
 */
export function useTraceDetail(projectId: string, traceId: string) {
  // Keys that name one thing in the whole dashboard (the query cache is shared): the first runs, the whole outline.
  const key = `trace:${projectId}/${traceId}`;
  const first = useAsync(() => traces.get(projectId, traceId, { runLimit: String(FIRST_RUNS) }), key);
  const head = first.data?.trace.traceId === traceId ? first.data : undefined;
  const more = head?.truncated === true;
  const whole = useAsync(() => (more ? traces.get(projectId, traceId) : Promise.resolve(undefined)), `${key}/${more ? 'whole' : 'first'}`);
  const all = more && whole.data?.trace.traceId === traceId ? whole.data : undefined;
  const rest: 'loading' | 'failed' | null = !more || all ? null : whole.error ? 'failed' : 'loading';
  return { state: first, detail: all ?? head, rest };
}
