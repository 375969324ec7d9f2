/** The monitor form's draft: the form as typed, read from a monitor and checked into the body the API takes. */
import type { FieldLabels } from '../../components/problems.js';
import type { CreateMonitorInput, Monitor } from '../../types.js';
import {
  isScoreMetric,
  thresholdFault,
  thresholdInput,
  thresholdValue,
  type Metric,
  type MonitorFilter,
  type MonitorScore,
  type Operator,
  type Threshold,
  type Window,
} from './model.js';
import { commaList } from '../runs/query.js';

/** The form as typed. Filter keys the form has no field for (traceId, metadata.*, a parent id) are kept as they are. */
export interface Draft {
  name: string;
  description: string;
  metric: Metric;
  window: Window;
  op: Operator | '';
  threshold: string;
  status: string;
  kind: string;
  model: string;
  runName: string;
  tags: string;
  rootsOnly: boolean;
  otherFilters: Record<string, unknown>;
  /** Score metrics: the scores' name and (score_share) label, and the scores filter. */
  scoreName: string;
  scoreLabel: string;
  scoreSource: string;
  scoreTarget: string;
  webhookUrls: string;
}

/** The scores filter's values (the scores list's `source` and `target`). */
export const SCORE_SOURCES = ['api', 'annotation', 'evaluator'] as const;
export const SCORE_TARGETS = ['run', 'trace', 'session'] as const;

/** What the form sends, on creation and on edits alike: every field the form has. */
export type MonitorBody = Required<Omit<CreateMonitorInput, 'enabled'>>;

export function draftOf(monitor?: Monitor): Draft {
  if (!monitor) {
    return {
      name: '',
      description: '',
      metric: 'count',
      window: '1h',
      op: '',
      threshold: '',
      status: '',
      kind: '',
      model: '',
      runName: '',
      tags: '',
      rootsOnly: false,
      otherFilters: {},
      scoreName: '',
      scoreLabel: '',
      scoreSource: '',
      scoreTarget: '',
      webhookUrls: '',
    };
  }
  const { status, kind, model, name, tag, parentRunId, source, target, ...rest } = monitor.filter as MonitorFilter;
  const otherFilters: Record<string, unknown> = { ...rest };
  if (typeof parentRunId === 'string') otherFilters.parentRunId = parentRunId;
  return {
    name: monitor.name,
    description: monitor.description,
    metric: monitor.metric,
    window: monitor.window,
    op: monitor.threshold?.op ?? '',
    threshold: monitor.threshold ? thresholdInput(monitor.metric, monitor.threshold.value) : '',
    status: status ?? '',
    kind: kind ?? '',
    model: model ?? '',
    runName: name ?? '',
    tags: (tag ?? []).join(', '),
    rootsOnly: parentRunId === null,
    otherFilters,
    scoreName: monitor.score?.name ?? '',
    scoreLabel: monitor.score?.label ?? '',
    scoreSource: source ?? '',
    scoreTarget: target ?? '',
    webhookUrls: monitor.webhookUrls.join('\n'),
  };
}

export function filterOf(draft: Draft): MonitorFilter {
  // A score metric's filter selects scores (source, target); the runs filter's fields do not apply.
  if (isScoreMetric(draft.metric)) {
    const scores: Record<string, unknown> = {};
    if (draft.scoreSource) scores.source = draft.scoreSource;
    if (draft.scoreTarget) scores.target = draft.scoreTarget;
    return scores as MonitorFilter;
  }
  const filter: Record<string, unknown> = { ...draft.otherFilters };
  if (draft.status) filter.status = draft.status;
  if (draft.kind) filter.kind = draft.kind;
  if (draft.model.trim()) filter.model = draft.model.trim();
  if (draft.runName.trim()) filter.name = draft.runName.trim();
  const tags = commaList(draft.tags);
  if (tags.length > 0) filter.tag = tags;
  if (draft.rootsOnly) filter.parentRunId = null;
  return filter as MonitorFilter;
}

/** The server's pointers into a monitor body, named as the form's fields (components/problems.tsx). */
export const FIELDS: FieldLabels = {
  name: 'Name',
  description: 'Description',
  metric: 'Metric',
  window: 'Window',
  threshold: 'Threshold',
  'threshold/op': 'Operator',
  'threshold/value': 'Threshold',
  filter: 'Runs filter',
  'filter/*': 'Filter {n}',
  'filter/status': 'Status',
  'filter/kind': 'Kind',
  'filter/model': 'Model',
  'filter/name': 'Run name',
  'filter/tag': 'Tag',
  'filter/tag/*': 'Tag {n}',
  'filter/parentRunId': 'Roots only',
  'filter/source': 'Source',
  'filter/target': 'Target',
  score: 'Score name',
  'score/name': 'Score name',
  'score/label': 'Label',
  webhookUrls: 'Webhook URLs',
  'webhookUrls/*': 'Webhook URL {n}',
};

/** Why the typed threshold cannot be sent, or null (always null without an operator). */
export const thresholdError = (draft: Draft) => (draft.op === '' ? null : thresholdFault(draft.metric, draft.threshold));

/** The threshold as the API takes it (an error rate typed in percent becomes a fraction), null when there is none, or undefined while the typed value is not valid. */
export function thresholdOf(draft: Draft): Threshold | null | undefined {
  if (draft.op === '') return null;
  if (thresholdError(draft) !== null) return undefined;
  return { op: draft.op, value: thresholdValue(draft.metric, Number(draft.threshold)) };
}

/** The score a score metric watches, as typed (null for a run metric). */
export function scoreOf(draft: Draft): MonitorScore | null {
  if (!isScoreMetric(draft.metric)) return null;
  const label = draft.scoreLabel.trim();
  return draft.metric === 'score_share' && label !== '' ? { name: draft.scoreName.trim(), label } : { name: draft.scoreName.trim() };
}

export function check(draft: Draft): { ok: true; body: MonitorBody } | { ok: false; title: string; detail: string } {
  if (draft.name.trim() === '') return { ok: false, title: 'The monitor needs a name', detail: 'Type a name, such as "prod error rate".' };
  if (isScoreMetric(draft.metric) && draft.scoreName.trim() === '')
    return { ok: false, title: 'The score needs a name', detail: 'Type the name of the scores to watch, such as "helpfulness".' };
  if (draft.metric === 'score_share' && draft.scoreLabel.trim() === '')
    return { ok: false, title: 'The share needs a label', detail: 'Type the label counted: true or false for a boolean score, or a category.' };
  const threshold = thresholdOf(draft);
  if (threshold === undefined) return { ok: false, title: 'The threshold is not valid', detail: thresholdError(draft) ?? '' };
  const webhookUrls = [
    ...new Set(
      draft.webhookUrls
        .split('\n')
        .map((u) => u.trim())
        .filter(Boolean),
    ),
  ];
  if (webhookUrls.length > 5)
    return { ok: false, title: 'Too many webhook URLs', detail: `A monitor may call at most 5 URLs; ${webhookUrls.length} are listed.` };
  return {
    ok: true,
    body: {
      name: draft.name.trim(),
      description: draft.description.trim(),
      filter: filterOf(draft),
      metric: draft.metric,
      score: scoreOf(draft),
      window: draft.window,
      threshold,
      webhookUrls,
    },
  };
}
