/**
 * The invariants of a run, in one dependency-free place: create, batch and PATCH apply the same
 * rules with the same words (the dashboard may import them too).
 */

/** Finished states: a run in one of them never changes again. */
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['succeeded', 'failed']);

export interface RunFault {
  /** The field, relative to the run (`/endTime`). */
  field: '/endTime' | '/error';
  detail: string;
}

/**
 * What is wrong with a run's status, end and error together, or nothing. `endTime` is the end the run
 * would have (null: none or unreadable); times in epoch milliseconds (a null start is unreadable).
 */
export function runStateFaults(run: { status: string; startTime: number | null; endTime: number | null; error: unknown }): RunFault[] {
  const faults: RunFault[] = [];
  const finished = TERMINAL_STATUSES.has(run.status);
  if (finished && run.endTime === null) faults.push({ field: '/endTime', detail: `endTime is required when status is ${run.status}.` });
  if (!finished && run.endTime !== null) faults.push({ field: '/endTime', detail: 'A running run has no endTime; set status to succeeded or failed.' });
  if (run.endTime !== null && run.startTime !== null && run.endTime < run.startTime)
    faults.push({ field: '/endTime', detail: 'endTime must not be before startTime.' });
  if (run.error != null && run.status !== 'failed') faults.push({ field: '/error', detail: 'error can only be set when status is failed.' });
  return faults;
}

export interface UsageInput {
  promptTokens: number;
  completionTokens: number;
  totalTokens?: number | undefined;
  cacheReadTokens?: number | undefined;
  cacheCreationTokens?: number | undefined;
  reasoningTokens?: number | undefined;
  /** The counts are estimates: Sightline counted the run's texts itself (runs.estimate.ts), or the client says so. */
  estimated?: boolean | undefined;
}

export interface StoredUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cacheReadTokens?: number;
  cacheCreationTokens?: number;
  reasoningTokens?: number;
  estimated?: boolean;
}

const DETAILS = ['cacheReadTokens', 'cacheCreationTokens', 'reasoningTokens'] as const;

/** Token usage as stored: the total defaults to prompt + completion tokens; the details given are kept. */
export function usageWithTotal(usage: UsageInput): StoredUsage {
  const stored: StoredUsage = {
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    totalTokens: usage.totalTokens ?? usage.promptTokens + usage.completionTokens,
  };
  for (const detail of DETAILS) if (usage[detail] !== undefined) stored[detail] = usage[detail];
  if (usage.estimated === true) stored.estimated = true;
  return stored;
}

/** The runs of the call whose parents, followed through the call, lead back to them. */
export function cycleMembers<T>(fresh: ReadonlyMap<string, T>, parentOf: (run: T) => string | null): Set<string> {
  const members = new Set<string>();
  const done = new Set<string>();
  // One walk at a time, its structures reused: a call of 1,000 runs made 1,000 of each.
  const walk: string[] = [];
  const onWalk = new Map<string, number>();
  for (const start of fresh.keys()) {
    walk.length = 0;
    onWalk.clear();
    let id: string | null | undefined = start;
    while (id && fresh.has(id) && !done.has(id)) {
      const at = onWalk.get(id);
      if (at !== undefined) {
        for (const member of walk.slice(at)) members.add(member);
        break;
      }
      onWalk.set(id, walk.length);
      walk.push(id);
      id = parentOf(fresh.get(id)!);
    }
    for (const visited of walk) done.add(visited);
  }
  return members;
}
