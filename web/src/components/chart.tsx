import { useEffect, useRef, useState } from 'react';
import { fmtCompact } from '../format.js';

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
  onSelect,
}: {
  labels: string[];
  series: ChartSeries[];
  threshold?: number | null;
  height?: number;
  ariaLabel: string;
  /** Points `first`..`last` picked: a click picks one (drill into it), a drag several (zoom to them). */
  onSelect?: (first: number, last: number) => void;
}) {
  const [drag, setDrag] = useState<{ from: number; to: number } | null>(null);
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
      <svg
        className="chart"
        onMouseLeave={() => setDrag(null)}
        width={width}
        height={height}
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={ariaLabel}
      >
        {ticks.map((t) => (
          <g key={t}>
            <line x1={pad.left} x2={width - pad.right} y1={y(t)} y2={y(t)} className="chart-grid" />
            <text x={pad.left - 6} y={y(t) + 4} textAnchor="end" className="chart-tick">
              {fmtCompact(t)}
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
        {drag && (
          <rect
            x={pad.left + step * Math.min(drag.from, drag.to)}
            width={step * (Math.abs(drag.to - drag.from) + 1)}
            y={pad.top}
            height={height - pad.top - pad.bottom}
            className="chart-selection"
          />
        )}
        {onSelect &&
          labels.map((l, i) => (
            <rect
              key={`pick-${i}`}
              x={pad.left + step * i}
              width={step}
              y={pad.top}
              height={height - pad.top - pad.bottom}
              fill="transparent"
              style={{ cursor: 'zoom-in' }}
              data-point={i}
              onMouseDown={(e) => {
                e.preventDefault();
                setDrag({ from: i, to: i });
              }}
              onMouseEnter={() => setDrag((d) => (d ? { ...d, to: i } : d))}
              onMouseUp={() => {
                if (drag) onSelect(Math.min(drag.from, i), Math.max(drag.from, i));
                setDrag(null);
              }}
            >
              <title>{`${l}: click to look at this ${labels.length > 1 ? 'bucket' : 'point'}, drag to zoom`}</title>
            </rect>
          ))}
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
