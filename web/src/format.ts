/**
 * Every date, duration, count (runs, tokens), amount of money and percent the dashboard shows, in the
 * browser's locale and time zone; '—' stands for no value.
 */

/** The full date and time: `Nov 21, 2026, 03:48:40 PM`. */
export function fmtDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** A calendar day given in UTC (a table's date), as that day wherever the browser is: `Nov 23, 2026`. */
export function fmtDay(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** The time of day: `15:48`. */
export function fmtTime(iso: string): string {
  return new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

/** A duration: `850 ms`, `2.35 s`, `1.5 min`. */
export function fmtMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/** A count (runs, tokens) or any number: `12,345`. */
export function fmtNumber(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  return n.toLocaleString(undefined, { maximumFractionDigits: 4 });
}

/**
 * Money in dollars, per run or in total: from a cent up, to the cent (`$12.00`, `$1,234.57`); under a
 * cent, two significant digits (`$0.00042`, `$0.0021`), so a cheap call neither reads as `$0.00` nor
 * as a long tail of digits. Only nothing is `$0.00`.
 */
export function fmtCost(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  const abs = Math.abs(n);
  const sign = n < 0 ? '-' : '';
  const digits: Intl.NumberFormatOptions = abs === 0 || abs >= 0.01 ? { minimumFractionDigits: 2, maximumFractionDigits: 2 } : { maximumSignificantDigits: 2 };
  return `${sign}$${abs.toLocaleString(undefined, digits)}`;
}

/** A price per million tokens in dollars, to its own precision: `$2.50`, `$0.075`, `$0.0375`. */
export function fmtPrice(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  return `$${n.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 6 })}`;
}

/** `2 minutes ago`, `in 3 days`. */
export function fmtRelative(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const diff = Date.parse(iso) - Date.now();
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const abs = Math.abs(diff);
  if (abs < 60_000) return rtf.format(Math.round(diff / 1000), 'second');
  if (abs < 3_600_000) return rtf.format(Math.round(diff / 60_000), 'minute');
  if (abs < 86_400_000) return rtf.format(Math.round(diff / 3_600_000), 'hour');
  return rtf.format(Math.round(diff / 86_400_000), 'day');
}

/** A compact, exact instant: `Nov 21, 15:48:40.123` (the year when it is not this one). */
export function fmtInstant(iso: string | null | undefined, withMs = false): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', ...(withMs ? { fractionalSecondDigits: 3 } : {}) });
  return `${shortDate(d)}, ${time}`;
}

/** A short start time: the time today, else the date and time. */
export function fmtStart(iso: string): string {
  const d = new Date(iso);
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  if (d.toDateString() === new Date().toDateString()) return time;
  return `${shortDate(d)}, ${time}`;
}

/** `Nov 21`, with the year when it is not this one. */
function shortDate(d: Date): string {
  return d.toLocaleDateString(undefined, { month: 'short', day: 'numeric', ...(d.getFullYear() !== new Date().getFullYear() ? { year: 'numeric' } : {}) });
}

/** A chart bucket's label: the day for buckets of a day or more, else the time (after the weekday when asked). */
export function fmtBucket(iso: string, bucketMs: number, withWeekday = false): string {
  const d = new Date(iso);
  if (bucketMs >= 86_400_000) return d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  return withWeekday ? `${d.toLocaleDateString(undefined, { weekday: 'short' })} ${fmtTime(iso)}` : fmtTime(iso);
}

/** A fraction as a percent: `5 %`, `12.35 %` (at most two decimals). */
export function fmtPercent(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined) return '—';
  return `${(fraction * 100).toLocaleString(undefined, { maximumFractionDigits: 2 })} %`;
}

/** A part of a whole in short: `3.3%` under 10 %, whole percents above; null when the whole is 0. */
export function fmtShare(part: number, whole: number): string | null {
  if (whole <= 0) return null;
  const percent = (part / whole) * 100;
  return `${percent < 10 ? percent.toFixed(1) : Math.round(percent)}%`;
}

/** An axis tick: `1.5M`, `12k`, `0.25`. */
export function fmtCompact(n: number): string {
  if (n >= 1_000_000) return `${Math.round(n / 100_000) / 10}M`;
  if (n >= 1000) return `${Math.round(n / 100) / 10}k`;
  return String(Math.round(n * 1000) / 1000);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** An ISO timestamp as a `datetime-local` value in the browser's time zone ('' if not a timestamp). */
export function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const base = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return d.getSeconds() || d.getMilliseconds() ? `${base}:${pad(d.getSeconds())}` : base;
}

/** A `datetime-local` value (local time) as an ISO timestamp; '' stays ''. */
export function fromLocalInput(local: string): string {
  if (!local) return '';
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

/** Whether a part of a summed cost is some cost: sums of floating-point costs leave a millionth of a cent or less as rounding. */
export const someCost = (amount: number): boolean => amount > 1e-8;

/** Where a total cost came from: computed from model prices, sent by clients, or both (how much of each). */
export function costSplit(cost: number, computed: number): string {
  const client = someCost(cost - computed) ? cost - computed : 0;
  if (!someCost(computed)) return 'sent by clients';
  if (client === 0) return 'computed from model prices';
  return `${fmtCost(computed)} computed from model prices · ${fmtCost(client)} sent by clients`;
}

/** A total as shown, `≈` before it when part of it is estimated (runs that reported no tokens had their texts counted). */
export function approx(total: string, estimated: boolean): string {
  return estimated ? `≈${total}` : total;
}

/** A trace's, a session's or a user's tokens, `≈` when some are estimated. */
export function fmtTotalTokens(usage: { totalTokens: number; estimatedTokens: number }): string {
  return approx(fmtNumber(usage.totalTokens), usage.estimatedTokens > 0);
}

/** A trace's, a session's or a user's cost, `≈` when some of it is of runs whose tokens are estimated. */
export function fmtTotalCost(of: { cost: number; estimatedCost: number }): string {
  return approx(fmtCost(of.cost), someCost(of.estimatedCost));
}

/** What the `≈` of a total means, for its title: how many tokens and how much cost are estimated. */
export function estimatedTitle(of: { usage: { estimatedTokens: number }; estimatedCost: number }): string | undefined {
  if (of.usage.estimatedTokens <= 0) return undefined;
  const cost = someCost(of.estimatedCost) ? `, and ${fmtCost(of.estimatedCost)} of the cost computed from them` : '';
  return `${fmtNumber(of.usage.estimatedTokens)} tokens estimated from runs’ texts (they reported none)${cost}`;
}
