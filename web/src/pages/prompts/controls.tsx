/**
 * Small pieces the prompts and monitors pages share. Candidates for components/ui.tsx: they are kept
 * here only because that file belongs to the whole dashboard.
 */
import { useEffect, useId, useState, type ReactNode } from 'react';
import { organization } from '../../api.js';
import { Options } from '../../components/ui.js';
import { useSession } from '../../session.js';
import './controls.css';

/**
 * A labelled control whose accessible name is exactly its label: the hint is linked with
 * aria-describedby instead of sitting inside the <label> (where it would join the name). `error`, a
 * fault found before sending, is said under the control, which is marked invalid and described by it.
 */
export function FormField({
  label,
  hint,
  error,
  children,
}: {
  label: string;
  hint?: ReactNode;
  error?: string | null | undefined;
  children: (control: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: true }) => ReactNode;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [error ? errorId : '', hint ? hintId : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      {children({ id, ...(describedBy ? { 'aria-describedby': describedBy } : {}), ...(error ? { 'aria-invalid': true as const } : {}) })}
      {error && (
        <span id={errorId} className="field-error" role="alert">
          {error}
        </span>
      )}
      {hint && (
        <span id={hintId} className="field-hint">
          {hint}
        </span>
      )}
    </div>
  );
}

/** A labelled plain text area (a description, a comment): `value` and `onChange` as text. */
export function TextAreaField({
  label,
  hint,
  value,
  onChange,
  rows = 3,
  maxLength = 10_000,
}: {
  label: string;
  hint?: ReactNode;
  value: string;
  onChange: (value: string) => void;
  rows?: number;
  maxLength?: number;
}) {
  return (
    <FormField label={label} hint={hint}>
      {(control) => (
        <textarea {...control} value={value} onChange={(e) => onChange(e.target.value)} maxLength={maxLength} rows={rows} className="sl-plain-textarea" />
      )}
    </FormField>
  );
}

/** A labelled select of `values` (shown by `labels`, or as themselves), first an empty choice named `any` when given. */
export function SelectField<V extends string>({
  label,
  hint,
  value,
  onChange,
  ...options
}: {
  label: string;
  hint?: ReactNode;
  value: string;
  onChange: (value: V) => void;
  values: readonly V[];
  labels?: Record<V, string>;
  any?: string;
}) {
  return (
    <FormField label={label} hint={hint}>
      {(control) => (
        <select {...control} value={value} onChange={(e) => onChange(e.target.value as V)}>
          <Options {...options} />
        </select>
      )}
    </FormField>
  );
}

/** A checkbox with its label beside it. */
export function Checkbox({ label, checked, onChange, hint }: { label: string; checked: boolean; onChange: (checked: boolean) => void; hint?: ReactNode }) {
  const id = useId();
  return (
    <div className="field">
      <div className="checkbox">
        <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} aria-describedby={hint ? `${id}-hint` : undefined} />
        <label htmlFor={id}>{label}</label>
      </div>
      {hint && (
        <span id={`${id}-hint`} className="field-hint">
          {hint}
        </span>
      )}
    </div>
  );
}

/** A client-side validation message, shown like a problem document. */
export function InvalidBox({ title, detail }: { title: string; detail: string }) {
  return (
    <div className="error-box" role="alert">
      <strong>{title}</strong>
      <p>{detail}</p>
    </div>
  );
}

/** `value` once it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

const memberCache: { promise?: Promise<Map<string, string>> } = {};

/**
 * User ids (authors, label movers) as people: the organization's members, read once per page load.
 * Anyone no longer a member is shown by id.
 */
export function useUserNames(): (userId: string) => string {
  const { me } = useSession();
  const [names, setNames] = useState<Map<string, string>>(() => new Map([[me.user.id, me.user.name || me.user.email]]));
  useEffect(() => {
    memberCache.promise ??= (async () => {
      const map = new Map<string, string>();
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const result = await organization.members.page({ limit: 100, cursor });
        for (const m of result.items) map.set(m.user.id, m.user.name || m.user.email);
        if (!result.nextCursor) break;
        cursor = result.nextCursor;
      }
      return map;
    })().catch(() => {
      memberCache.promise = undefined;
      return new Map<string, string>();
    });
    let live = true;
    void memberCache.promise.then((map) => {
      if (live && map.size > 0) setNames((previous) => new Map([...previous, ...map]));
    });
    return () => {
      live = false;
    };
  }, []);
  return (userId) => names.get(userId) ?? userId;
}
