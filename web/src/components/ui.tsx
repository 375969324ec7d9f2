import { useEffect, useRef, useState, type ButtonHTMLAttributes, type ReactNode } from 'react';
import { describeError } from '../api.js';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}
    </div>
  );
}

/** A problem document (or any error) shown as its title and detail, with the field faults listed. */
export function ErrorBox({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { title, detail, errors } = describeError(error);
  return (
    <div className="error-box" role="alert">
      <strong>{title}</strong>
      {detail && <p>{detail}</p>}
      {errors.length > 0 && (
        <ul>
          {errors.map((e, i) => (
            <li key={i}>
              <code>{e.pointer ?? e.parameter}</code> {e.detail}
            </li>
          ))}
        </ul>
      )}
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

export function Button({ variant = 'default', ...rest }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: 'default' | 'primary' | 'danger' | 'ghost' }) {
  return <button type="button" {...rest} className={`button ${variant} ${rest.className ?? ''}`} />;
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

/** A modal dialog (native <dialog>: focus is trapped and Escape closes it). */
export function Modal({ title, open, onClose, children }: { title: string; open: boolean; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className="modal" onClose={onClose} aria-label={title}>
      <div className="modal-head">
        <h2>{title}</h2>
        <Button variant="ghost" aria-label="Close" onClick={onClose}>
          ✕
        </Button>
      </div>
      {open && children}
    </dialog>
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

export interface ChartSeries {
  name: string;
  /** One value per point (null: no value). */
  values: (number | null)[];
  kind: 'bar' | 'line';
  tone: 'primary' | 'bad' | 'muted';
}

/** A "nice" upper bound (1, 2 or 5 × 10^k) at or above the value. */
function niceCeil(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

function tickLabel(t: number): string {
  if (t >= 1_000_000) return `${Math.round(t / 100_000) / 10}M`;
  if (t >= 1000) return `${Math.round(t / 100) / 10}k`;
  return String(Math.round(t * 1000) / 1000);
}

/**
 * A small SVG chart: bars and lines over the same x positions, an optional threshold line. Drawn at
 * the width it is given (measured), so text keeps its shape at any width.
 */
export function Chart({
  labels,
  series,
  threshold,
  height = 180,
  ariaLabel,
}: {
  labels: string[];
  series: ChartSeries[];
  threshold?: number | null;
  height?: number;
  ariaLabel: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(720);
  useEffect(() => {
    const element = ref.current;
    if (!element || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver((entries) => {
      const measured = Math.round(entries[0]?.contentRect.width ?? 0);
      if (measured > 0) setWidth(measured);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const pad = { left: 44, right: 8, top: 10, bottom: 24 };
  const values = series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const max = niceCeil(Math.max(0, ...values, threshold ?? 0) * 1.05);
  const n = Math.max(1, labels.length);
  const step = (width - pad.left - pad.right) / n;
  const y = (v: number) => pad.top + (height - pad.top - pad.bottom) * (1 - v / max);
  const x = (i: number) => pad.left + step * i + step / 2;
  const ticks = [0, max / 2, max];
  const labelEvery = Math.max(1, Math.ceil(n / Math.max(2, Math.floor(width / 90))));
  const bars = series.filter((s) => s.kind === 'bar');
  return (
    <div ref={ref} className="chart-box">
      <svg className="chart" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={ariaLabel}>
        {ticks.map((t) => (
          <g key={t}>
            <line x1={pad.left} x2={width - pad.right} y1={y(t)} y2={y(t)} className="chart-grid" />
            <text x={pad.left - 6} y={y(t) + 4} textAnchor="end" className="chart-tick">
              {tickLabel(t)}
            </text>
          </g>
        ))}
        {bars.map((s, si) =>
          s.values.map((v, i) =>
            v === null ? null : (
              <rect
                key={`${s.name}-${i}`}
                x={pad.left + step * i + (step * si) / bars.length + 1}
                width={Math.max(1, step / bars.length - 2)}
                y={y(v)}
                height={Math.max(0, y(0) - y(v))}
                className={`chart-bar ${s.tone}`}
              >
                <title>{`${labels[i]}: ${s.name} ${v}`}</title>
              </rect>
            ),
          ),
        )}
        {series
          .filter((s) => s.kind === 'line')
          .map((s) => (
            <polyline
              key={s.name}
              className={`chart-line ${s.tone}`}
              fill="none"
              points={s.values
                .map((v, i) => (v === null ? null : `${x(i)},${y(v)}`))
                .filter(Boolean)
                .join(' ')}
            />
          ))}
        {threshold !== undefined && threshold !== null && (
          <line x1={pad.left} x2={width - pad.right} y1={y(threshold)} y2={y(threshold)} className="chart-threshold">
            <title>{`threshold ${threshold}`}</title>
          </line>
        )}
        {labels.map((l, i) =>
          i % labelEvery === 0 ? (
            <text key={i} x={x(i)} y={height - 6} textAnchor="middle" className="chart-tick">
              {l}
            </text>
          ) : null,
        )}
      </svg>
    </div>
  );
}
