import { useEffect, useState, type FormEvent } from 'react';
import { ScoreFilterFields, useScoreNames } from '../../components/score-chips.js';
import { scoreFilterLabel } from '../../components/score-filters.js';
import { Button, Field, Options } from '../../components/ui.js';
import { TagPicker } from '../../components/tag-picker.js';
import { ValuePicker } from '../../components/value-picker.js';
import { fmtInstant } from '../../format.js';
import { clearedSearch, DEFAULT_EXPERIMENT, draftFromFilters, EXPERIMENT_CHOICES, searchFromDraft, type Draft, type Range, type RunQuery } from './query.js';
import { RUN_KINDS, RUN_STATUSES } from './shared.js';

const FILTER_LABELS: Record<string, string> = {
  status: 'Status',
  kind: 'Kind',
  name: 'Name',
  model: 'Model',
  traceId: 'Trace id',
  sessionId: 'Session',
  userId: 'User',
  parentRunId: 'Parent run',
  startedAfter: 'Started after',
  startedBefore: 'Started before',
  tag: 'Tag',
  q: 'Search',
  hasScore: 'Has score',
};

/** Every runs-list filter as a labelled control; selects and the checkbox apply at once, the rest on submit. */
export function RunFilters({
  projectId,
  filters,
  range,
  onApply,
  searchText,
  scoreColumn,
  defaultOpen = true,
}: {
  /** Whose values the name, model, session, user and metadata fields offer. */
  projectId: string;
  filters: RunQuery;
  range: Range;
  onApply: (params: URLSearchParams) => void;
  searchText: string;
  /** The list's score column, kept in the URL when the filters change. */
  scoreColumn?: string | undefined;
  /** Whether the form starts unfolded (on wide screens); the active filters always show as chips. */
  defaultOpen?: boolean;
}) {
  const [draft, setDraft] = useState<Draft>(() => draftFromFilters(filters));
  const [open, setOpen] = useState(() => defaultOpen && (typeof window === 'undefined' || !window.matchMedia?.('(max-width: 720px)').matches));
  const [problem, setProblem] = useState('');
  const scoreNames = useScoreNames();
  // The URL is the truth: back/forward and chip removal reset the form.
  useEffect(() => {
    setDraft(draftFromFilters(filters));
    setProblem('');
  }, [searchText]); // eslint-disable-line react-hooks/exhaustive-deps

  const apply = (next: Draft) => {
    if ((next.metaKey.trim() === '') !== (next.metaValue === '')) {
      setProblem('Give both a metadata key and a value, or neither.');
      return;
    }
    const search = searchFromDraft(next, filters, range, scoreColumn);
    if ('fault' in search) {
      setProblem(search.fault);
      return;
    }
    setProblem('');
    onApply(search);
  };
  const change = <K extends keyof Draft>(key: K, value: Draft[K], now = false) => {
    const next = { ...draft, [key]: value };
    setDraft(next);
    if (now) apply(next);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    apply(draft);
  };

  const chips: { key: string; label: string; value: string; remove: () => void }[] = [];
  const without = (key: string, value?: string) => {
    const params = new URLSearchParams(searchText);
    if (value === undefined) params.delete(key);
    else {
      const rest = params.getAll(key).filter((v) => v !== value);
      params.delete(key);
      for (const v of rest) params.append(key, v);
    }
    onApply(params);
  };
  for (const [key, value] of Object.entries(filters)) {
    if (key === 'experiment') continue; // its own control, always shown
    if (Array.isArray(value))
      for (const v of value) chips.push({ key: `${key}=${v}`, label: FILTER_LABELS[key] ?? key, value: v, remove: () => without(key, v) });
    else if (value !== undefined) {
      const label = key.startsWith('metadata.') ? `metadata.${key.slice(9)}` : (scoreFilterLabel(key) ?? FILTER_LABELS[key] ?? key);
      const shown =
        key === 'parentRunId' && value === 'null' ? 'roots only' : key.startsWith('started') && !Number.isNaN(Date.parse(value)) ? fmtInstant(value) : value;
      chips.push({ key, label: key === 'parentRunId' && value === 'null' ? 'Runs' : label, value: shown, remove: () => without(key) });
    }
  }

  return (
    <section className="panel" aria-labelledby="run-filters-title">
      <div className="sl-filter-head">
        <h2 id="run-filters-title">
          <button type="button" className="button ghost sl-filter-toggle" aria-expanded={open} aria-controls="run-filters" onClick={() => setOpen(!open)}>
            {open ? '▾' : '▸'} Filters{chips.length > 0 ? ` (${chips.length} active)` : ''}
          </button>
        </h2>
        <ExperimentTraffic filters={filters} searchText={searchText} onApply={onApply} />
        {chips.length > 0 && (
          <Button variant="ghost" onClick={() => onApply(clearedSearch(range))}>
            Clear all
          </Button>
        )}
      </div>
      {chips.length > 0 && (
        <ul className="sl-chips" aria-label="Active filters" style={{ listStyle: 'none', padding: 0, margin: '8px 0 0' }}>
          {chips.map((chip) => (
            <li key={chip.key} className="sl-chip">
              <span className="muted">{chip.label}:</span> <code title={chip.value}>{chip.value}</code>
              {/* Named by its content, not aria-label: the filter's own label stays unique for getByLabel-style lookups. */}
              <button type="button" onClick={chip.remove} title="Remove this filter">
                <span aria-hidden="true">✕</span>
                <span className="sl-sr-only">
                  Remove filter: {chip.label} {chip.value}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <form id="run-filters" className="sl-run-filters" onSubmit={submit} hidden={!open} role="search" aria-label="Run filters">
        <Field label="Status">
          <select value={draft.status} onChange={(e) => change('status', e.target.value, true)}>
            <Options values={RUN_STATUSES} any="Any" />
          </select>
        </Field>
        <Field label="Kind">
          <select value={draft.kind} onChange={(e) => change('kind', e.target.value, true)}>
            <Options values={RUN_KINDS} any="Any" />
          </select>
        </Field>
        <Field label="Name">
          <ValuePicker projectId={projectId} field="name" value={draft.name} onValue={(v) => change('name', v)} placeholder="Exact run name" maxLength={256} />
        </Field>
        <Field label="Model">
          <ValuePicker projectId={projectId} field="model" value={draft.model} onValue={(v) => change('model', v)} placeholder="e.g. gpt-4o" maxLength={256} />
        </Field>
        <TagPicker
          projectId={projectId}
          label="Tag"
          tags={draft.tags}
          text={draft.tagText}
          onChange={(tags, tagText) => setDraft({ ...draft, tags, tagText })}
        />
        <Field label="Trace id">
          <input value={draft.traceId} onChange={(e) => change('traceId', e.target.value)} autoComplete="off" maxLength={128} spellCheck={false} />
        </Field>
        <Field label="Session">
          <ValuePicker
            projectId={projectId}
            field="sessionId"
            value={draft.sessionId}
            onValue={(v) => change('sessionId', v)}
            maxLength={256}
            spellCheck={false}
          />
        </Field>
        <Field label="User">
          <ValuePicker projectId={projectId} field="userId" value={draft.userId} onValue={(v) => change('userId', v)} maxLength={256} spellCheck={false} />
        </Field>
        <Field label="Started after">
          <input type="datetime-local" value={draft.startedAfter} onChange={(e) => change('startedAfter', e.target.value)} />
        </Field>
        <Field label="Started before">
          <input type="datetime-local" value={draft.startedBefore} onChange={(e) => change('startedBefore', e.target.value)} />
        </Field>
        <Field label="Metadata key">
          <ValuePicker
            projectId={projectId}
            field="metadataKey"
            value={draft.metaKey}
            onValue={(v) => change('metaKey', v)}
            placeholder="e.g. userId"
            spellCheck={false}
          />
        </Field>
        <Field label="Metadata value">
          <ValuePicker
            projectId={projectId}
            field="metadataValue"
            metaKey={draft.metaKey}
            value={draft.metaValue}
            onValue={(v) => change('metaValue', v)}
            placeholder="Exact value"
            spellCheck={false}
          />
        </Field>
        <ScoreFilterFields draft={draft} names={scoreNames} onChange={(next) => setDraft({ ...draft, ...next })} />
        <div className="field">
          <label className="sl-check">
            <input type="checkbox" checked={draft.rootsOnly} onChange={(e) => change('rootsOnly', e.target.checked, true)} />
            Roots only
          </label>
        </div>
        <FilterSubmit label="Apply filters" problem={problem} primary />
      </form>
    </section>
  );
}

/**
 * Whether the list shows experiment traffic (the traces of experiments' runs): not by default, with the
 * rest, or alone; held in the URL as `experiment`, applied at once.
 */
function ExperimentTraffic({ filters, searchText, onApply }: { filters: RunQuery; searchText: string; onApply: (params: URLSearchParams) => void }) {
  const choose = (value: string) => {
    const params = new URLSearchParams(searchText);
    if (value === DEFAULT_EXPERIMENT) params.delete('experiment');
    else params.set('experiment', value);
    onApply(params);
  };
  return (
    <label className="sl-experiment-traffic">
      <span>Show experiment traffic</span>
      <select value={typeof filters.experiment === 'string' ? filters.experiment : DEFAULT_EXPERIMENT} onChange={(e) => choose(e.target.value)}>
        {EXPERIMENT_CHOICES.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A filter form's submit button, and what the form found wrong with what was typed. */
function FilterSubmit({ label, problem, primary = false }: { label: string; problem: string; primary?: boolean }) {
  return (
    <>
      <div className="sl-filter-buttons">
        <Button type="submit" variant={primary ? 'primary' : undefined}>
          {label}
        </Button>
      </div>
      {problem && (
        <p role="alert" className="sl-filter-problem">
          {problem}
        </p>
      )}
    </>
  );
}
