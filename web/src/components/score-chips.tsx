/** A listed run's, trace's or session's scores as compact chips, and the fields that add a score filter to a list. */
import { scoreConfigs } from '../api.js';
import { useList } from '../hooks.js';
import type { ScoreSummary } from '../types.js';
import { describeScoreSummary, fmtScoreSummary, SCORE_TESTS, type ScoreTest } from './score-filters.js';
import { Field } from './ui.js';

/**
 * The summaries as chips (name and value; the first `max`, then how many more), or, when `only` names a
 * score (the list's score column), that score's value alone.
 */
export function ScoreChips({ scores, only, max = 3 }: { scores: readonly ScoreSummary[]; only?: string | undefined; max?: number }) {
  if (only !== undefined) {
    const chosen = scores.filter((s) => s.name === only);
    if (chosen.length === 0) return <span className="muted">—</span>;
    return (
      <>
        {chosen.map((s) => (
          <span key={s.dataType} className="sl-score-chip" title={describeScoreSummary(s)}>
            <strong>{fmtScoreSummary(s)}</strong>
          </span>
        ))}
      </>
    );
  }
  if (scores.length === 0) return <span className="muted">—</span>;
  return (
    <>
      {scores.slice(0, max).map((s) => (
        <span key={`${s.name}|${s.dataType}`} className="sl-score-chip" title={describeScoreSummary(s)}>
          <span className="sl-score-chip-name">{s.name}</span> <strong>{fmtScoreSummary(s)}</strong>
        </span>
      ))}
      {scores.length > max && (
        <span className="muted" title={scores.slice(max).map(describeScoreSummary).join('\n')}>
          +{scores.length - max}
        </span>
      )}
    </>
  );
}

/** The names the organization's score configs offer (archived ones aside): the score filter's and column's suggestions. */
export function useScoreNames(): string[] {
  const configs = useList(scoreConfigs.list, { archived: false }, 100);
  return configs.items.map((c) => c.name);
}

export interface ScoreFilterDraft {
  scoreName: string;
  scoreTest: ScoreTest;
  scoreValue: string;
}
export const EMPTY_SCORE_FILTER: ScoreFilterDraft = { scoreName: '', scoreTest: 'has', scoreValue: '' };

/** A score filter's fields: a name (the configs' names offered, any other typed), the test, and the value to compare with. */
export function ScoreFilterFields({
  draft,
  onChange,
  names,
}: {
  draft: ScoreFilterDraft;
  onChange: (next: ScoreFilterDraft, now?: boolean) => void;
  names: readonly string[];
}) {
  const listId = 'sl-score-names';
  return (
    <>
      <Field label="Score name">
        <input
          value={draft.scoreName}
          list={listId}
          onChange={(e) => onChange({ ...draft, scoreName: e.target.value })}
          placeholder="e.g. helpfulness"
          autoComplete="off"
          spellCheck={false}
          maxLength={100}
        />
      </Field>
      <datalist id={listId}>
        {names.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      <Field label="Score test">
        <select value={draft.scoreTest} onChange={(e) => onChange({ ...draft, scoreTest: e.target.value as ScoreTest })}>
          {SCORE_TESTS.map((t) => (
            <option key={t.value} value={t.value}>
              {t.label}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Score value">
        <input
          value={draft.scoreValue}
          onChange={(e) => onChange({ ...draft, scoreValue: e.target.value })}
          disabled={draft.scoreTest === 'has'}
          placeholder={draft.scoreTest === 'has' ? 'any value' : draft.scoreTest === '=' ? 'a number, true, false or a label' : 'a number'}
          autoComplete="off"
          spellCheck={false}
        />
      </Field>
    </>
  );
}

/**
 * The heading of a list's score column: every score as chips, or one score's value (the configs' names
 * and those on the rows loaded are offered).
 */
export function ScoreColumnHeading({
  names,
  rows,
  value,
  onChange,
}: {
  names: readonly string[];
  rows: readonly { scores: readonly ScoreSummary[] }[];
  value: string | undefined;
  onChange: (name: string | undefined) => void;
}) {
  const offered = [...new Set([...names, ...rows.flatMap((row) => row.scores.map((s) => s.name)), ...(value ? [value] : [])])].sort();
  return (
    <select aria-label="Score column" className="sl-score-column" value={value ?? ''} onChange={(e) => onChange(e.target.value || undefined)}>
      <option value="">Scores</option>
      {offered.map((name) => (
        <option key={name} value={name}>
          Score: {name}
        </option>
      ))}
    </select>
  );
}
