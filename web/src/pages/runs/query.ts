/** The runs page's state in its URL: the list filters under their API names, and the chart's range. */
import { EMPTY_SCORE_FILTER, type ScoreFilterDraft } from '../../components/score-chips.js';
import { isScoreFilterKey, scoreFiltersFromSearch, withScoreFilter } from '../../components/score-filters.js';
import { fromLocalInput, toLocalInput } from '../../format.js';

/** The runs-list query (API names; `tag` repeated, `metadata.<key>` as they are). */
export type RunQuery = Record<string, string | string[] | undefined>;

const SINGLE_KEYS = ['status', 'kind', 'name', 'model', 'traceId', 'sessionId', 'userId', 'parentRunId', 'startedAfter', 'startedBefore', 'q'] as const;

/** A comma-separated list as typed (tags): its distinct items, trimmed, none empty. */
export function commaList(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  ];
}

/**
 * Experiment traffic as the dashboard's lists ask for it: left out unless the URL says `experiment=include`
 * (shown with the rest) or `experiment=only` (the API's own default is `include`).
 */
export const EXPERIMENT_CHOICES = [
  { value: 'exclude', label: 'No (production only)' },
  { value: 'include', label: 'With production traffic' },
  { value: 'only', label: 'Only experiment traffic' },
] as const;
export type ExperimentChoice = (typeof EXPERIMENT_CHOICES)[number]['value'];
export const DEFAULT_EXPERIMENT: ExperimentChoice = 'exclude';
export function experimentOf(search: URLSearchParams): ExperimentChoice {
  const value = search.get('experiment');
  return EXPERIMENT_CHOICES.some((c) => c.value === value) ? (value as ExperimentChoice) : DEFAULT_EXPERIMENT;
}

/** The list's direction (`order=asc` in the URL: oldest first; the default, newest first, is left out of it). */
export type ListOrder = 'desc' | 'asc';
export const orderOf = (search: URLSearchParams): ListOrder => (search.get('order') === 'asc' ? 'asc' : 'desc');

/** Whether a query filters anything beyond the dashboard's defaults (experiment traffic left out is a default). */
export const isFiltered = (filters: RunQuery) => Object.keys(filters).some((key) => key !== 'experiment' || filters[key] !== DEFAULT_EXPERIMENT);

/** The runs-list query held in the page's URL, with experiment traffic as the dashboard asks for it. */
export function filtersFromSearch(search: URLSearchParams): RunQuery {
  const query: RunQuery = { experiment: experimentOf(search) };
  for (const key of SINGLE_KEYS) {
    const value = search.get(key);
    if (value !== null && value !== '') query[key] = value;
  }
  const tags = search.getAll('tag').filter((t) => t !== '');
  if (tags.length > 0) query.tag = tags;
  for (const [key, value] of search) if (key.startsWith('metadata.') && value !== '' && query[key] === undefined) query[key] = value;
  return { ...query, ...scoreFiltersFromSearch(search) };
}

/** The score the list's score column shows (`scoreColumn` in the URL: not a filter, never sent to the API). */
export const scoreColumnOf = (search: URLSearchParams): string | undefined => search.get('scoreColumn') || undefined;

/** The filter form as typed (its score fields add one score filter to those in force). */
export interface Draft extends ScoreFilterDraft {
  status: string;
  kind: string;
  name: string;
  model: string;
  /** Tags added one at a time, and what is typed in the tag field and not yet added. */
  tags: string[];
  tagText: string;
  traceId: string;
  sessionId: string;
  userId: string;
  rootsOnly: boolean;
  startedAfter: string;
  startedBefore: string;
  metaKey: string;
  metaValue: string;
}

export function draftFromFilters(filters: RunQuery): Draft {
  const str = (key: string) => (typeof filters[key] === 'string' ? (filters[key] as string) : '');
  const meta = Object.entries(filters).find(([key]) => key.startsWith('metadata.'));
  return {
    status: str('status'),
    kind: str('kind'),
    name: str('name'),
    model: str('model'),
    tags: (filters.tag as string[] | undefined) ?? [],
    tagText: '',
    traceId: str('traceId'),
    sessionId: str('sessionId'),
    userId: str('userId'),
    rootsOnly: str('parentRunId') === 'null',
    startedAfter: toLocalInput(str('startedAfter') || null),
    startedBefore: toLocalInput(str('startedBefore') || null),
    metaKey: meta ? meta[0].slice('metadata.'.length) : '',
    metaValue: meta && typeof meta[1] === 'string' ? meta[1] : '',
    ...EMPTY_SCORE_FILTER,
  };
}

