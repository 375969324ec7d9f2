/** A listed run's, trace's or session's scores as compact chips, and the fields that add a score filter to a list. */
import { scoreConfigs } from '../api.js';
import { useList } from '../hooks.js';
import type { ScoreSummary } from '../types.js';
import { describeScoreSummary, fmtScoreSummary, SCORE_TESTS, type ScoreTest } from './score-filters.js';
import { Field } from './ui.js';

/**
 * The summaries as chips (name and value; the first `max`, then how many more), or, when `only` names a
 * score (the list's score column), that score's value alone. `rootScores` (a trace's root run's) follow
 * the item's own, each marked "root"; in the score column the item's own value comes first.
 */
export function ScoreChips({
  scores,
  rootScores = [],
  only,
  max = 3,
}: {
  scores: readonly ScoreSummary[];
  rootScores?: readonly ScoreSummary[];
  only?: string | undefined;
  max?: number;
}) {
  const all: Chip[] = [...scores.map((s) => ({ s, root: false })), ...rootScores.map((s) => ({ s, root: true }))];
  if (only !== undefined) {
    const named = all.filter((c) => c.s.name === only);
    const chosen = named.some((c) => !c.root) ? named.filter((c) => !c.root) : named;
    if (chosen.length === 0) return <span className="muted">—</span>;
    return (
      <>
        {chosen.map((c) => (
          <span key={`${c.s.dataType}|${c.root}`} className="sl-score-chip" title={chipTitle(c)}>
            {c.root && <RootMark />}
            <strong>{fmtScoreSummary(c.s)}</strong>
          </span>
        ))}
      </>
    );
  }
  if (all.length === 0) return <span className="muted">—</span>;
  return (
    <>
      {all.slice(0, max).map((c) => (
        <span key={`${c.s.name}|${c.s.dataType}|${c.root}`} className="sl-score-chip" title={chipTitle(c)}>
          {c.root && <RootMark />}
          <span className="sl-score-chip-name">{c.s.name}</span> <strong>{fmtScoreSummary(c.s)}</strong>
        </span>
      ))}
      {all.length > max && (
        <span className="muted" title={all.slice(max).map(chipTitle).join('\n')}>
          +{all.length - max}
        </span>
      )}
    </>
  );
}

interface Chip {
  s: ScoreSummary;
  /** Given to the trace's root run, not to the item itself. */
  root: boolean;
}

const chipTitle = (c: Chip) => (c.root ? `On the root run: ${describeScoreSummary(c.s)}` : describeScoreSummary(c.s));

function RootMark() {
  return (
    <>
      <span className="sl-score-root">
        root<span className="sl-sr-only"> run’s score:</span>
      </span>{' '}
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
  /** The rows loaded: their own scores, and a trace's root run's. */
  rows: readonly { scores: readonly ScoreSummary[]; rootScores?: readonly ScoreSummary[] }[];
  value: string | undefined;
  onChange: (name: string | undefined) => void;
}) {
  const onRows = rows.flatMap((row) => [...row.scores, ...(row.rootScores ?? [])].map((s) => s.name));
  const offered = [...new Set([...names, ...onRows, ...(value ? [value] : [])])].sort();
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
