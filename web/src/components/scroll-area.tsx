import { useLayoutEffect, useRef, useState, type CSSProperties, type ReactNode } from 'react';

/**
 * A box that scrolls sideways when its content is wider than it (a wide table on a narrow screen). While it
 * does, it is a named region in the tab order, so the keyboard can reach it and scroll it with the arrow
 * keys; when everything fits it is a plain box, adding no tab stop.
 */
export function ScrollArea({ label, className, style, children }: { label: string; className?: string; style?: CSSProperties; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrolls, setScrolls] = useState(false);
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box) return;
    const measure = () => setScrolls(box.scrollWidth > box.clientWidth + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    for (const child of box.children) observer.observe(child);
    return () => observer.disconnect();
  }, []);
  return (
    <div ref={ref} className={className} style={style} {...(scrolls ? { tabIndex: 0, role: 'region', 'aria-label': `${label} (scrolls sideways)` } : {})}>
      {children}
    </div>
  );
}
