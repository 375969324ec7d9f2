import { lazy, Suspense } from 'react';

/** The renderer and its libraries (remark-gfm, highlight.js) load with the first message shown, not with the dashboard. */
const Rendered = lazy(() => import('./markdown-render.js'));

/**
 * A model message's Markdown (markdown-render.tsx says what it renders, and that nothing in it runs as HTML);
 * its text as written while the renderer loads.
 */
export function Markdown({ text }: { text: string }) {
  return (
    <Suspense fallback={<div className="sl-md sl-md-plain">{text}</div>}>
      <Rendered text={text} />
    </Suspense>
  );
}
