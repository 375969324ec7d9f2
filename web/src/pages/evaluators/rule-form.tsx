/** An evaluator rule's form, and the evaluator types it offers. */
import { useState } from 'react';
import { FormActions, type FormProps } from '../../components/ui.js';
import { useSubmit } from '../../hooks.js';
import type { CreateEvaluatorRuleInput, Evaluator, EvaluatorRule } from '../../types.js';
import { jsonText, parseJson } from '../datasets/json.js';
import { Checkbox, FormField } from '../prompts/controls.js';
import { JudgePickers } from './judge-pickers.js';

export type EvaluatorType = Evaluator['type'];

/** Each evaluator type: its label, and the fields a new rule of it starts with (edited as JSON). */
export const TYPES: Record<EvaluatorType, { label: string; example: Record<string, unknown> }> = {
  json_valid: { label: 'JSON validity', example: {} },
  json_schema: { label: 'JSON schema', example: { schema: { type: 'object', required: ['answer'] } } },
  regex: { label: 'Regex', example: { pattern: '^\\d+$', flags: 'i', mode: 'match' } },
  contains: { label: 'Contains', example: { values: ['refund'], mode: 'any', caseSensitive: false } },
  exact_match: { label: 'Exact match', example: { expectedKey: 'expected' } },
  fuzzy_match: { label: 'Fuzzy match', example: { expectedKey: 'expected', threshold: 0.8 } },
  length: { label: 'Length', example: { min: 1, max: 2000 } },
  latency: { label: 'Latency', example: { maxMs: 5000 } },
  // Its connection and prompt are picked from the organization's (JudgePickers); the ids look like `mcn_…`.
  llm_judge: { label: 'LLM judge', example: { connectionId: '', promptName: '' } },
};
export const TYPE_VALUES = Object.keys(TYPES) as EvaluatorType[];
export const RULE_FIELDS = { name: 'Name', scoreName: 'Score name', sampleRate: 'Sample rate', filter: 'Filter', evaluator: 'Evaluator', enabled: 'Enabled' };

const settingsOf = (evaluator: Evaluator): Record<string, unknown> => {
  const { type: _type, ...rest } = evaluator as Record<string, unknown>;
  return rest;
};

/** A rule's fields: name, score name, rate, enabled, the runs filter and the evaluator (its type, then its settings as JSON). */
export function RuleForm({ initial, submitLabel, onSubmit, onCancel }: FormProps<EvaluatorRule, CreateEvaluatorRuleInput>) {
  const [name, setName] = useState(initial?.name ?? '');
  const [scoreName, setScoreName] = useState(initial?.scoreName ?? '');
  const [rate, setRate] = useState(String(initial?.sampleRate ?? 1));
  const [enabled, setEnabled] = useState(initial?.enabled ?? true);
  const [filter, setFilter] = useState(initial && Object.keys(initial.filter).length > 0 ? jsonText(initial.filter) : '');
  const [type, setType] = useState<EvaluatorType>(initial?.evaluator.type ?? 'json_valid');
  const [settings, setSettings] = useState(jsonText(initial ? settingsOf(initial.evaluator) : TYPES.json_valid.example));
  const [faults, setFaults] = useState<{ filter?: string; settings?: string; rate?: string }>({});
  const { busy, error, submit } = useSubmit(async () => {
    const parsedFilter = parseJson(filter, 'Filter', { object: true });
    const parsedSettings = parseJson(settings, 'Settings', { object: true });
    const sampleRate = Number(rate);
    const found = {
      ...(parsedFilter.ok ? {} : { filter: parsedFilter.fault }),
      ...(parsedSettings.ok ? {} : { settings: parsedSettings.fault }),
      ...(rate.trim() !== '' && sampleRate >= 0 && sampleRate <= 1 ? {} : { rate: 'A sample rate is a number from 0 to 1.' }),
    };
    setFaults(found);
    if (!parsedFilter.ok || !parsedSettings.ok || Object.keys(found).length > 0) return;
    await onSubmit({
      name: name.trim(),
      scoreName: scoreName.trim(),
      sampleRate,
      enabled,
      filter: (parsedFilter.value ?? {}) as CreateEvaluatorRuleInput['filter'],
      evaluator: { ...((parsedSettings.value ?? {}) as Record<string, unknown>), type } as Evaluator,
    });
  });
  return (
    <form onSubmit={(e) => void submit(e)} aria-label={initial ? `Edit ${initial.name}` : 'New evaluator rule'}>
      <FormField label="Name" hint="Unique in the project.">
        {(control) => <input {...control} value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} autoFocus autoComplete="off" />}
      </FormField>
      <FormField label="Score name" hint="The name of the scores the rule gives (source evaluator).">
        {(control) => <input {...control} value={scoreName} onChange={(e) => setScoreName(e.target.value)} required maxLength={100} autoComplete="off" />}
      </FormField>
      <FormField label="Sample rate" hint="From 0 to 1: the share of new matching runs evaluated, the same runs each time." error={faults.rate}>
        {(control) => <input {...control} type="number" min={0} max={1} step="any" value={rate} onChange={(e) => setRate(e.target.value)} required />}
      </FormField>
      <FormField label="Filter" hint='The runs list’s filters as JSON, such as {"kind": "llm", "tag": ["prod"]}; empty: every run.' error={faults.filter}>
        {(control) => (
          <textarea {...control} value={filter} onChange={(e) => setFilter(e.target.value)} rows={3} className="sl-plain-textarea" spellCheck={false} />
        )}
      </FormField>
      <FormField label="Evaluator">
        {(control) => (
          <select
            {...control}
            value={type}
            onChange={(e) => {
              const next = e.target.value as EvaluatorType;
              setType(next);
              setSettings(jsonText(TYPES[next].example));
            }}
          >
            {TYPE_VALUES.map((t) => (
              <option key={t} value={t}>
                {TYPES[t].label}
              </option>
            ))}
          </select>
        )}
      </FormField>
      {type === 'llm_judge' && <JudgePickers settings={settings} onChange={setSettings} />}
      <FormField label="Settings" hint="The evaluator’s fields as JSON (see the README, Evaluators)." error={faults.settings}>
        {(control) => (
          <textarea {...control} value={settings} onChange={(e) => setSettings(e.target.value)} rows={5} className="sl-plain-textarea" spellCheck={false} />
        )}
      </FormField>
      <Checkbox label="Enabled" checked={enabled} onChange={setEnabled} hint="A paused rule samples no new runs; its queued jobs wait." />
      <FormActions
        error={error}
        fields={RULE_FIELDS}
        busy={busy}
        disabled={name.trim() === '' || scoreName.trim() === ''}
        submitLabel={submitLabel}
        onCancel={onCancel}
      />
    </form>
  );
}
