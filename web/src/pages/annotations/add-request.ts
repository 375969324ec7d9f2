/** An add-by-filter form's draft, and the request it makes (the runs list's filter names; a percentage as a rate). */
import { fromLocalInput } from '../../format.js';
import type { AnnotationFilter, AnnotationQueue } from '../../types.js';
import { commaList, type Draft as RunsDraft } from '../runs/query.js';

/** The runs filter form's fields (as typed), with a search, a sample's percentage and a limit. */
export type Draft = Pick<RunsDraft, 'status' | 'kind' | 'name' | 'model' | 'startedAfter' | 'startedBefore' | 'rootsOnly'> & {
  /** Comma-separated, as typed. */
  tags: string;
  q: string;
  percent: string;
  limit: string;
};
export const EMPTY_DRAFT: Draft = {
  status: '',
  kind: '',
  name: '',
  model: '',
  tags: '',
  q: '',
  startedAfter: '',
  startedBefore: '',
  rootsOnly: false,
  percent: '',
  limit: '',
};

/** The filter the draft sets (the runs list's names); the rate and limit as sent. */
export function requestOf(draft: Draft, target: AnnotationQueue['target']): { filter: AnnotationFilter; rate?: number; limit?: number } {
  const filter: AnnotationFilter = {};
  const text = (value: string) => value.trim();
  if (draft.status) filter.status = draft.status as AnnotationFilter['status'];
  if (draft.kind) filter.kind = draft.kind as AnnotationFilter['kind'];
  if (text(draft.name)) filter.name = text(draft.name);
  if (text(draft.model)) filter.model = text(draft.model);
  if (text(draft.q)) filter.q = text(draft.q);
  const tags = commaList(draft.tags);
  if (tags.length > 0) filter.tag = tags;
  if (draft.startedAfter) filter.startedAfter = fromLocalInput(draft.startedAfter);
  if (draft.startedBefore) filter.startedBefore = fromLocalInput(draft.startedBefore);
  if (draft.rootsOnly && target === 'run') filter.parentRunId = 'null';
  return {
    filter,
    ...(draft.percent.trim() ? { rate: Number(draft.percent) / 100 } : {}),
    ...(draft.limit.trim() ? { limit: Number(draft.limit) } : {}),
  };
}
