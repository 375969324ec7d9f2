/** Pieces the annotation queue pages share: their paths, a queue's counts as words and as a bar. */
import { ApiError, scoreConfigs } from '../../api.js';
import { fmtNumber } from '../../format.js';
import { useAsync } from '../../hooks.js';
import type { AnnotationItem, AnnotationQueue, ScoreConfig } from '../../types.js';
import '../runs/runs.css';
import './annotations.css';

export const queuesPath = (projectId: string) => `/projects/${projectId}/annotation-queues`;
export const queuePath = (projectId: string, queueId: string) => `${queuesPath(projectId)}/${encodeURIComponent(queueId)}`;
export const reviewPath = (projectId: string, queueId: string) => `${queuePath(projectId, queueId)}/review`;
/** Where an item's target is read: the run page, or the trace's waterfall. */
export const targetPath = (projectId: string, item: Pick<AnnotationItem, 'target' | 'targetId'>) =>
  `/projects/${projectId}/${item.target === 'run' ? 'runs' : 'traces'}/${encodeURIComponent(item.targetId)}`;

type Counts = AnnotationQueue['counts'];
const PARTS = [
  ['completed', 'Completed'],
  ['skipped', 'Skipped'],
  ['inProgress', 'In progress'],
  ['pending', 'Pending'],
] as const;

export const totalOf = (counts: Counts) => counts.pending + counts.inProgress + counts.completed + counts.skipped;
/** Items done: completed or skipped. */
export const doneOf = (counts: Counts) => counts.completed + counts.skipped;

/** `Completed 3 · Skipped 1 · In progress 0 · Pending 6`. */
export function countsText(counts: Counts): string {
  return PARTS.map(([key, label]) => `${label} ${fmtNumber(counts[key])}`).join(' · ');
}

/** The queue's progress: a bar of completed, skipped, in progress and pending items, and the counts in words. */
export function QueueProgress({ counts, label, compact = false }: { counts: Counts; label: string; compact?: boolean }) {
  const total = totalOf(counts);
  const done = doneOf(counts);
  return (
    <div className={`sl-aq-progress${compact ? ' compact' : ''}`}>
      <div
        className="sl-aq-bar"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={done}
        aria-valuetext={`${fmtNumber(done)} of ${fmtNumber(total)} done`}
      >
        {total > 0 &&
          PARTS.map(([key]) =>
            counts[key] > 0 ? <span key={key} className={`sl-aq-seg sl-aq-${key}`} style={{ width: `${(100 * counts[key]) / total}%` }} /> : null,
          )}
      </div>
      <span className="sl-aq-counts">
        {fmtNumber(done)} of {fmtNumber(total)} done
        {!compact && <span className="muted"> · {countsText(counts)}</span>}
      </span>
    </div>
  );
}

/** A queue's score configs in its order, read by id (one deleted since is left out). */
export function useQueueConfigs(queue: Pick<AnnotationQueue, 'scoreConfigIds'> | undefined) {
  const ids = queue?.scoreConfigIds ?? [];
  return useAsync(
    async () => {
      const found = await Promise.all(
        ids.map((id) =>
          scoreConfigs.get(id).catch((error: unknown) => {
            if (error instanceof ApiError && error.status === 404) return null;
            throw error;
          }),
        ),
      );
      return found.filter((config): config is ScoreConfig => config !== null);
    },
    `configs:${queue ? ids.join(',') : 'none'}`,
  );
}
