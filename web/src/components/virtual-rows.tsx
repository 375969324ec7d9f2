import { useEffect, useRef, useState, type ReactNode } from 'react';

/**
 * Rows of a fixed height in a scrolling box, of which only those in view (and a few around them) are in
 * the document: 10,000 rows cost what 30 do. `onNearEnd` is called when the view comes within a screen
 * of the last row (to load the next page).
 */
export function VirtualRows<T>({
  items,
  rowHeight,
  height,
  renderRow,
  onNearEnd,
  label,
  header,
  reveal = null,
  rowClassName,
}: {
  items: T[];
  rowHeight: number;
  height: number;
  renderRow: (item: T, index: number) => ReactNode;
  onNearEnd?: () => void;
  label: string;
  header?: ReactNode;
  /** A row to bring into view (scrolled to the middle of the box, and the box into the window) when it is out of view. */
  reveal?: number | null;
  rowClassName?: (item: T) => string | undefined;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  useEffect(() => {
    const el = box.current;
    if (reveal === null || reveal < 0 || !el) return;
    const at = reveal * rowHeight;
    if (at < el.scrollTop || at + rowHeight > el.scrollTop + el.clientHeight) {
      el.scrollTop = Math.max(0, at - (el.clientHeight - rowHeight) / 2);
      setTop(el.scrollTop);
    }
    const row = el.getBoundingClientRect().top + at - el.scrollTop;
    if (row < 0 || row + rowHeight > window.innerHeight) el.scrollIntoView({ block: 'nearest' });
  }, [reveal, rowHeight]);
  const overscan = 8;
  const first = Math.max(0, Math.floor(top / rowHeight) - overscan);
  const last = Math.min(items.length, Math.ceil((top + height) / rowHeight) + overscan);
  useEffect(() => {
    if (onNearEnd && last >= items.length - Math.ceil(height / rowHeight)) onNearEnd();
  }, [last, items.length, height, rowHeight, onNearEnd]);
  return (
    <div role="table" aria-label={label} aria-rowcount={items.length} className="sl-vtable">
      {/* The header keeps the width of the box's scrollbar free too, so its columns stand over the rows'. */}
      {header && (
        <div role="rowgroup" className="sl-vhead">
          {header}
        </div>
      )}
      {/* The rows' group is the scrolling box (in the tab order, so the keyboard scrolls it); the spacer inside only sizes it. */}
      <div
        ref={box}
        role="rowgroup"
        aria-label={`${label}: rows`}
        className="sl-vbox"
        style={{ height, overflowY: 'auto' }}
        onScroll={(e) => setTop(e.currentTarget.scrollTop)}
        tabIndex={0}
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
