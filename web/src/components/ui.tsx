import { useEffect, useRef, useState, type ButtonHTMLAttributes, type CSSProperties, type ReactNode } from 'react';
import { describeError } from '../api.js';
import { fmtDate, fmtRelative } from '../format.js';
import { FaultList, type FieldLabels } from './problems.js';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}
    </div>
  );
}

/**
 * A problem document (or any error) shown as its title and detail, with the field faults listed, each
 * named by the form's label for it (`fields`; see components/problems.tsx).
 */
export function ErrorBox({ error, onRetry, fields }: { error: unknown; onRetry?: () => void; fields?: FieldLabels }) {
  const { title, detail, errors } = describeError(error);
  return (
    <div className="error-box" role="alert">
      <strong>{title}</strong>
      {detail && <p>{detail}</p>}
      <FaultList errors={errors} labels={fields} />
      {onRetry && (
        <button type="button" className="button" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <strong>{title}</strong>
      {children && <div>{children}</div>}
    </div>
  );
}

export function PageHeader({ title, subtitle, actions }: { title: ReactNode; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="page-header">
      <div>
        <h1>{title}</h1>
        {subtitle && <p className="muted">{subtitle}</p>}
      </div>
      {actions && <div className="actions">{actions}</div>}
    </div>
  );
}

/** A titled panel: a `<section>` named by its `<h2>` (`heading` is the heading's id). */
export function Panel({ heading, title, id, style, children }: { heading: string; title: ReactNode; id?: string; style?: CSSProperties; children: ReactNode }) {
  return (
    <section className="panel" id={id} aria-labelledby={heading} style={style}>
      <h2 id={heading}>{title}</h2>
      {children}
    </section>
  );
}

/** A page's action that makes a new record ("New project"), its primary one. */
export function NewButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <Button variant="primary" onClick={onClick}>
      {label}
    </Button>
  );
}

export function Button({ variant = 'default', ...rest }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: 'default' | 'primary' | 'danger' | 'ghost' }) {
  return <button type="button" {...rest} className={`button ${variant} ${rest.className ?? ''}`} />;
}

/** What a dialog's form takes: the record it edits (none: it creates one), its submit button's label, and what sending and cancelling do. */
export interface FormProps<Initial, Body> {
  initial?: Initial;
  submitLabel: string;
  onSubmit: (body: Body) => Promise<void>;
  onCancel: () => void;
}

/** The end of a form in a dialog: the submission's error (a problem document) if any, Cancel, and the submit button, busy while it runs. */
export function FormActions({
  error,
  fields,
  busy,
  busyLabel = 'Saving…',
  disabled,
  submitLabel,
  onCancel,
  className = 'sl-form-actions',
}: {
  error: unknown;
  /** How the form names its fields, for the problem's field faults. */
  fields?: FieldLabels;
  busy: boolean;
  busyLabel?: string;
  disabled: boolean;
  submitLabel: string;
  onCancel: () => void;
  /** The buttons' row (`form-actions`: spaced as a page's form, not a dialog's). */
  className?: string;
}) {
  return (
    <>
      {error !== null && <ErrorBox error={error} fields={fields} />}
      <div className={className}>
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={busy || disabled}>
          {busy ? busyLabel : submitLabel}
        </Button>
      </div>
    </>
  );
}

/** A labelled form control; `hint` under it. */
export function Field({ label, hint, children }: { label: string; hint?: ReactNode; children: ReactNode }) {
  return (
    <label className="field">
      <span className="field-label">{label}</span>
      {children}
      {hint && <span className="field-hint">{hint}</span>}
    </label>
  );
}

/** Loads the next page when it scrolls into view (and is a button for keyboards and old browsers). */
export function LoadMore({ hasMore, loading, onLoadMore, auto = false }: { hasMore: boolean; loading: boolean; onLoadMore: () => void; auto?: boolean }) {
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!auto || !hasMore || !ref.current || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) onLoadMore();
    });
    observer.observe(ref.current);
    return () => observer.disconnect();
  }, [auto, hasMore, onLoadMore]);
  if (!hasMore) return null;
  return (
    <div className="load-more">
      <button ref={ref} type="button" className="button" onClick={onLoadMore} disabled={loading}>
        {loading ? 'Loading…' : 'Load more'}
      </button>
    </div>
  );
}

/** A select's `<option>`s: first an empty choice when `any` names it, then each value, shown as its label or as itself. */
export function Options<V extends string>({ values, labels, any }: { values: readonly V[]; labels?: Record<V, string>; any?: string }) {
  return (
    <>
      {any !== undefined && <option value="">{any}</option>}
      {values.map((value) => (
        <option key={value} value={value}>
          {labels?.[value] ?? value}
        </option>
      ))}
    </>
  );
}

/** One fact of a `<dl>`: its term and its description, together (a grid cell). */
export function Fact({ label, className, children }: { label: string; className?: string; children: ReactNode }) {
  return (
    <div className={className}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

export function Badge({ tone, children }: { tone: 'ok' | 'bad' | 'warn' | 'neutral' | 'info'; children: ReactNode }) {
  return <span className={`badge ${tone}`}>{children}</span>;
}

const STATUS_TONE: Record<string, 'ok' | 'bad' | 'warn' | 'neutral' | 'info'> = {
  succeeded: 'ok',
  failed: 'bad',
  running: 'info',
  ok: 'ok',
  alerting: 'bad',
  no_data: 'neutral',
};
export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={STATUS_TONE[status] ?? 'neutral'}>{status.replace('_', ' ')}</Badge>;
}

/** Copies text to the clipboard, saying so. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        });
      }}
    >
      {copied ? 'Copied' : label}
    </Button>
  );
}

/** JSON as a readable, collapsible tree. */
export function JsonView({ value, name, depth = 0 }: { value: unknown; name?: string; depth?: number }) {
  const [open, setOpen] = useState(depth < 2);
  const label = name !== undefined ? <span className="json-key">{name}: </span> : null;
  if (value === null || typeof value !== 'object') {
    const cls = value === null ? 'json-null' : `json-${typeof value}`;
    return (
      <div className="json-line">
        {label}
        <span className={cls}>{JSON.stringify(value)}</span>
      </div>
    );
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>);
  const [openChar, closeChar] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) {
    return (
      <div className="json-line">
        {label}
        <span className="muted">{openChar + closeChar}</span>
      </div>
    );
  }
  return (
    <div className="json-node">
      <button type="button" className="json-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? '▾' : '▸'} {label}
        <span className="muted">
          {openChar}
          {!open && `… ${entries.length} ${Array.isArray(value) ? 'items' : 'keys'} ${closeChar}`}
        </span>
      </button>
      {open && (
        <div className="json-children">
          {entries.map(([k, v]) => (
            <JsonView key={k} name={Array.isArray(value) ? undefined : k} value={v} depth={depth + 1} />
          ))}
          <span className="muted">{closeChar}</span>
        </div>
      )}
    </div>
  );
}

/** `<time>` with a relative text and the full date as its tooltip. */
export function When({ iso, fallback = 'never' }: { iso: string | null | undefined; fallback?: string }) {
  if (!iso) return <span className="muted">{fallback}</span>;
  return (
    <time dateTime={iso} title={fmtDate(iso)}>
      {fmtRelative(iso)}
    </time>
  );
}
