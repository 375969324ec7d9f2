import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/** A small history router: the dashboard's pages are paths under `/`, served by the API server. */

const listeners = new Set<() => void>();

export function navigate(to: string, options: { replace?: boolean; keepScroll?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  if (!options.keepScroll) window.scrollTo(0, 0);
  for (const listener of listeners) listener();
}

window.addEventListener('popstate', () => {
  for (const listener of listeners) listener();
});

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

const snapshot = () => window.location.pathname + window.location.search;

/** The current path and query; re-renders on navigation (a store React re-reads after subscribing). */
export function useLocation(): { path: string; search: URLSearchParams } {
  useSyncExternalStore(subscribe, snapshot);
  return { path: window.location.pathname, search: new URLSearchParams(window.location.search) };
}

/** Matches `/projects/:projectId/runs/:runId` against a path; the params, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const a = pattern.split('/').filter(Boolean);
  const b = path.split('/').filter(Boolean);
  if (a.length !== b.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    const p = a[i]!;
    const v = b[i]!;
    if (p.startsWith(':')) params[p.slice(1)] = decodeURIComponent(v);
    else if (p !== v) return null;
  }
  return params;
}

/** An `<a>` that navigates in place (and still opens in a new tab with a modifier key). */
export function Link({ to, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={handle} {...rest} />;
}
