import { useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { scoreConfigs } from '../../api.js';
import type { FieldLabels } from '../../components/problems.js';
import { useList } from '../../hooks.js';
import { Button, ErrorBox, Options } from '../../components/ui.js';
import type { CreateMonitorInput, Monitor } from '../../types.js';
import { Checkbox, FormField, InvalidBox } from '../prompts/controls.js';
import {
  describeFilter,
  isScoreMetric,
  METRIC_LABELS,
  METRIC_UNITS,
  METRICS,
  OPERATORS,
  WINDOW_LABELS,
  WINDOWS,
  type Metric,
  type MonitorFilter,
  type MonitorScore,
  type Operator,
  thresholdFault,
  thresholdInput,
  thresholdValue,
  type Threshold,
  type Window,
} from './model.js';
import { commaList } from '../runs/query.js';
import { RUN_KINDS, RUN_STATUSES } from '../runs/shared.js';
import { MetricPreview } from './preview.js';

/** The form as typed. Filter keys the form has no field for (traceId, metadata.*, a parent id) are kept as they are. */
interface Draft {
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
const SCORE_SOURCES = ['api', 'annotation', 'evaluator'] as const;
const SCORE_TARGETS = ['run', 'trace', 'session'] as const;

/** What the form sends, on creation and on edits alike: every field the form has. */
export type MonitorBody = Required<Omit<CreateMonitorInput, 'enabled'>>;

function draftOf(monitor?: Monitor): Draft {
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

function filterOf(draft: Draft): MonitorFilter {
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
const FIELDS: FieldLabels = {
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
const thresholdError = (draft: Draft) => (draft.op === '' ? null : thresholdFault(draft.metric, draft.threshold));

/** The threshold as the API takes it (an error rate typed in percent becomes a fraction), null when there is none, or undefined while the typed value is not valid. */
function thresholdOf(draft: Draft): Threshold | null | undefined {
  if (draft.op === '') return null;
  if (thresholdError(draft) !== null) return undefined;
  return { op: draft.op, value: thresholdValue(draft.metric, Number(draft.threshold)) };
}

/** The score a score metric watches, as typed (null for a run metric). */
function scoreOf(draft: Draft): MonitorScore | null {
  if (!isScoreMetric(draft.metric)) return null;
  const label = draft.scoreLabel.trim();
  return draft.metric === 'score_share' && label !== '' ? { name: draft.scoreName.trim(), label } : { name: draft.scoreName.trim() };
}

function check(draft: Draft): { ok: true; body: MonitorBody } | { ok: false; title: string; detail: string } {
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

/** A select of one filter's values, or "any" (the empty string). */
function AnyOf({ label, values, value, onChange }: { label: string; values: readonly string[]; value: string; onChange: (value: string) => void }) {
  return (
    <FormField label={label}>
      {(control) => (
        <select {...control} value={value} onChange={(e) => onChange(e.target.value)}>
          <Options values={values} any="any" />
        </select>
      )}
    </FormField>
  );
}

/** Create or edit a monitor, with a live preview of its metric as the definition changes. */
export function MonitorForm({
  projectId,
  monitor,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  projectId: string;
  monitor?: Monitor;
  submitLabel: string;
  onSubmit: (body: MonitorBody) => Promise<void>;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(monitor));
  const [invalid, setInvalid] = useState<{ title: string; detail: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  /** Whether sending was tried: from then on an empty threshold is said to be missing, not only a wrong one. */
  const [tried, setTried] = useState(false);
  const thresholdRef = useRef<HTMLInputElement>(null);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    setInvalid(null);
  };

  const filter = useMemo(() => filterOf(draft), [draft]);
  const scoreMetric = isScoreMetric(draft.metric);
  // The organization's score configs: their names are offered, and a config's labels for a share.
  const configs = useList(scoreConfigs.list, { archived: false }, 100);
  const config = configs.items.find((c) => c.name === draft.scoreName.trim());
  const labels = config?.dataType === 'boolean' ? ['true', 'false'] : (config?.categories ?? []);
  const namesId = useId();
  const labelsId = useId();
  const threshold = thresholdOf(draft) ?? null;
  const others = describeFilter(draft.otherFilters as MonitorFilter);
  const thresholdMessage = tried || draft.threshold.trim() !== '' ? thresholdError(draft) : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (thresholdError(draft) !== null) {
      thresholdRef.current?.focus();
      return;
    }
    const checked = check(draft);
    if (!checked.ok) {
      setInvalid(checked);
      return;
    }
    setInvalid(null);
    setError(null);
    setBusy(true);
    onSubmit(checked.body)
      .catch((e: unknown) => setError(e))
      .finally(() => setBusy(false));
  };

  return (
    <form onSubmit={submit} noValidate>
      <div className="form-grid">
        <FormField label="Name">
          {(control) => (
            <input {...control} required autoFocus maxLength={200} autoComplete="off" value={draft.name} onChange={(e) => set('name', e.target.value)} />
          )}
        </FormField>
        <FormField label="Description">
          {(control) => <input {...control} maxLength={2000} value={draft.description} onChange={(e) => set('description', e.target.value)} />}
        </FormField>
        <FormField label="Metric">
          {(control) => (
            <select {...control} value={draft.metric} onChange={(e) => set('metric', e.target.value as Metric)}>
              <Options values={METRICS} labels={METRIC_LABELS} />
            </select>
          )}
        </FormField>
        <FormField label="Window" hint="The metric is computed over this rolling window.">
          {(control) => (
            <select {...control} value={draft.window} onChange={(e) => set('window', e.target.value as Window)}>
              <Options values={WINDOWS} labels={WINDOW_LABELS} />
            </select>
          )}
        </FormField>
        <FormField label="Operator" hint="The monitor alerts while “metric operator threshold” holds.">
          {(control) => (
            <select {...control} value={draft.op} onChange={(e) => set('op', e.target.value as Operator | '')}>
              <Options values={OPERATORS} any="none (no alert)" />
            </select>
          )}
        </FormField>
        <FormField label="Threshold" hint={`Unit: ${METRIC_UNITS[draft.metric]}.`} error={thresholdMessage}>
          {(control) => (
            <input
              {...control}
              ref={thresholdRef}
              type="number"
              step="any"
              inputMode="decimal"
              {...(draft.metric === 'error_rate' || draft.metric === 'score_share' ? { min: 0, max: 100 } : {})}
              disabled={draft.op === ''}
              value={draft.threshold}
              onChange={(e) => set('threshold', e.target.value)}
            />
          )}
        </FormField>
      </div>

      {scoreMetric && (
        <fieldset className="form-section">
          <legend>Scores</legend>
          <div className="form-grid">
            <FormField label="Score name" hint={configs.items.length > 0 ? 'A score config’s name, or any score name.' : 'The name the scores are given.'}>
              {(control) => (
                <input
                  {...control}
                  list={namesId}
                  maxLength={100}
                  autoComplete="off"
                  placeholder="helpfulness"
                  value={draft.scoreName}
                  onChange={(e) => set('scoreName', e.target.value)}
                />
              )}
            </FormField>
            <datalist id={namesId}>
              {configs.items.map((c) => (
                <option key={c.id} value={c.name} />
              ))}
            </datalist>
            {draft.metric === 'score_share' && (
              <FormField label="Label" hint="The share of the scores with this label: true or false for a boolean score, or a category.">
                {(control) => (
                  <input
                    {...control}
                    list={labelsId}
                    maxLength={100}
                    autoComplete="off"
                    placeholder="true"
                    value={draft.scoreLabel}
                    onChange={(e) => set('scoreLabel', e.target.value)}
                  />
                )}
              </FormField>
            )}
            <datalist id={labelsId}>
              {labels.map((label) => (
                <option key={label} value={label} />
              ))}
            </datalist>
            <AnyOf label="Source" values={SCORE_SOURCES} value={draft.scoreSource} onChange={(v) => set('scoreSource', v)} />
            <AnyOf label="Target" values={SCORE_TARGETS} value={draft.scoreTarget} onChange={(v) => set('scoreTarget', v)} />
          </div>
        </fieldset>
      )}

      <fieldset className="form-section" hidden={scoreMetric}>
        <legend>Runs filter</legend>
        <div className="form-grid">
          <AnyOf label="Status" values={RUN_STATUSES} value={draft.status} onChange={(v) => set('status', v)} />
          <AnyOf label="Kind" values={RUN_KINDS} value={draft.kind} onChange={(v) => set('kind', v)} />
          <FormField label="Model">
            {(control) => (
              <input {...control} maxLength={256} placeholder="any" autoComplete="off" value={draft.model} onChange={(e) => set('model', e.target.value)} />
            )}
          </FormField>
          <FormField label="Run name" hint="Exact name.">
            {(control) => (
              <input {...control} maxLength={256} placeholder="any" autoComplete="off" value={draft.runName} onChange={(e) => set('runName', e.target.value)} />
            )}
          </FormField>
          <FormField label="Tag" hint="Comma-separated; every tag must be present.">
            {(control) => (
              <input {...control} placeholder="prod, checkout" autoComplete="off" value={draft.tags} onChange={(e) => set('tags', e.target.value)} />
            )}
          </FormField>
          <Checkbox label="Roots only" checked={draft.rootsOnly} onChange={(v) => set('rootsOnly', v)} hint="Only runs without a parent (whole traces)." />
        </div>
        {others.length > 0 && (
          <p className="field-hint" style={{ marginTop: 0 }}>
            Also filtered by {others.join(', ')} (kept as set through the API).
          </p>
        )}
      </fieldset>

      <MetricPreview
        projectId={projectId}
        definition={{ filter, metric: draft.metric, score: scoreOf(draft), window: draft.window, threshold }}
        enabled={monitor?.enabled ?? true}
      />

      <FormField label="Webhook URLs" hint="One per line, at most 5. Each state change is POSTed there, signed with the monitor's secret.">
        {(control) => (
          <textarea
            {...control}
            rows={2}
            style={{ minHeight: 60 }}
            spellCheck={false}
            placeholder="https://hooks.example.com/sightline"
            value={draft.webhookUrls}
            onChange={(e) => set('webhookUrls', e.target.value)}
          />
        )}
      </FormField>

      {invalid && <InvalidBox {...invalid} />}
      {error !== null && <ErrorBox error={error} fields={FIELDS} />}
      <div className="form-actions">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </Button>
      </div>
    </form>
  );
}
