import { problems, type FieldError } from './problems.js';

/** Time source. Production uses the system clock; tests pass one they control instead of sleeping. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests can move by hand. */
export function manualClock(start: number): Clock & { set(ms: number): void; advance(ms: number): void } {
  let current = start;
  return {
    now: () => current,
    set: (ms) => {
      current = ms;
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

export function toIso(ms: number): string;
export function toIso(ms: number | null): string | null;
export function toIso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

export const DAY_MS = 86_400_000;

export const TIMESTAMP_FAULT = 'Must be an RFC 3339 date-time (for example 2026-11-21T10:15:30.123Z).';

/** Milliseconds since the epoch of an RFC 3339 date-time, or null when it is not one JavaScript can hold. */
export function parseTimestamp(value: string): number | null {
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/** parseTimestamp, or the validation problem naming where the value came from. */
export function requireTimestamp(value: string, at: Omit<FieldError, 'detail'>): number {
  const ms = parseTimestamp(value);
  if (ms === null) throw problems.validation([{ ...at, detail: TIMESTAMP_FAULT }]);
  return ms;
}
