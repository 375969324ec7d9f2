import { useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { scoreConfigs } from '../../api.js';
import { useList } from '../../hooks.js';
import { FormActions, Options } from '../../components/ui.js';
import type { Monitor } from '../../types.js';
import { Checkbox, FormField, InvalidBox, SelectField } from '../prompts/controls.js';
import {
  describeFilter,
  isScoreMetric,
  METRIC_LABELS,
  METRIC_UNITS,
  METRICS,
  OPERATORS,
  WINDOW_LABELS,
  WINDOWS,
  type Operator,
  type MonitorFilter,
} from './model.js';
import { RUN_KINDS, RUN_STATUSES } from '../runs/shared.js';
import { check, draftOf, FIELDS, filterOf, SCORE_SOURCES, SCORE_TARGETS, scoreOf, thresholdError, thresholdOf, type Draft, type MonitorBody } from './draft.js';
import { MetricPreview } from './preview.js';

/** A text input offering `suggestions` (any text will do). */
function SuggestField({
  label,
  hint,
  placeholder,
  value,
  onChange,
  suggestions,
}: {
  label: string;
  hint: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
  suggestions: string[];
}) {
  const listId = useId();
  return (
    <>
      <FormField label={label} hint={hint}>
        {(control) => (
          <input
            {...control}
            list={listId}
            maxLength={100}
            autoComplete="off"
            placeholder={placeholder}
            value={value}
            onChange={(e) => onChange(e.target.value)}
          />
        )}
      </FormField>
      <datalist id={listId}>
        {suggestions.map((suggestion) => (
          <option key={suggestion} value={suggestion} />
        ))}
      </datalist>
    </>
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
        <SelectField label="Metric" value={draft.metric} onChange={(v) => set('metric', v)} values={METRICS} labels={METRIC_LABELS} />
        <SelectField
          label="Window"
          hint="The metric is computed over this rolling window."
          value={draft.window}
          onChange={(v) => set('window', v)}
          values={WINDOWS}
          labels={WINDOW_LABELS}
        />
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
            <SuggestField
              label="Score name"
              hint={configs.items.length > 0 ? 'A score config’s name, or any score name.' : 'The name the scores are given.'}
              placeholder="helpfulness"
              value={draft.scoreName}
              onChange={(v) => set('scoreName', v)}
              suggestions={configs.items.map((c) => c.name)}
            />
            {draft.metric === 'score_share' && (
              <SuggestField
                label="Label"
                hint="The share of the scores with this label: true or false for a boolean score, or a category."
                placeholder="true"
                value={draft.scoreLabel}
                onChange={(v) => set('scoreLabel', v)}
                suggestions={labels}
              />
            )}
            <SelectField label="Source" any="any" values={SCORE_SOURCES} value={draft.scoreSource} onChange={(v) => set('scoreSource', v)} />
            <SelectField label="Target" any="any" values={SCORE_TARGETS} value={draft.scoreTarget} onChange={(v) => set('scoreTarget', v)} />
          </div>
        </fieldset>
      )}

      <fieldset className="form-section" hidden={scoreMetric}>
        <legend>Runs filter</legend>
        <div className="form-grid">
          <SelectField label="Status" any="any" values={RUN_STATUSES} value={draft.status} onChange={(v) => set('status', v)} />
          <SelectField label="Kind" any="any" values={RUN_KINDS} value={draft.kind} onChange={(v) => set('kind', v)} />
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
      <FormActions error={error} fields={FIELDS} busy={busy} disabled={false} submitLabel={submitLabel} onCancel={onCancel} className="form-actions" />
    </form>
  );
}
