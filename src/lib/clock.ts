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

export const DAY_MS = 86_400_000;

/** The last day formatted (`YYYY-MM-DDT`): times come in runs of the same day, and a Date per time is what costs. */
let cachedDay = Number.NaN;
let cachedDayText = '';
/** 0000-01-01 to 9999-12-31: the years toISOString writes with four digits. */
const FOUR_DIGIT_YEARS = [-62_167_219_200_000, 253_402_300_800_000] as const;
const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/** `Date.prototype.toISOString` of a time in milliseconds, without a Date for every time (every run has three). */
export function toIso(ms: number): string;
export function toIso(ms: number | null): string | null;
export function toIso(ms: number | null): string | null {
  if (ms === null) return null;
  if (!Number.isInteger(ms) || ms < FOUR_DIGIT_YEARS[0] || ms >= FOUR_DIGIT_YEARS[1]) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  if (day !== cachedDay) {
    cachedDayText = new Date(day * DAY_MS).toISOString().slice(0, 11);
    cachedDay = day;
  }
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${cachedDayText}${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${pad3(rest - seconds * 1000)}Z`;
}

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
