import { useEffect, useRef, useState, type ReactNode } from 'react';

/** Rows drawn beyond the view on each side, so a short scroll shows rows already there. */
const OVERSCAN = 8;

/**
 * Rows of a fixed height of which only those in view (and a few around them) are in the document: 10,000
 * rows cost what 30 do. With `scroll="box"` (the default) the rows scroll in a box of `height`; with
 * `scroll="page"` they scroll with the document (no box of their own: the page's scrollbar, keys and
 * wheel move them), the rows in the window's view drawn. `onNearEnd` is called when the view comes
 * within a screen of the last row (to load the next page).
 */
export function VirtualRows<T>({
  items,
  rowHeight,
  height,
  scroll = 'box',
  renderRow,
  onNearEnd,
  label,
  header,
  reveal = null,
  rowClassName,
}: {
  items: T[];
  rowHeight: number;
  /** The box's height (`scroll="box"`); with `scroll="page"` the window's is used. */
  height?: number;
  scroll?: 'box' | 'page';
  renderRow: (item: T, index: number) => ReactNode;
  onNearEnd?: () => void;
  label: string;
  header?: ReactNode;
  /** A row to bring into view (scrolled to the middle of the box, and the box into the window) when it is out of view. */
  reveal?: number | null;
  rowClassName?: (item: T) => string | undefined;
}) {
  const box = useRef<HTMLDivElement>(null);
  const page = scroll === 'page';
  const [view, setView] = useState<{ top: number; bottom: number }>(() => ({ top: 0, bottom: page ? windowHeight() : (height ?? 0) }));
  const boxHeight = height ?? 0;
  useEffect(() => {
    if (!page) {
      setView((v) => (v.bottom - v.top === boxHeight ? v : { top: v.top, bottom: v.top + boxHeight }));
      return;
    }
    // The part of the rows in the window's view, in the rows' own coordinates: measured on each scroll
    // and resize (at most once a frame), and when the rows or what stands above them change.
    let frame = 0;
    const measure = () => {
      frame = 0;
      const el = box.current;
      if (!el) return;
      const at = el.getBoundingClientRect().top;
      const top = Math.max(0, -at);
      const bottom = Math.max(top, windowHeight() - at);
      // Only a change of the rows drawn re-renders: a scroll within a row does not.
      setView((v) =>
        Math.floor(v.top / rowHeight) === Math.floor(top / rowHeight) && Math.ceil(v.bottom / rowHeight) === Math.ceil(bottom / rowHeight)
          ? v
          : { top, bottom },
      );
    };
    const schedule = () => {
      if (frame === 0) frame = requestAnimationFrame(measure);
    };
    measure();
    window.addEventListener('scroll', schedule, { passive: true });
    window.addEventListener('resize', schedule);
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(schedule);
    observer?.observe(document.body);
    return () => {
      if (frame !== 0) cancelAnimationFrame(frame);
      window.removeEventListener('scroll', schedule);
      window.removeEventListener('resize', schedule);
      observer?.disconnect();
    };
  }, [page, boxHeight, rowHeight]);
  useEffect(() => {
    const el = box.current;
    if (reveal === null || reveal < 0 || !el) return;
    const at = reveal * rowHeight;
    if (page) {
      const row = el.getBoundingClientRect().top + at;
      if (row < 0 || row + rowHeight > windowHeight()) window.scrollBy({ top: row - (windowHeight() - rowHeight) / 2 });
      return;
    }
    if (at < el.scrollTop || at + rowHeight > el.scrollTop + el.clientHeight) {
      el.scrollTop = Math.max(0, at - (el.clientHeight - rowHeight) / 2);
      setView({ top: el.scrollTop, bottom: el.scrollTop + el.clientHeight });
    }
    const row = el.getBoundingClientRect().top + at - el.scrollTop;
    if (row < 0 || row + rowHeight > window.innerHeight) el.scrollIntoView({ block: 'nearest' });
  }, [reveal, rowHeight, page]);
  const first = Math.max(0, Math.floor(view.top / rowHeight) - OVERSCAN);
  const last = Math.min(items.length, Math.ceil(view.bottom / rowHeight) + OVERSCAN);
  const screen = Math.ceil((page ? windowHeight() : boxHeight) / rowHeight);
  useEffect(() => {
    if (onNearEnd && last >= items.length - screen) onNearEnd();
  }, [last, items.length, screen, onNearEnd]);
  return (
    <div role="table" aria-label={label} aria-rowcount={items.length} className={page ? 'sl-vtable sl-vpage' : 'sl-vtable'}>
      {/* In a box, the header keeps the width of the box's scrollbar free too, so its columns stand over the rows'. */}
      {header && (
        <div role="rowgroup" className="sl-vhead">
          {header}
        </div>
      )}
      {/* In a box, the rows' group is the scrolling box (in the tab order, so the keyboard scrolls it); the spacer inside only sizes it. */}
      <div
        ref={box}
        role="rowgroup"
        aria-label={`${label}: rows`}
        className="sl-vbox"
        style={page ? undefined : { height, overflowY: 'auto' }}
        onScroll={page ? undefined : (e) => setView({ top: e.currentTarget.scrollTop, bottom: e.currentTarget.scrollTop + boxHeight })}
        tabIndex={page ? undefined : 0}
      >
        <div role="presentation" style={{ height: items.length * rowHeight, position: 'relative' }}>
          {items.slice(first, last).map((item, i) => (
            <div
              key={first + i}
              role="row"
              aria-rowindex={first + i + 1}
              className={`sl-vrow ${rowClassName?.(item) ?? ''}`.trim()}
              style={{ position: 'absolute', top: (first + i) * rowHeight, height: rowHeight, left: 0, right: 0 }}
            >
              {renderRow(item, first + i)}
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}

const windowHeight = () => (typeof window === 'undefined' ? 800 : window.innerHeight);