/**
 * The URL query for a draft; timestamps left as they were keep their exact value, the score filters in
 * force stay (chips remove them) and the draft's is added; the score column stays. A fault when the
 * draft's score filter is incomplete.
 */
export function searchFromDraft(draft: Draft, current: RunQuery, range: Range, scoreColumn?: string): URLSearchParams | { fault: string } {
  const params = new URLSearchParams();
  const set = (key: string, value: string) => {
    if (value.trim() !== '') params.set(key, value.trim());
  };
  set('status', draft.status);
  set('kind', draft.kind);
  set('name', draft.name);
  set('model', draft.model);
  for (const tag of new Set([...draft.tags, ...commaList(draft.tagText)])) params.append('tag', tag);
  set('traceId', draft.traceId);
  set('sessionId', draft.sessionId);
  set('userId', draft.userId);
  const parent = typeof current.parentRunId === 'string' ? current.parentRunId : '';
  if (draft.rootsOnly) params.set('parentRunId', 'null');
  else if (parent && parent !== 'null') params.set('parentRunId', parent);
  for (const key of ['startedAfter', 'startedBefore'] as const) {
    const before = typeof current[key] === 'string' ? (current[key] as string) : '';
    if (draft[key] !== '' && draft[key] === toLocalInput(before || null)) params.set(key, before);
    else set(key, fromLocalInput(draft[key]));
  }
  if (draft.metaKey.trim() !== '' && draft.metaValue !== '') params.set(`metadata.${draft.metaKey.trim()}`, draft.metaValue);
  if (typeof current.q === 'string') params.set('q', current.q);
  if (typeof current.experiment === 'string' && current.experiment !== DEFAULT_EXPERIMENT) params.set('experiment', current.experiment);
  if (range !== DEFAULT_RANGE) params.set('range', range);
  for (const [key, value] of Object.entries(current))
    if (isScoreFilterKey(key)) for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) params.append(key, v);
  if (scoreColumn) params.set('scoreColumn', scoreColumn);
  if (draft.scoreName.trim() === '' && draft.scoreValue.trim() === '') return params;
  return withScoreFilter(params, { name: draft.scoreName, test: draft.scoreTest, value: draft.scoreValue });
}

/** The chart's ranges: how far back, and the metrics bucket (its size in ms for the labels). */
export const RANGES = {
  '1h': { label: 'Last hour', ms: 3_600_000, bucket: '1m', bucketMs: 60_000 },
  '24h': { label: 'Last 24 hours', ms: 86_400_000, bucket: '1h', bucketMs: 3_600_000 },
  '7d': { label: 'Last 7 days', ms: 7 * 86_400_000, bucket: '1h', bucketMs: 3_600_000 },
  '30d': { label: 'Last 30 days', ms: 30 * 86_400_000, bucket: '1d', bucketMs: 86_400_000 },
} as const;
export type Range = keyof typeof RANGES;
export const DEFAULT_RANGE: Range = '24h';
export const isRange = (value: string | null): value is Range => value !== null && value in RANGES;

/** The URL query without any filter: only the range, when it is not the default. */
export function clearedSearch(range: Range): URLSearchParams {
  return new URLSearchParams(range === DEFAULT_RANGE ? '' : `range=${range}`);
}

/**
 * The time window the chart and the list show: `startedAfter`/`startedBefore` when set (a zoom or a
 * drill, or typed), else the range back from `now`; with the bucket that gives a few dozen bars.
 */
export function windowOf(filters: RunQuery, range: Range, now: number): { from: number; to: number; bucket: '1m' | '1h' | '1d'; bucketMs: number } {
  const after = typeof filters.startedAfter === 'string' ? Date.parse(filters.startedAfter) : NaN;
  const before = typeof filters.startedBefore === 'string' ? Date.parse(filters.startedBefore) : NaN;
  const to = Number.isNaN(before) ? now : before;
  const from = Number.isNaN(after) ? to - RANGES[range].ms : after;
  const span = Math.max(1, to - from);
  if (span <= 3 * 3_600_000) return { from, to, bucket: '1m', bucketMs: 60_000 };
  if (span <= 3 * 86_400_000) return { from, to, bucket: '1h', bucketMs: 3_600_000 };
  return { from, to, bucket: '1d', bucketMs: 86_400_000 };
}
