import { runs } from '../../api.js';
import { useAsync } from '../../hooks.js';
import { Link } from '../../router.js';
import type { Run } from '../../types.js';

/** Failed runs a trace's failure is read from: the first page of them is plenty to find where it began. */
const FAILED_READ = 50;
/** The error's first characters (the run's page has all of it). */
const ERROR_SHOWN = 400;

/**
 * Where a trace's failure began: of its failed runs, those none of whose children failed (a parent that
 * failed because a child did is not the cause), the earliest of them.
 */
export function culpritOf<T extends Pick<Run, 'id' | 'parentRunId' | 'startTime'>>(failed: T[]): T | undefined {
  const parents = new Set(failed.map((run) => run.parentRunId));
  const causes = failed.filter((run) => !parents.has(run.id));
  return (causes.length > 0 ? causes : failed).reduce<T | undefined>((first, run) => (!first || run.startTime < first.startTime ? run : first), undefined);
}

/** The failed runs of a trace (none asked for when it has no error), and the one its failure began at. */
export function useFailure(projectId: string, traceId: string, errorCount: number) {
  const state = useAsync(
    () => (errorCount > 0 ? runs.list(projectId).page({ traceId, status: 'failed', limit: String(FAILED_READ) }) : Promise.resolve(null)),
    `failure:${projectId}/${traceId}/${errorCount}`,
  );
  const failed = state.data?.items ?? [];
  return { culprit: culpritOf(failed), count: errorCount, loading: state.loading };
}

/**
 * What failed, in a sentence: the run the failure began at (a link that opens it in the trace) and its
 * error, and how many runs failed in all.
 */
export function Failure({
  projectId,
  traceId,
  errorCount,
  onOpen,
}: {
  projectId: string;
  traceId: string;
  errorCount: number;
  onOpen?: (runId: string) => void;
}) {
  const { culprit, count } = useFailure(projectId, traceId, errorCount);
  if (!culprit) return null;
  const to = `/projects/${projectId}/traces/${encodeURIComponent(traceId)}?run=${encodeURIComponent(culprit.id)}`;
  return (
    <p className="sl-failure">
      <span aria-hidden="true">✕ </span>
      <Link
        to={to}
        onClick={
          onOpen
            ? (e) => {
                e.preventDefault();
                onOpen(culprit.id);
              }
            : undefined
        }
      >
        {culprit.name}
      </Link>{' '}
      failed{culprit.error ? ': ' : ''}
      {culprit.error && (
        <span className="sl-failure-error">{culprit.error.length > ERROR_SHOWN ? `${culprit.error.slice(0, ERROR_SHOWN)}…` : culprit.error}</span>
      )}
      {count > 1 && <span className="muted"> · {count.toLocaleString('en-US')} runs failed</span>}
    </p>
  );
}
