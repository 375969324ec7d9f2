/**
 * The review screen's model: the scores a completion sends, and its keyboard: which action a key press is (pure, so it is tested without a browser),
 * which config a digit chooses for, and a config's choices. Shortcuts do nothing while a text field has
 * the focus, but Ctrl/Cmd+Enter (complete) and Escape (leave the field); on a button or link, Enter and
 * Space keep their own meaning.
 */
import { parseScoreValue } from '../../components/score-value.js';
import type { CompleteAnnotationItemInput, ScoreConfig } from '../../types.js';

/**
 * Where the focus is when a key is pressed: a text field (a number's input too), a button or link, a
 * score's group (its options are not tab stops: Tab goes from score to score as the browser does), or
 * nowhere in particular (the page).
 */
export type FocusKind = 'text' | 'control' | 'config' | 'none';

export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  focus: FocusKind;
}

export type ReviewAction =
  { kind: 'choose'; index: number } | { kind: 'next' } | { kind: 'previous' } | { kind: 'complete' } | { kind: 'skip' } | { kind: 'help' } | { kind: 'escape' };

/** The shortcuts as the help lists them. */
export const SHORTCUTS: readonly (readonly [keys: string, what: string])[] = [
  ['1 – 9', 'Choose the Nth option of the focused score (else of the first one not set yet)'],
  ['Tab, Shift+Tab or j, k', 'Move to the next or the previous score'],
  ['Enter or c', 'Complete the item with its scores (Ctrl+Enter or ⌘+Enter in a text field)'],
  ['s', 'Skip the item'],
  ['?', 'Show or hide the shortcuts'],
  ['Esc', 'Leave a text field; close the shortcuts'],
];

/** The action of a key press, or null when it is none (the browser keeps it). */
export function actionOf(press: KeyPress): ReviewAction | null {
  const { key, ctrlKey, metaKey, altKey, shiftKey, focus } = press;
  if (key === 'Enter' && (ctrlKey || metaKey) && !altKey) return { kind: 'complete' };
  if (key === 'Escape') return { kind: 'escape' };
  if (focus === 'text' || ctrlKey || metaKey || altKey) return null;
  if (key === '?') return { kind: 'help' };
  if (/^[1-9]$/.test(key)) return { kind: 'choose', index: Number(key) - 1 };
  // Tab goes from score to score by itself (each score one tab stop); from nowhere, to the first score.
  if (key === 'Tab') return focus === 'none' ? (shiftKey ? { kind: 'previous' } : { kind: 'next' }) : null;
  if (key === 'j' || key === 'J') return { kind: 'next' };
  if (key === 'k' || key === 'K') return { kind: 'previous' };
  if (key === 'Enter') return focus === 'control' ? null : { kind: 'complete' };
  if (key === 'c' || key === 'C') return { kind: 'complete' };
  if (key === 's' || key === 'S') return { kind: 'skip' };
  return null;
}

/** What the score inputs need of a config. */
export type ReviewConfig = Pick<ScoreConfig, 'id' | 'name' | 'dataType' | 'min' | 'max' | 'categories'>;
/** A score as chosen so far: a choice's value, or a number's text as typed. */
export type Chosen = boolean | string | undefined;

/** The choices a config offers by digit (none for a number). */
export function choicesOf(config: ReviewConfig): { label: string; value: boolean | string }[] {
  if (config.dataType === 'boolean')
    return [
      { label: 'true', value: true },
      { label: 'false', value: false },
    ];
  if (config.dataType === 'categorical') return (config.categories ?? []).map((c) => ({ label: c, value: c }));
  return [];
}

/**
 * The config a digit chooses for: the focused one when it offers choices, else the first one with
 * choices not set yet; null when there is none (a number has the focus, or every choice is set).
 */
export function digitTarget(configs: readonly ReviewConfig[], values: readonly Chosen[], focused: number | null): number | null {
  if (focused !== null) return choicesOf(configs[focused]!).length > 0 ? focused : null;
  const index = configs.findIndex((config, i) => choicesOf(config).length > 0 && values[i] === undefined);
  return index === -1 ? null : index;
}

/** The config `step` places from `from` (wrapping), or the first (last) one when none has the focus. */
export function moveFocus(count: number, from: number | null, step: 1 | -1): number | null {
  if (count === 0) return null;
  if (from === null) return step === 1 ? 0 : count - 1;
  return (from + step + count) % count;
}

/**
 * The completion's scores: one per config given a value (a number's text checked against its range),
 * each with the comment when there is one. `faults` names each number refused, by config index; `empty`
 * when no score is given (a completion needs one).
 */
export function completionOf(
  configs: readonly ReviewConfig[],
  values: readonly Chosen[],
  comment: string,
): { body: CompleteAnnotationItemInput } | { faults: Record<number, string> } | { empty: true } {
  const scores: CompleteAnnotationItemInput['scores'] = [];
  const faults: Record<number, string> = {};
  const note = comment.trim();
  configs.forEach((config, i) => {
    const chosen = values[i];
    if (chosen === undefined || chosen === '') return;
    let value: boolean | string | number = chosen;
    if (config.dataType === 'numeric') {
      const parsed = parseScoreValue(String(chosen), config);
      if ('fault' in parsed) {
        faults[i] = parsed.fault;
        return;
      }
      value = parsed.value;
    }
    scores.push({ configId: config.id, value, ...(note ? { comment: note } : {}) });
  });
  if (Object.keys(faults).length > 0) return { faults };
  if (scores.length === 0) return { empty: true };
  return { body: { scores } };
}
