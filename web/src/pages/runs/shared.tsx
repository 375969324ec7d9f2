/** Pieces shared by the projects, runs and run pages (owned by them; no shared file is changed). */
import { Fragment, useEffect, type ReactNode } from 'react';
import { api } from '../../api.js';
import { useAsync } from '../../hooks.js';
import { Link } from '../../router.js';
import type { Project, Run } from '../../types.js';

export const RUN_STATUSES = ['running', 'succeeded', 'failed'] as const;
export const RUN_KINDS = ['llm', 'chain', 'tool', 'retriever', 'embedding', 'agent', 'custom'] as const;

/** Sets the tab's title while the page is shown. */
export function useDocumentTitle(title: string | null | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} · Sightline` : 'Sightline';
  }, [title]);
}

/** A project, loaded by id. */
export function useProject(projectId: string) {
  return useAsync(() => api.get<Project>(`/projects/${encodeURIComponent(projectId)}`), `project:${projectId}`);
}

/** Where the page sits: links up to the projects list and the project. */
export function Breadcrumbs({ items }: { items: { label: ReactNode; to?: string }[] }) {
  return (
    <nav aria-label="Breadcrumb" className="sl-breadcrumbs">
      <ol>
        {items.map((item, i) => (
          <Fragment key={i}>
            <li>{item.to ? <Link to={item.to}>{item.label}</Link> : <span aria-current="page">{item.label}</span>}</li>
          </Fragment>
        ))}
      </ol>
    </nav>
  );
}

const pad = (n: number) => String(n).padStart(2, '0');

/** An ISO timestamp as a `datetime-local` value in the browser's time zone ('' if not a timestamp). */
export function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const base = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return d.getSeconds() || d.getMilliseconds() ? `${base}:${pad(d.getSeconds())}` : base;
}

/** A `datetime-local` value (local time) as an ISO timestamp; '' stays ''. */
export function fromLocalInput(local: string): string {
  if (!local) return '';
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

/** The run's total tokens, or null. */
export function totalTokens(run: Run): number | null {
  return run.usage ? run.usage.totalTokens : null;
}

/** A compact, exact instant: `Nov 21, 15:48:40.123` (the year when it is not this one). */
export function fmtInstant(iso: string | null | undefined, withMs = false): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const date = d.toLocaleDateString(undefined, {
    month: 'short',
    day: 'numeric',
    ...(d.getFullYear() !== new Date().getFullYear() ? { year: 'numeric' } : {}),
  });
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', ...(withMs ? { fractionalSecondDigits: 3 } : {}) });
  return `${date}, ${time}`;
}

const searchKey = (projectId: string) => `sightline:runs-search:${projectId}`;

/** Remembers a project's runs-list query for this tab, so "back to the runs" keeps the filters. */
export function rememberRunsSearch(projectId: string, search: string): void {
  try {
    sessionStorage.setItem(searchKey(projectId), search);
  } catch {
    // storage unavailable: the link just goes to the unfiltered list
  }
}

/** The runs-list path of a project, with the query last used in this tab. */
export function runsListPath(projectId: string): string {
  let search = '';
  try {
    search = sessionStorage.getItem(searchKey(projectId)) ?? '';
  } catch {
    // ignore
  }
  return `/projects/${projectId}/runs${search ? `?${search}` : ''}`;
}

/**
 * Changes the URL's query in place (a new history entry unless `replace`, so Back undoes it) without the scroll to the
 * top that a page navigation does: the router re-reads the location on popstate.
 */
export function setQuery(path: string, params: URLSearchParams, options: { replace?: boolean } = {}): void {
  const text = params.toString();
  const url = `${path}${text ? `?${text}` : ''}`;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.dispatchEvent(new PopStateEvent('popstate'));
}
