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
}: {
  items: T[];
  rowHeight: number;
  height: number;
  renderRow: (item: T, index: number) => ReactNode;
  onNearEnd?: () => void;
  label: string;
  header?: ReactNode;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const overscan = 8;
  const first = Math.max(0, Math.floor(top / rowHeight) - overscan);
  const last = Math.min(items.length, Math.ceil((top + height) / rowHeight) + overscan);
  useEffect(() => {
    if (onNearEnd && last >= items.length - Math.ceil(height / rowHeight)) onNearEnd();
  }, [last, items.length, height, rowHeight, onNearEnd]);
  return (
    <div role="table" aria-label={label} aria-rowcount={items.length} className="sl-vtable">
      {/* The header keeps the width of the box's scrollbar free too, so its columns stand over the rows'. */}
      {header && <div className="sl-vhead">{header}</div>}
      <div ref={box} className="sl-vbox" style={{ height, overflowY: 'auto' }} onScroll={(e) => setTop(e.currentTarget.scrollTop)} tabIndex={0}>
        <div role="rowgroup" style={{ height: items.length * rowHeight, position: 'relative' }}>
          {items.slice(first, last).map((item, i) => (
            <div
              key={first + i}
              role="row"
              aria-rowindex={first + i + 1}
              className="sl-vrow"
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
