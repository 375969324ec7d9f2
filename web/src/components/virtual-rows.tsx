import { useVirtualizer, useWindowVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from 'react';

/** Rows drawn beyond the view on each side, so a short scroll shows rows already there. */
const OVERSCAN = 8;

interface Props<T> {
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
}

/**
 * Rows of a fixed height of which only those in view (and a few around them) are in the document: 10,000
 * rows cost what 30 do. Which rows those are is @tanstack/react-virtual's arithmetic; the ARIA table is
 * ours. With `scroll="box"` (the default) the rows scroll in a box of `height`; with `scroll="page"` they
 * scroll with the document (no box of their own: the page's scrollbar, keys and wheel move them), the rows
 * in the window's view drawn. `onNearEnd` is called when the view comes within a screen of the last row
 * (to load the next page).
 */
export function VirtualRows<T>(props: Props<T>) {
  return props.scroll === 'page' ? <PageRows {...props} /> : <BoxRows {...props} />;
}

function BoxRows<T>(props: Props<T>) {
  const box = useRef<HTMLDivElement>(null);
  const height = props.height ?? 0;
  const virtualizer = useVirtualizer({
    count: props.items.length,
    getScrollElement: () => box.current,
    estimateSize: () => props.rowHeight,
    overscan: OVERSCAN,
    initialRect: { width: 0, height },
  });
  const { reveal = null, rowHeight } = props;
  useEffect(() => {
    const el = box.current;
    if (reveal === null || reveal < 0 || !el) return;
    const at = reveal * rowHeight;
    if (at < el.scrollTop || at + rowHeight > el.scrollTop + el.clientHeight) virtualizer.scrollToIndex(reveal, { align: 'center' });
    const row = el.getBoundingClientRect().top + at - el.scrollTop;
    if (row < 0 || row + rowHeight > window.innerHeight) el.scrollIntoView({ block: 'nearest' });
  }, [reveal, rowHeight, virtualizer]);
  return <Rows {...props} virtualizer={virtualizer} box={box} screen={Math.ceil(height / rowHeight)} margin={0} />;
}

function PageRows<T>(props: Props<T>) {
  const box = useRef<HTMLDivElement>(null);
  // Where the rows start in the document: what stands above them (a chart unfolded, a filter panel) moves them.
  const [margin, setMargin] = useState(0);
  useLayoutEffect(() => {
    const measure = () => {
      const el = box.current;
      if (el) setMargin(Math.round(el.getBoundingClientRect().top + window.scrollY));
    };
    measure();
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(measure);
    observer?.observe(document.body);
    return () => observer?.disconnect();
  }, []);
  const virtualizer = useWindowVirtualizer({
    count: props.items.length,
    estimateSize: () => props.rowHeight,
    overscan: OVERSCAN,
    scrollMargin: margin,
  });
  const { reveal = null, rowHeight } = props;
  useEffect(() => {
    const el = box.current;
    if (reveal === null || reveal < 0 || !el) return;
    const row = el.getBoundingClientRect().top + reveal * rowHeight;
    if (row < 0 || row + rowHeight > window.innerHeight) virtualizer.scrollToIndex(reveal, { align: 'center' });
  }, [reveal, rowHeight, virtualizer]);
  return <Rows {...props} virtualizer={virtualizer} box={box} screen={Math.ceil(window.innerHeight / rowHeight)} margin={margin} />;
}

function Rows<T>({
  items,
  rowHeight,
  height,
  scroll = 'box',
  renderRow,
  onNearEnd,
  label,
  header,
  rowClassName,
  virtualizer,
  box,
  screen,
  margin,
}: Props<T> & {
  virtualizer: Virtualizer<HTMLDivElement, Element> | Virtualizer<Window, Element>;
  box: RefObject<HTMLDivElement | null>;
  /** Rows a screen holds. */
  screen: number;
  /** Where the rows start in the scrolling element (the document's top, for `scroll="page"`). */
  margin: number;
}) {
  const page = scroll === 'page';
  const drawn = virtualizer.getVirtualItems();
  const last = drawn.length > 0 ? drawn[drawn.length - 1]!.index + 1 : 0;
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
        tabIndex={page ? undefined : 0}
      >
        <div role="presentation" style={{ height: items.length * rowHeight, position: 'relative' }}>
          {drawn.map(({ index, start }) =>
            index < items.length ? (
              <div
                key={index}
                role="row"
                aria-rowindex={index + 1}
                className={`sl-vrow ${rowClassName?.(items[index]!) ?? ''}`.trim()}
                style={{ position: 'absolute', top: start - margin, height: rowHeight, left: 0, right: 0 }}
              >
                {renderRow(items[index]!, index)}
              </div>
            ) : null,
          )}
        </div>
      </div>
    </div>
  );
}
