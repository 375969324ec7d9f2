import { useEffect, useState } from 'react';
import { Modal } from './modal.js';

/** The keys every page answers, as the `?` dialog lists them. */
export const SHORTCUTS: [keys: string, what: string][] = [
  ['/', 'Search: the page’s search box'],
  ['j / k', 'Next / previous row of a list'],
  ['Enter', 'Open the row'],
  ['Esc', 'Close the run beside a trace, or a dialog'],
  ['?', 'This list'],
];

/** Typing in a field, or a key with a modifier, is never a shortcut. */
function typing(event: KeyboardEvent): boolean {
  if (event.ctrlKey || event.metaKey || event.altKey) return true;
  const target = event.target as HTMLElement | null;
  if (!target) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** The rows of the list on the page: each row's own link, marked `data-row-link`. */
function moveRow(step: 1 | -1): void {
  const links = [...document.querySelectorAll<HTMLElement>('main [data-row-link]')];
  if (links.length === 0) return;
  const at = links.indexOf(document.activeElement as HTMLElement);
  const next = at < 0 ? (step === 1 ? 0 : links.length - 1) : Math.min(links.length - 1, Math.max(0, at + step));
  links[next]!.focus();
  links[next]!.scrollIntoView({ block: 'nearest' });
}

/**
 * The keyboard shortcuts beyond a page's own (the review screen's): `/` focuses the search box, `j` and `k`
 * move between the rows of a list (Enter opens the focused row, as a link does), `?` lists them. Esc is the
 * page's (a trace closes its run panel) or the dialog's.
 */
export function Shortcuts() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (typing(event) || event.defaultPrevented) return;
      if (event.key === '/') {
        const search = document.querySelector<HTMLInputElement>('main input[type="search"]');
        if (!search) return;
        event.preventDefault();
        search.focus();
        search.select();
      } else if (event.key === 'j' || event.key === 'k') {
        event.preventDefault();
        moveRow(event.key === 'j' ? 1 : -1);
      } else if (event.key === '?') {
        event.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return (
    <Modal title="Keyboard shortcuts" open={open} onClose={() => setOpen(false)}>
      <dl className="sl-shortcuts">
        {SHORTCUTS.map(([keys, what]) => (
          <div key={keys}>
            <dt>
              {keys.split(' / ').map((key, i) => (
                <span key={key}>
                  {i > 0 && ' / '}
                  <kbd>{key}</kbd>
                </span>
              ))}
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <p className="muted">The review screen of an annotation queue has keys of its own, listed on it.</p>
    </Modal>
  );
}

/** Esc, outside a field and a dialog, calls `action` (a trace's run panel closes). */
export function useEscape(action: (() => void) | null): void {
  useEffect(() => {
    if (!action) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || typing(event) || event.defaultPrevented || document.querySelector('[role="dialog"]')) return;
      action();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [action]);
}
