import type { RunRow } from '../../db/schema.js';
import type { RollupTotals } from '../../db/schema.runs.js';
import type { StoredUsage } from './runs.rules.js';

// A run's part of the rollups of its trace, session and end user, and how totals add up: the arithmetic of runs.rollups.ts.

/** What one run adds to its trace, its session and its end user. */
export interface Contribution {
  traceId: string;
  runId: string;
  root: boolean;
  name: string;
  sessionId: string | null;
  userId: string | null;
  totals: RollupTotals;
}

/** A run's contribution, from its columns and its record (the token types and the cost's source live there). */
export function contributionOf(
  row: Pick<RunRow, 'id' | 'trace_id' | 'parent_run_id' | 'name' | 'status' | 'start_time' | 'end_time' | 'cost' | 'session_id' | 'user_id'>,
  { usage, costSource }: { usage: StoredUsage | null; costSource: 'client' | 'computed' | null },
): Contribution {
  return {
    traceId: row.trace_id,
    runId: row.id,
    root: row.parent_run_id === null,
    name: row.name,
    sessionId: row.session_id,
    userId: row.user_id,
    totals: {
      run_count: 1,
      error_count: row.status === 'failed' ? 1 : 0,
      running_count: row.status === 'running' ? 1 : 0,
      prompt_tokens: usage?.promptTokens ?? 0,
      completion_tokens: usage?.completionTokens ?? 0,
      total_tokens: usage?.totalTokens ?? 0,
      cache_read_tokens: usage?.cacheReadTokens ?? 0,
      cache_creation_tokens: usage?.cacheCreationTokens ?? 0,
      reasoning_tokens: usage?.reasoningTokens ?? 0,
      cost: row.cost ?? 0,
      computed_cost: costSource === 'computed' ? (row.cost ?? 0) : 0,
      estimated_tokens: usage?.estimated === true ? usage.totalTokens : 0,
      estimated_cost: usage?.estimated === true ? (row.cost ?? 0) : 0,
      start_time: row.start_time,
      end_time: row.end_time ?? row.start_time,
    },
  };
}

export const SUMMED = [
  'run_count',
  'error_count',
  'running_count',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cache_read_tokens',
  'cache_creation_tokens',
  'reasoning_tokens',
  'cost',
  'computed_cost',
  'estimated_tokens',
  'estimated_cost',
] as const;

/** No time of its own: a removal leaves the span of what remains as it was. */
const NO_START = Number.MAX_SAFE_INTEGER;
const NO_END = 0;

/** A literal, not built from SUMMED: one per trace, session and user of every call. */
export function emptyTotals(): RollupTotals {
  return {
    run_count: 0,
    error_count: 0,
    running_count: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    cache_read_tokens: 0,
    cache_creation_tokens: 0,
    reasoning_tokens: 0,
    cost: 0,
    computed_cost: 0,
    estimated_tokens: 0,
    estimated_cost: 0,
    start_time: NO_START,
    end_time: NO_END,
  };
}

/**
 * `target` plus `sign` times `source`, column by column (the columns of SUMMED): written out, since a loop
 * over the names made every sum a lookup by name, a measurable part of ingestion's rollups.
 */
export function addTotals(target: RollupTotals, source: RollupTotals, sign: 1 | -1): void {
  target.run_count += sign * source.run_count;
  target.error_count += sign * source.error_count;
  target.running_count += sign * source.running_count;
  target.prompt_tokens += sign * source.prompt_tokens;
  target.completion_tokens += sign * source.completion_tokens;
  target.total_tokens += sign * source.total_tokens;
  target.cache_read_tokens += sign * source.cache_read_tokens;
  target.cache_creation_tokens += sign * source.cache_creation_tokens;
  target.reasoning_tokens += sign * source.reasoning_tokens;
  target.cost += sign * source.cost;
  target.computed_cost += sign * source.computed_cost;
  target.estimated_tokens += sign * source.estimated_tokens;
  target.estimated_cost += sign * source.estimated_cost;
}
