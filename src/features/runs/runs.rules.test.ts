import { describe, expect, it } from 'vitest';
import { runStateFaults, usageWithTotal } from './runs.rules.js';

/** Dependency-free domain rules, shared by the routes and the dashboard (the route suites exercise them over HTTP). */

/** The run invariants shared by create, batch and PATCH. */
describe('run rules', () => {
  const start = Date.parse('2026-11-01T00:00:00.000Z');

  it('a finished run has an end, a running one has none, the end is not before the start, only a failed run has an error', () => {
    expect(runStateFaults({ status: 'succeeded', startTime: start, endTime: start + 5, error: null })).toEqual([]);
    expect(runStateFaults({ status: 'running', startTime: start, endTime: null, error: null })).toEqual([]);
    expect(runStateFaults({ status: 'failed', startTime: start, endTime: start, error: 'boom' })).toEqual([]);
    expect(runStateFaults({ status: 'failed', startTime: start, endTime: null, error: null })).toEqual([
      { field: '/endTime', detail: 'endTime is required when status is failed.' },
    ]);
    expect(runStateFaults({ status: 'running', startTime: start, endTime: start + 1, error: null })).toEqual([
      { field: '/endTime', detail: 'A running run has no endTime; set status to succeeded or failed.' },
    ]);
    expect(runStateFaults({ status: 'succeeded', startTime: start, endTime: start - 1, error: 'x' })).toEqual([
      { field: '/endTime', detail: 'endTime must not be before startTime.' },
      { field: '/error', detail: 'error can only be set when status is failed.' },
    ]);
    // An unreadable start (already a fault of its own) is not compared with.
    expect(runStateFaults({ status: 'succeeded', startTime: null, endTime: start, error: null })).toEqual([]);
  });

  it('usage totals default to prompt + completion tokens, and keep a given total', () => {
    expect(usageWithTotal({ promptTokens: 812, completionTokens: 95 })).toEqual({ promptTokens: 812, completionTokens: 95, totalTokens: 907 });
    expect(usageWithTotal({ promptTokens: 1, completionTokens: 2, totalTokens: 10 })).toEqual({ promptTokens: 1, completionTokens: 2, totalTokens: 10 });
  });
});
