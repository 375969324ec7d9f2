/** The review screen's parts: where the focus is for the shortcuts, the lease left, the shortcuts' table and a score's input. */
import { useEffect, useState } from 'react';
import { Button } from '../../components/ui.js';
import { choicesOf, SHORTCUTS, type Chosen, type FocusKind, type ReviewConfig } from './review-model.js';
import { FormField } from '../prompts/controls.js';

export const CONFIG_ATTRIBUTE = 'data-config-index';

/** Where the focus is, for the shortcuts (see review-model.ts), and the score it is in. */
export function focusOf(element: Element | null): { kind: FocusKind; config: number | null } {
  const config = element?.closest(`[${CONFIG_ATTRIBUTE}]`);
  const index = config ? Number(config.getAttribute(CONFIG_ATTRIBUTE)) : null;
  if (!element || element === document.body) return { kind: 'none', config: null };
  const tag = element.tagName;
  const type = (element as HTMLInputElement).type;
  const field = (tag === 'INPUT' && !['button', 'checkbox', 'radio', 'submit', 'reset'].includes(type)) || tag === 'TEXTAREA' || tag === 'SELECT';
  if (field || (element as HTMLElement).isContentEditable) return { kind: 'text', config: index };
  if (config) return { kind: 'config', config: index };
  if (element.closest('button, a, summary, [role="button"]')) return { kind: 'control', config: null };
  return { kind: 'none', config: null };
}

/** The time now, again every second. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

export function LeaseLeft({ until, onRenew }: { until: string | null; onRenew: () => void }) {
  const now = useNow();
  if (!until) return null;
  const left = Math.floor((Date.parse(until) - now) / 1000);
  if (left <= 0)
    return (
      <p className="sl-aq-lease low" role="alert">
        Your lease on this item ran out: another reviewer may take it, and completing it may be refused. <Button onClick={onRenew}>Claim again</Button>
      </p>
    );
  const text = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
  return (
    <p className={`sl-aq-lease${left < 60 ? ' low' : ''}`}>
      Held for you for <strong>{text}</strong> more (a claim renews it).
    </p>
  );
}

export function Shortcuts() {
  return (
    <section className="panel" aria-labelledby="shortcuts-title">
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <table className="sl-aq-keys">
        <tbody>
          {SHORTCUTS.map(([keys, what]) => (
            <tr key={keys}>
              <th scope="row">
                <kbd>{keys}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">Shortcuts do nothing while you type in a field, but Ctrl+Enter (⌘+Enter) and Esc.</p>
    </section>
  );
}

/** A score's input: buttons for its choices (one tab stop, chosen by digit), or a number within its range. */
export function ConfigInput({
  config,
  index,
  value,
  fault,
  onChange,
}: {
  config: ReviewConfig & { description?: string | null };
  index: number;
  value: Chosen;
  fault: string | undefined;
  onChange: (value: Chosen) => void;
}) {
  const choices = choicesOf(config);
  const nameId = `review-config-${index}`;
  if (choices.length === 0) {
    const range = config.min === null && config.max === null ? 'Any number' : `From ${config.min ?? '−∞'} to ${config.max ?? '∞'}`;
    return (
      <div className="sl-aq-config" {...{ [CONFIG_ATTRIBUTE]: index }}>
        <FormField label={config.name} hint={[range, config.description].filter(Boolean).join(' · ')} error={fault}>
          {(control) => (
            <input
              {...control}
              type="number"
              step="any"
              min={config.min ?? undefined}
              max={config.max ?? undefined}
              value={typeof value === 'string' ? value : ''}
              onChange={(e) => onChange(e.target.value)}
              autoComplete="off"
            />
          )}
        </FormField>
      </div>
    );
  }
  return (
    <div className="sl-aq-config" role="radiogroup" aria-labelledby={nameId} tabIndex={0} {...{ [CONFIG_ATTRIBUTE]: index }}>
      <div className="sl-aq-config-name">
        <span id={nameId}>{config.name}</span>
        {config.description && <span className="muted">{config.description}</span>}
      </div>
      <div className="sl-aq-options">
        {choices.map((choice, k) => (
          <button
            key={String(choice.value)}
            type="button"
            role="radio"
            aria-checked={value === choice.value}
            aria-label={choice.label}
            tabIndex={-1}
            className="button sl-aq-option"
            onClick={() => onChange(value === choice.value ? undefined : choice.value)}
          >
            {k < 9 && <kbd aria-hidden="true">{k + 1}</kbd>}
            {choice.label}
          </button>
        ))}
      </div>
    </div>
  );
}
