import { newRunId, newScoreId } from './ids.js';
import type { RunBatchResult, RunCreate } from './types.js';

/** The most runs one batch request carries (the server's bound). */
export const MAX_BATCH = 1000;

/** Gives every run without an id a client-generated one, so that sending it twice creates it once. */
export function withRunIds<T extends { id?: string }>(runs: readonly T[]): (T & { id: string })[] {
  return runs.map((run) => (run.id === undefined ? { ...run, id: newRunId() } : (run as T & { id: string })));
}

/** Gives every score without an id a client-generated one, for the same reason. */
export function withScoreIds<T extends { id?: string }>(scores: readonly T[]): (T & { id: string })[] {
  return scores.map((score) => (score.id === undefined ? { ...score, id: newScoreId() } : (score as T & { id: string })));
}

/**
 * Sends `items` through `send` at most MAX_BATCH at a time, in order (a parent's batch before its
 * children's), and joins the answers: one result per item, its `index` counted in `items`. An empty
 * list is sent once when `sendEmpty` (the server's answer is the caller's), else not at all.
 */
export async function inBatches<T, R extends { index: number }>(
  items: readonly T[],
  send: (chunk: T[]) => Promise<{ results: R[] }>,
  sendEmpty = false,
): Promise<{ results: R[] }> {
  const results: R[] = [];
  for (let offset = 0; offset < items.length || (sendEmpty && offset === 0); offset += MAX_BATCH) {
    const answer = await send(items.slice(offset, offset + MAX_BATCH));
    for (const result of answer.results) results.push({ ...result, index: result.index + offset });
  }
  return { results };
}

/** What a `Tracer` sends its runs through: a `Sightline` client (its `runs.batch`). */
export interface RunBatchSender {
  readonly runs: {
    batch(projectId: string, runs: readonly RunCreate[]): Promise<RunBatchResult>;
  };
}
